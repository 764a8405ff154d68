// Text corpora, read as documents × words: LDA-C and UCI bag-of-words counts, or raw text (a
// folder, a tar archive, text files) tokenized here; a share of documents held out for
// document completion (Hoffman et al. 2013, §4).

#include "core/data/corpus.h"
#include "core/io/byte_source.h"
#include "core/io/corpus_files.h"
#include "core/io/corpus_part.h"
#include "core/io/corpus_stream.h"
#include "core/io/data_error.h"
#include "core/io/data_files.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"
#include "core/io/run_files.h"

#include <cmath>
#include <mutex>
#include <numeric>
#include <optional>
#include <utility>

namespace svi::kinds {
namespace {

class RawCorpus : public RawData
{
public:
    RawCorpus(Corpus c, bool rawText) : m_corpus(std::move(c)), m_rawText(rawText) {}
    // This rank's part of a corpus read in parts by `ranks`.
    RawCorpus(CorpusPart part, Communicator& ranks)
        : m_corpus(std::move(part.corpus)), m_rawText(false), m_part(std::move(part.info)),
          m_ranks(&ranks)
    {
    }
    std::string summary() const override
    {
        const CorpusStats s = m_corpus.stats();
        const double tokens =
            m_part ? std::accumulate(m_part->tokens.begin(), m_part->tokens.end(), 0.0)
                   : double(s.tokens);
        return groupedNumber(s.documents) + " documents · " + groupedNumber(s.vocabulary) +
               " words in the vocabulary · " + groupedNumber(std::llround(tokens)) + " tokens" +
               (m_part ? " · read in " + std::to_string(m_ranks->size()) + " parts" : "");
    }
    // Raw text is tokenized here (its tokenizer and subset apply); counts files are read as
    // they are (their vocabulary file applies).
    std::vector<std::string> ignoredSettings() const override
    {
        if (m_rawText)
            return {"vocab"};
        std::vector<std::string> out = {"subset"};
        for (const ParamSpec& p : TokenizerOptions::allParams())
            out.push_back(p.key);
        return out;
    }
    const Corpus& corpus() const { return m_corpus; }
    // Set when read in parts: this rank's documents and every document's tokens.
    const CorpusPartInfo* part() const { return m_part ? &*m_part : nullptr; }
    // The ranks that read the parts (collective sums in build()); null when read whole.
    Communicator* ranks() const { return m_ranks; }

private:
    Corpus m_corpus;
    bool m_rawText;
    std::optional<CorpusPartInfo> m_part;
    Communicator* m_ranks = nullptr;
};

// A corpus read out of core: the stream opened (its vocabulary fixed), no document read yet.
// build() reads the stream's head (its test documents and the first training documents) and
// hands the rest to the trainer. A stream is read once: a second build() opens the file again
// (standard input cannot be, and says so).
class RawCorpusStream : public RawData
{
public:
    RawCorpusStream(OpenedStream opened, std::vector<std::string> files, CorpusReadOptions options,
                    bool rawText)
        : m_opened(std::move(opened)), m_files(std::move(files)), m_options(std::move(options)),
          m_rawText(rawText)
    {
    }
    std::string summary() const override
    {
        return groupedNumber(std::int64_t(m_opened.vocabulary.size())) +
               " words in the vocabulary · documents read as the run goes (out of core)";
    }
    // A stream is not subsampled; counts are not tokenized.
    std::vector<std::string> ignoredSettings() const override
    {
        if (m_rawText)
            return {"max_documents"};
        std::vector<std::string> out = {"subset", "max_documents"};
        for (const ParamSpec& p : TokenizerOptions::allParams())
            out.push_back(p.key);
        return out;
    }
    OpenedStream take() const
    {
        std::lock_guard lock(m_mutex);
        if (m_opened.stream)
            return std::exchange(m_opened, {});
        if (m_files.size() == 1 && m_files.front() == kStandardInput)
            throw DataError("standard input has been read already: run again to read it anew");
        return openCorpusStream(m_files, m_options);
    }

private:
    mutable std::mutex m_mutex;
    mutable OpenedStream m_opened;
    std::vector<std::string> m_files;
    CorpusReadOptions m_options;
    bool m_rawText;
};

BuiltData buildStream(const RawCorpusStream& raw, const DataDescription& d)
{
    OpenedStream s = raw.take();
    Corpus head;
    head.vocabulary = std::move(s.vocabulary);
    head.source = s.source;
    const std::int64_t wanted = getInt(d.settings, "stream_head");
    s.stream->read(wanted, head.docs);
    if (head.documents() == 0)
        throw DataError("'" + s.source + "' holds no document");
    CorpusOptions options = CorpusOptions::fromParams(d.settings);
    options.maxDocuments = 0; // a stream is not subsampled
    BuiltData out;
    const CountDataPtr data = makeCorpusData(head, options, nullptr, s.stream);
    out.data = data;
    out.summary = groupedNumber(data->cols()) + " words in the vocabulary · a head of " +
                  groupedNumber(data->rows()) + " documents (" +
                  groupedNumber(std::int64_t(data->testRows.size())) +
                  " test documents) · the rest read as the run goes (out of core)";
    out.facts = {{"head_documents", double(data->rows())},
                 {"vocabulary", double(data->cols())},
                 {"test_documents", double(data->testRows.size())}};
    return out;
}

// One document per line: "N id:count …" (LDA-C).
QByteArray ldac(const SparseRows& rows, const std::vector<std::int64_t>& which)
{
    QByteArray out;
    for (std::int64_t r : which) {
        const auto words = rows.rowCols(r);
        const auto counts = rows.rowCounts(r);
        out += QByteArray::number(qint64(words.size()));
        for (std::size_t i = 0; i < words.size(); ++i)
            out += ' ' + QByteArray::number(words[i]) + ':' + QByteArray::number(qint64(counts[i]));
        out += '\n';
    }
    return out;
}

// The document-completion split as LDA-C files, so that other tools (the gensim benchmark)
// train and score on exactly the documents and words svi does.
std::string writeCorpusSplit(const BuiltData& built, const std::string& folder)
{
    const CountData& data = *built.data.counts;
    const QString dir = QString::fromStdString(folder);
    writeFileAtomically(dir + "/train.ldac", ldac(data.train, data.trainingRows()));
    writeFileAtomically(dir + "/test_observed.ldac", ldac(data.train, data.testRows));
    writeFileAtomically(dir + "/test_heldout.ldac", ldac(data.heldOut, data.testRows));
    QByteArray vocab;
    for (const std::string& w : data.columnNames)
        vocab += QByteArray::fromStdString(w) + '\n';
    writeFileAtomically(dir + "/vocab.txt", vocab);
    return groupedNumber(data.trainingRowCount()) + " training and " +
           groupedNumber(std::int64_t(data.testRows.size())) + " test documents, " +
           groupedNumber(data.cols()) +
           " words (train.ldac, test_observed.ldac, "
           "test_heldout.ldac, vocab.txt)";
}

// How the settings say the files are read.
CorpusReadOptions readOptions(const DataDescription& d)
{
    CorpusReadOptions ro;
    ro.tokenizer = TokenizerOptions::fromParams(d.settings);
    ro.subset = getChoice(d.settings, "subset");
    ro.vocabulary = getChoice(d.settings, "vocab");
    if (auto problem = ro.validate())
        throw std::invalid_argument(*problem);
    return ro;
}

std::string formatName(const std::string& path)
{
    const auto format = corpusFormatOf(path);
    if (!format)
        return "text";
    switch (*format) {
    case CorpusFormat::Ldac:
        return "LDA-C";
    case CorpusFormat::Uci:
        return "UCI bag-of-words";
    case CorpusFormat::TextArchive:
        return "text files in a tar archive";
    case CorpusFormat::TextFolder:
        return "text files in a folder";
    case CorpusFormat::ReutersSgml:
        return "Reuters-21578 articles";
    case CorpusFormat::TextFiles:
        break;
    }
    return "text files";
}

// The counts of the corpus as read() reads it, and its first words.
DataReport inspectCorpus(const DataDescription& d)
{
    const Corpus c = loadCorpus(d.files, readOptions(d));
    const CorpusStats s = c.stats();
    const std::size_t shown = std::min<std::size_t>(c.vocabulary.size(), 20);
    return {{
        {"format", "format", formatName(d.files.front()), {}, {}},
        {"documents", "documents", s.documents, {}, {}},
        {"vocabulary", "vocabulary", s.vocabulary, "words", {}},
        {"tokens", "tokens", s.tokens, {}, {}},
        {"empty_documents", "empty", s.emptyDocuments, "documents without any word", {}},
        {"dropped_documents",
         "dropped",
         s.droppedDocuments,
         "documents left without any word by the filters",
         {}},
        {"first_words",
         "first words",
         std::vector<std::string>(c.vocabulary.begin(),
                                  c.vocabulary.begin() + std::ptrdiff_t(shown)),
         shown < c.vocabulary.size() ? "…" : "",
         {}},
    }};
}

} // namespace

DataKindSpec corpus()
{
    DataKindSpec k;
    k.key = "corpus";
    k.label = "Corpus";
    k.task = "document completion: half of each test document's words condition it, the other "
             "half are scored (perplexity)";
    k.formats = "LDA-C, UCI bag-of-words (docword), Reuters-21578 SGML (one document per "
                "article), a folder or tar archive of text files";
    k.settings = CorpusOptions::allParams();
    k.settings.push_back(textParam(
        "subset", "Subset",
        "raw text: only the files below a folder of this name (e.g. 20news-bydate-train)"));
    k.settings.push_back(textParam("vocab", "Vocabulary file",
                                   "LDA-C / UCI: the vocabulary file; empty = found beside"));
    for (const ParamSpec& p : TokenizerOptions::allParams())
        k.settings.push_back(p);
    k.settings.push_back(boolParam(
        "out_of_core", "Out of core",
        "LDA-C or UCI counts (a file; LDA-C also standard input, '-') or a folder or tar archive "
        "of text: read the "
        "documents once, as streaming VB uses them, never holding the corpus; the test documents "
        "come from the first stream_head",
        false, "read the whole corpus into memory"));
    k.settings.push_back(intParam("stream_head", "Stream head",
                                  "out of core: documents read first, among which heldout of "
                                  "them are drawn as test documents",
                                  10000, 2, 1e9));
    k.readSettings = {"subset", "vocab", "out_of_core"};
    for (const ParamSpec& p : TokenizerOptions::allParams())
        k.readSettings.push_back(p.key);
    k.severalFiles = true;
    k.defaultModel = "lda";
    k.views = {DataView::Topics};
    k.recognise = [](const FileProbe& f) { return f.content == "corpus"; };
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        if (getBool(d.settings, "out_of_core")) {
            // (No std::optional compared here: GCC's -O1 takes its empty state for uninitialised.)
            const CorpusFormat format =
                d.files.front() == kStandardInput
                    ? CorpusFormat::Ldac
                    : corpusFormatOf(d.files.front()).value_or(CorpusFormat::TextFiles);
            return std::make_shared<RawCorpusStream>(
                openCorpusStream(d.files, readOptions(d)), d.files, readOptions(d),
                format == CorpusFormat::TextFolder || format == CorpusFormat::TextArchive);
        }
        Corpus c = loadCorpus(d.files, readOptions(d));
        const CorpusStats st = c.stats();
        if (st.documents == 0 || st.tokens == 0)
            throw DataError("'" + (c.source.empty() ? d.files.front() : c.source) +
                            "' holds no word" + (st.documents == 0 ? " (no document)" : ""));
        const auto format = corpusFormatOf(d.files.front());
        return std::make_shared<RawCorpus>(std::move(c), format && *format != CorpusFormat::Ldac &&
                                                             *format != CorpusFormat::Uci);
    };
    // An LDA-C file (not gzip'd) splits by lines: each rank reads its documents only.
    k.readPart = [](const DataDescription& d,
                    Communicator& ranks) -> std::shared_ptr<const RawData> {
        if (getBool(d.settings, "out_of_core"))
            return nullptr; // one stream, read whole by the one process that runs it
        std::optional<CorpusPart> part = readCorpusPart(d.files, readOptions(d), ranks);
        if (!part)
            return nullptr;
        return std::make_shared<RawCorpus>(std::move(*part), ranks);
    };
    k.inspect = inspectCorpus;
    k.build = [](const RawData& raw, const DataDescription& d) {
        if (const auto* stream = dynamic_cast<const RawCorpusStream*>(&raw))
            return buildStream(*stream, d);
        const auto& rc = static_cast<const RawCorpus&>(raw);
        BuiltData out;
        const CountDataPtr data =
            makeCorpusData(rc.corpus(), CorpusOptions::fromParams(d.settings), rc.part());
        out.data = data;
        double tokens = 0; // of the rows held here, then (read in parts) of every rank's
        for (std::int64_t r = 0; r < data->rows(); ++r)
            tokens += data->train.rowTotal(r) +
                      (r < data->heldOut.rows() ? data->heldOut.rowTotal(r) : 0.0);
        if (rc.ranks())
            rc.ranks()->sum({&tokens, 1});
        out.summary =
            groupedNumber(data->rows()) + " documents · " + groupedNumber(data->cols()) +
            " words in the vocabulary · " + groupedNumber(std::llround(tokens)) + " tokens · " +
            groupedNumber(std::int64_t(data->testRows.size())) + " test documents" +
            (rc.ranks() ? " · read in " + std::to_string(rc.ranks()->size()) + " parts" : "");
        out.facts = {{"documents", double(data->rows())},
                     {"vocabulary", double(data->cols())},
                     {"tokens", tokens},
                     {"test_documents", double(data->testRows.size())}};
        return out;
    };
    k.writeSplit = writeCorpusSplit;
    return k;
}

} // namespace svi::kinds
