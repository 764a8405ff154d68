#pragma once
// Labelled data drawn in memory for the supervised models' tests.

#include "core/data/labelled_data.h"
#include "core/math/random.h"

#include <cmath>
#include <memory>

namespace test_support {

// n rows of standard-normal features; y = label(f, rng) with f = xᵀw, plus √noiseVariance ε
// when noiseVariance > 0 (GME's noise on f); the last `test` rows are test rows; each row's
// "line" in "planted.svm" is its index + 1.
template <typename Label>
svi::LabelledDataPtr plantedLabelled(int n, int test, const Eigen::VectorXd& w,
                                     double noiseVariance, svi::LabelKind kind, std::uint64_t seed,
                                     Label&& label)
{
    auto d = std::make_shared<svi::LabelledData>();
    svi::Rng rng(seed);
    d->x.resize(n, w.size());
    d->y.resize(n);
    for (int i = 0; i < n; ++i) {
        for (Eigen::Index j = 0; j < w.size(); ++j)
            d->x(i, j) = rng.normal();
        double f = d->x.row(i).dot(w);
        if (noiseVariance > 0)
            f += std::sqrt(noiseVariance) * rng.normal();
        d->y[i] = label(f, rng);
        (i < n - test ? d->trainingRows : d->testRows).push_back(i);
    }
    d->labelKind = kind;
    d->source = "planted";
    d->files = {"planted.svm"};
    for (int i = 0; i < n; ++i) {
        d->fileOfRow.push_back(0);
        d->lineOfRow.push_back(i + 1);
    }
    return d;
}

} // namespace test_support
