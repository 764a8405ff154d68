#include "core/data/ratings.h"

#include "core/data/split_streams.h"
#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>

namespace svi {
namespace {

// Where each rating goes.
enum class Part : std::uint8_t { Train, Test, Validation };

[[noreturn]] void invalidRatings(const std::string& what)
{
    throw std::invalid_argument(what);
}

std::string sourceName(const Ratings& r)
{
    return "'" + (r.source.empty() ? std::string("ratings") : r.source) + "'";
}

// "line 7" for a rating read from a file, "rating 7" (its position, from 1) for one made in
// memory.
std::string where(const Ratings& r, std::size_t k)
{
    const std::int64_t line = r.entries[k].line;
    return line > 0 ? "line " + std::to_string(line) : "rating " + std::to_string(k + 1);
}

void checkIds(const std::vector<std::int64_t>& ids, const Ratings& r, const char* name)
{
    if (ids.empty())
        invalidRatings(sourceName(r) + " has no " + name);
    for (std::size_t i = 1; i < ids.size(); ++i)
        if (ids[i] <= ids[i - 1])
            invalidRatings(sourceName(r) + ": " + name + " are not strictly increasing (index " +
                           std::to_string(i - 1) + " is " + std::to_string(ids[i - 1]) +
                           ", index " + std::to_string(i) + " is " + std::to_string(ids[i]) + ")");
}

} // namespace

std::optional<std::string> RatingsOptions::relations() const
{
    if (!(testFraction + validationFraction < 1.0)) {
        // 1 − 0.8 is 0.19999999999999996 in binary; the bound reads as the user would write it.
        char bound[32];
        std::snprintf(bound, sizeof bound, "%.12g", 1.0 - testFraction);
        return settingError("validation_fraction", formatNumber(validationFraction),
                            "must be < 1 − " + settingRef("test_fraction") + " = " + bound +
                                " (some ratings must train)");
    }
    return std::nullopt;
}

const ParamFields<RatingsOptions>& RatingsOptions::fields()
{
    using O = RatingsOptions;
    // The split's own seed, apart from the run's "seed": the same split can then be scored
    // with models started from different seeds.
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(realParam("binarize", "Binarise at",
                           "0: a rating is a count (4 stars = 4); > 0: ratings ≥ this become 1 and "
                           "lower ones are dropped",
                           0.0, 0.0, kHuge),
                 &O::binarize)
            .add(realParam("test_fraction", "Test ratings",
                           "fraction of each user's ratings held out as test entries", 0.2, 0.0,
                           0.99),
                 &O::testFraction)
            .add(realParam("validation_fraction", "Validation ratings",
                           "fraction of each user's ratings held out for validation (rounded at "
                           "random per user)",
                           0.01, 0.0, 0.99),
                 &O::validationFraction)
            .add(splitSeedParam("seed of the held-out split (which ratings become test and "
                                "validation entries)"),
                 &O::seed);
    return f;
}

CountDataPtr makeRatingsData(const Ratings& ratings, const RatingsOptions& o,
                             RatingsSplitStats* stats, const RatingsPartInfo* part)
{
    if (auto problem = o.validate())
        invalidRatings(*problem);
    Communicator* const ranks = part ? part->ranks : nullptr;
    if (part && !ranks)
        invalidRatings("a part of the ratings without the ranks that read them");
    // Σ over the ranks of `values` (read in parts), in place.
    const auto sumOverRanks = [&](std::span<double> values) {
        if (ranks)
            ranks->sum(values);
    };
    // Throws on every rank the problem found first — by `key`, the rating's line — on any.
    const auto agree = [&](double key, const std::string& problem) {
        const std::string first = ranks ? ranks->earliestMessage(key, problem) : problem;
        if (!first.empty())
            invalidRatings(first);
    };
    const std::vector<Rating>& entries = ratings.entries;
    double total = double(entries.size());
    sumOverRanks({&total, 1});
    if (total == 0.0)
        invalidRatings(sourceName(ratings) + " has no ratings");
    if (entries.size() >= std::numeric_limits<std::uint32_t>::max())
        invalidRatings(sourceName(ratings) + " has " + std::to_string(entries.size()) +
                       " ratings, more than 2³² − 2");
    checkIds(ratings.userIds, ratings, "userIds");
    checkIds(ratings.itemIds, ratings, "itemIds");
    const std::int64_t U = ratings.users(), I = ratings.items();
    if (!ratings.itemTitles.empty() && std::int64_t(ratings.itemTitles.size()) != I)
        invalidRatings(sourceName(ratings) + " has " + std::to_string(ratings.itemTitles.size()) +
                       " item titles for " + std::to_string(I) + " items");

    const Shard held = part ? part->held : Shard{0, U};
    if (held.begin < 0 || held.end > U || held.begin > held.end)
        invalidRatings("the part's users [" + std::to_string(held.begin) + ", " +
                       std::to_string(held.end) + ") are not among the " + std::to_string(U) +
                       " users");

    // Check every rating and count each user's (for grouping them by user below).
    std::vector<std::uint32_t> userStart(std::size_t(U) + 1, 0);
    std::string problem;
    std::size_t bad = 0;
    for (std::size_t k = 0; k < entries.size() && problem.empty(); ++k) {
        const Rating& e = entries[k];
        bad = k;
        if (e.user < 0 || e.user >= U)
            problem = sourceName(ratings) + " " + where(ratings, k) + ": user index " +
                      std::to_string(e.user) + ", but there are " + std::to_string(U) + " users";
        else if (!held.contains(e.user))
            problem = sourceName(ratings) + " " + where(ratings, k) + ": user index " +
                      std::to_string(e.user) + ", but the part holds users [" +
                      std::to_string(held.begin) + ", " + std::to_string(held.end) + ")";
        else if (e.item < 0 || e.item >= I)
            problem = sourceName(ratings) + " " + where(ratings, k) + ": item index " +
                      std::to_string(e.item) + ", but there are " + std::to_string(I) + " items";
        else if (!(std::isfinite(e.value) && e.value > 0.0f))
            problem = sourceName(ratings) + " " + where(ratings, k) + ": rating " +
                      formatNumber(double(e.value)) + ", but ratings must be finite and > 0";
        else
            ++userStart[std::size_t(e.user) + 1];
    }
    const auto keyOf = [&](std::size_t k) {
        return entries[k].line > 0 ? double(entries[k].line) : double(k);
    };
    agree(problem.empty() ? 0.0 : keyOf(bad), problem);
    std::partial_sum(userStart.begin(), userStart.end(), userStart.begin());
    // Each user's ratings as keys item << 32 | entry, sorted: item order (the order the split
    // shuffles from, and the CSR column order), repeated pairs side by side with the one read
    // first ahead. Packed keys sort without touching the entries.
    std::vector<std::uint64_t> byUser(entries.size());
    {
        std::vector<std::uint32_t> next(userStart.begin(), userStart.end() - 1);
        for (std::size_t k = 0; k < entries.size(); ++k)
            byUser[next[std::size_t(entries[k].user)]++] =
                std::uint64_t(entries[k].item) << 32 | std::uint64_t(k);
    }
    constexpr std::uint64_t kEntry = 0xFFFFFFFFu;
    std::size_t repeat = entries.size(), repeatFirst = 0;
    for (std::int64_t u = 0; u < U; ++u) {
        const auto first = byUser.begin() + std::ptrdiff_t(userStart[std::size_t(u)]);
        const auto last = byUser.begin() + std::ptrdiff_t(userStart[std::size_t(u) + 1]);
        std::sort(first, last);
        for (auto it = first; it != last && it + 1 != last; ++it)
            if ((it[0] >> 32) == (it[1] >> 32) && (it[1] & kEntry) < repeat) {
                repeat = std::size_t(it[1] & kEntry);
                repeatFirst = std::size_t(it[0] & kEntry);
            }
    }
    // Every user's ratings are on one rank: a rank finds its users' repeats.
    if (repeat < entries.size()) {
        const Rating& e = entries[repeat];
        problem = sourceName(ratings) + " " + where(ratings, repeat) + ": user " +
                  std::to_string(ratings.userIds[std::size_t(e.user)]) + " rated item " +
                  std::to_string(ratings.itemIds[std::size_t(e.item)]) + " again (first at " +
                  where(ratings, repeatFirst) + ")";
    }
    agree(problem.empty() ? 0.0 : keyOf(repeat), problem);

    // Binarise: keep, per user and in item order, the ratings that remain and their values.
    std::vector<std::int32_t> item;
    std::vector<float> value;
    std::vector<std::uint32_t> keptStart(std::size_t(U) + 1, 0);
    item.reserve(entries.size());
    value.reserve(entries.size());
    std::int64_t dropped = 0;
    float largest = 0.0f;
    for (std::int64_t u = 0; u < U; ++u) {
        for (std::uint32_t j = userStart[std::size_t(u)]; j < userStart[std::size_t(u) + 1]; ++j) {
            const Rating& e = entries[std::size_t(byUser[j] & kEntry)];
            largest = std::max(largest, e.value);
            if (o.binarize > 0.0 && double(e.value) < o.binarize) {
                ++dropped;
                continue;
            }
            item.push_back(e.item);
            value.push_back(o.binarize > 0.0 ? 1.0f : e.value);
        }
        keptStart[std::size_t(u) + 1] = std::uint32_t(item.size());
    }
    // Kept ratings, and the largest rating, of every rank.
    double kept = double(item.size());
    sumOverRanks({&kept, 1});
    if (ranks) {
        const std::vector<float> largests = ranks->allGatherValues<float>({&largest, 1});
        largest = *std::max_element(largests.begin(), largests.end());
    }
    if (kept == 0.0)
        invalidRatings(fieldError("binarize", formatNumber(o.binarize),
                                  "drops every rating of " + sourceName(ratings) +
                                      " (the largest is " + formatNumber(double(largest)) + ")"));

    // The split, user by user from the user's own stream.
    std::vector<Part> assigned(item.size(), Part::Train);
    std::vector<std::uint32_t> order;
    for (std::int64_t u = 0; u < U; ++u) {
        const std::uint32_t begin = keptStart[std::size_t(u)];
        const std::int64_t n = std::int64_t(keptStart[std::size_t(u) + 1] - begin);
        if (n == 0)
            continue;
        Rng rng = Rng::stream(o.seed, kSplitStream, std::uint64_t(ratings.userIds[std::size_t(u)]));
        // Drawn even when the fraction is 0, so the test entries below do not depend on it.
        const double v = o.validationFraction * double(n);
        std::int64_t validation = std::int64_t(std::floor(v)) + (rng.uniform() < v - std::floor(v));
        std::int64_t test = std::min(std::int64_t(std::llround(o.testFraction * double(n))), n - 1);
        validation = std::min(validation, n - 1 - test);
        order.resize(std::size_t(n));
        std::iota(order.begin(), order.end(), begin);
        chooseFirst(order, std::size_t(test + validation), rng);
        for (std::int64_t k = 0; k < test + validation; ++k)
            assigned[order[std::size_t(k)]] = k < test ? Part::Test : Part::Validation;
    }

    // A held-out entry of an item nobody trains on could not be scored: back to training.
    // "Nobody" means every rank's users: the counts are summed (exact in doubles up to 2⁵³).
    std::vector<double> itemTrain(std::size_t(I), 0.0);
    for (std::size_t j = 0; j < item.size(); ++j)
        itemTrain[std::size_t(item[j])] += assigned[j] == Part::Train ? 1.0 : 0.0;
    sumOverRanks(itemTrain);
    std::int64_t returned = 0;
    for (std::size_t j = 0; j < item.size(); ++j)
        if (assigned[j] != Part::Train && itemTrain[std::size_t(item[j])] == 0.0) {
            assigned[j] = Part::Train;
            ++returned;
        }

    auto data = std::make_shared<CountData>();
    data->vocabularySize = I;
    data->source = ratings.source;
    data->kind = "ratings";
    data->values = o.binarize > 0.0 ? "binary" : ratings.counts ? "counts" : "stars";
    data->rowIds = ratings.userIds;
    data->columnIds = ratings.itemIds;
    data->columnNames.reserve(std::size_t(I));
    for (std::int64_t i = 0; i < I; ++i) {
        const bool titled =
            !ratings.itemTitles.empty() && !ratings.itemTitles[std::size_t(i)].empty();
        data->columnNames.push_back(titled ? ratings.itemTitles[std::size_t(i)]
                                           : std::to_string(ratings.itemIds[std::size_t(i)]));
    }
    data->rowNames.reserve(std::size_t(U));
    for (std::int64_t id : ratings.userIds)
        data->rowNames.push_back("user " + std::to_string(id));

    SparseRows* const target[3] = {&data->train, &data->heldOut, &data->validation};
    std::size_t count[3] = {0, 0, 0};
    for (const Part p : assigned)
        ++count[std::size_t(p)];
    for (int t = 0; t < 3; ++t) {
        target[t]->rowStart.reserve(std::size_t(U) + 1);
        target[t]->cols.reserve(count[t]);
        target[t]->counts.reserve(count[t]);
    }
    std::int64_t withoutTest = 0;
    for (std::int64_t u = 0; u < U; ++u) {
        // Already in item order, so every row's columns increase.
        for (std::uint32_t j = keptStart[std::size_t(u)]; j < keptStart[std::size_t(u) + 1]; ++j) {
            SparseRows& m = *target[std::size_t(assigned[j])];
            m.cols.push_back(item[j]);
            m.counts.push_back(value[j]);
        }
        for (SparseRows* m : target)
            m->rowStart.push_back(std::int64_t(m->cols.size()));
        // The other ranks' users (empty rows here) are counted by their ranks.
        withoutTest += held.contains(u) && data->heldOut.rowNonZeros(u) == 0;
    }
    if (part)
        data->heldRows = part->held;
    data->finalise();

    // The counts of every rank's users (summed whether or not asked for: every rank sums).
    double counts[6] = {double(data->train.nonZeros()),
                        double(data->heldOut.nonZeros()),
                        double(data->validation.nonZeros()),
                        double(dropped),
                        double(withoutTest),
                        double(returned)};
    sumOverRanks(counts);
    if (stats) {
        *stats = RatingsSplitStats{};
        stats->users = U;
        stats->items = I;
        stats->train = std::int64_t(counts[0]);
        stats->test = std::int64_t(counts[1]);
        stats->validation = std::int64_t(counts[2]);
        stats->droppedBelowThreshold = std::int64_t(counts[3]);
        stats->usersWithoutTest = std::int64_t(counts[4]);
        stats->returnedToTraining = std::int64_t(counts[5]);
    }
    return data;
}

} // namespace svi
