#include "core/io/ratings_files.h"

#include "core/io/byte_source.h"
#include "core/io/path_names.h"
#include "core/io/ratings_lines.h"
#include "core/io/tokenizer.h"

#include <QDir>
#include <QFileInfo>
#include <QString>
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <unordered_map>

namespace svi {
namespace {

// How much of a file is read to sniff its layout; a longer first line is not a rating.
constexpr std::size_t kSniffBytes = 4096;
// Ids below this are re-indexed through a table (MovieLens ids are below 300 000), larger ones
// through a hash map.
constexpr std::int64_t kDirectIds = std::int64_t(1) << 22;

bool startsWithNoCase(std::string_view text, std::string_view prefix)
{
    if (text.size() < prefix.size())
        return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
        char c = text[i];
        if (c >= 'A' && c <= 'Z')
            c = char(c - 'A' + 'a');
        if (c != prefix[i])
            return false;
    }
    return true;
}

bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// --- one rating line -------------------------------------------------------------------------

struct Layout
{
    std::string_view delimiter;
    const char* delimiterName;             // for messages
    std::array<const char*, 4> fieldNames; // the file format's own names
    const char* form;                      // a rating line, for messages
    std::size_t bytesPerLine;              // about, for reserving
};

const Layout kTab{"\t",
                  "TAB",
                  {"user id", "item id", "rating", "timestamp"},
                  "'user id TAB item id TAB rating TAB timestamp'",
                  18};
const Layout kDat{"::",
                  "'::'",
                  {"UserID", "MovieID", "Rating", "Timestamp"},
                  "'UserID::MovieID::Rating::Timestamp'",
                  22};
const Layout kCsv{",",
                  "','",
                  {"userId", "movieId", "rating", "timestamp"},
                  "'userId,movieId,rating,timestamp'",
                  22};

constexpr std::string_view kArtistsHeader = "id\tname"; // lower case, as startsWithNoCase wants
constexpr std::string_view kLastFmHeader = "userid\tartistid\tweight";

const Layout kLastFm{"\t",
                     "TAB",
                     {"userID", "artistID", "weight", "timestamp"},
                     "'userID TAB artistID TAB weight'",
                     14};

const Layout& layoutOf(RatingsFormat format)
{
    switch (format) {
    case RatingsFormat::LastFm:
        return kLastFm;
    case RatingsFormat::Tab:
        return kTab;
    case RatingsFormat::Dat:
        return kDat;
    case RatingsFormat::Csv:
        break;
    }
    return kCsv;
}

// Splits `line` at `delimiter`; the first fields go to `out`; returns how many there are.
std::size_t splitAt(std::string_view line, std::string_view delimiter,
                    std::array<std::string_view, 4>& out)
{
    std::size_t n = 0, pos = 0;
    for (;;) {
        const std::size_t at =
            delimiter.size() == 1 ? line.find(delimiter[0], pos) : line.find(delimiter, pos);
        const std::size_t end = at == std::string_view::npos ? line.size() : at;
        if (n < out.size())
            out[n] = line.substr(pos, end - pos);
        ++n;
        if (at == std::string_view::npos)
            return n;
        pos = at + delimiter.size();
    }
}

// What went wrong on a line: field 0 for the line as a whole, else the field's number.
struct LineProblem
{
    std::size_t field = 0;
    std::string message;
};

std::string noDelimiter(std::string_view line, const Layout& layout)
{
    for (std::string_view other : {"\t", "::", ",", ";", "|", " "}) {
        if (other == layout.delimiter || line.find(other) == std::string_view::npos)
            continue;
        const std::string shown = other == "\t" ? "TAB" : "'" + std::string(other) + "'";
        return "no " + std::string(layout.delimiterName) + " between the fields (they are " +
               "separated by " + shown + "?); a rating is " + layout.form;
    }
    return "no " + std::string(layout.delimiterName) + " between the fields (one field, " +
           inQuotes(line) + "); a rating is " + layout.form;
}

// A whole number ≥ 1.
bool parseId(std::string_view text, std::int64_t& value, std::string* problem)
{
    const char* const end = text.data() + text.size();
    const auto r = std::from_chars(text.data(), end, value);
    if (r.ec == std::errc() && r.ptr == end && value >= 1)
        return true;
    if (problem)
        *problem = r.ec == std::errc::result_out_of_range && r.ptr == end
                       ? inQuotes(text) + " is too large (at most " +
                             std::to_string(std::numeric_limits<std::int64_t>::max()) + ")"
                   : r.ec == std::errc() && r.ptr == end
                       ? inQuotes(text) + ", but ids must be whole numbers ≥ 1"
                       : inQuotes(text) + " is not a whole number";
    return false;
}

// A finite number > 0 within float range.
bool parseRating(std::string_view text, float& value, std::string* problem)
{
    const char* const end = text.data() + text.size();
    double v = 0.0;
    const auto r = std::from_chars(text.data(), end, v, std::chars_format::general);
    if (r.ec == std::errc() && r.ptr == end && v > 0.0 &&
        v <= double(std::numeric_limits<float>::max())) {
        value = float(v);
        if (value > 0.0f)
            return true;
    }
    if (problem)
        *problem = r.ptr != end || (r.ec != std::errc() && r.ec != std::errc::result_out_of_range)
                       ? inQuotes(text) + " is not a number"
                       : inQuotes(text) + ", but a rating must be a finite number > 0";
    return false;
}

bool parseTimestamp(std::string_view text, std::string* problem)
{
    const char* const end = text.data() + text.size();
    std::int64_t v = 0;
    const auto r = std::from_chars(text.data(), end, v);
    if (r.ec == std::errc() && r.ptr == end)
        return true;
    if (problem)
        *problem = inQuotes(text) + " is not a whole number";
    return false;
}

// Parses one rating line; on failure fills `problem` (when given) and returns false. Builds no
// string on success: this runs 20 million times for ml-20m.
bool parseRatingLine(std::string_view line, const Layout& layout, std::int64_t& user,
                     std::int64_t& item, float& rating, LineProblem* problem)
{
    std::array<std::string_view, 4> f;
    const std::size_t n = splitAt(line, layout.delimiter, f);
    if (n != 3 && n != 4) {
        if (problem)
            problem->message = n == 1 ? noDelimiter(line, layout)
                                      : std::to_string(n) + " fields, but a rating is " +
                                            layout.form + " (or without the timestamp)";
        return false;
    }
    std::string* const message = problem ? &problem->message : nullptr;
    std::size_t bad = 0;
    if (!parseId(f[0], user, message))
        bad = 1;
    else if (!parseId(f[1], item, message))
        bad = 2;
    else if (!parseRating(f[2], rating, message))
        bad = 3;
    else if (n == 4 && !parseTimestamp(f[3], message))
        bad = 4;
    if (bad == 0)
        return true;
    if (problem)
        problem->field = bad;
    return false;
}

std::string fieldName(const Layout& layout, std::size_t field)
{
    return "field " + std::to_string(field) + " (" + layout.fieldNames[field - 1] + ")";
}

// --- re-indexing -----------------------------------------------------------------------------

// File ids → indices in the order first seen; then ranks turn those into ascending-id order.
class IdIndex
{
public:
    explicit IdIndex(const char* what) : m_what(what) {}

