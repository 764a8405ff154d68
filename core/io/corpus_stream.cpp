#include "core/io/corpus_stream.h"

#include "core/io/byte_source.h"
#include "core/io/count_lines.h"
#include "core/io/data_error.h"
#include "core/io/tokenizer.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace svi {
namespace {

// A stream that parses one document ahead (atEnd() must know whether another comes): a
// subclass's parseNext() appends the next document to `ahead`, or returns false at the end.
class ParsedStream : public DocumentStream
{
public:
    std::int64_t read(std::int64_t n, SparseRows& rows) final
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
    bool atEnd() final { return !fill(); }
    std::int64_t documentsRead() const final { return m_read; }

protected:
    virtual bool parseNext(SparseRows& ahead) = 0;

private:
    bool fill() { return m_ahead.rows() > 0 || parseNext(m_ahead); }

    SparseRows m_ahead; // the next document, parsed
    std::int64_t m_read = 0;
};

class LdacStream final : public ParsedStream
{
public:
    LdacStream(const std::string& path, const std::string& vocabFile, std::int64_t V)
        : m_parser(path, vocabFile, ldacVocabularyLimit(!vocabFile.empty(), V)), m_source(path),
          m_lines(m_source)
    {
    }

private:
    bool parseNext(SparseRows& ahead) override
    {
        std::string_view line;
        std::int64_t number = 0;
        while (m_lines.next(line, number))
            if (m_parser.parse(line, number, ahead))
                return true;
        return false;
    }

    LdacLines m_parser;
    ByteSource m_source;
    LineReader m_lines;
};

// UCI docword lines, a document at a time: its triples must come grouped by document (as the
// UCI collections are written); a document without any triple is an empty row, as in memory.
class UciStream final : public ParsedStream
{
public:
    UciStream(const std::string& path, const std::string& vocabFile, std::int64_t V)
        : m_path(path), m_source(path), m_lines(m_source),
          m_header(readUciHeader(m_lines, path, vocabFile, V))
    {
    }

    std::int64_t words() const { return m_header.W; }

private:
    // The next document (1-based m_next) into `ahead`; false after D.
    bool parseNext(SparseRows& ahead) override
    {
        if (m_next > m_header.D)
            return false;
        m_row.clear();
        if (m_pending && m_pending->doc > m_next)
            return finish(ahead); // a document without any triple
        if (m_pending) {
            m_row.push_back(m_pending->entry);
            m_pending.reset();
        }
        std::int64_t doc = 0;
        CountEntry e;
        while (nextTriple(doc, e)) {
            if (doc > m_next) {
                m_pending = PendingTriple{doc, e};
                break;
            }
            m_row.push_back(e);
        }
        return finish(ahead);
    }
    // The next triple; false at the end of the file (where NNZ is checked).
    bool nextTriple(std::int64_t& doc, CountEntry& e)
    {
        std::string_view line;
        std::int64_t number = 0;
        while (!m_ended && m_lines.next(line, number)) {
            if (!parseUciTriple(line, number, m_path, m_header, m_fields, doc, e))
                continue;
            ++m_entries;
            if (doc < m_next)
                failLine(m_path, number,
                         "document " + std::to_string(doc) + " comes after document " +
                             std::to_string(m_next) +
                             ": a stream reads the triples grouped by document (sort the file "
                             "by its first column, or read it into memory)");
            return true;
        }
        if (!m_ended)
            checkUciEntries(m_path, m_header, m_entries);
        m_ended = true;
        return false;
    }
    // Document m_next from m_row (empty when it had no triple) into `ahead`.
    bool finish(SparseRows& ahead)
    {
        if (const std::int64_t j = sortAndFindRepeat(m_row); j >= 0)
            failUciRepeat(m_path, m_next, m_row[std::size_t(j)], m_row[std::size_t(j) - 1].where);
        appendEntries(ahead, m_row, m_cols, m_counts);
        ++m_next;
        return true;
    }

    struct PendingTriple
    {
        std::int64_t doc;
        CountEntry entry;
    };
    std::string m_path;
    ByteSource m_source;
    LineReader m_lines;
    UciHeader m_header;
    std::int64_t m_next = 1;    // the next document to give (1-based)
    std::int64_t m_entries = 0; // triples read
    bool m_ended = false;       // the last line was read
    std::optional<PendingTriple> m_pending;
    std::vector<CountEntry> m_row;
    std::vector<std::string_view> m_fields;
    std::vector<std::int32_t> m_cols;
    std::vector<float> m_counts;
};

// Documents made on a thread of their own (a reader that calls back per document: a folder or
// a tar archive of text, tokenized), handed over through a bounded queue, so that neither side
// holds more than kAhead of them. The reader's error reaches read() after the documents before
// it; dropping the stream stops the reader.
class QueuedStream final : public DocumentStream
{
public:
    struct Doc
    {
        std::vector<std::int32_t> cols;
        std::vector<float> counts;
    };
    using Push = std::function<void(Doc&&)>;

