#include "core/io/count_lines.h"

#include "core/io/data_error.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>

namespace svi {
namespace {

// Without a vocabulary file the words are named by their ids, all of them up to the largest:
// a corrupt id must not make a reader name two billion words. Real vocabularies are far
// smaller (NYTimes 102,660 words, PubMed 141,043).
constexpr std::int64_t kMaxUnnamedWords = std::int64_t(1) << 22;
// UCI documents without any triple are rows that cost memory without a byte in the file; the
// header's D is bounded so that a corrupt one cannot ask for billions (PubMed has 8.2 million).
constexpr std::int64_t kMaxUciDocuments = std::int64_t(1) << 25;
// How to name the words without a vocabulary file, for messages (in the words of no front
// end: the window shows them too).
const char* const kGiveVocabulary = "the largest accepted without a vocabulary file (put one "
                                    "beside the counts, or name it in the setting vocab)";
// Counts are stored as float, exact up to 2^24.
constexpr std::int64_t kMaxCount = std::int64_t(1) << 24;

} // namespace

std::optional<std::string> parseWholeUpTo(std::string_view text, std::int64_t max,
                                          std::int64_t& value)
{
    const bool digits = !text.empty() && std::all_of(text.begin(), text.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
    if (!digits)
        return inQuotes(text) + " is not a whole number";
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec == std::errc::result_out_of_range || value > max)
        return inQuotes(text) + " is too large (at most " + std::to_string(max) + ")";
    return std::nullopt;
}

std::vector<std::string> numberedWords(std::int64_t n, std::int64_t first)
{
    std::vector<std::string> words;
    words.reserve(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i)
        words.push_back(std::to_string(i + first));
    return words;
}

// Sorts a document's entries by word; returns the first repeated one (its index) or -1.
std::int64_t sortAndFindRepeat(std::vector<CountEntry>& row)
{
    std::stable_sort(row.begin(), row.end(),
                     [](const CountEntry& a, const CountEntry& b) { return a.word < b.word; });
    for (std::size_t j = 1; j < row.size(); ++j)
        if (row[j].word == row[j - 1].word)
            return std::int64_t(j);
    return -1;
}

void appendEntries(SparseRows& rows, const std::vector<CountEntry>& row,
                   std::vector<std::int32_t>& cols, std::vector<float>& counts)
{
    cols.clear();
    counts.clear();
    for (const CountEntry& e : row) {
        cols.push_back(e.word);
        counts.push_back(e.count);
    }
    rows.appendRow(cols, counts);
}

LdacLines::LdacLines(std::string path, std::string vocabFile, std::int64_t V)
    : m_path(std::move(path)), m_vocabFile(std::move(vocabFile)), m_V(V)
{
}

bool LdacLines::parse(std::string_view line, std::int64_t number, SparseRows& docs)
{
    const std::string& path = m_path;
    std::vector<std::string_view>& fields = m_fields;
    splitFields(line, fields);
    if (fields.empty())
        return false;
    if (!m_any && std::memchr(line.data(), 0, line.size()))
        failFile(path, "binary data, not LDA-C text");
    m_any = true;
    std::int64_t N = 0;
    if (auto problem = parseWholeUpTo(fields[0], kMaxWordId, N))
        failField(path, number, "field 1 (N, the number of id:count pairs)", *problem);
    std::vector<CountEntry>& row = m_row;
    row.clear();
    for (std::size_t k = 1; k < fields.size(); ++k) {
        const std::string_view pair = fields[k];
        const std::string field = "pair " + std::to_string(k) + " (" + inQuotes(pair) + ")";
        const std::size_t colon = pair.find(':');
        if (colon == std::string_view::npos || pair.find(':', colon + 1) != std::string_view::npos)
            failField(path, number, field, "expected id:count");
        std::int64_t id = 0, count = 0;
        if (auto problem = parseWholeUpTo(pair.substr(0, colon), kMaxWordId, id))
            failField(path, number, field, "word id " + *problem);
        if (auto problem = parseWholeUpTo(pair.substr(colon + 1), kMaxCount, count))
            failField(path, number, field, "count " + *problem);
        if (count < 1)
            failField(path, number, field, "count 0, but counts must be ≥ 1");
        if (id >= m_V && m_vocabFile.empty())
            failField(path, number, field,
                      "word id " + std::to_string(id) + " is beyond " + std::to_string(m_V - 1) +
                          ", " + kGiveVocabulary);
        if (id >= m_V)
            failField(path, number, field,
                      "word id " + std::to_string(id) + " is beyond the vocabulary ('" +
                          m_vocabFile + "' has " + std::to_string(m_V) + " words, ids 0 to " +
                          std::to_string(m_V - 1) + ")");
        m_maxWord = std::max(m_maxWord, id);
        row.push_back({std::int32_t(id), float(count), std::int64_t(k)});
    }
    if (std::int64_t(row.size()) != N)
        failField(path, number, "field 1 (N, the number of id:count pairs)",
                  "N = " + std::to_string(N) + ", but " + std::to_string(row.size()) +
                      " pairs follow");
    if (const std::int64_t j = sortAndFindRepeat(row); j >= 0) {
        const CountEntry& e = row[std::size_t(j)];
        failField(path, number,
                  "pair " + std::to_string(e.where) + " (" +
                      inQuotes(fields[std::size_t(e.where)]) + ")",
                  "word id " + std::to_string(e.word) + " appears twice (also pair " +
                      std::to_string(row[std::size_t(j) - 1].where) + ")");
    }
    appendEntries(docs, row, m_cols, m_counts);
    return true;
}

std::int64_t ldacVocabularyLimit(bool named, std::int64_t vocabularySize)
{
    return named ? vocabularySize : kMaxUnnamedWords;
}

std::vector<std::string> wordsNamedByIds(std::int64_t n)
{
    return numberedWords(n, 0);
}

UciHeader readUciHeader(LineReader& lines, const std::string& path, const std::string& vocabFile,
                        std::int64_t vocabularySize)
{
    std::string_view line;
    std::int64_t number = 0;
    std::vector<std::string_view> fields;
    // The header: D, W and NNZ, one per line.
    const char* const headerNames[3] = {"D (the number of documents)", "W (the number of words)",
                                        "NNZ (the number of entries)"};
    const std::int64_t headerMax[3] = {std::numeric_limits<std::int32_t>::max(), kMaxWordId,
                                       std::numeric_limits<std::int64_t>::max() / 2};
    std::int64_t header[3] = {0, 0, 0};
    UciHeader h;
    for (int k = 0; k < 3; ++k) {
        bool found = false;
        while (!found && lines.next(line, number)) {
            splitFields(line, fields);
            found = !fields.empty();
        }
        if (!found)
            failFile(path, k == 0 ? std::string("no data (the file is empty)")
                                  : "the header ends before " + std::string(headerNames[k]) +
                                        " (a UCI docword file starts with the lines D, W and NNZ)");
        if (fields.size() != 1)
            failLine(path, number,
                     std::to_string(fields.size()) + " fields, but the header line " +
                         std::string(headerNames[k]) + " holds one number");
        if (auto problem = parseWholeUpTo(fields[0], headerMax[k], header[k]))
            failField(path, number, std::string("field 1, ") + headerNames[k], *problem);
        h.line[k] = number;
    }
    h.D = header[0];
    h.W = header[1];
    h.NNZ = header[2];
    if (h.D > kMaxUciDocuments)
        failField(path, h.line[0], std::string("field 1, ") + headerNames[0],
                  "D = " + std::to_string(h.D) + ", but at most " +
                      std::to_string(kMaxUciDocuments) + " documents are read");
    if (vocabFile.empty() && h.W > kMaxUnnamedWords)
        failField(path, h.line[1], std::string("field 1, ") + headerNames[1],
                  "W = " + std::to_string(h.W) + ", but " + std::to_string(kMaxUnnamedWords) +
                      " is " + kGiveVocabulary);
    if (!vocabFile.empty() && vocabularySize != h.W)
        failField(path, h.line[1], std::string("field 1, ") + headerNames[1],
                  "W = " + std::to_string(h.W) + ", but the vocabulary '" + vocabFile + "' has " +
                      std::to_string(vocabularySize) + " words");
    return h;
}

bool parseUciTriple(std::string_view line, std::int64_t number, const std::string& path,
                    const UciHeader& h, std::vector<std::string_view>& fields, std::int64_t& doc,
                    CountEntry& entry)
{
    splitFields(line, fields);
    if (fields.empty())
        return false;
    if (fields.size() != 3)
        failLine(path, number,
                 std::to_string(fields.size()) + " fields, but an entry is 'docID wordID count'");
    const char* const columnNames[3] = {"column 1 (docID)", "column 2 (wordID)",
                                        "column 3 (count)"};
    const std::int64_t columnMax[3] = {h.D, h.W, kMaxCount};
    std::int64_t v[3] = {0, 0, 0};
    for (int c = 0; c < 3; ++c) {
        if (auto problem = parseWholeUpTo(fields[std::size_t(c)],
                                          std::numeric_limits<std::int64_t>::max() / 2, v[c]))
            failField(path, number, columnNames[c], *problem);
        if (v[c] < 1 || v[c] > columnMax[c])
            failField(path, number, columnNames[c],
                      std::to_string(v[c]) + ", but must be in [1, " +
                          std::to_string(columnMax[c]) + "]" +
                          (c == 0   ? " (D on line " + std::to_string(h.line[0]) + ")"
                           : c == 1 ? " (W on line " + std::to_string(h.line[1]) + ")"
                                    : ""));
    }
    doc = v[0];
    entry = CountEntry{std::int32_t(v[1] - 1), float(v[2]), number};
    return true;
}

void failUciRepeat(const std::string& path, std::int64_t doc, const CountEntry& e,
                   std::int64_t earlierLine)
{
    failLine(path, e.where,
             "document " + std::to_string(doc) + ", word " + std::to_string(e.word + 1) +
                 " appears twice" +
                 (earlierLine > 0 ? " (also line " + std::to_string(earlierLine) + ")" : ""));
}

void checkUciEntries(const std::string& path, const UciHeader& h, std::int64_t entries)
{
    if (entries != h.NNZ)
        failField(path, h.line[2], "field 1, NNZ (the number of entries)",
                  "NNZ = " + std::to_string(h.NNZ) + ", but " + std::to_string(entries) +
                      " entries follow");
}

} // namespace svi
