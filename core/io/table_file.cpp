#include "core/io/table_file.h"

#include "core/io/byte_source.h"
#include "core/io/table_text.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string_view>

namespace svi {
namespace {

using tabletext::guessDelimiter;
using tabletext::numberedName;
using tabletext::numberedNames;
using tabletext::overflows;
using tabletext::rowNamesAsColumns;

const float kNaN = std::numeric_limits<float>::quiet_NaN();

std::string plural(std::int64_t n, const char* what)
{
    return std::to_string(n) + " " + what + (n == 1 ? "" : "s");
}

// Spaces around fields are not part of them; a tab only when it does not separate fields.
bool isPad(char c, char delim)
{
    return (c == ' ' || c == '\t') && c != delim;
}

std::string_view trim(std::string_view s, char delim)
{
    while (!s.empty() && isPad(s.front(), delim))
        s.remove_prefix(1);
    while (!s.empty() && isPad(s.back(), delim))
        s.remove_suffix(1);
    return s;
}

// --- records -----------------------------------------------------------------------------------

// One line of the table: usually one line of the file, more when a quoted field holds line
// breaks. `text` has no line terminator and is valid until the next call to next().
struct Record
{
    std::string_view text;
    std::int64_t line = 0; // the file line it starts on, from 1
};

// A quote is a field's opening quote only at its start (after padding); elsewhere it is a
// plain character, as in 5" floppy. `delim` 0: not known yet.
bool opensQuotedField(const char* recordStart, const char* quote, char delim)
{
    // Before the delimiter is known, a tab may be one, so only spaces pad.
    const char padDelim = delim ? delim : '\t';
    const char* p = quote;
    while (p > recordStart && isPad(p[-1], padDelim))
        --p;
    if (p == recordStart)
        return true;
    const char c = p[-1];
    return delim ? c == delim : c == ',' || c == '\t' || c == ';';
}

// Whether one line ends inside a quoted field (as RecordReader scans a record).
bool leavesQuoteOpen(std::string_view line, char delim)
{
    const char* const start = line.data();
    const char* const end = start + line.size();
    bool inQuote = false;
    for (const char* x = start;; ++x) {
        x = static_cast<const char*>(std::memchr(x, '"', std::size_t(end - x)));
        if (!x)
            return inQuote;
        if (inQuote) {
            if (x + 1 < end && x[1] == '"')
                ++x; // "" inside quotes
            else
                inQuote = false;
        } else if (opensQuotedField(start, x, delim)) {
            inQuote = true;
        }
    }
}

// Splits the text into records, refilling its buffer from the source as it goes.
class RecordReader
{
public:
    RecordReader(const std::string& path, ByteSource& source) : m_text(source)
    {
        m_text.fill();
        const std::string_view head(m_text.bytes.data(), m_text.end);
        if (head.starts_with("\xFF\xFE") || head.starts_with("\xFE\xFF"))
            failFile(path, "the text is UTF-16; save it as UTF-8");
        if (std::memchr(head.data(), 0, std::min<std::size_t>(head.size(), 64 * 1024)))
            failFile(path,
                     "binary data, not delimited text (a spreadsheet must be saved as CSV first)");
        if (head.starts_with("\xEF\xBB\xBF"))
            m_text.pos = 3;
    }

    bool empty() const { return m_text.end == 0; }

    // Until it is set, a quote opens a field after a tab, comma or semicolon.
    void setDelimiter(char delim) { m_delim = delim; }