    std::int32_t operator()(std::int64_t id, const std::string& path, std::int64_t line)
    {
        if (id < kDirectIds) {
            if (std::size_t(id) >= m_table.size())
                m_table.resize(std::min(std::max(std::size_t(id) + 1, 2 * m_table.size()),
                                        std::size_t(kDirectIds)),
                               -1);
            std::int32_t& slot = m_table[std::size_t(id)];
            if (slot < 0)
                slot = add(id, path, line);
            return slot;
        }
        const auto it = m_map.find(id);
        if (it != m_map.end())
            return it->second;
        const std::int32_t index = add(id, path, line);
        m_map.emplace(id, index);
        return index;
    }

    // The ids in ascending order, and for each first-seen index its place among them.
    std::vector<std::int32_t> ranks(std::vector<std::int64_t>& sorted) const
    {
        std::vector<std::int32_t> order(m_ids.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
            return m_ids[std::size_t(a)] < m_ids[std::size_t(b)];
        });
        std::vector<std::int32_t> rank(m_ids.size());
        sorted.resize(m_ids.size());
        for (std::size_t r = 0; r < order.size(); ++r) {
            rank[std::size_t(order[r])] = std::int32_t(r);
            sorted[r] = m_ids[std::size_t(order[r])];
        }
        return rank;
    }

private:
    std::int32_t add(std::int64_t id, const std::string& path, std::int64_t line)
    {
        if (m_ids.size() >= std::size_t(std::numeric_limits<std::int32_t>::max()))
            failLine(path, line, "more than 2³¹ − 1 " + std::string(m_what) + " ids");
        m_ids.push_back(id);
        return std::int32_t(m_ids.size() - 1);
    }

