#pragma once
// Counts files one line at a time (LDA-C and UCI docword, the formats described in
// corpus_files.h), shared by the readers of a whole file, of a part of one (corpus_part.h) and
// of a stream (corpus_stream.h). Not part of core/io's public interface.

#include "core/data/count_data.h"
#include "core/io/byte_source.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace svi {

// One (word, count) of a document being read, with where it came from for messages (LDA-C:
// its pair number; UCI: its line number).
struct CountEntry
{
    std::int32_t word = 0;
    float count = 0.0f;
    std::int64_t where = 0;
};

class LdacLines
{
public:
    // `vocabFile`: the vocabulary's file (for messages), empty when the words are named by
    // their ids; V: word ids must be below it (ldacVocabularyLimit).
    LdacLines(std::string path, std::string vocabFile, std::int64_t V);
    // Parses line `number` (from 1, for messages) and appends its document to `docs`; false for
    // a blank line, which is no document. Throws DataError naming the file, line and field.
    bool parse(std::string_view line, std::int64_t number, SparseRows& docs);
    // The largest word id parsed so far (−1 before any).
    std::int64_t maxWord() const { return m_maxWord; }

private:
    std::string m_path, m_vocabFile;
    std::int64_t m_V = 0;
    std::int64_t m_maxWord = -1;
    bool m_any = false;
    std::vector<std::string_view> m_fields;
    std::vector<CountEntry> m_row;
    std::vector<std::int32_t> m_cols;
    std::vector<float> m_counts;
};

// The bound on word ids: the vocabulary's size when there is a vocabulary file, otherwise the
// largest number of words named by their ids that is accepted.
std::int64_t ldacVocabularyLimit(bool named, std::int64_t vocabularySize);
// "0", "1", …, "n − 1": the words of a corpus without a vocabulary file.
std::vector<std::string> wordsNamedByIds(std::int64_t n);

// The largest word id accepted (ids are stored as int32).
inline constexpr std::int64_t kMaxWordId = std::numeric_limits<std::int32_t>::max() - 1;

// A whole number ≥ 0 written with digits only, at most `max`; otherwise the reason it is not.
std::optional<std::string> parseWholeUpTo(std::string_view text, std::int64_t max,
                                          std::int64_t& value);
// "first", "first + 1", …: n words named by their ids.
std::vector<std::string> numberedWords(std::int64_t n, std::int64_t first);
// Sorts a document's entries by word; returns the first repeated one (its index) or -1.
std::int64_t sortAndFindRepeat(std::vector<CountEntry>& row);
// Appends the document `row` (sorted by word) to `rows`; cols and counts are scratch.
void appendEntries(SparseRows& rows, const std::vector<CountEntry>& row,
                   std::vector<std::int32_t>& cols, std::vector<float>& counts);

// UCI docword (corpus_files.h): the header's D, W, NNZ and their lines.
struct UciHeader
{
    std::int64_t D = 0, W = 0, NNZ = 0;
    std::int64_t line[3] = {0, 0, 0};
};
// Reads the three header lines from `lines`, checked as readUciBagOfWords does (W against the
// vocabulary file's size, or the limit without one). Throws DataError naming the file and line.
UciHeader readUciHeader(LineReader& lines, const std::string& path, const std::string& vocabFile,
                        std::int64_t vocabularySize);
// Parses line `number`, "docID wordID count" within the header's bounds, into doc (1-based) and
// entry (0-based word); false for a blank line. Throws DataError naming the line and column.
bool parseUciTriple(std::string_view line, std::int64_t number, const std::string& path,
                    const UciHeader& h, std::vector<std::string_view>& fields, std::int64_t& doc,
                    CountEntry& entry);
// "document d, word w appears twice (also line L)", at e's line.
[[noreturn]] void failUciRepeat(const std::string& path, std::int64_t doc, const CountEntry& e,
                                std::int64_t earlierLine);
// Throws DataError naming the header's NNZ line unless `entries` triples were read.
void checkUciEntries(const std::string& path, const UciHeader& h, std::int64_t entries);

} // namespace svi
