// Streaming variational Bayes (Broderick et al. 2013; paper 004 §2.6): the one-pass row order,
// LDA's streaming update against batch VB and against planted topics, and the run's end at the
// end of its data.

#include "core/inference/schedule.h"
#include "core/models/pf/pf_trainer.h"
#include "core/run/async_stream.h"
#include "core/run/runner.h"
#include "tests/core/pf_testing.h"
#include "tests/core/threaded_communicator.h"
#include "tests/core/topic_testing.h"

#include <QtTest>
#include <algorithm>
#include <numeric>
#include <omp.h>

using namespace svi;
using namespace topic_testing;

class TestStreaming : public QObject
{
    Q_OBJECT

private slots:
    void streamGivesEveryRowOnce();
    void streamSeeksAMinibatch();
    void ldaOneMinibatchIsBatchVb();
    void ldaStreamAddsTheMinibatchStatistic();
    void ldaStreamRecoversPlantedTopics();
    void ldaOneTopicIsTheConjugatePosteriorInAnyOrder();
    void pfOneMinibatchIsABatchSweep_data();
    void pfOneMinibatchIsABatchSweep();
    void pfStreamAddsTheMinibatchStatistic();
    void pfStreamFindsPlantedGroups();
    void runEndsAtTheEndOfTheStream();
    void gammaPoissonIsExactInAnyOrder();
    void asyncMasterHoldsThePriorPlusTheChanges();
    void asyncLdaOneTopicIsTheConjugatePosterior();
    void asyncLdaMatchesTheOneRankStream();
};

