#include "core/data/corpus.h"

#include "core/data/split_streams.h"
#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// The choice of test documents (one stream), apart from the per-document token splits.
constexpr std::uint64_t kChooseStream = 0x63686f6f7365ULL; // "choose"

std::string documentName(const Corpus& corpus, std::int64_t d)
{
    std::string name = "document " + std::to_string(d + 1);
    if (std::size_t(d) < corpus.docNames.size())
        name += " ('" + corpus.docNames[std::size_t(d)] + "')";
    return name;
}

[[noreturn]] void invalidCorpus(const std::string& what)
{
    throw std::invalid_argument("makeCorpusData: " + what);
}

} // namespace

CorpusStats Corpus::stats() const
{
    CorpusStats s;
    s.documents = docs.rows();
    s.vocabulary = vocabularySize();
    double tokens = 0.0;
    for (std::int64_t d = 0; d < docs.rows(); ++d) {
        if (docs.rowNonZeros(d) == 0)
            ++s.emptyDocuments;
        tokens += docs.rowTotal(d);
    }
    s.tokens = std::llround(tokens);
    s.droppedDocuments = droppedDocuments;
    return s;
}

const ParamFields<CorpusOptions>& CorpusOptions::fields()
{
    using O = CorpusOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(realParam("heldout", "Test documents",
                           "fraction of documents held out: half of each one's words condition "
                           "it, the other half are scored",
                           0.1, 0.0, 0.99),
                 &O::heldOut)
            .add(intParam("max_documents", "Documents",
                          "keep this many documents, drawn at random; 0 = all", 0, 0, 1e12),
                 &O::maxDocuments)
            .add(splitSeedParam("seed of the subsample and the held-out split"), &O::seed);
    return f;
}

std::optional<std::string> corpusProblem(const Corpus& corpus)
{
    const SparseRows& m = corpus.docs;
    if (m.rowStart.empty() || m.rowStart.front() != 0 || m.rowStart.back() != m.nonZeros() ||
        m.cols.size() != m.counts.size())
        return "'" + corpus.source + "': the document rows are inconsistent (CSR offsets)";
    if (!corpus.docNames.empty() && std::int64_t(corpus.docNames.size()) != m.rows())
        return "'" + corpus.source + "' has " + std::to_string(corpus.docNames.size()) +
               " document names for " + std::to_string(m.rows()) + " documents";
    const std::int64_t V = corpus.vocabularySize();
    for (std::int64_t d = 0; d < m.rows(); ++d) {
        if (m.rowStart[std::size_t(d) + 1] < m.rowStart[std::size_t(d)])
            return "'" + corpus.source + "': the document rows are inconsistent (CSR offsets)";
        const auto cols = m.rowCols(d);
        const auto counts = m.rowCounts(d);
        for (std::size_t j = 0; j < cols.size(); ++j) {
            if (cols[j] < 0 || cols[j] >= V)
                return "'" + corpus.source + "' " + documentName(corpus, d) + ": word id " +
                       std::to_string(cols[j]) + ", but the vocabulary has " + std::to_string(V) +
                       " words";
            if (j > 0 && cols[j] <= cols[j - 1])
                return "'" + corpus.source + "' " + documentName(corpus, d) +
                       ": word ids are not strictly increasing (" + std::to_string(cols[j - 1]) +
                       " then " + std::to_string(cols[j]) + ")";
            const float c = counts[j];
            if (!(c > 0.0f) || !std::isfinite(c) || c != std::floor(c))
                return "'" + corpus.source + "' " + documentName(corpus, d) + ": count " +
                       formatNumber(double(c)) + " of word " + std::to_string(cols[j]) +
                       ", but counts must be whole numbers ≥ 1";
        }
    }
    return std::nullopt;
}

