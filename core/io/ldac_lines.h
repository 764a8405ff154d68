#pragma once
// LDA-C documents one line at a time (the format is described in corpus_files.h), shared by
// the reader of a whole file and the reader of a part of one (corpus_part.h). Not part of
// core/io's public interface.

#include "core/data/count_data.h"
#include "core/io/byte_source.h"

#include <cstdint>
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

} // namespace svi