namespace {

std::vector<std::int64_t> rowsOf(std::int64_t n, std::int64_t step = 1)
{
    std::vector<std::int64_t> rows;
    for (std::int64_t r = 0; r < n; ++r)
        rows.push_back(r * step);
    return rows;
}

double maxRelDiff(const pf::MatrixRD& a, const pf::MatrixRD& b)
{
    return ((a - b).array().abs() / (1.0 + b.array().abs())).maxCoeff();
}

PfOptions pfOptions(bool hierarchical, int K, std::int64_t minibatch)
{
    PfOptions o;
    o.K = K;
    o.priors.hierarchical = hierarchical;
    o.minibatch = minibatch;
    return o;
}

// The exact conjugate case: λ ~ Gamma(a, b), x_i ~ Poisson(λ). A minibatch's batch posterior
// with prior Gamma(α, β) is Gamma(α + Σ_B x, β + |B|), so its change (Σ_B x, |B|) is the
// statistic, and the posterior after any items is Gamma(a + Σ x, b + n) whatever their order.
class GammaPoissonStream final : public StagedTrainer
{
public:
    GammaPoissonStream(std::vector<double> x, std::int64_t minibatch, std::uint64_t seed)
        : m_x(std::move(x)), m_training(rowsOf(std::int64_t(m_x.size()))),
          m_rows(m_training, RowOrder::Stream, minibatch, seed)
    {
    }
    bool asynchronous() const override { return true; }
    std::int64_t itemsPerStep() const override { return m_rows.perStep(); }
    std::int64_t itemCount() const override { return std::int64_t(m_x.size()); }
    Evaluation evaluate(bool) override { return {}; }
    bool diverged() const override { return false; }
    double shape() const { return m_posterior[0]; }
    double rate() const { return m_posterior[1]; }

protected:
    Round localStep(std::int64_t) override
    {
        m_rows.next();
        m_change = {0.0, double(m_rows.rows().size())};
        for (std::int64_t i : m_rows.mine())
            m_change[0] += m_x[std::size_t(i)];
        listStatistic();
        return Round::Update;
    }
    GlobalStatistic& statistic() override { return m_statistic; }
    double globalUpdate(std::int64_t) override
    {
        m_posterior[0] += m_change[0];
        m_posterior[1] += m_change[1];
        return 1.0;
    }
    bool streamEnded() const override { return m_rows.exhausted(); }
    std::int64_t streamGiven(std::int64_t) const noexcept override { return m_rows.given(); }
    std::int64_t streamMinibatches() const override { return m_rows.minibatches(); }
    void seekMinibatch(std::int64_t b) override { m_rows.seek(b); }
    void listPosterior(GlobalStatistic& out) override { out.dense(m_posterior.data(), 2); }
    // No rows: the whole posterior is two numbers.
    void minibatchRows(std::int64_t, std::vector<std::int32_t>& rows) override { rows.clear(); }
    void listPosteriorRows(GlobalStatistic& out, const std::vector<std::int32_t>*) override
    {
        listPosterior(out);
    }
    void listStatistic() override
    {
        m_statistic.clear();
        m_statistic.dense(m_change.data(), 2);
    }

private:
    std::vector<double> m_x;
    std::vector<std::int64_t> m_training;
    StepRows m_rows;
    std::array<double, 2> m_posterior{2.0, 0.5}; // the prior: a = 2, b = 0.5
    std::array<double, 2> m_change{};
    GlobalStatistic m_statistic;
};

// Runs `trainers` (one per rank, built alike) as an asynchronous stream on threaded ranks until
// rank 0's run is exhausted; `keeper` holds rank 0's posterior. Returns rank 0's steps and every
// rank's times; `observer` sees every change applied.
struct AsyncRun
{
    std::int64_t steps = 0, itemsApplied = 0;
    bool finished = false;
    std::vector<AsyncRankTimes> times;
};
AsyncRun runAsync(std::vector<std::unique_ptr<Trainer>>& trainers, std::unique_ptr<Trainer> keeper,
                  const std::function<void(int, const std::string&)>& observer = {})
{
    const int R = int(trainers.size());
    svi::test_support::ThreadedRanks ranks(R);
    AsyncRun out;
    out.times.resize(std::size_t(R));
    ranks.run([&](int r) {
        omp_set_num_threads(1); // the ranks share the cores
        Communicator& c = ranks.communicator(r);
        Trainer& t = *trainers[std::size_t(r)];
        if (r > 0) {
            out.times[std::size_t(r)] = AsyncStream::work(t, c);
            return;
        }
        AsyncStream stream(c, t, std::move(keeper), observer);
        while (!t.exhausted())
            t.step(++out.steps);
        out.times[0] = stream.times()[0];
        out.itemsApplied = t.itemsSeen(out.steps);
        out.finished = stream.finished();
    });
    return out;
}

// Each word's count over the training documents: with one topic, the conjugate posterior's
// statistic.
Eigen::VectorXd wordCounts(const CountData& data)
{
    Eigen::VectorXd counts = Eigen::VectorXd::Zero(data.cols());
    for (std::int64_t d : data.trainingRows())
        for (std::size_t n = 0; n < data.train.rowCols(d).size(); ++n)
            counts[data.train.rowCols(d)[n]] += data.train.rowCounts(d)[n];
    return counts;
}

// Steps `t` until its stream has ended; returns the steps taken.
std::int64_t onePass(Trainer& t)
{
    std::int64_t steps = 0;
    while (!t.exhausted())
        t.step(++steps);
    return steps;
}

LdaOptions streamingOptions(std::int64_t minibatch, int rounds)
{
    LdaOptions o = plantedLdaOptions();
    o.minibatch = minibatch;
    o.streamIters = rounds;
    return o;
}

double maxRelativeDifference(const MatrixRD& a, const MatrixRD& b)
{
    return ((a - b).array().abs() / b.array().abs().max(1e-300)).maxCoeff();
}

} // namespace