    bool next(Record& rec)
    {
        for (;;) {
            const char* const base = m_text.bytes.data();
            const char* const start = base + m_text.pos;
            const char* const end = base + m_text.end;
            const char* s = start;
            bool inQuote = false;
            std::int64_t breaks = 0; // line breaks inside quoted fields
            for (;;) {
                const auto* nl =
                    static_cast<const char*>(std::memchr(s, '\n', std::size_t(end - s)));
                const char* const segEnd = nl ? nl : end;
                for (const char* x = s;; ++x) {
                    x = static_cast<const char*>(std::memchr(x, '"', std::size_t(segEnd - x)));
                    if (!x)
                        break;
                    if (inQuote) {
                        if (x + 1 < segEnd && x[1] == '"')
                            ++x; // "" inside quotes
                        else
                            inQuote = false;
                    } else if (opensField(start, x)) {
                        inQuote = true;
                    }
                }
                if (nl && inQuote) {
                    ++breaks;
                    s = nl + 1;
                    continue;
                }
                if (!nl && !m_text.eof)
                    break; // the record may go on past the buffer: read more and rescan it
                if (!nl && start == end)
                    return false;
                const char* const stop = nl ? nl : end;
                std::size_t len = std::size_t(stop - start);
                if (len > 0 && start[len - 1] == '\r')
                    --len;
                rec.text = std::string_view(start, len);
                rec.line = m_line + 1;
                m_line += breaks + 1;
                m_text.pos = nl ? std::size_t(nl + 1 - base) : m_text.end;
                return true;
            }
            m_text.fill();
        }
    }

private:
    bool opensField(const char* recordStart, const char* quote) const
    {
        return opensQuotedField(recordStart, quote, m_delim);
    }

    TextBuffer m_text;
    char m_delim = 0;
    std::int64_t m_line = 0; // file lines consumed so far
};

bool isBlank(std::string_view text, char delim)
{
    return std::all_of(text.begin(), text.end(),
                       [delim](char c) { return c == ' ' || isPad(c, delim); });
}

// --- fields ------------------------------------------------------------------------------------

// One field from p, leaving p at the delimiter that ends it or at the end. Unquoted fields are
// trimmed views into the record; a quoted one is kept as written between its quotes, copied to
// `scratch` only when it holds "" escapes. Returns the problem, or nullptr.
const char* takeField(const char*& p, const char* end, char delim, std::string& scratch,
                      std::string_view& text)
{
    const char* q = p;
    while (q != end && isPad(*q, delim))
        ++q;
    if (q == end || *q != '"') {
        const auto* d = static_cast<const char*>(std::memchr(q, delim, std::size_t(end - q)));
        const char* const e = d ? d : end;
        text = trim(std::string_view(q, std::size_t(e - q)), delim);
        p = e;
        return nullptr;
    }
    const char* const open = ++q;
    bool escaped = false;
    for (;;) {
        const auto* close = static_cast<const char*>(std::memchr(q, '"', std::size_t(end - q)));
        if (!close)
            return "a quoted field is not closed";
        if (close + 1 != end && close[1] == '"') {
            if (!escaped)
                scratch.clear();
            scratch.append(q, close + 1);
            escaped = true;
            q = close + 2;
            continue;
        }
        if (escaped) {
            scratch.append(q, close);
            text = scratch;
        } else {
            text = std::string_view(open, std::size_t(close - open));
        }
        q = close + 1;
        break;
    }
    while (q != end && isPad(*q, delim))
        ++q;
    if (q != end && *q != delim)
        return "text after the closing quote";
    p = q;
    return nullptr;
}

enum class Cell { Number, Missing, NotFinite, OutOfRange, Text };

// A cell's value: a number, a missing value ("", NA, NaN in any case), or what is wrong.
// With ';' as delimiter a decimal comma is read too (1,5), as spreadsheets in many locales
// write it.
Cell classify(std::string_view text, char delim, float& value)
{
    text = trim(text, delim);
    value = kNaN;
    if (text.empty() || text == "NA")
        return Cell::Missing;
    const char* b = text.data();
    const char* const e = b + text.size();
    if (*b == '+' && text.size() > 1 && b[1] != '-' && b[1] != '+')
        ++b; // from_chars takes no plus sign
    double d = 0;
    auto r = std::from_chars(b, e, d);
    std::string_view number(b, std::size_t(e - b));
    char buf[64];
    if ((r.ec != std::errc() && r.ec != std::errc::result_out_of_range) || r.ptr != e) {
        const std::size_t n = std::size_t(e - b);
        if (delim != ';' || n > sizeof buf || std::count(b, e, ',') != 1 ||
            std::find(b, e, '.') != e)
            return Cell::Text;
        std::replace_copy(b, e, buf, ',', '.');
        r = std::from_chars(buf, buf + n, d);
        if ((r.ec != std::errc() && r.ec != std::errc::result_out_of_range) || r.ptr != buf + n)
            return Cell::Text;
        number = std::string_view(buf, n);
    }
    if (r.ec == std::errc::result_out_of_range) {
        if (overflows(number))
            return Cell::OutOfRange;
        value = 0.0f;
        return Cell::Number;
    }
    if (std::isnan(d))
        return Cell::Missing;
    if (std::isinf(d))
        return Cell::NotFinite;
    value = float(d);
    return std::isfinite(value) ? Cell::Number : Cell::OutOfRange;
}

// --- the table ---------------------------------------------------------------------------------

// One pass over the file: works out the layout from the header and the first data line, then
// checks every line against it and, when asked, converts the cells.
class Parser
{
public:
    Parser(const std::string& path, const TableReadOptions& options, bool wantValues,
           bool wantRowNames)
        : m_path(path), m_options(options), m_wantValues(wantValues), m_wantRowNames(wantRowNames)
    {
    }

