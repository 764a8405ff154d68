#include "core/io/ratings_part.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/line_shard.h"
#include "core/io/ratings_files.h"
#include "core/io/ratings_lines.h"

#include <QFile>
#include <QFileInfo>
#include <algorithm>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

namespace svi {
namespace {

// The lines of `bytes` (whole lines, the last maybe without its end), without their end of
// line ("\n" or "\r\n"), as LineReader returns them.
std::vector<std::string_view> linesWithoutEnds(const std::string& bytes)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < bytes.size()) {
        const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
        std::size_t length = end - start;
        if (length > 0 && bytes[start + length - 1] == '\r')
            --length;
        lines.emplace_back(bytes.data() + start, length);
        start = end + 1;
    }
    return lines;
}

// The ids every rank read, ascending and distinct.
std::vector<std::int64_t> unionOfIds(std::vector<std::int64_t> mine, Communicator& ranks,
                                     const std::string& path, const char* what)
{
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    std::vector<std::int64_t> all = ranks.allGatherValues<std::int64_t>(mine);
    std::sort(all.begin(), all.end());
    all.erase(std::unique(all.begin(), all.end()), all.end());
    if (all.size() > std::size_t(std::numeric_limits<std::int32_t>::max()))
        failFile(path, "more than 2³¹ − 1 " + std::string(what) + " ids");
    return all;
}

std::int32_t indexOf(const std::vector<std::int64_t>& ids, std::int64_t id)
{
    return std::int32_t(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
}

// A rating as sent to the rank of its user: user and item indices, value, line.
constexpr std::size_t kRecordBytes = 4 + 4 + 4 + 8;

void appendRecord(std::string& out, const Rating& e)
{
    char record[kRecordBytes];
    std::memcpy(record, &e.user, 4);
    std::memcpy(record + 4, &e.item, 4);
    std::memcpy(record + 8, &e.value, 4);
    std::memcpy(record + 12, &e.line, 8);
    out.append(record, kRecordBytes);
}

Rating readRecord(const char* record)
{
    Rating e;
    std::memcpy(&e.user, record, 4);
    std::memcpy(&e.item, record + 4, 4);
    std::memcpy(&e.value, record + 8, 4);
    std::memcpy(&e.line, record + 12, 8);
    return e;
}

} // namespace