    const char* m_what;
    std::vector<std::int32_t> m_table;
    std::unordered_map<std::int64_t, std::int32_t> m_map;
    std::vector<std::int64_t> m_ids;
};

// --- titles ----------------------------------------------------------------------------------

enum class TitlesFormat { Pipe, Dat, Csv, Tab };

// A movies.csv title: a plain field up to the next comma, or a quoted one with "" for a quote.
// `rest` starts at the title and is left after its comma.
bool nextCsvField(std::string_view& rest, std::string& out, std::string& problem)
{
    out.clear();
    if (rest.empty() || rest.front() != '"') {
        const std::size_t comma = rest.find(',');
        out.assign(rest.substr(0, comma));
        if (out.find('"') != std::string::npos) {
            problem = "a quote inside an unquoted title (" + inQuotes(out) +
                      "); a title with quotes is written \"…\"\"…\"";
            return false;
        }
        rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        return true;
    }
    std::size_t i = 1;
    for (;;) {
        const std::size_t quote = rest.find('"', i);
        if (quote == std::string_view::npos) {
            problem = "a quote opened and not closed (" + inQuotes(rest) +
                      "; a quoted title cannot span lines)";
            return false;
        }
        out.append(rest.substr(i, quote - i));
        if (quote + 1 < rest.size() && rest[quote + 1] == '"') {
            out.push_back('"');
            i = quote + 2;
            continue;
        }
        if (quote + 1 < rest.size() && rest[quote + 1] != ',') {
            problem = "text after the closing quote (" + inQuotes(rest.substr(quote + 1)) + ")";
            return false;
        }
        rest = quote + 1 < rest.size() ? rest.substr(quote + 2) : std::string_view();
        return true;
    }
}

} // namespace

