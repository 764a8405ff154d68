#pragma once
// Ratings (users × items, e.g. MovieLens) and their preparation for recommendation models: an
// optional binarisation and the held-out split of Gopalan, Hofman & Blei (2015, §4): for each
// user, a seeded random 20 % of their ratings become test entries and 1 % validation entries;
// the rest train. No Qt: the readers in core/io/ratings_files.h produce Ratings; this
// turns them into CountData (kind "ratings"). The functions are reentrant and may run on any
// thread.

#include "core/base/communicator.h"
#include "core/base/param_fields.h"
#include "core/data/count_data.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// One rating as read: dense 0-based user and item indices (see Ratings), the value on the
// file's scale (MovieLens: 1–5 stars, or 0.5–5 in half stars) and the file line it came from.
struct Rating
{
    std::int32_t user = 0;
    std::int32_t item = 0;
    float value = 0.0f;
    std::int64_t line = 0; // 1-based line of the file, for messages (0 when made in memory)
};

struct Ratings
{
    std::vector<Rating> entries;         // in file order; each (user, item) pair at most once
    std::vector<std::int64_t> userIds;   // index → the file's user id, ascending
    std::vector<std::int64_t> itemIds;   // index → the file's item id, ascending
    std::vector<std::string> itemTitles; // index → title (UTF-8), or empty when no metadata
    std::string source;                  // file name(s), for messages
    bool counts = false; // the values are counts (Last.fm plays), not ratings on a scale

    std::int64_t users() const { return std::int64_t(userIds.size()); }
    std::int64_t items() const { return std::int64_t(itemIds.size()); }
};

struct RatingsOptions : DeclaredOptions<RatingsOptions>
{
    RatingsOptions() { readDefaults(); }

    // 0: the rating is the count (a 4-star rating is y = 4). > 0: binarise, y = 1 for ratings
    // ≥ threshold and the rating dropped otherwise (it becomes an unobserved zero).
    double binarize{};
    double testFraction{};       // of each user's ratings
    double validationFraction{}; // of each user's ratings; sum with test < 1 (relations())
    std::uint64_t seed{};        // of the split

    // The settings' declarations (keys binarize, test_fraction, validation_fraction,
    // split_seed) bound to the fields.
    static const ParamFields<RatingsOptions>& fields();
    // The rule between fields that no range states: some ratings must train.
    std::optional<std::string> relations() const;

    bool operator==(const RatingsOptions&) const = default;
};

// What the split did, for 'svi info', the window's data summary and summary.json.
struct RatingsSplitStats
{
    std::int64_t users = 0, items = 0;
    std::int64_t train = 0, test = 0, validation = 0; // entries
    std::int64_t droppedBelowThreshold = 0;           // binarised away
    // Users left without any test entry: too few ratings to hold one out (round(testFraction ×
    // n_u) = 0, or none left after binarising), or every one returned to training.
    std::int64_t usersWithoutTest = 0;
    // Held-out (test or validation) entries of items with no training rating, moved back.
    std::int64_t returnedToTraining = 0;
};

// Ratings read in parts by the ranks of a distributed run (core/io/ratings_part.h): each rank
// holds the ratings of its users only, a contiguous range of user indices, with every user's
// and item's id (so that indices are those of the whole file on every rank).
struct RatingsPartInfo
{
    Shard held;                    // the users this rank holds the ratings of
    Communicator* ranks = nullptr; // the ranks that read the parts (sums over them)
};

// Binarises and splits (see the top of this file). For each user, in a seeded order drawn from
// their own stream (seed, "split", the user's file id), the user's n_u ratings (those left
// after binarising, taken in ascending item order) are shuffled; round(testFraction × n_u)
// become test entries and the validation count is validationFraction × n_u rounded at random
// (so that 1 % of the ratings are validation entries overall even when every user has fewer
// than 100); a user always keeps at least one training rating (the validation count gives way
// first, then the test count). Keying the stream by the file id and ordering by item
// makes a user's split depend only on the seed and that user's own ratings: not on the other
// users, their number or the order of the file's lines (until the return below).
// Then every held-out entry of an item left without any training rating is moved back into
// training (counted in returnedToTraining): a model cannot score an item it has never seen.
// Rows are users, columns items (users and items without any rating stay, as empty rows and
// columns, so indices match `ratings`); rowIds/columnIds come from userIds/itemIds, columnNames
// from itemTitles (the item id as text where a title is missing), rowNames are "user <id>";
// kind = "ratings"; no test rows (every user trains); finalise() is called. Values are stored
// as the counts (or 1 when binarised).
// Throws std::invalid_argument naming the problem: invalid options, an empty set of ratings (or
// none left after binarising), userIds/itemIds not strictly increasing, itemTitles neither
// empty nor one per item, indices out of range, a (user, item) pair twice, or a value that is
// not finite and > 0.
// With `part` (collective: every rank calls it), `ratings` holds only the part's users'
// ratings: each user's split is their own, as above, and what the split needs of every user —
// each item's number of training ratings, for the return to training — and the stats are
// summed over the ranks, so that every rank builds the rows the whole file gives its users,
// the other rows left empty (heldRows = part->held), and the same stats. A problem found on
// any rank (the first by line) is thrown on every rank.
CountDataPtr makeRatingsData(const Ratings& ratings, const RatingsOptions& options,
                             RatingsSplitStats* stats = nullptr,
                             const RatingsPartInfo* part = nullptr);

} // namespace svi