// 23 rows in minibatches of 5: 5, 5, 5, 5, 3, each row exactly once, in a seeded order that
// is not the rows' own; then the stream is exhausted and gives nothing.
void TestStreaming::streamGivesEveryRowOnce()
{
    const std::vector<std::int64_t> training = rowsOf(23, 3);
    StepRows rows(training, RowOrder::Stream, 5, 7);
    QCOMPARE(rows.minibatches(), std::int64_t(5));
    std::vector<std::int64_t> seen;
    std::vector<std::size_t> sizes;
    while (!rows.exhausted()) {
        rows.next();
        sizes.push_back(rows.rows().size());
        seen.insert(seen.end(), rows.rows().begin(), rows.rows().end());
    }
    QCOMPARE(sizes, (std::vector<std::size_t>{5, 5, 5, 5, 3}));
    QCOMPARE(rows.given(), std::int64_t(23));
    QVERIFY(seen != training); // shuffled
    std::sort(seen.begin(), seen.end());
    QCOMPARE(seen, training);
    rows.next();
    QVERIFY(rows.rows().empty());

    // Another seed, another order; the same seed, the same.
    StepRows same(training, RowOrder::Stream, 5, 7), other(training, RowOrder::Stream, 5, 8);
    same.next();
    other.next();
    StepRows first(training, RowOrder::Stream, 5, 7);
    first.next();
    QCOMPARE(same.rows(), first.rows());
    QVERIFY(other.rows() != first.rows());
}

// seek(b) gives minibatch b of the same pass (what an asynchronous worker is handed).
void TestStreaming::streamSeeksAMinibatch()
{
    const std::vector<std::int64_t> training = rowsOf(23);
    StepRows inOrder(training, RowOrder::Stream, 5, 3), seeking(training, RowOrder::Stream, 5, 3);
    std::vector<std::vector<std::int64_t>> batches;
    while (!inOrder.exhausted()) {
        inOrder.next();
        batches.push_back(inOrder.rows());
    }
    for (std::int64_t b : {3, 0, 4, 1}) {
        seeking.seek(b);
        seeking.next();
        QCOMPARE(seeking.rows(), batches[std::size_t(b)]);
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, seeking.seek(-1));
}

// With one minibatch holding every training document, the streaming posterior is the batch VB
// posterior of the whole corpus from the prior: minibatch_iters rounds are batch VB's steps
// from the same seeded start. Only the order of the documents in the sums differs (the stream
// shuffles them), so λ agrees to rounding. Scaling the statistic, using the random start as
// the prior (not η) or dropping a round breaks it.
void TestStreaming::ldaOneMinibatchIsBatchVb()
{
    const LdaSynthetic s = plantedCorpus(2, 6, 300);
    const int rounds = 4;
    LdaTrainer stream(s.data, LdaAlgorithm::Streaming, streamingOptions(100000, rounds), 5);
    LdaTrainer batch(s.data, LdaAlgorithm::Batch, plantedLdaOptions(), 5);
    QCOMPARE(stream.itemsPerStep(), s.data->trainingRowCount());
    QVERIFY(!stream.exhausted());
    QCOMPARE(stream.step(1), 1.0);
    QVERIFY(stream.exhausted());
    QCOMPARE(stream.itemsSeen(1), s.data->trainingRowCount());
    for (std::int64_t t = 1; t <= rounds; ++t)
        batch.step(t);
    const double diff = maxRelativeDifference(stream.lambdaT(), batch.lambdaT());
    qInfo("streaming (one minibatch, %d rounds) against %d batch VB steps: max relative "
          "difference of λ %.2e",
          rounds, rounds, diff);
    QVERIFY2(diff < 1e-9, qPrintable(QString::number(diff)));
    // And it moved: one round less is far from it.
    LdaTrainer fewer(s.data, LdaAlgorithm::Streaming, streamingOptions(100000, rounds - 1), 5);
    fewer.step(1);
    QVERIFY(maxRelativeDifference(fewer.lambdaT(), batch.lambdaT()) > 1e-3);
}

