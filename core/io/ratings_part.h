#pragma once
// A ratings file read in parts by the ranks of a distributed run, each rank reading only a
// byte range of it (line_shard.h), where the format allows it: a ratings file that is not
// gzip'd (a compressed one is read whole).
//
// A ratings file is not sorted by user in general (ml-100k's u.data is in random order), so a
// byte range does not hold whole users, while the held-out split is made user by user. So:
//   1. each rank parses its lines, numbered as in the whole file (the ranks exchange their
//      line counts first);
//   2. the ranks gather the union of their user ids and of their item ids, so that on every
//      rank a user's or item's index is its place among every id, ascending, as when the
//      whole file is read;
//   3. every rating is sent to the rank that owns its user: users are split among the ranks
//      in contiguous index ranges (Communicator::shardOf of the users), and each rank ends
//      with all the ratings of its users, in file order;
//   4. a (user, item) pair rated twice is then found on the rank of its user, naming both
//      lines; the one reported is the first in the file on whatever rank it is.
// makeRatingsData with the part's RatingsPartInfo then makes each user's split as the whole
// file does (core/data/ratings.h).
//
// Collective: every rank calls it, with the same arguments. A file that cannot be read, a bad
// line in any rank's part or a repeated pair fails on every rank with the same DataError (the
// whole file's reader's message, the same line number).

#include "core/base/communicator.h"
#include "core/data/ratings.h"

#include <cstdint>
#include <optional>
#include <string>

namespace svi {

struct RatingsPart
{
    // The ratings of this rank's users, in file order; every user's and item's id, the item
    // titles, the source (the ratings file) as loadRatings sets them.
    Ratings ratings;
    RatingsPartInfo info;   // the users held here, the ranks
    std::int64_t total = 0; // every rank's ratings
};

// This rank's part of the ratings `path` (a file or a folder holding one, as loadRatings
// takes it; `itemsPath` as there), or std::nullopt when it cannot be read in parts (gzip'd;
// or not a ratings file, which loadRatings then reports). Throws as above.
std::optional<RatingsPart> readRatingsPart(const std::string& path, const std::string& itemsPath,
                                           Communicator& ranks);

} // namespace svi
