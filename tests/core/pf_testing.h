#pragma once
// Ratings drawn in memory for the Poisson factorization tests.

#include "core/data/count_data.h"
#include "core/math/random.h"

#include <cmath>
#include <memory>
#include <vector>

namespace test_support {

// Ratings from a planted model: each user prefers one of G groups of items strongly, and
// counts are Poisson(θ_uᵀβ_i). 20 % of each user's non-zero entries are held out.
struct Planted
{
    svi::CountDataPtr data;
    std::vector<int> userGroup, itemGroup;
};

inline Planted planted(int users, int items, int groups, std::uint64_t seed, double strength = 3.0)
{
    Planted p;
    auto d = std::make_shared<svi::CountData>();
    d->vocabularySize = items;
    d->kind = "ratings";
    d->source = "planted ratings";
    svi::Rng rng(seed);
    for (int i = 0; i < items; ++i)
        p.itemGroup.push_back(i % groups);
    for (int u = 0; u < users; ++u) {
        const int g = int(rng.below(std::uint64_t(groups)));
        p.userGroup.push_back(g);
        const double activity = 0.5 + rng.uniform();
        std::vector<std::int32_t> trainCols, testCols;
        std::vector<float> trainCounts, testCounts;
        for (int i = 0; i < items; ++i) {
            const double rate = activity * (p.itemGroup[std::size_t(i)] == g ? strength : 0.02);
            // Poisson by inversion (small rates).
            double prob = std::exp(-rate), cdf = prob, x = rng.uniform();
            int y = 0;
            while (x > cdf && y < 50) {
                ++y;
                prob *= rate / y;
                cdf += prob;
            }
            if (y == 0)
                continue;
            if (rng.uniform() < 0.2) {
                testCols.push_back(i);
                testCounts.push_back(float(y));
            } else {
                trainCols.push_back(i);
                trainCounts.push_back(float(y));
            }
        }
        d->train.appendRow(trainCols, trainCounts);
        d->heldOut.appendRow(testCols, testCounts);
    }
    d->finalise();
    p.data = d;
    return p;
}

} // namespace test_support