// A later minibatch adds its statistic to the posterior, nothing else: with one round, λ_b −
// λ_{b−1} is Σ_{d∈b} n_dw φ_dwk under λ_{b−1}'s eβ, recomputed here document by document from
// the trainer's own local step (lda::addStatistics), and every word outside the minibatch keeps
// its λ exactly.
void TestStreaming::ldaStreamAddsTheMinibatchStatistic()
{
    const LdaSynthetic s = plantedCorpus(3, 6, 200);
    const LdaOptions o = streamingOptions(30, 1);
    LdaTrainer t(s.data, LdaAlgorithm::Streaming, o, 9);
    t.step(1);
    const MatrixRD before = t.lambdaT();
    const MatrixRD eBeta = t.expElogBetaT();
    t.step(2);
    const std::vector<std::int64_t> docs = t.lastBatch();
    QCOMPARE(std::int64_t(docs.size()), std::int64_t(30));
    MatrixRD expected = MatrixRD::Zero(before.rows(), before.cols());
    lda::LocalWorkspace ws;
    ws.resize(o.K, 300);
    for (std::int64_t d : docs) {
        const SparseRows& train = s.data->train;
        ws.gather(eBeta, train.rowCols(d), train.rowCounts(d));
        lda::localStep(ws, {t.alpha(), o.localIters, o.localTol});
        lda::addStatistics(ws, train.rowCols(d), expected);
    }
    const MatrixRD delta = t.lambdaT() - before;
    const double err = (delta - expected).cwiseAbs().maxCoeff();
    qInfo("λ_2 − λ_1 against the minibatch's statistic: max |difference| %.2e (largest entry %.1f)",
          err, expected.maxCoeff());
    QVERIFY2(err < 1e-9 * std::max(1.0, expected.maxCoeff()), qPrintable(QString::number(err)));
    QVERIFY(expected.maxCoeff() > 1.0);
}

// One pass over 1,800 documents of 8 planted topics in minibatches of 100, on twelve seeds,
// against SVI's single pass over the same minibatch size (paper 004's claim for streaming VB:
// a posterior as good as SVI's from one pass). Measured locally (three rounds a minibatch):
// held-out perplexity 0.97–1.13 × SVI's, 1.04 × on average; every seed finds at least 6 of
// the 8 topics within L1 0.4 (see TestLdaFit::recoversPlantedTopics), 7 seeds all 8 — in the
// others two planted topics share one fitted topic, streaming VB's greedy start (a topic's
// identity is set by the first minibatches and never revisited).
void TestStreaming::ldaStreamRecoversPlantedTopics()
{
    double ratioSum = 0.0;
    const int seeds = 12;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        const LdaSynthetic s = plantedCorpus(seed);
        LdaTrainer stream(s.data, LdaAlgorithm::Streaming, streamingOptions(100, 3), seed);
        LdaTrainer svi(s.data, LdaAlgorithm::Svi, streamingOptions(100, 3), seed);
        const std::int64_t steps = onePass(stream);
        QCOMPARE(steps, std::int64_t(18));
        for (std::int64_t t = 1; t <= steps; ++t)
            svi.step(t);
        const std::vector<double> after = matchedL1(s.betaT, normalisedTopics(stream.lambdaT()));
        const auto found =
            std::count_if(after.begin(), after.end(), [](double l1) { return l1 < 0.4; });
        const double ratio = stream.evaluate(true).metrics.at("perplexity") /
                             svi.evaluate(true).metrics.at("perplexity");
        qInfo("seed %d: %d of 8 topics within L1 0.4; perplexity %.3f × SVI's", int(seed),
              int(found), ratio);
        QVERIFY2(found >= 6, qPrintable(QString::number(found)));
        QVERIFY2(ratio < 1.2, qPrintable(QString::number(ratio)));
        ratioSum += ratio;
    }
    QVERIFY2(ratioSum / seeds < 1.08, qPrintable(QString::number(ratioSum / seeds)));
}

// With one topic every φ is 1, so streaming LDA is exactly conjugate: q(β) = Dirichlet(η + the
// corpus's word counts) — whatever the order of the documents (three seeds, three orders) and
// the minibatch size. A scaled statistic, a lost minibatch or a prior counted twice breaks it.
void TestStreaming::ldaOneTopicIsTheConjugatePosteriorInAnyOrder()
{
    const CountDataPtr data = smallCorpus(37, 15, 4);
    const Eigen::VectorXd counts = wordCounts(*data);
    for (const auto& [seed, minibatch] : {std::pair<int, int>{1, 5}, {2, 8}, {3, 37}}) {
        LdaOptions o = streamingOptions(minibatch, 2);
        o.K = 1;
        LdaTrainer t(data, LdaAlgorithm::Streaming, o, std::uint64_t(seed));
        onePass(t);
        const Eigen::VectorXd lambda = t.lambdaT().col(0);
        const double err = ((lambda.array() - o.eta) - counts.array()).abs().maxCoeff();
        QVERIFY2(err < 1e-9, qPrintable(QString("seed %1: %2").arg(seed).arg(err)));
    }
}

