// Poisson factorization of text (paper 004, Tables 2–3): a corpus split for document completion
// fed to HPF and PMF, documents as users and words as items. Checked by hand: a test document's
// factors are its fold-in from the same start whatever came before, the perplexity is the
// held-out words' log p(w | d) = log(E[θ_d]ᵀE[β_w] / E[θ_d]ᵀΣ_v E[β_v]) summed directly, the
// factors' weights are their shares of the expected counts, and on planted word blocks each
// factor's top words are one block.

#include "core/data/corpus.h"
#include "core/math/random.h"
#include "core/models/builtin.h"
#include "core/models/pf/pf_model.h"
#include "core/models/pf/pf_trainer.h"
#include "core/run/registry.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <set>

using namespace svi;

namespace {

// G blocks of `perBlock` words ("b<g>w<i>"); each document draws its words from one block
// (its topic) and a few from anywhere, counts Poisson by inversion.
Corpus plantedCorpus(int docs, int groups, int perBlock, std::uint64_t seed)
{
    Corpus c;
    const int V = groups * perBlock;
    for (int g = 0; g < groups; ++g)
        for (int i = 0; i < perBlock; ++i)
            c.vocabulary.push_back("b" + std::to_string(g) + "w" + std::to_string(i));
    Rng rng(seed);
    for (int d = 0; d < docs; ++d) {
        const int g = int(rng.below(std::uint64_t(groups)));
        std::vector<std::int32_t> cols;
        std::vector<float> counts;
        for (int w = 0; w < V; ++w) {
            const double rate = w / perBlock == g ? 1.5 : 0.02;
            double prob = std::exp(-rate), cdf = prob;
            const double x = rng.uniform();
            int y = 0;
            while (x > cdf && y < 50) {
                ++y;
                prob *= rate / y;
                cdf += prob;
            }
            if (y > 0) {
                cols.push_back(w);
                counts.push_back(float(y));
            }
        }
        c.docs.appendRow(cols, counts);
    }
    c.source = "planted corpus";
    return c;
}

CountDataPtr plantedData(std::uint64_t seed)
{
    CorpusOptions o;
    o.heldOut = 0.2;
    o.seed = seed;
    return makeCorpusData(plantedCorpus(300, 3, 12, seed), o);
}

PfOptions options(bool hierarchical)
{
    PfOptions o;
    o.K = 3;
    o.priors.hierarchical = hierarchical;
    o.evalUsers = 1000;
    o.topWords = 5;
    return o;
}

std::unique_ptr<PfTrainer> trained(const CountDataPtr& data, bool hierarchical, int steps)
{
    auto t = std::make_unique<PfTrainer>(data, PfAlgorithm::Batch, options(hierarchical), 7);
    for (int s = 1; s <= steps; ++s)
        t->step(s);
    return t;
}

} // namespace

class TestPfText : public QObject
{
    Q_OBJECT

private slots:
    void registryFitsCorpora();
    void testDocumentsAreFoldedInFromTheirStart_data();
    void testDocumentsAreFoldedInFromTheirStart();
    void perplexityByHand();
    void factorWeightsAndTopWords();
};

void TestPfText::registryFitsCorpora()
{
    const Registry& r = builtinRegistry();
    for (const char* model : {"hpf", "pmf"}) {
        for (const char* algorithm : {"svi", "batch", "streaming"})
            QVERIFY2(r.find(model, algorithm)->fits("corpus"), algorithm);
        QVERIFY(!r.find(model, "bbvi")->fits("corpus"));
        std::set<std::string> onCorpus, onRatings;
        for (const MetricSpec& m : r.metricsOf({model}, "corpus"))
            onCorpus.insert(m.key);
        for (const MetricSpec& m : r.metricsOf({model}, "ratings"))
            onRatings.insert(m.key);
        // Perplexity is LDA's column (one Compare table); stars' measures are not on text.
        QVERIFY(onCorpus.count("perplexity") && onCorpus.count("heldout_loglik_per_word"));
        QVERIFY(onCorpus.count("precision_at_20") && !onCorpus.count("rmse"));
        QVERIFY(!onCorpus.count("accuracy") && !onCorpus.count("validation_loglik"));
        QVERIFY(onRatings.count("rmse") && !onRatings.count("perplexity"));
    }
    // Compare on a corpus runs only the algorithms that fit it.
    const auto has = [](const std::vector<const AlgorithmEntry*>& group, const char* key) {
        return std::any_of(group.begin(), group.end(),
                           [&](const AlgorithmEntry* e) { return e->algorithm == key; });
    };
    QVERIFY(has(r.comparisonGroup("hpf", true), "bbvi"));
    QVERIFY(!has(r.comparisonGroup("hpf", true, "corpus"), "bbvi"));
    QVERIFY(has(r.comparisonGroup("hpf", true, "corpus"), "streaming"));
    QVERIFY(has(r.comparisonGroup("hpf", true, "ratings"), "bbvi"));
    // A ratings model without fold-in still refuses documents held out whole.
    QVERIFY(!r.find("gmf", "batch")->fits("corpus"));
}

void TestPfText::testDocumentsAreFoldedInFromTheirStart_data()
{
    QTest::addColumn<bool>("hierarchical");
    QTest::newRow("hpf") << true;
    QTest::newRow("pmf") << false;
}