// The check is one pass over each user's items marking the items seen (no sort: 20 M ratings
// in ml-20m); only when it finds a repeat are the user's ratings sorted, as keys
// item << 32 | entry, to name the lines.
std::optional<RepeatedRating> firstRepeat(const Ratings& r, const std::string& path)
{
    const std::vector<Rating>& e = r.entries;
    if (e.size() >= std::numeric_limits<std::uint32_t>::max())
        failFile(path, std::to_string(e.size()) + " ratings, more than 2³² − 2");
    std::vector<std::size_t> start(std::size_t(r.users()) + 1, 0);
    for (const Rating& x : e)
        ++start[std::size_t(x.user) + 1];
    std::partial_sum(start.begin(), start.end(), start.begin());
    // Entry numbers grouped by user, in file order (not initialised: every slot is written).
    const auto byUser = std::make_unique_for_overwrite<std::uint32_t[]>(e.size());
    {
        std::vector<std::size_t> next(start.begin(), start.end() - 1);
        for (std::size_t k = 0; k < e.size(); ++k)
            byUser[next[std::size_t(e[k].user)]++] = std::uint32_t(k);
    }
    std::vector<std::int32_t> seenBy(std::size_t(r.items()), -1); // item → the last user
    std::size_t repeat = e.size(), first = 0;
    std::vector<std::uint64_t> keys;
    for (std::size_t u = 0; u + 1 < start.size(); ++u) {
        bool repeated = false;
        for (std::size_t j = start[u]; j < start[u + 1]; ++j) {
            std::int32_t& seen = seenBy[std::size_t(e[byUser[j]].item)];
            repeated = repeated || seen == std::int32_t(u);
            seen = std::int32_t(u);
        }
        if (!repeated)
            continue;
        // Sorted by item, then file order: a repeat follows the entry it repeats.
        keys.clear();
        for (std::size_t j = start[u]; j < start[u + 1]; ++j)
            keys.push_back(std::uint64_t(e[byUser[j]].item) << 32 | byUser[j]);
        std::sort(keys.begin(), keys.end());
        for (std::size_t j = 1; j < keys.size(); ++j)
            if ((keys[j] >> 32) == (keys[j - 1] >> 32) && (keys[j] & 0xFFFFFFFFu) < repeat) {
                repeat = keys[j] & 0xFFFFFFFFu;
                first = keys[j - 1] & 0xFFFFFFFFu;
            }
    }
    if (repeat < e.size())
        return RepeatedRating{repeat, first};
    return std::nullopt;
}

void failRepeat(const Ratings& r, const RepeatedRating& pair, const std::string& path)
{
    const Rating& e = r.entries[pair.repeat];
    failLine(path, e.line,
             "user " + std::to_string(r.userIds[std::size_t(e.user)]) + " rated item " +
                 std::to_string(r.itemIds[std::size_t(e.item)]) + " again (first at line " +
                 std::to_string(r.entries[pair.first].line) + ")");
}

void failNoRatings(const std::string& path, bool header)
{
    failFile(path, header ? "no ratings (only a header line)" : "no ratings (the file is empty)");
}

RatingLines::RatingLines(std::string path, RatingsFormat format)
    : m_path(std::move(path)), m_format(format)
{
}

bool RatingLines::parse(std::string_view line, std::int64_t number, RatingLine& out)
{
    const std::string& path = m_path;
    const Layout& layout = layoutOf(m_format);
    if (m_first && line.starts_with(kBom))
        line.remove_prefix(kBom.size());
    if (line.empty())
        return false;
    if (m_first) {
        m_first = false;
        if (m_format == RatingsFormat::Csv && !isDigit(line.front())) {
            if (!startsWithNoCase(line, "userid,movieid,rating"))
                failLine(path, number,
                         inQuotes(line) + ", but the first line of a ratings.csv is the " +
                             "header 'userId,movieId,rating,timestamp' or a rating");
            m_header = true;
            return false;
        }
        if (m_format == RatingsFormat::LastFm && !isDigit(line.front())) {
            if (!startsWithNoCase(line, kLastFmHeader))
                failLine(path, number,
                         inQuotes(line) + ", but the first line of a Last.fm " +
                             "user_artists.dat is the header 'userID TAB artistID TAB " +
                             "weight' or a play count");
            m_header = true;
            return false;
        }
    }
    if (!parseRatingLine(line, layout, out.user, out.item, out.value, nullptr)) {
        LineProblem problem;
        parseRatingLine(line, layout, out.user, out.item, out.value, &problem);
        if (problem.field == 0)
            failLine(path, number, problem.message);
        failField(path, number, fieldName(layout, problem.field), problem.message);
    }
    if (m_format == RatingsFormat::LastFm && out.value != std::floor(out.value))
        failField(path, number, fieldName(layout, 3),
                  inQuotes(formatNumber(out.value)) + ", but a play count is a whole number ≥ 1");
    return true;
}