// PF: one minibatch holding every user, with one local round, is one batch VB sweep (φ, the
// users, the items, τ) from the same start: streaming's items are the prior plus the
// minibatch's statistic, batch VB's the same update at ρ = 1.
void TestStreaming::pfOneMinibatchIsABatchSweep_data()
{
    QTest::addColumn<bool>("hierarchical");
    QTest::newRow("hpf") << true;
    QTest::newRow("pmf") << false;
}

void TestStreaming::pfOneMinibatchIsABatchSweep()
{
    QFETCH(bool, hierarchical);
    const ::test_support::Planted p = ::test_support::planted(50, 30, 3, 9);
    PfOptions o = pfOptions(hierarchical, 4, 1000);
    o.localIters = 1;
    PfTrainer stream(p.data, PfAlgorithm::Streaming, o, 4), batch(p.data, PfAlgorithm::Batch, o, 4);
    QCOMPARE(stream.step(1), 1.0);
    QVERIFY(stream.exhausted());
    batch.step(1);
    const double shp = maxRelDiff(stream.items().shp, batch.items().shp);
    const double rte = maxRelDiff(stream.items().rte, batch.items().rte);
    QVERIFY2(shp < 1e-12 && rte < 1e-12, qPrintable(QString("%1 %2").arg(shp).arg(rte)));
    QVERIFY(maxRelDiff(stream.users().shp, batch.users().shp) < 1e-12);
    if (hierarchical)
        QVERIFY((stream.items().levelRate - batch.items().levelRate).cwiseAbs().maxCoeff() <
                1e-12 * batch.items().levelRate.cwiseAbs().maxCoeff());
}

// A later minibatch adds to the items' shapes exactly Σ_{u∈b} y_ui φ_uik under the items'
// state before it (recomputed here from the users' fitted eθ and the items' eβ), and the rates
// are E[η_i] + Σ of E[θ_u] over every user seen (PMF: E[η_i] = d).
void TestStreaming::pfStreamAddsTheMinibatchStatistic()
{
    const ::test_support::Planted p = ::test_support::planted(60, 25, 3, 5);
    const PfOptions o = pfOptions(false, 3, 20);
    PfTrainer t(p.data, PfAlgorithm::Streaming, o, 8);
    t.step(1);
    Eigen::VectorXd thetaSum = Eigen::VectorXd::Zero(3);
    for (std::int64_t u : t.lastBatch())
        thetaSum += t.users().mean.row(u).transpose();
    const pf::Side before = t.items();
    t.step(2);
    pf::MatrixRD expected = before.shp;
    for (std::int64_t u : t.lastBatch()) {
        thetaSum += t.users().mean.row(u).transpose();
        const auto cols = p.data->train.rowCols(u);
        const auto counts = p.data->train.rowCounts(u);
        // The φ of the user's last round: the users' eθ after the step is that of the γ the
        // last φ came from only at convergence, so recompute φ from the converged state.
        for (std::size_t n = 0; n < cols.size(); ++n) {
            const Eigen::RowVectorXd w =
                t.users().expLog.row(u).array() * before.expLog.row(cols[n]).array();
            expected.row(cols[n]) += counts[n] * w / w.sum();
        }
    }
    const double shp = maxRelDiff(t.items().shp, expected);
    qInfo("shapes after the second minibatch against the statistic written out: %.2e", shp);
    QVERIFY2(shp < 1e-3, qPrintable(QString::number(shp))); // the users' last round's tolerance
    for (Eigen::Index i = 0; i < 25; ++i)
        QVERIFY(maxRelDiff(t.items().rte.row(i), (thetaSum.array() + o.priors.d).transpose()) <
                1e-12);
}