    explicit QueuedStream(std::function<void(const Push&)> produce)
    {
        m_thread = std::thread([this, produce = std::move(produce)] {
            try {
                produce([this](Doc&& d) { push(std::move(d)); });
            } catch (const Stopped&) {
            } catch (...) {
                const std::lock_guard lock(m_mutex);
                m_error = std::current_exception();
            }
            const std::lock_guard lock(m_mutex);
            m_done = true;
            m_changed.notify_all();
        });
    }
    ~QueuedStream() override
    {
        {
            const std::lock_guard lock(m_mutex);
            m_stop = true;
            m_changed.notify_all();
        }
        m_thread.join();
    }

    std::int64_t read(std::int64_t n, SparseRows& rows) override
    {
        std::int64_t got = 0;
        std::unique_lock lock(m_mutex);
        while (got < n) {
            m_changed.wait(lock, [&] { return !m_queue.empty() || m_done; });
            if (m_queue.empty()) {
                if (m_error)
                    std::rethrow_exception(std::exchange(m_error, nullptr));
                break;
            }
            const Doc& d = m_queue.front();
            rows.appendRow(d.cols, d.counts);
            m_queue.pop_front();
            m_changed.notify_all();
            ++got;
        }
        m_read += got;
        return got;
    }
    bool atEnd() override
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return !m_queue.empty() || m_done; });
        return m_queue.empty() && !m_error;
    }
    std::int64_t documentsRead() const override { return m_read; }

private:
    struct Stopped
    {
    };
    static constexpr std::size_t kAhead = 512;

    void push(Doc&& d)
    {
        std::unique_lock lock(m_mutex);
        m_changed.wait(lock, [&] { return m_queue.size() < kAhead || m_stop; });
        if (m_stop)
            throw Stopped{};
        m_queue.push_back(std::move(d));
        m_changed.notify_all();
    }

    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<Doc> m_queue;
    bool m_done = false, m_stop = false;
    std::exception_ptr m_error;
    std::int64_t m_read = 0;
    std::thread m_thread;
};

// A folder or archive of text: the vocabulary from the vocabulary file, or from a first pass
// that keeps only each word's counts (VocabularyCounts: the filters and the order of the
// in-memory reader); then the documents tokenized on the stream's thread, their words outside
// the vocabulary dropped, and a document left without any word dropped too (as in memory).
OpenedStream openTextStream(const std::string& path, const std::string& vocabFile,
                            const CorpusReadOptions& options)
{
    OpenedStream out;
    out.source = path;
    if (!vocabFile.empty()) {
        out.vocabulary = readVocabulary(vocabFile);
    } else {
        VocabularyCounts counts(options.tokenizer);
        forEachTextDocument(path, options, [&](const std::string&, std::string& bytes) {
            counts.add(bytes, nullptr);
        });
        for (std::int32_t raw : counts.kept())
            out.vocabulary.push_back(counts.word(raw));
        if (out.vocabulary.empty())
            failFile(path, "no words remain after the filters (min_df, max_df, stop words)");
    }
    auto ids = std::make_shared<std::unordered_map<std::string, std::int32_t>>();
    for (std::size_t w = 0; w < out.vocabulary.size(); ++w)
        ids->emplace(out.vocabulary[w], std::int32_t(w));
    out.stream =
        std::make_shared<QueuedStream>([path, options, ids](const QueuedStream::Push& push) {
            const Tokenizer tokenizer(options.tokenizer);
            std::vector<std::string> words;
            std::vector<std::int32_t> found;
            forEachTextDocument(path, options, [&](const std::string&, std::string& bytes) {
                words.clear();
                tokenizer.tokenize(bytes, words);
                found.clear();
                for (const std::string& w : words)
                    if (const auto it = ids->find(w); it != ids->end())
                        found.push_back(it->second);
                if (found.empty())
                    return;
                std::sort(found.begin(), found.end());
                QueuedStream::Doc d;
                for (std::size_t j = 0; j < found.size();) {
                    std::size_t k = j;
                    while (k < found.size() && found[k] == found[j])
                        ++k;
                    d.cols.push_back(found[j]);
                    d.counts.push_back(float(k - j));
                    j = k;
                }
                push(std::move(d));
            });
        });
    return out;
}

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
        const CorpusFormat format = corpusFormatOf(counts).value_or(CorpusFormat::TextFiles);
        if (format == CorpusFormat::TextFolder || format == CorpusFormat::TextArchive)
            return openTextStream(counts, vocabFile, options);
        if (format != CorpusFormat::Ldac && format != CorpusFormat::Uci)
            failFile(counts, "is read as a stream (out_of_core) from LDA-C or UCI counts, a "
                             "folder or a tar archive of text; `svi split` writes other corpora "
                             "as LDA-C");
        if (vocabFile.empty())
            vocabFile = findVocabulary(counts);
        if (format == CorpusFormat::Uci) {
            // W, in the header, fixes the vocabulary: no first pass.
            OpenedStream out;
            out.source = counts;
            if (!vocabFile.empty())
                out.vocabulary = readVocabulary(vocabFile);
            auto stream =
                std::make_shared<UciStream>(counts, vocabFile, std::int64_t(out.vocabulary.size()));
            if (vocabFile.empty())
                out.vocabulary = numberedWords(stream->words(), 1); // its ids are 1-based
            out.stream = std::move(stream);
            return out;
        }
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