CountDataPtr makeCorpusData(const Corpus& corpus, const CorpusOptions& o,
                            const CorpusPartInfo* part, std::shared_ptr<DocumentStream> stream)
{
    if (auto problem = o.validate())
        invalidCorpus(*problem);
    if (auto problem = corpusProblem(corpus))
        invalidCorpus(*problem);
    if (part && std::int64_t(part->tokens.size()) != corpus.documents())
        invalidCorpus("a corpus part's tokens (" + std::to_string(part->tokens.size()) +
                      ") do not match its documents (" + std::to_string(corpus.documents()) + ")");
    const auto tokensOf = [&](std::int64_t d) {
        return part ? part->tokens[std::size_t(d)] : corpus.docs.rowTotal(d);
    };
    const std::int64_t total =
        part ? std::llround(std::accumulate(part->tokens.begin(), part->tokens.end(), 0.0))
             : corpus.stats().tokens;
    if (total == 0)
        invalidCorpus("'" + corpus.source + "' has no words (" +
                      std::to_string(corpus.documents()) + " documents, 0 tokens)");

    // Documents: a seeded subsample, kept in file order.
    std::vector<std::int64_t> docs(std::size_t(corpus.documents()));
    std::iota(docs.begin(), docs.end(), 0);
    if (o.maxDocuments > 0 && o.maxDocuments < corpus.documents()) {
        Rng rng = Rng::stream(o.seed, kSubsampleStream);
        chooseFirst(docs, std::size_t(o.maxDocuments), rng);
        docs.resize(std::size_t(o.maxDocuments));
        std::sort(docs.begin(), docs.end());
    }
    const std::int64_t N = std::int64_t(docs.size());
    const SparseRows& in = corpus.docs;

    // Test documents among those with at least two tokens (one token cannot be split into an
    // observed and a scored half).
    std::vector<std::int64_t> eligible; // indices into `docs`
    double kept = 0.0;
    for (std::int64_t i = 0; i < N; ++i) {
        const double n = tokensOf(docs[std::size_t(i)]);
        kept += n;
        if (n >= 2.0)
            eligible.push_back(i);
    }
    if (kept == 0.0)
        invalidCorpus("max_documents = " + std::to_string(o.maxDocuments) + " drew " +
                      std::to_string(N) + " documents of '" + corpus.source + "' without any word");
    std::size_t tests = 0;
    std::vector<std::int64_t> testRows;
    if (o.heldOut > 0.0) {
        tests = std::min(std::size_t(std::llround(o.heldOut * double(N))), eligible.size());
        if (std::int64_t(tests) >= N)
            invalidCorpus("heldout = " + formatNumber(o.heldOut) +
                          " leaves no training document of " + std::to_string(N));
        Rng rng = Rng::stream(o.seed, kChooseStream);
        chooseFirst(eligible, tests, rng);
        testRows.assign(eligible.begin(), eligible.begin() + std::ptrdiff_t(tests));
        std::sort(testRows.begin(), testRows.end());
    }

    auto data = std::make_shared<CountData>();
    data->vocabularySize = corpus.vocabularySize();
    data->columnNames = corpus.vocabulary;
    data->source = corpus.source;
    data->kind = "documents";
    data->testRows = std::move(testRows);
    if (!corpus.docNames.empty()) {
        data->rowNames.reserve(std::size_t(N));
        for (std::int64_t d : docs)
            data->rowNames.push_back(corpus.docNames[std::size_t(d)]);
    }
    data->train.rowStart.reserve(std::size_t(N) + 1);
    data->heldOut.rowStart.reserve(std::size_t(N) + 1);
    data->train.cols.reserve(in.cols.size());
    data->train.counts.reserve(in.cols.size());

    std::vector<std::int32_t> tokens; // a test document's tokens, as entry positions in its row
    std::vector<float> observed;      // per entry, its tokens among the observed half
    std::vector<std::int32_t> trainCols, heldCols;
    std::vector<float> trainCounts, heldCounts;
    std::size_t t = 0;
    for (std::int64_t i = 0; i < N; ++i) {
        const std::int64_t d = docs[std::size_t(i)];
        const auto cols = in.rowCols(d);
        const auto counts = in.rowCounts(d);
        if (t == tests || data->testRows[t] != i) {
            data->train.appendRow(cols, counts);
            data->heldOut.appendRow({}, {});
            continue;
        }
        ++t;
        tokens.clear();
        for (std::size_t j = 0; j < cols.size(); ++j)
            tokens.insert(tokens.end(), std::size_t(counts[j]), std::int32_t(j));
        const std::size_t half = tokens.size() / 2;
        // Its own stream: the split of a document depends only on the seed and the document.
        Rng rng = Rng::stream(o.seed, kSplitStream, std::uint64_t(d));
        chooseFirst(tokens, half, rng);
        observed.assign(cols.size(), 0.0f);
        for (std::size_t k = 0; k < half; ++k)
            observed[std::size_t(tokens[k])] += 1.0f;
        trainCols.clear();
        trainCounts.clear();
        heldCols.clear();
        heldCounts.clear();
        for (std::size_t j = 0; j < cols.size(); ++j) {
            if (observed[j] > 0.0f) {
                trainCols.push_back(cols[j]);
                trainCounts.push_back(observed[j]);
            }
            if (counts[j] > observed[j]) {
                heldCols.push_back(cols[j]);
                heldCounts.push_back(counts[j] - observed[j]);
            }
        }
        data->train.appendRow(trainCols, trainCounts);
        data->heldOut.appendRow(heldCols, heldCounts);
    }
    if (part) { // the part's documents among those kept
        const auto first = std::lower_bound(docs.begin(), docs.end(), part->held.begin);
        const auto last = std::lower_bound(first, docs.end(), part->held.end);
        data->heldRows = Shard{first - docs.begin(), last - docs.begin()};
    }
    data->finalise();
    data->stream = std::move(stream);
    return data;
}

} // namespace svi