// One streaming pass over 300 users of 3 planted groups, 30 a minibatch, on eight seeds,
// against SVI's single pass: streaming predicts held-out ratings far better than the popularity
// baseline on every seed, and its held-out log-likelihood is close to SVI's on average.
// Measured locally (HPF): precision@5 0.36–0.61 against popularity's 0.10; log-likelihood
// −2.57 on average against SVI's −2.47 — four seeds ahead of SVI, four behind where two groups
// share a factor after the first minibatches (streaming VB's greedy start).
void TestStreaming::pfStreamFindsPlantedGroups()
{
    const ::test_support::Planted p = ::test_support::planted(300, 60, 3, 33);
    PfOptions o = pfOptions(true, 3, 30);
    o.topN = 5;
    double streamSum = 0.0, sviSum = 0.0;
    const int seeds = 8;
    for (int seed = 1; seed <= seeds; ++seed) {
        PfTrainer stream(p.data, PfAlgorithm::Streaming, o, std::uint64_t(seed));
        PfTrainer svi(p.data, PfAlgorithm::Svi, o, std::uint64_t(seed));
        const std::int64_t steps = onePass(stream);
        QCOMPARE(steps, std::int64_t(10));
        for (std::int64_t t = 1; t <= steps; ++t)
            svi.step(t);
        const Evaluation ev = stream.evaluate(true), sv = svi.evaluate(true);
        const double precision = ev.metrics.at("precision_at_5");
        const double popularity = ev.metrics.at("popularity_precision_at_5");
        qInfo("seed %d: held-out log-likelihood streaming %.3f, SVI %.3f; precision@5 %.3f, "
              "popularity %.3f",
              seed, ev.metrics.at("heldout_loglik"), sv.metrics.at("heldout_loglik"), precision,
              popularity);
        QVERIFY(precision > popularity + 0.15);
        streamSum += ev.metrics.at("heldout_loglik");
        sviSum += sv.metrics.at("heldout_loglik");
    }
    QVERIFY2(streamSum / seeds > sviSum / seeds - 0.2,
             qPrintable(QString("%1 %2").arg(streamSum / seeds).arg(sviSum / seeds)));
}

// A streaming run ends when its documents do, whatever its budget, as end_of_data; its last
// snapshot has seen every training document once (epochs 1).
void TestStreaming::runEndsAtTheEndOfTheStream()
{
    const LdaSynthetic s = plantedCorpus(4, 6, 230);
    auto trainer =
        std::make_unique<LdaTrainer>(s.data, LdaAlgorithm::Streaming, streamingOptions(50, 1), 3);
    RunOptions options;
    options.maxSteps = 1000;
    options.evalEverySteps = 1;
    options.finalFullEvaluation = false;
    std::vector<Snapshot> trace;
    const Summary summary = Runner::runBlocking(*trainer, options, [&](const Snapshot& snap) {
        trace.push_back(snap);
        return CallbackResult::Continue;
    });
    QCOMPARE(int(summary.reason), int(TerminationReason::EndOfData));
    QCOMPARE(std::string(terminationName(summary.reason)), std::string("end_of_data"));
    QVERIFY(terminationOf("end_of_data") == TerminationReason::EndOfData);
    const std::int64_t D = s.data->trainingRowCount();
    QCOMPARE(summary.steps, (D + 49) / 50);
    QCOMPARE(summary.epochs, 1.0);
    QVERIFY(summary.message.find(std::to_string(D) + " items") != std::string::npos);
    QVERIFY(!trace.empty());
    QCOMPARE(trace.back().epochs, 1.0);
    QVERIFY(trace.back().metrics.count("perplexity") == 1);

    // With the automatic cadence of a long time budget (a snapshot every 1.5 training seconds,
    // far longer than this stream), a stream of known length still charts every minibatch:
    // at least a fortieth of its planned steps (here all of them) get a snapshot.
    auto timed =
        std::make_unique<LdaTrainer>(s.data, LdaAlgorithm::Streaming, streamingOptions(50, 1), 3);
    QCOMPARE(timed->plannedSteps(), (D + 49) / 50);
    RunOptions byTime;
    byTime.maxSeconds = 60.0;
    byTime.finalFullEvaluation = false;
    std::vector<std::int64_t> steps;
    Runner::runBlocking(*timed, byTime, [&](const Snapshot& snap) {
        steps.push_back(snap.step);
        return CallbackResult::Continue;
    });
    std::vector<std::int64_t> every((D + 49) / 50);
    std::iota(every.begin(), every.end(), std::int64_t(1));
    QCOMPARE(steps, every);
}