std::string ratingsFileIn(const std::string& folder)
{
    if (!isDirectory(folder))
        return {};
    const QDir dir(qstr(folder));
    for (const char* name : {"u.data", "ratings.dat", "ratings.csv", "user_artists.dat"})
        for (const QString& file : {QString(name), QString(name) + ".gz"})
            if (QFileInfo(dir.filePath(file)).isFile())
                return QDir::cleanPath(dir.filePath(file)).toStdString();
    return {};
}

std::optional<RatingsFormat> ratingsFormatOfName(const std::string& path)
{
    const QString name = plainName(path);
    if (name == "u.data")
        return RatingsFormat::Tab;
    // ml-100k's splits: u1.base … u5.test, ua.base, ub.test.
    if ((name.endsWith(".base") || name.endsWith(".test")) && name.startsWith('u') &&
        name.size() <= 7)
        return RatingsFormat::Tab;
    if (name == "ratings.dat")
        return RatingsFormat::Dat;
    if (name == "ratings.csv")
        return RatingsFormat::Csv;
    if (name == "user_artists.dat")
        return RatingsFormat::LastFm;
    return std::nullopt;
}

std::optional<RatingsFormat> ratingsFormatOfText(std::string_view text)
{
    text = text.substr(0, kSniffBytes); // as ratingsFormatOf reads, so that both agree
    std::string_view line = text;
    if (line.starts_with(kBom))
        line.remove_prefix(kBom.size());
    const std::size_t nl = line.find('\n');
    if (nl == std::string_view::npos && text.size() >= kSniffBytes)
        return std::nullopt; // a first line this long is not a rating
    line = line.substr(0, nl);
    if (line.ends_with('\r'))
        line.remove_suffix(1);
    if (startsWithNoCase(line, "userid,movieid,rating"))
        return RatingsFormat::Csv;
    if (startsWithNoCase(line, kLastFmHeader))
        return RatingsFormat::LastFm;
    std::int64_t user = 0, item = 0;
    float rating = 0.0f;
    if (line.find("::") != std::string_view::npos &&
        parseRatingLine(line, kDat, user, item, rating, nullptr))
        return RatingsFormat::Dat;
    if (line.find('\t') != std::string_view::npos &&
        parseRatingLine(line, kTab, user, item, rating, nullptr))
        return RatingsFormat::Tab;
    return std::nullopt;
}

std::optional<RatingsFormat> ratingsFormatOf(const std::string& path)
{
    if (isDirectory(path)) {
        const std::string file = ratingsFileIn(path);
        return file.empty() ? std::nullopt : ratingsFormatOf(file);
    }
    // The content first: a file named u.data may hold "::" lines, and any name may hold ratings.
    if (QFileInfo(qstr(path)).isFile()) {
        std::string head(kSniffBytes, '\0');
        try {
            ByteSource source(path);
            head.resize(source.readFull(head.data(), head.size()));
            if (const auto format = ratingsFormatOfText(head))
                return format;
        } catch (const DataError&) {
            // Unreadable or corrupt: the name decides, and reading reports the problem.
        }
    }
    return ratingsFormatOfName(path);
}

std::string findItemTitles(const std::string& ratingsPath, RatingsFormat format)
{
    const QDir dir = QFileInfo(qstr(ratingsPath)).dir();
    const QString name = format == RatingsFormat::Tab      ? "u.item"
                         : format == RatingsFormat::Dat    ? "movies.dat"
                         : format == RatingsFormat::LastFm ? "artists.dat"
                                                           : "movies.csv";
    for (const QString& file : {name, name + ".gz"})
        if (QFileInfo(dir.filePath(file)).isFile())
            return QDir::cleanPath(dir.filePath(file)).toStdString();
    return {};
}