    void run();
    // The data lines among chunks of whole lines of the file (readDelimitedLines), the layout
    // read from the file's head; stops at a line that leaves a quote open.
    void runLines(std::int64_t sizeHint, const tabletext::LineChunks& chunks);

    // Results.
    bool gzip = false;
    bool quotedBreak = false; // runLines: a line left a quoted field open
    bool lastColumnUnnamed() const { return m_dropCandidate; }
    bool lastColumnEmpty() const { return m_lastAllEmpty; }
    char delim = ',';
    bool hasRowNames = false;
    std::vector<std::string> columns; // value columns
    std::int64_t rows = 0;
    // rows × columns when values are wanted; has spare rows until run() returns.
    MatrixRF values;
    std::vector<std::string> rowNames;

private:
    // Reads the comments, header and first data line, decides the layout and returns that line.
    Record head(RecordReader& reader);
    std::vector<std::string> splitAll(const Record& rec);
    void decideLayout(const Record& first, const std::vector<std::string>& header,
                      const std::vector<std::string>& cells);
    void row(const Record& rec);
    float slowCell(const char*& p, const char* end, const Record& rec, int field);
    [[noreturn]] void failLine(const Record& rec, const std::string& reason) const;
    [[noreturn]] void failCell(const Record& rec, int field, const std::string& reason) const;
    [[noreturn]] void failCount(const Record& rec);

    const std::string& m_path;
    const TableReadOptions& m_options;
    const bool m_wantValues, m_wantRowNames;

