#pragma once
// Ratings files one line at a time (the layouts are described in ratings_files.h), shared by
// the reader of a whole file (readRatings) and the reader of a part of one (ratings_part.h),
// and the check for a (user, item) pair rated twice. Not part of core/io's public interface.

#include "core/data/ratings.h"
#include "core/io/ratings_files.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace svi {

// One rating line as read: the file's ids and the value.
struct RatingLine
{
    std::int64_t user = 0, item = 0;
    float value = 0.0f;
};

class RatingLines
{
public:
    RatingLines(std::string path, RatingsFormat format);
    // A reader that does not start at the top of the file: whether a non-empty line came
    // before its first (then a byte-order mark is not skipped and no header is looked for).
    // Call before the first parse().
    void startAfterText(bool afterText) { m_first = !afterText; }
    // Parses line `number` (from 1, for messages; without its end of line) into `out`; false
    // for a blank line or the header. Throws DataError naming the file, line and field.
    bool parse(std::string_view line, std::int64_t number, RatingLine& out);
    // Whether a header line was read.
    bool sawHeader() const { return m_header; }
    // Whether a non-empty line (header or rating) was read, or came before (startAfterText).
    bool sawText() const { return !m_first; }

private:
    std::string m_path;
    RatingsFormat m_format;
    bool m_first = true, m_header = false;
};

// Throws the DataError of a file without a rating ("only a header line" when `header`).
[[noreturn]] void failNoRatings(const std::string& path, bool header);

// The (user, item) pair repeated first in entry order: the entry that repeats it and the one
// it repeats (indices into r.entries), or std::nullopt when no pair is repeated. Throws
// DataError naming `path` when there are 2³² − 1 ratings or more.
struct RepeatedRating
{
    std::size_t repeat = 0, first = 0;
};
std::optional<RepeatedRating> firstRepeat(const Ratings& r, const std::string& path);
// Throws the DataError that names both lines of `pair` ("user 3 rated item 12 again (first at
// line 2)").
[[noreturn]] void failRepeat(const Ratings& r, const RepeatedRating& pair, const std::string& path);

} // namespace svi