Ratings readRatings(const std::string& path, RatingsFormat format)
{
    ByteSource source(path);
    LineReader lines(source);
    Ratings r;
    r.source = path;
    r.counts = format == RatingsFormat::LastFm;
    if (source.sizeHint() > 0)
        r.entries.reserve(std::size_t(source.sizeHint()) / layoutOf(format).bytesPerLine);

    IdIndex users("user"), items("item");
    RatingLines parser(path, format);
    std::string_view line;
    std::int64_t number = 0;
    RatingLine x;
    while (lines.next(line, number))
        if (parser.parse(line, number, x))
            r.entries.push_back(
                Rating{users(x.user, path, number), items(x.item, path, number), x.value, number});
    if (r.entries.empty())
        failNoRatings(path, parser.sawHeader());

    const std::vector<std::int32_t> userRank = users.ranks(r.userIds);
    const std::vector<std::int32_t> itemRank = items.ranks(r.itemIds);
    for (Rating& e : r.entries) {
        e.user = userRank[std::size_t(e.user)];
        e.item = itemRank[std::size_t(e.item)];
    }
    if (const auto pair = firstRepeat(r, path))
        failRepeat(r, *pair, path);
    return r;
}

std::vector<std::pair<std::int64_t, std::string>> readItemTitles(const std::string& path)
{
    const std::string bytes = readAllBytes(path);
    std::string_view raw(bytes);
    if (raw.starts_with(kBom))
        raw.remove_prefix(kBom.size());
    // UTF-8 when valid, else Latin-1 (ml-100k's u.item and ml-1m's movies.dat), as UTF-8.
    const std::string decoded = decodeText(raw);
    const std::string_view text(decoded);

    const QString name = plainName(path);
    std::optional<TitlesFormat> format;
    if (name == "u.item")
        format = TitlesFormat::Pipe;
    else if (name == "movies.dat")
        format = TitlesFormat::Dat;
    else if (name == "movies.csv")
        format = TitlesFormat::Csv;
    else if (name == "artists.dat")
        format = TitlesFormat::Tab;

    std::vector<std::pair<std::int64_t, std::string>> titles;
    std::unordered_map<std::int64_t, std::int64_t> seen; // id → line
    std::string title, problem;
    bool first = true, header = false;
    std::int64_t number = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t nl = std::min(text.find('\n', pos), text.size());
        std::string_view line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++number;
        if (line.ends_with('\r'))
            line.remove_suffix(1);
        if (trimmed(line).empty())
            continue;
        if (first) {
            first = false;
            if (!format) {
                if (startsWithNoCase(line, "movieid,"))
                    format = TitlesFormat::Csv;
                else if (startsWithNoCase(line, kArtistsHeader))
                    format = TitlesFormat::Tab;
                else if (line.find("::") != std::string_view::npos)
                    format = TitlesFormat::Dat;
                else if (line.find('|') != std::string_view::npos)
                    format = TitlesFormat::Pipe;
                else
                    failFile(path, "not a titles file: expected u.item, movies.dat, movies.csv "
                                   "or artists.dat, or a first line 'id|title|…', "
                                   "'id::title::genres' or the header 'movieId,title,genres' or "
                                   "'id TAB name TAB url TAB pictureURL'");
            }
            if (*format == TitlesFormat::Csv && !isDigit(line.front())) {
                if (!startsWithNoCase(line, "movieid,"))
                    failLine(path, number,
                             inQuotes(line) + ", but the first line of a movies.csv is the " +
                                 "header 'movieId,title,genres' or an item");
                header = true;
                continue;
            }
            if (*format == TitlesFormat::Tab && !isDigit(line.front())) {
                if (!startsWithNoCase(line, kArtistsHeader))
                    failLine(path, number,
                             inQuotes(line) + ", but the first line of an artists.dat is the " +
                                 "header 'id TAB name TAB url TAB pictureURL' or an artist");
                header = true;
                continue;
            }
        }
        std::string_view idText, rest;
        const char* idName = "movie id";
        const char* form = "'movie id|movie title|release date|…'";
        std::size_t cut = std::string_view::npos, skip = 1;
        switch (*format) {
        case TitlesFormat::Pipe:
            cut = line.find('|');
            break;
        case TitlesFormat::Dat:
            idName = "MovieID";
            form = "'MovieID::Title::Genres'";
            cut = line.find("::");
            skip = 2;
            break;
        case TitlesFormat::Csv:
            idName = "movieId";
            form = "'movieId,title,genres'";
            cut = line.find(',');
            break;
        case TitlesFormat::Tab:
            idName = "id";
            form = "'id TAB name TAB url TAB pictureURL'";
            cut = line.find('\t');
            break;
        }
        if (cut == std::string_view::npos)
            failLine(path, number, "one field (" + inQuotes(line) + "), but an item is " + form);
        idText = line.substr(0, cut);
        rest = line.substr(cut + skip);
        std::int64_t id = 0;
        if (!parseId(idText, id, &problem))
            failField(path, number, "field 1 (" + std::string(idName) + ")", problem);
        switch (*format) {
        case TitlesFormat::Pipe:
            title.assign(rest.substr(0, rest.find('|')));
            break;
        case TitlesFormat::Tab:
            title.assign(rest.substr(0, rest.find('\t')));
            break;
        case TitlesFormat::Dat:
            // The genres follow the last "::", so a title holding "::" stays whole.
            title.assign(rest.substr(0, rest.rfind("::")));
            break;
        case TitlesFormat::Csv:
            if (!nextCsvField(rest, title, problem))
                failField(path, number, "field 2 (title)", problem);
            break;
        }
        title = std::string(trimmed(title));
        const auto [at, added] = seen.emplace(id, number);
        if (!added)
            failField(path, number, "field 1 (" + std::string(idName) + ")",
                      "item " + std::to_string(id) + " is listed again (first at line " +
                          std::to_string(at->second) + ")");
        titles.emplace_back(id, title);
    }
    if (titles.empty())
        failFile(path, header ? "no items (only a header line)" : "no items (the file is empty)");
    return titles;
}