// Gamma–Poisson in closed form: one rank in three orders and three minibatch sizes, and three
// asynchronous ranks (changes in whatever order they arrive), all end at Gamma(a + Σx, b + n)
// exactly (the counts are whole numbers, so every sum is exact).
void TestStreaming::gammaPoissonIsExactInAnyOrder()
{
    std::vector<double> x;
    Rng rng(3);
    double sum = 0.0;
    for (int i = 0; i < 101; ++i) {
        x.push_back(double(rng.below(9)));
        sum += x.back();
    }
    for (const auto& [seed, minibatch] : {std::pair<int, int>{1, 7}, {2, 10}, {3, 101}}) {
        GammaPoissonStream t(x, minibatch, std::uint64_t(seed));
        const std::int64_t steps = onePass(t);
        QCOMPARE(t.shape(), 2.0 + sum);
        QCOMPARE(t.rate(), 0.5 + 101.0);
        QCOMPARE(t.itemsSeen(steps), std::int64_t(101));
    }
    std::vector<std::unique_ptr<Trainer>> ranks;
    for (int r = 0; r < 3; ++r)
        ranks.push_back(std::make_unique<GammaPoissonStream>(x, 4, 5));
    int changes = 0;
    const AsyncRun run = runAsync(ranks, std::make_unique<GammaPoissonStream>(x, 4, 5),
                                  [&](int, const std::string&) { ++changes; });
    const auto& t = static_cast<const GammaPoissonStream&>(*ranks[0]);
    QCOMPARE(t.shape(), 2.0 + sum);
    QCOMPARE(t.rate(), 0.5 + 101.0);
    QCOMPARE(run.itemsApplied, std::int64_t(101));
    QCOMPARE(changes, 26); // 101 items, 4 a minibatch
}

namespace {

std::vector<std::unique_ptr<Trainer>> ldaRanks(const CountDataPtr& data, const LdaOptions& o, int R,
                                               std::uint64_t seed)
{
    std::vector<std::unique_ptr<Trainer>> out;
    for (int r = 0; r < R; ++r)
        out.push_back(std::make_unique<LdaTrainer>(data, LdaAlgorithm::Streaming, o, seed));
    return out;
}

LdaOptions asyncOptions(std::int64_t minibatch, int rounds)
{
    LdaOptions o = streamingOptions(minibatch, rounds);
    o.distribute = "async";
    return o;
}

} // namespace

