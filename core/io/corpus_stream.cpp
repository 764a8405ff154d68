#include "core/io/corpus_stream.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/ldac_lines.h"

#include <algorithm>
#include <optional>

namespace svi {
namespace {

class LdacStream final : public DocumentStream
{
public:
    LdacStream(const std::string& path, const std::string& vocabFile, std::int64_t V)
        : m_parser(path, vocabFile, ldacVocabularyLimit(!vocabFile.empty(), V)), m_source(path),
          m_lines(m_source)
    {
    }

    std::int64_t read(std::int64_t n, SparseRows& rows) override
    {
        std::int64_t got = 0;
        while (got < n && fill()) {
            rows.appendRow(m_ahead.rowCols(0), m_ahead.rowCounts(0));
            m_ahead.rowStart.resize(1); // emptied, its capacity kept
            m_ahead.cols.clear();
            m_ahead.counts.clear();
            ++got;
        }
        m_read += got;
        return got;
    }
    bool atEnd() override { return !fill(); }
    std::int64_t documentsRead() const override { return m_read; }

private:
    // Parses the next document into m_ahead unless one waits there; false at the end.
    bool fill()
    {
        if (m_ahead.rows() > 0)
            return true;
        std::string_view line;
        std::int64_t number = 0;
        while (m_lines.next(line, number))
            if (m_parser.parse(line, number, m_ahead))
                return true;
        return false;
    }

    LdacLines m_parser;
    ByteSource m_source;
    LineReader m_lines;
    SparseRows m_ahead; // the next document, parsed (atEnd() looks ahead)
    std::int64_t m_read = 0;
};

// The largest word id of an LDA-C file, in a pass that keeps nothing else.
std::int64_t largestWordId(const std::string& path)
{
    LdacLines parser(path, {}, ldacVocabularyLimit(false, 0));
    ByteSource source(path);
    LineReader lines(source);
    std::string_view line;
    std::int64_t number = 0;
    SparseRows scratch;
    while (lines.next(line, number)) {
        parser.parse(line, number, scratch);
        if (scratch.rows() >= 1024) {
            scratch.rowStart.resize(1);
            scratch.cols.clear();
            scratch.counts.clear();
        }
    }
    return parser.maxWord();
}

} // namespace

OpenedStream openCorpusStream(const std::vector<std::string>& files,
                              const CorpusReadOptions& options)
{
    std::string counts, vocabFile = options.vocabulary;
    for (const std::string& f : files)
        if (f != kStandardInput && isVocabularyFile(f) && files.size() > 1)
            vocabFile = f;
        else if (counts.empty())
            counts = f;
        else
            failFile(f, "a stream reads one counts file (and its vocabulary); '" + counts +
                            "' is the counts");
    if (counts.empty())
        throw DataError("no counts file to read as a stream");
    const bool stdinput = counts == kStandardInput;
    if (!stdinput) {
        const std::optional<CorpusFormat> format = corpusFormatOf(counts);
        if (format != CorpusFormat::Ldac)
            failFile(counts, "is read as a stream (out_of_core) only from LDA-C counts, one "
                             "document per line; `svi split` writes a corpus's documents so");
        if (vocabFile.empty())
            vocabFile = findVocabulary(counts);
    }
    if (stdinput && vocabFile.empty())
        failFile(counts, "standard input is read once: give its vocabulary file (vocab), one "
                         "word per line, so that the words are fixed before the first document");
    OpenedStream out;
    out.source = stdinput ? "standard input" : counts;
    if (!vocabFile.empty()) {
        out.vocabulary = readVocabulary(vocabFile);
    } else {
        const std::int64_t maxWord = largestWordId(counts);
        if (maxWord < 0)
            failFile(counts, "no documents (the file is empty)");
        out.vocabulary = wordsNamedByIds(maxWord + 1);
    }
    out.stream =
        std::make_shared<LdacStream>(counts, vocabFile, std::int64_t(out.vocabulary.size()));
    return out;
}

} // namespace svi