void setItemTitles(Ratings& ratings,
                   const std::vector<std::pair<std::int64_t, std::string>>& titles)
{
    ratings.itemTitles.clear();
    ratings.itemTitles.reserve(ratings.itemIds.size());
    for (std::int64_t id : ratings.itemIds)
        ratings.itemTitles.push_back(std::to_string(id));
    for (const auto& [id, title] : titles) {
        const auto it = std::lower_bound(ratings.itemIds.begin(), ratings.itemIds.end(), id);
        if (it != ratings.itemIds.end() && *it == id && !title.empty())
            ratings.itemTitles[std::size_t(it - ratings.itemIds.begin())] = title;
    }
}

Ratings loadRatings(const std::string& path, const std::string& itemsPath)
{
    std::string file = path;
    if (isDirectory(path)) {
        file = ratingsFileIn(path);
        if (file.empty())
            failFile(path, "no ratings file in the folder (expected u.data, ratings.dat, "
                           "ratings.csv or user_artists.dat, optionally .gz)");
    }
    if (!QFileInfo(qstr(file)).exists())
        failFile(file, "file does not exist");
    const std::optional<RatingsFormat> format = ratingsFormatOf(file);
    if (!format)
        failFile(file, "not a ratings file: expected u.data, u*.base, u*.test, "
                       "ratings.dat, ratings.csv or user_artists.dat (optionally .gz), or a "
                       "first line 'user TAB item TAB rating TAB timestamp', "
                       "'UserID::MovieID::Rating::Timestamp' or the header "
                       "'userId,movieId,rating,timestamp' or 'userID TAB artistID TAB weight'");
    Ratings r = readRatings(file, *format);
    const std::string items = itemsPath.empty() ? findItemTitles(file, *format) : itemsPath;
    if (!items.empty())
        setItemTitles(r, readItemTitles(items));
    return r;
}

} // namespace svi
