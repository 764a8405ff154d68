// Ratings load time (not a test):
//   bench_ratings PATH [--items FILE] [--repeat R] [--split]
// Loads the ratings R times (default 5) with loadRatings and prints their size and the fastest
// and median load; with --split, the time of makeRatingsData (default options) too.

#include "core/io/ratings_files.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace svi;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::string path, items;
    int repeat = 5;
    bool split = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--items" && value)
            items = argv[++i];
        else if (a == "--repeat" && value)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--split")
            split = true;
        else
            path = a;
    }
    if (path.empty()) {
        std::fprintf(stderr, "usage: bench_ratings PATH [--items FILE] [--repeat R] [--split]\n");
        return 2;
    }
    try {
        std::vector<double> loads, splits;
        Ratings ratings;
        for (int r = 0; r < repeat; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            ratings = loadRatings(path, items);
            loads.push_back(secondsSince(t0));
        }
        std::printf("%s: %zu ratings, %lld users, %lld items, %s\n", ratings.source.c_str(),
                    ratings.entries.size(), (long long)ratings.users(), (long long)ratings.items(),
                    ratings.itemTitles.empty() ? "no titles" : "titles");
        std::printf("load: %.4f s fastest, %.4f s median of %d\n",
                    *std::min_element(loads.begin(), loads.end()), median(loads), repeat);
        if (split) {
            RatingsSplitStats s;
            for (int r = 0; r < repeat; ++r) {
                const auto t0 = std::chrono::steady_clock::now();
                makeRatingsData(ratings, {}, &s);
                splits.push_back(secondsSince(t0));
            }
            std::printf("split: %.4f s fastest, %.4f s median; %lld train, %lld test, %lld "
                        "validation, %lld returned\n",
                        *std::min_element(splits.begin(), splits.end()), median(splits),
                        (long long)s.train, (long long)s.test, (long long)s.validation,
                        (long long)s.returnedToTraining);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