void TestPfText::testDocumentsAreFoldedInFromTheirStart()
{
    QFETCH(bool, hierarchical);
    const CountDataPtr data = plantedData(3);
    QVERIFY(!data->testRows.empty());
    auto t = trained(data, hierarchical, 20);
    const Evaluation first = t->evaluate(true);

    // By hand: each test document from its initial draw, fitted against its observed half.
    const PfOptions o = options(hierarchical);
    pf::Side users = t->users();
    const pf::SidePrior prior = pf::userPrior(o.priors);
    pf::UserWorkspace ws;
    std::int64_t maxRow = 0;
    for (std::int64_t r = 0; r < data->rows(); ++r)
        maxRow = std::max(maxRow, data->train.rowNonZeros(r));
    ws.resize(o.K, maxRow);
    const Eigen::VectorXd itemSums = pf::columnSums(t->items().mean);
    pf::Side start;
    pf::initialise(start, data->rows(), o.K, prior, 7, 1); // the trainer's users' stream
    for (std::int64_t u : data->testRows) {
        pf::restart(users, u, prior, 7, 1);
        QVERIFY(users.shp.row(u) == start.shp.row(u));
        pf::fitUser(users, u, data->train, t->items(), itemSums, prior, {o.localIters, o.localTol},
                    ws);
        QVERIFY((users.mean.row(u) - t->users().mean.row(u)).cwiseAbs().maxCoeff() < 1e-12);
        // Fitted: the document's factors left their start.
        QVERIFY((users.mean.row(u) - start.mean.row(u)).cwiseAbs().maxCoeff() > 1e-3);
    }
    // The same again: a test document does not warm-start from the last evaluation.
    const Evaluation second = t->evaluate(true);
    QCOMPARE(second.metrics.at("perplexity"), first.metrics.at("perplexity"));
    QCOMPARE(second.metrics.at("precision_at_20"), first.metrics.at("precision_at_20"));
    // Training documents have no held-out words; only the test documents are scored.
    for (std::int64_t r : data->trainingRows())
        QCOMPARE(data->heldOut.rowNonZeros(r), std::int64_t(0));
}

void TestPfText::perplexityByHand()
{
    const CountDataPtr data = plantedData(5);
    auto t = trained(data, true, 20);
    const Evaluation ev = t->evaluate(true);
    const pf::Side& users = t->users();
    const Eigen::VectorXd itemSums = pf::columnSums(t->items().mean);
    double ll = 0.0, words = 0.0, unigram = 0.0;
    Eigen::VectorXd freq = Eigen::VectorXd::Zero(data->cols());
    for (std::int64_t r : data->trainingRows())
        for (std::int64_t e = data->train.rowStart[r]; e < data->train.rowStart[r + 1]; ++e)
            freq[data->train.cols[e]] += data->train.counts[e];
    freq /= freq.sum();
    for (std::int64_t u : data->testRows) {
        const auto cols = data->heldOut.rowCols(u);
        const auto counts = data->heldOut.rowCounts(u);
        const double total = users.mean.row(u).dot(itemSums);
        for (std::size_t i = 0; i < cols.size(); ++i) {
            const double rate = users.mean.row(u).dot(t->items().mean.row(cols[i]));
            ll += counts[i] * std::log(rate / total);
            unigram += counts[i] * std::log(freq[cols[i]]);
            words += counts[i];
        }
    }
    QVERIFY(words > 100);
    const double perplexity = ev.metrics.at("perplexity");
    QVERIFY(std::abs(perplexity - std::exp(-ll / words)) < 1e-9 * perplexity);
    QVERIFY(std::abs(ev.metrics.at("heldout_loglik_per_word") - ll / words) < 1e-12);
    // The three blocks of twelve words: a fit knows a document's block from its first half,
    // far better than the corpus's word frequencies (about 36 words' perplexity).
    const double unigramPerplexity = std::exp(-unigram / words);
    QVERIFY2(perplexity < 0.5 * unigramPerplexity,
             qPrintable(QString("%1 against %2").arg(perplexity).arg(unigramPerplexity)));
}

void TestPfText::factorWeightsAndTopWords()
{
    const CountDataPtr data = plantedData(11);
    auto t = trained(data, false, 40);
    const Evaluation ev = t->evaluate(true);
    QVERIFY(ev.preview && ev.preview->factors);
    const std::vector<TopicSummary>& topics = ev.preview->topics;
    QCOMPARE(int(topics.size()), 3);

    Eigen::VectorXd userSums = Eigen::VectorXd::Zero(3);
    for (std::int64_t u : data->trainingRows())
        userSums += t->users().mean.row(u).transpose();
    const Eigen::VectorXd itemSums = pf::columnSums(t->items().mean);
    const Eigen::VectorXd share =
        userSums.cwiseProduct(itemSums) / userSums.cwiseProduct(itemSums).sum();
    std::set<char> blocks;
    double previous = 1.0;
    for (const TopicSummary& s : topics) {
        QVERIFY(std::abs(s.weight - share[s.index]) < 1e-12);
        QVERIFY(s.weight <= previous);
        previous = s.weight;
        QCOMPARE(int(s.words.size()), 5);
        // Every top word from one block, and each factor a different block.
        for (const std::string& w : s.words)
            QCOMPARE(w[1], s.words.front()[1]);
        blocks.insert(s.words.front()[1]);
        const double prob = t->items().mean(std::stoi(s.words.front().substr(1, 1)) * 12 +
                                                std::stoi(s.words.front().substr(3)),
                                            s.index) /
                            itemSums[s.index];
        QVERIFY(std::abs(s.probs.front() - prob) < 1e-12);
        for (std::size_t i = 1; i < s.probs.size(); ++i)
            QVERIFY(s.probs[i] <= s.probs[i - 1]);
    }
    QCOMPARE(int(blocks.size()), 3);
}

QTEST_GUILESS_MAIN(TestPfText)
#include "test_pf_text.moc"