std::optional<RatingsPart> readRatingsPart(const std::string& path, const std::string& itemsPath,
                                           Communicator& ranks)
{
    // What cannot be read in parts, or not at all, is left to loadRatings (the same choice on
    // every rank: it depends on the file only).
    const std::string file =
        QFileInfo(QString::fromStdString(path)).isDir() ? ratingsFileIn(path) : path;
    if (file.empty() || !QFileInfo(QString::fromStdString(file)).isFile())
        return std::nullopt;
    const std::optional<RatingsFormat> format = ratingsFormatOf(file);
    if (!format || isGzipped(file))
        return std::nullopt;
    const int R = ranks.size(), r = ranks.rank();

    std::string bytes;
    failTogether(ranks, [&] { bytes = readLineShard(QString::fromStdString(file), r, R); });
    std::vector<std::string_view> lines = linesWithoutEnds(bytes);

    // Where this part begins: the lines of the parts before, and whether any holds text (then
    // this part has no header and no byte-order mark). As the whole reader, a part skips the
    // mark on its lines up to its first non-empty one.
    bool text = false;
    for (std::string_view line : lines) {
        if (line.starts_with(kBom))
            line.remove_prefix(kBom.size());
        if (!line.empty()) {
            text = true;
            break;
        }
    }
    std::vector<double> counts(2 * std::size_t(R), 0.0);
    counts[std::size_t(r)] = double(lines.size());
    counts[std::size_t(R) + std::size_t(r)] = text ? 1.0 : 0.0;
    ranks.sum(counts);
    std::int64_t firstLine = 0;
    bool afterText = false;
    for (int q = 0; q < r; ++q) {
        firstLine += std::int64_t(counts[std::size_t(q)]);
        afterText = afterText || counts[std::size_t(R) + std::size_t(q)] > 0.0;
    }

    // This part's ratings, with their line numbers in the whole file.
    RatingLines parser(file, *format);
    parser.startAfterText(afterText);
    std::vector<RatingLine> read;
    std::vector<std::int64_t> lineOf;
    failTogether(ranks, [&] {
        RatingLine x;
        for (std::size_t i = 0; i < lines.size(); ++i) {
            const std::int64_t number = firstLine + std::int64_t(i) + 1;
            if (parser.parse(lines[i], number, x)) {
                read.push_back(x);
                lineOf.push_back(number);
            }
        }
    });
    lines = {};
    bytes = {};
    double found[2] = {double(read.size()), parser.sawHeader() ? 1.0 : 0.0};
    ranks.sum(found);
    if (found[0] == 0.0)
        failNoRatings(file, found[1] > 0.0);

    // Every rank's ids, so that indices are those of the whole file.
    RatingsPart out;
    Ratings& ratings = out.ratings;
    ratings.source = file;
    ratings.counts = *format == RatingsFormat::LastFm;
    out.total = std::int64_t(found[0]);
    std::vector<std::int64_t> users(read.size()), items(read.size());
    std::transform(read.begin(), read.end(), users.begin(),
                   [](const RatingLine& x) { return x.user; });
    std::transform(read.begin(), read.end(), items.begin(),
                   [](const RatingLine& x) { return x.item; });
    ratings.userIds = unionOfIds(std::move(users), ranks, file, "user");
    ratings.itemIds = unionOfIds(std::move(items), ranks, file, "item");

    // Each rating to the rank of its user: contiguous ranges of user indices, as shardOf.
    const std::int64_t U = ratings.users();
    std::vector<std::int64_t> bounds(std::size_t(R) + 1);
    for (int q = 0; q <= R; ++q)
        bounds[std::size_t(q)] = U * q / R;
    std::vector<std::string> outgoing(static_cast<std::size_t>(R));
    {
        std::vector<Rating> mapped(read.size());
        std::vector<std::size_t> sizes(std::size_t(R), 0);
        std::vector<int> owner(read.size());
        for (std::size_t k = 0; k < read.size(); ++k) {
            Rating& e = mapped[k];
            e.user = indexOf(ratings.userIds, read[k].user);
            e.item = indexOf(ratings.itemIds, read[k].item);
            e.value = read[k].value;
            e.line = lineOf[k];
            owner[k] =
                int(std::upper_bound(bounds.begin(), bounds.end(), e.user) - bounds.begin()) - 1;
            sizes[std::size_t(owner[k])] += kRecordBytes;
        }
        read = {};
        lineOf = {};
        for (int q = 0; q < R; ++q)
            outgoing[std::size_t(q)].reserve(sizes[std::size_t(q)]);
        for (std::size_t k = 0; k < mapped.size(); ++k)
            appendRecord(outgoing[std::size_t(owner[k])], mapped[k]);
    }
    const std::vector<std::string> incoming = ranks.allToAll(outgoing);
    outgoing = {};
    std::size_t received = 0;
    for (const std::string& from : incoming)
        received += from.size() / kRecordBytes;
    ratings.entries.reserve(received);
    for (const std::string& from : incoming) // rank order, each in file order: file order
        for (std::size_t at = 0; at + kRecordBytes <= from.size(); at += kRecordBytes)
            ratings.entries.push_back(readRecord(from.data() + at));
    out.info.held = ranks.shardOf(U);
    out.info.ranks = &ranks;

    // A pair rated twice is on its user's rank; the first repeat in the file is reported.
    std::string repeat;
    double key = 0.0;
    try {
        if (const auto pair = firstRepeat(ratings, file)) {
            key = double(ratings.entries[pair->repeat].line);
            failRepeat(ratings, *pair, file);
        }
    } catch (const DataError& e) {
        repeat = e.what();
    }
    if (const std::string first = ranks.earliestMessage(key, repeat); !first.empty())
        throw DataError(first);

    failTogether(ranks, [&] {
        const std::string titles = itemsPath.empty() ? findItemTitles(file, *format) : itemsPath;
        if (!titles.empty())
            setItemTitles(ratings, readItemTitles(titles));
    });
    return out;
}

} // namespace svi