    // Layout: every data line has m_fields fields: [row name] values… [empty, m_extraTrailing].
    int m_fields = 0;
    int m_first = 0; // index of the first value field
    int m_cols = 0;
    bool m_extraTrailing = false; // data lines end with a delimiter the header lacks
    std::int64_t m_firstDataLine = 0;
    bool m_dropCandidate = false;          // the last value column is unnamed…
    bool m_lastAllEmpty = true;            // …and so far empty on every line (then it is dropped)
    std::vector<std::string> m_fieldNames; // per field, for messages
    std::string m_expected;                // ", but the header has 39"
    std::string m_scratch;
};

void Parser::failLine(const Record& rec, const std::string& reason) const
{
    throw DataError("cannot read '" + m_path + "' line " + std::to_string(rec.line) + ": " +
                    reason);
}

void Parser::failCell(const Record& rec, int field, const std::string& reason) const
{
    std::string where = "cannot read '" + m_path + "' line " + std::to_string(rec.line) +
                        ", column " + std::to_string(field + 1);
    if (field < int(m_fieldNames.size()) && !m_fieldNames[std::size_t(field)].empty())
        where += " ('" + m_fieldNames[std::size_t(field)] + "')";
    throw DataError(where + ": " + reason);
}

// A line with the wrong number of fields: count them all for the message.
void Parser::failCount(const Record& rec)
{
    const char* p = rec.text.data();
    const char* const end = p + rec.text.size();
    int n = 0;
    for (;;) {
        std::string_view text;
        if (const char* problem = takeField(p, end, delim, m_scratch, text))
            failCell(rec, n, problem);
        ++n;
        if (p == end)
            break;
        ++p;
    }
    failLine(rec, plural(n, "field") + m_expected);
}

std::vector<std::string> Parser::splitAll(const Record& rec)
{
    std::vector<std::string> out;
    const char* p = rec.text.data();
    const char* const end = p + rec.text.size();
    for (;;) {
        std::string_view text;
        if (const char* problem = takeField(p, end, delim, m_scratch, text))
            failCell(rec, int(out.size()), problem);
        out.emplace_back(text);
        if (p == end)
            return out;
        ++p;
    }
}

void Parser::decideLayout(const Record& first, const std::vector<std::string>& header,
                          const std::vector<std::string>& cells)
{
    const int H = int(header.size());
    const int D = int(cells.size());
    float unused = 0;
    const bool firstIsText = classify(cells.front(), delim, unused) == Cell::Text;
    const bool corner = H > 0 && header.front().empty();
    const bool lastEmpty = D > 1 && first.text.back() == delim;
    const int forced = m_options.rowNames;
    std::vector<std::string> names;
    m_fields = D;
    m_firstDataLine = first.line;
    m_expected = ", but line " + std::to_string(first.line) + " has " + std::to_string(D);
    if (!m_options.header) {
        hasRowNames = forced == 1 || (forced < 0 && firstIsText);
        names.assign(std::size_t(D), std::string());
    } else if (D == H) {
        hasRowNames = forced == 1 || (forced < 0 && (corner || firstIsText));
        names = header;
        m_expected = ", but the header has " + std::to_string(H);
    } else if (D == H + 1 && forced != 0 && !(lastEmpty && (corner || !firstIsText))) {
        // R's write.table: the header names only the value columns.
        hasRowNames = true;
        names = header;
        names.insert(names.begin(), std::string());
    } else if (D == H + 1 && lastEmpty) {
        // Every data line ends with a delimiter; the header does not.
        hasRowNames = forced == 1 || (forced < 0 && (corner || firstIsText));
        names = header;
        names.emplace_back();
        m_extraTrailing = true;
    } else {
        failLine(first, plural(D, "field") + ", but the header has " + std::to_string(H));
    }
    m_first = hasRowNames ? 1 : 0;
    m_cols = m_fields - m_first - (m_extraTrailing ? 1 : 0);
    if (m_cols < 1)
        failFile(m_path, "no columns of values, only row names");
    m_dropCandidate = !m_extraTrailing && m_cols >= 2 && names.back().empty();
    m_fieldNames = names;
    for (int c = 0; c < m_cols; ++c) {
        std::string& name = m_fieldNames[std::size_t(m_first) + std::size_t(c)];
        if (name.empty())
            name = numberedName(c);
        columns.push_back(name);
    }
}

float Parser::slowCell(const char*& p, const char* end, const Record& rec, int field)
{
    std::string_view text;
    if (const char* problem = takeField(p, end, delim, m_scratch, text))
        failCell(rec, field, problem);
    float v = kNaN;
    switch (classify(text, delim, v)) {
    case Cell::Number:
    case Cell::Missing:
        return v;
    case Cell::NotFinite:
        failCell(rec, field, inQuotes(text) + " is not a finite number");
    case Cell::OutOfRange:
        failCell(rec, field, inQuotes(text) + " is beyond the range of single-precision floats");
    case Cell::Text:
        break;
    }
    // A first column of text is the rows' names (decideLayout); text anywhere else is refused,
    // by `svi info` as by a run, with what to do about it.
    failCell(rec, field,
             inQuotes(trim(text, delim)) +
                 " is not a number: a table's columns hold numbers (only a first column of "
                 "text is read, as row names); leave the column out of the file, or read the "
                 "file as Labelled data, whose columns may hold text (factors)");
}

// The hot loop: numbers are parsed straight from the buffer; only cells that are not plain
// numbers (missing, quoted, padded, wrong) take the slow path.
void Parser::row(const Record& rec)
{
    const char* p = rec.text.data();
    const char* const end = p + rec.text.size();
    if (hasRowNames) {
        std::string_view name;
        if (const char* problem = takeField(p, end, delim, m_scratch, name))
            failCell(rec, 0, problem);
        if (m_wantRowNames)
            rowNames.emplace_back(name);
    }
    // Without values wanted (inspectTableFile) every cell is still converted, into one
    // discarded slot, so that what `svi info` accepts is exactly what a run reads.
    float discarded = 0;
    float* out = nullptr;
    if (m_wantValues) {
        // Row-major with fixed columns, so growing is a realloc, often without a copy.
        if (rows == values.rows())
            values.conservativeResize(std::max<Eigen::Index>(2 * rows, 1024), m_cols);
        out = values.data() + rows * m_cols;
    }
    for (int c = 0; c < m_cols; ++c) {
        const int field = m_first + c;
        if (field > 0) {
            if (p == end)
                failCount(rec);
            ++p; // the delimiter
        }
        float& cell = out ? out[c] : discarded;
        if (p != end && *p != '"') {
            double d = 0;
            const auto r = std::from_chars(p, end, d);
            if (r.ec == std::errc() && (r.ptr == end || *r.ptr == delim)) {
                const float f = float(d);
                if (std::isfinite(f)) {
                    cell = f;
                    p = r.ptr;
                    continue;
                }
            }
        }
        cell = slowCell(p, end, rec, field);
    }
    if (m_extraTrailing) {
        if (p == end)
            failCount(rec);
        ++p;
        while (p != end && isPad(*p, delim))
            ++p;
        if (p != end) {
            const char* q = p;
            std::string_view text;
            if (!takeField(q, end, delim, m_scratch, text) && q == end)
                failCell(rec, m_fields - 1,
                         inQuotes(text) + " after the last column, where line " +
                             std::to_string(m_firstDataLine) + " ends with a delimiter");
            failCount(rec);
        }
    } else if (p != end) {
        failCount(rec);
    }
    if (m_dropCandidate && rec.text.back() != delim)
        m_lastAllEmpty = false;
    ++rows;
}

Record Parser::head(RecordReader& reader)
{
    if (reader.empty())
        failFile(m_path, "no data rows (the file is empty)");
    Record rec;
    bool found = false;
    while (!found && reader.next(rec))
        found = !isBlank(rec.text, 0) && !rec.text.starts_with('#');
    if (!found)
        failFile(m_path, "no data rows (only comments and blank lines)");
    delim = m_options.delimiter ? m_options.delimiter : guessDelimiter(m_path, rec.text);
    reader.setDelimiter(delim);

    std::vector<std::string> header;
    if (m_options.header) {
        header = splitAll(rec);
        m_fieldNames = header; // for messages about the first data line
        found = false;
        while (!found && reader.next(rec))
            found = !isBlank(rec.text, delim);
        if (!found)
            failFile(m_path, "no data rows (only a header line)");
    }
    decideLayout(rec, header, splitAll(rec));
    return rec;
}

void Parser::run()
{
    ByteSource source(m_path);
    gzip = source.gzip();
    RecordReader reader(m_path, source);
    Record rec = head(reader);
    if (source.sizeHint() > 0) {
        // Room for as many rows as lines like the first would fill the text: address space
        // only until written, and the spare rows are cut below.
        const std::int64_t guess = source.sizeHint() / std::int64_t(rec.text.size() + 1) + 16;
        const std::int64_t reserve = std::min(guess, std::max<std::int64_t>(1, (1 << 26) / m_cols));
        if (m_wantValues)
            values.resize(reserve, m_cols);
        if (m_wantRowNames && hasRowNames)
            rowNames.reserve(std::size_t(reserve));
    }
    do {
        if (!isBlank(rec.text, delim))
            row(rec);
    } while (reader.next(rec));

    if (m_wantValues)
        values.conservativeResize(rows, m_cols);
    if (m_dropCandidate && m_lastAllEmpty) {
        // Every line ended with a delimiter: that is not a column.
        --m_cols;
        if (m_wantValues)
            values.conservativeResize(rows, m_cols);
        columns.pop_back();
    }
}

void Parser::runLines(std::int64_t sizeHint, const tabletext::LineChunks& chunks)
{
    std::size_t firstLength = 0;
    {
        ByteSource source(m_path);
        gzip = source.gzip();
        RecordReader reader(m_path, source);
        firstLength = head(reader).text.size();
    }
    if (m_wantValues) {
        const std::int64_t guess = sizeHint / std::int64_t(firstLength + 1) + 16;
        values.resize(std::min(guess, std::max<std::int64_t>(1, (1 << 26) / m_cols)), m_cols);
    }
    Record rec;
    std::string_view bytes;
    std::int64_t number = 0;
    while (!quotedBreak && chunks(bytes, number)) {
        for (std::size_t start = 0; start < bytes.size(); ++number) {
            const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
            std::string_view text = bytes.substr(start, end - start);
            start = end + 1;
            if (number < m_firstDataLine)
                continue; // the head's
            if (!text.empty() && text.back() == '\r')
                text.remove_suffix(1);
            if (leavesQuoteOpen(text, delim)) {
                quotedBreak = true;
                break;
            }
            rec.text = text;
            rec.line = number;
            if (!isBlank(text, delim))
                row(rec);
        }
    }
    if (m_wantValues)
        values.conservativeResize(rows, m_cols);
}

void checkOptions(const char* function, const TableReadOptions& options)
{
    if (auto problem = options.validate())
        throw std::invalid_argument(std::string(function) + ": " + *problem);
}

} // namespace

std::optional<std::string> TableReadOptions::validate() const
{
    if (delimiter == '"' || delimiter == '\n' || delimiter == '\r')
        return std::string("delimiter = ") + (delimiter == '"' ? "'\"'" : "a line break") +
               ", but must not be a quote or a line break";
    if (rowNames < -1 || rowNames > 1)
        return "rowNames = " + std::to_string(rowNames) + ", but must be -1 (guess), 0 or 1";
    return std::nullopt;
}

Table readTableFile(const std::string& path, const TableReadOptions& options)
{
    checkOptions("readTableFile", options);
    Parser parser(path, options, true, true);
    parser.run();
    Table t;
    t.source = path;
    if (options.transpose) {
        t.values = parser.values.transpose();
        t.columns = parser.hasRowNames ? rowNamesAsColumns(std::move(parser.rowNames))
                                       : numberedNames(parser.rows);
        t.rowNames = std::move(parser.columns);
    } else {
        t.values = std::move(parser.values);
        t.columns = std::move(parser.columns);
        t.rowNames = std::move(parser.rowNames);
    }
    t.markers.assign(t.columns.size(), std::string());
    return t;
}

TableFileInfo inspectTableFile(const std::string& path, const TableReadOptions& options)
{
    checkOptions("inspectTableFile", options);
    Parser parser(path, options, false, options.transpose);
    parser.run();
    TableFileInfo info;
    info.hasRowNames = parser.hasRowNames;
    info.delimiter = parser.delim;
    info.gzip = parser.gzip;
    if (options.transpose) {
        info.rows = std::int64_t(parser.columns.size());
        info.cols = int(parser.rows);
        info.columns = parser.hasRowNames ? rowNamesAsColumns(std::move(parser.rowNames))
                                          : numberedNames(parser.rows);
    } else {
        info.rows = parser.rows;
        info.cols = int(parser.columns.size());
        info.columns = std::move(parser.columns);
    }
    return info;
}

DelimitedHeader scanDelimitedFile(const std::string& path,
                                  const std::function<void(const DelimitedHeader&)>& header,
                                  const DelimitedRow& row, char delimiter)
{
    TableReadOptions check;
    check.delimiter = delimiter;
    checkOptions("scanDelimitedFile", check);
    ByteSource source(path);
    RecordReader reader(path, source);
    if (reader.empty())
        failFile(path, "no data rows (the file is empty)");
    Record rec;
    bool found = false;
    while (!found && reader.next(rec))
        found = !isBlank(rec.text, 0) && !rec.text.starts_with('#');
    if (!found)
        failFile(path, "no data rows (only comments and blank lines)");
    DelimitedHeader out;
    out.gzip = source.gzip();
    out.delimiter = delimiter ? delimiter : guessDelimiter(path, rec.text);
    reader.setDelimiter(out.delimiter);

    // A field with "" escapes is unescaped into its own string: a deque, so that the views of
    // the fields before it stay valid as it grows.
    std::deque<std::string> scratch;
    std::vector<std::string_view> fields;
    const auto split = [&](const Record& r) {
        fields.clear();
        const char* p = r.text.data();
        const char* const end = p + r.text.size();
        for (;;) {
            if (scratch.size() <= fields.size())
                scratch.emplace_back();
            std::string_view text;
            if (const char* problem =
                    takeField(p, end, out.delimiter, scratch[fields.size()], text)) {
                std::string column = "column " + std::to_string(fields.size() + 1);
                if (fields.size() < out.columns.size())
                    column += " ('" + out.columns[fields.size()] + "')";
                failField(path, r.line, column, problem);
            }
            fields.push_back(text);
            if (p == end)
                return;
            ++p;
        }
    };
    split(rec);
    for (std::size_t c = 0; c < fields.size(); ++c)
        out.columns.push_back(fields[c].empty() ? numberedName(std::int64_t(c))
                                                : std::string(fields[c]));
    if (header)
        header(out);
    bool rows = false;
    while (reader.next(rec)) {
        if (isBlank(rec.text, out.delimiter))
            continue;
        split(rec);
        if (fields.size() != out.columns.size())
            failLine(path, rec.line,
                     plural(std::int64_t(fields.size()), "field") + ", but the header has " +
                         std::to_string(out.columns.size()));
        row(fields, rec.line);
        rows = true;
    }
    if (!rows)
        failFile(path, "no data rows (only a header line)");
    return out;
}

tabletext::DelimitedLines tabletext::readDelimitedLines(const std::string& path,
                                                        const TableReadOptions& options,
                                                        std::int64_t sizeHint,
                                                        const LineChunks& chunks)
{
    checkOptions("readDelimitedLines", options);
    Parser parser(path, options, true, false);
    parser.runLines(sizeHint, chunks);
    DelimitedLines out;
    out.values = std::move(parser.values);
    out.columns = std::move(parser.columns);
    out.gzip = parser.gzip;
    out.lastColumnUnnamed = parser.lastColumnUnnamed();
    out.lastColumnEmpty = parser.lastColumnEmpty();
    out.quotedBreak = parser.quotedBreak;
    return out;
}

} // namespace svi
