#pragma once
// One MovieLens layout: the ratings file, with the titles file beside it when the input holds
// one after "\n%%\n", read as `svi run` and the window read a folder (loadRatings); a set of
// ratings that reads must then split (makeRatingsData) without complaint.

#include "core/data/count_data.h"
#include "core/data/ratings.h"
#include "core/io/ratings_files.h"
#include "tests/fuzz/fuzz_input.h"

#include <cmath>

namespace svi::fuzz {

inline int fuzzRatings(const std::uint8_t* data, std::size_t size, const char* ratingsName,
                       const char* titlesName)
{
    const TwoParts in = splitInput(data, size);
    const std::string ratings = writeInput(std::string("ml/") + ratingsName, in.first);
    if (in.hasSecond)
        writeInput(std::string("ml/") + titlesName, in.second);
    else
        removeInput(std::string("ml/") + titlesName);
    Ratings r;
    if (!expectOnly([&] { r = loadRatings(workDir() + "/ml"); }))
        return 0;
    require(!r.entries.empty(), "a file that reads holds a rating");
    for (std::size_t i = 1; i < r.userIds.size(); ++i)
        require(r.userIds[i - 1] < r.userIds[i], "user ids ascending");
    for (std::size_t i = 1; i < r.itemIds.size(); ++i)
        require(r.itemIds[i - 1] < r.itemIds[i], "item ids ascending");
    require(r.itemTitles.empty() || r.itemTitles.size() == r.itemIds.size(),
            "no titles or one per item");
    for (const Rating& e : r.entries)
        require(e.user >= 0 && e.user < r.users() && e.item >= 0 && e.item < r.items() &&
                    std::isfinite(e.value) && e.value > 0,
                "entries index users and items and hold a finite rating > 0");
    RatingsSplitStats stats;
    CountDataPtr d;
    try {
        d = makeRatingsData(r, RatingsOptions{}, &stats);
    } catch (const std::exception& e) {
        finding(std::string("ratings that read do not split: ") + e.what());
    }
    require(stats.train + stats.test + stats.validation == std::int64_t(r.entries.size()),
            "the split keeps every rating");
    require(d->train.rows() == r.users(), "one row per user");
    return 0;
}

} // namespace svi::fuzz