// The master's posterior after an asynchronous pass on three ranks is the prior plus the sum of
// the changes it received (each a minibatch's statistic, as sent), whatever their order: λ =
// η + Σ S, to rounding. Every minibatch of the pass was handed out once (each rank fitted some)
// and every document is in the posterior once.
void TestStreaming::asyncMasterHoldsThePriorPlusTheChanges()
{
    const LdaSynthetic s = plantedCorpus(5, 6, 900);
    const LdaOptions o = asyncOptions(50, 2);
    std::vector<std::unique_ptr<Trainer>> ranks = ldaRanks(s.data, o, 3, 7);
    MatrixRD sum = MatrixRD::Zero(300, o.K);
    std::vector<int> from(3, 0);
    const AsyncRun run =
        runAsync(ranks, std::make_unique<LdaTrainer>(s.data, LdaAlgorithm::Streaming, o, 7),
                 [&](int rank, const std::string& change) {
                     SparseRowSum S;
                     GlobalStatistic buffers;
                     buffers.sparse(S);
                     buffers.unpack(change);
                     for (std::size_t i = 0; i < S.index.size(); ++i)
                         sum.row(S.index[i]) += S.rows.row(Eigen::Index(i));
                     ++from[std::size_t(rank)];
                 });
    const auto& lda = static_cast<const LdaTrainer&>(*ranks[0]);
    QVERIFY(run.finished);
    const std::int64_t D = s.data->trainingRowCount();
    QCOMPARE(run.itemsApplied, D);
    const double err = ((lda.lambdaT().array() - o.eta) - sum.array()).abs().maxCoeff();
    qInfo("λ − η against the sum of %d + %d + %d changes: max |difference| %.2e", from[0], from[1],
          from[2], err);
    QVERIFY2(err < 1e-9 * sum.maxCoeff(), qPrintable(QString::number(err)));
    std::int64_t items = 0;
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(run.times[std::size_t(r)].minibatches, std::int64_t(from[std::size_t(r)]));
        QVERIFY(from[std::size_t(r)] >= 1);
        items += run.times[std::size_t(r)].items;
    }
    QCOMPARE(from[0] + from[1] + from[2], int((D + 49) / 50));
    QCOMPARE(items, D);
}

// Asynchronous LDA with one topic is exactly conjugate: λ = η + the corpus's word counts
// whatever order the ranks' changes came in.
void TestStreaming::asyncLdaOneTopicIsTheConjugatePosterior()
{
    const CountDataPtr data = smallCorpus(61, 15, 8);
    const Eigen::VectorXd counts = wordCounts(*data);
    LdaOptions o = asyncOptions(4, 2);
    o.K = 1;
    std::vector<std::unique_ptr<Trainer>> ranks = ldaRanks(data, o, 3, 2);
    runAsync(ranks, std::make_unique<LdaTrainer>(data, LdaAlgorithm::Streaming, o, 2));
    const auto& lda = static_cast<const LdaTrainer&>(*ranks[0]);
    const double err = ((lda.lambdaT().col(0).array() - o.eta) - counts.array()).abs().maxCoeff();
    QVERIFY2(err < 1e-9, qPrintable(QString::number(err)));
}

// An asynchronous pass on three ranks reaches nearly the one-rank stream's held-out perplexity
// on planted topics (each rank fits under a posterior that lacks the others' latest changes),
// over six planted corpora. The changes' order, and so the result, differs from run to run:
// measured locally, 0.99–1.06 × the one-rank figure on five corpora and 1.12–1.16 on the sixth
// (two planted topics sharing one), 1.04 on average.
void TestStreaming::asyncLdaMatchesTheOneRankStream()
{
    double sum = 0.0;
    const int corpora = 6;
    for (int c = 1; c <= corpora; ++c) {
        const LdaSynthetic s = plantedCorpus(std::uint64_t(c));
        LdaTrainer one(s.data, LdaAlgorithm::Streaming, streamingOptions(100, 1), 3);
        onePass(one);
        const LdaOptions o = asyncOptions(100, 1);
        std::vector<std::unique_ptr<Trainer>> ranks = ldaRanks(s.data, o, 3, 3);
        runAsync(ranks, std::make_unique<LdaTrainer>(s.data, LdaAlgorithm::Streaming, o, 3));
        const double ratio = ranks[0]->evaluate(true).metrics.at("perplexity") /
                             one.evaluate(true).metrics.at("perplexity");
        qInfo("corpus %d, asynchronous on 3 ranks: held-out perplexity %.3f × the one-rank "
              "stream's",
              c, ratio);
        QVERIFY2(ratio < 1.25, qPrintable(QString::number(ratio)));
        sum += ratio;
    }
    QVERIFY2(sum / corpora < 1.1, qPrintable(QString::number(sum / corpora)));
}

QTEST_GUILESS_MAIN(TestStreaming)
#include "test_streaming.moc"
