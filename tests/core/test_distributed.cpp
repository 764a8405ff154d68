// Every (model, algorithm) of the registry whose trainer distributes() runs on 2 and 3 ranks —
// threads of this process through ThreadedRanks (tests/core/threaded_communicator.h), each rank
// its own trainer built from the same description and data — as on one: the same steps, and
// every evaluation's bound and metrics to a relative 1e-9 (the ranks' partial sums are added in
// another order). The entries that must distribute are listed here; one that stops
// distributing, or one that starts without being listed, fails.

#include "core/base/state_archive.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "core/run/runner.h"
#include "tests/core/registry_testing.h"
#include "tests/core/threaded_communicator.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <omp.h>
#include <set>

using namespace svi;
using namespace svi::test_support;

namespace {

// The entries whose trainers run on several ranks. The others (batch Gibbs samplers, CTM's
// mean-field variational EM, the sparse GP's closed forms of the optimal and v2 objectives)
// refuse to.
const std::set<std::string>& mustDistribute()
{
    static const std::set<std::string> s = {
        "bpfa/mf-svi",     "bpfa/mf-ssvi",     "bpfa/titsias-ssvi",   "bpfa/mimno-svi",
        "bpfa/gibbs-ssvi", "lda/svi",          "lda/batch",           "hdp/svi",
        "hdp/batch",       "ctm/h-mc-ssvi",    "ctm/s-dsvi",          "hpf/svi",
        "hpf/batch",       "pmf/svi",          "pmf/batch",           "gmf/batch",
        "gpmf/h-mc-ssvi",  "gpmf/s-dsvi",      "gpmf/mc-ssvi",        "glm/h-mc-ssvi",
        "glm/mc-ssvi",     "glm/s-dsvi",       "glm/h-mc-ssvi-batch", "gme/h-mc-ssvi",
        "gme/mc-ssvi",     "gme/s-dsvi",       "sgp/closed-form",     "sgp/mc-ssvi",
        "sgp/h-mc-ssvi",   "sgp/s-dsvi",       "epm/gamma-sgvb",      "epm/norm-sgvb",
        "epm/map",         "gpfa/gamma-sgvb",  "gpfa/norm-sgvb",      "gpfa/map",
        "gpfa/empirical",  "gpfa/ledoit-wolf", "lda/streaming",       "hpf/streaming",
        "pmf/streaming",   "bpfa/streaming",   "lda/mimno-svi",       "lda/gibbs-ssvi",
    };
    return s;
}

// Settings beside a model's small ones that take other paths through its statistic: a name
// for the test's row, the settings (applied where an algorithm declares them).
struct Variant
{
    std::string model, name;
    ParamValues settings;
};
const std::vector<Variant>& variants()
{
    static const std::vector<Variant> v = {
        {"ctm", "simple bound", {{"bound", ParamValue(std::string("simple"))}}},
        {"ctm",
         "full covariance, topics every 2 documents",
         {{"covariance", ParamValue(std::string("full"))}, {"topics_batch", integer(2)}}},
        {"gpmf", "learnt cut points", {{"learn_cuts", ParamValue(true)}}},
        {"glm", "learnt noise", {{"learn_noise", ParamValue(true)}}},
    };
    return v;
}

ParamValues variantSettings(const std::string& model, const std::string& name)
{
    if (name == "adaptive")
        return {{"schedule", ParamValue(std::string("adaptive"))}};
    for (const Variant& v : variants())
        if (v.model == model && v.name == name)
            return v.settings;
    return {};
}

std::string keyOf(const AlgorithmEntry& e)
{
    return e.model + "/" + e.algorithm;
}

constexpr std::uint64_t kSeed = 11;

RunOptions runOptions()
{
    RunOptions o;
    o.maxSteps = 4;
    o.evalEverySteps = 2; // snapshots at steps 1 and 2, and a full one at the end
    o.finalFullEvaluation = true;
    return o;
}

struct Run
{
    Summary summary;
    std::vector<Snapshot> trace;
    std::string state; // the trainer's at the end (Trainer::visitState)
};

std::string stateOf(Trainer& trainer)
{
    StateArchive out;
    trainer.visitState(out);
    return out.bytes();
}

Runner::SnapshotCallback recordInto(std::vector<Snapshot>& trace)
{
    return [&trace](const Snapshot& s) {
        trace.push_back(s);
        return CallbackResult::Continue;
    };
}

// The run on one rank: the local communicator.
Run runAlone(const AlgorithmEntry& e, const DataSet& data, const ParamValues& params)
{
    Run run;
    auto trainer = e.make(data, params, kSeed);
    run.summary = Runner::runBlocking(*trainer, runOptions(), recordInto(run.trace));
    return run;
}

// The run on `size` in-process ranks, each its own trainer of the same run.
std::vector<Run> runOnRanks(const AlgorithmEntry& e, const DataSet& data, const ParamValues& params,
                            int size)
{
    ThreadedRanks ranks(size);
    std::vector<std::unique_ptr<Trainer>> trainers;
    for (int r = 0; r < size; ++r) {
        trainers.push_back(e.make(data, params, kSeed));
        trainers.back()->setCommunicator(ranks.communicator(r));
    }
    std::vector<Run> runs(static_cast<std::size_t>(size));
    ranks.run([&](int r) {
        omp_set_num_threads(1); // this thread's parallel regions: the ranks share two cores
        Run& run = runs[std::size_t(r)];
        run.summary =
            Runner::runBlocking(*trainers[std::size_t(r)], runOptions(), recordInto(run.trace));
        run.state = stateOf(*trainers[std::size_t(r)]);
    });
    return runs;
}

// Equal to a relative 1e-9 (absolute below 1), NaN equal to NaN, infinities equal.
bool close(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b))
        return a == b;
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a));
}

QString number(double x)
{
    return QString::number(x, 'g', 17);
}

// Rank `rank` of `size` ran as the one-rank run did: the same end and steps, and the same
// evaluations to rounding.
void compareRuns(const Run& one, const Run& other, int rank, int size)
{
    const QString who = QString("rank %1 of %2").arg(rank).arg(size);
    QVERIFY2(other.summary.reason == one.summary.reason,
             qPrintable(who + ": ended '" + terminationName(other.summary.reason) + "' (" +
                        QString::fromStdString(other.summary.message) + "), one rank '" +
                        terminationName(one.summary.reason) + "' (" +
                        QString::fromStdString(one.summary.message) + ")"));
    QCOMPARE(other.summary.steps, one.summary.steps);
    QVERIFY2(
        other.trace.size() == one.trace.size(),
        qPrintable(
            who +
            QString(": %1 snapshots, one rank %2").arg(other.trace.size()).arg(one.trace.size())));
    for (std::size_t s = 0; s < one.trace.size(); ++s) {
        const Snapshot &a = one.trace[s], &b = other.trace[s];
        const QString at = who + QString(", snapshot at step %1").arg(a.step);
        QCOMPARE(b.step, a.step);
        QVERIFY2(close(a.elbo, b.elbo),
                 qPrintable(at + ": ELBO " + number(b.elbo) + ", one rank " + number(a.elbo)));
        QVERIFY2(
            a.metrics.size() == b.metrics.size(),
            qPrintable(
                at +
                QString(": %1 metrics, one rank %2").arg(b.metrics.size()).arg(a.metrics.size())));
        // What the preview shows that the sums decide: the topics' and atoms' weights, the
        // weights' posterior means.
        QVERIFY2((a.preview == nullptr) == (b.preview == nullptr), qPrintable(at + ": preview"));
        if (a.preview) {
            const Preview &pa = *a.preview, &pb = *b.preview;
            QVERIFY2(pa.topics.size() == pb.topics.size(), qPrintable(at + ": topics"));
            for (std::size_t k = 0; k < pa.topics.size(); ++k)
                QVERIFY2(pa.topics[k].index == pb.topics[k].index &&
                             close(pa.topics[k].weight, pb.topics[k].weight),
                         qPrintable(at + QString(": topic %1's weight").arg(k)));
            QVERIFY2(pa.atomWeights.size() == pb.atomWeights.size(), qPrintable(at + ": atoms"));
            for (Eigen::Index k = 0; k < pa.atomWeights.size(); ++k)
                QVERIFY2(close(pa.atomWeights[k], pb.atomWeights[k]),
                         qPrintable(at + QString(": atom %1's weight").arg(k)));
            QVERIFY2((pa.weights == nullptr) == (pb.weights == nullptr), qPrintable(at));
            for (Eigen::Index j = 0; pa.weights && j < pa.weights->mean.size(); ++j)
                QVERIFY2(close(pa.weights->mean[j], pb.weights->mean[j]),
                         qPrintable(at + QString(": weight %1's mean").arg(j)));
        }
        for (const auto& [key, value] : a.metrics) {
            const auto it = b.metrics.find(key);
            QVERIFY2(it != b.metrics.end(), qPrintable(at + ": no " + key.c_str()));
            QVERIFY2(close(value, it->second),
                     qPrintable(at + ": " + key.c_str() + " = " + number(it->second) +
                                ", one rank " + number(value)));
        }
    }
}

} // namespace

class TestDistributed : public QObject
{
    Q_OBJECT

private slots:
    void ranksSumInRankOrder();
    void sparseRowsSumOverTheUnion();
    void aRankOutOfStepIsReported();
    void theListedEntriesDistribute();
    void ranksGiveTheOneRankRun_data();
    void ranksGiveTheOneRankRun();

private:
    void oneRankRunOnRanks();
};

// The test double itself: dense sums, broadcast.
void TestDistributed::ranksSumInRankOrder()
{
    ThreadedRanks ranks(3);
    std::vector<std::vector<double>> out(3);
    std::vector<std::string> text(3);
    std::vector<int> rankSeen(3, -1), sizeSeen(3, -1);
    ranks.run([&](int r) { // no QtTest macro off the test's thread
        Communicator& c = ranks.communicator(r);
        rankSeen[std::size_t(r)] = c.rank();
        sizeSeen[std::size_t(r)] = c.size();
        out[std::size_t(r)] = {double(r + 1), 10.0 * r, r == 2 ? 1e16 : 1.0};
        c.sum(out[std::size_t(r)]);
        text[std::size_t(r)] = r == 0 ? "from rank 0" : "overwritten";
        c.broadcast(text[std::size_t(r)]);
    });
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(rankSeen[std::size_t(r)], r);
        QCOMPARE(sizeSeen[std::size_t(r)], 3);
        // In rank order: (1 + 1) + 1e16, exactly 1e16 + 2, on every rank.
        QCOMPARE(out[std::size_t(r)], (std::vector<double>{6.0, 30.0, 1e16 + 2.0}));
        QCOMPARE(text[std::size_t(r)], std::string("from rank 0"));
    }
}

// Sparse rows: the union of the indices, absent rows as zeros; dense buffers of a statistic.
void TestDistributed::sparseRowsSumOverTheUnion()
{
    ThreadedRanks ranks(2);
    std::vector<SparseRowSum> rows(2);
    std::vector<Eigen::VectorXd> dense(2);
    ranks.run([&](int r) {
        SparseRowSum& s = rows[std::size_t(r)];
        s.index = r == 0 ? std::vector<std::int32_t>{1, 4} : std::vector<std::int32_t>{0, 4, 7};
        s.rows.resize(Eigen::Index(s.index.size()), 2);
        for (Eigen::Index i = 0; i < s.rows.rows(); ++i)
            s.rows.row(i) << 100.0 * r + double(s.index[std::size_t(i)]), 1.0;
        dense[std::size_t(r)] = Eigen::VectorXd::Constant(2, r + 1.0);
        GlobalStatistic statistic;
        statistic.dense(dense[std::size_t(r)]);
        statistic.sparse(s);
        ranks.communicator(r).reduce(statistic);
    });
    for (int r = 0; r < 2; ++r) {
        const SparseRowSum& s = rows[std::size_t(r)];
        QCOMPARE(s.index, (std::vector<std::int32_t>{0, 1, 4, 7}));
        QCOMPARE(s.rows.rows(), Eigen::Index(4));
        QCOMPARE(s.rows(0, 0), 100.0); // rank 1 alone
        QCOMPARE(s.rows(1, 0), 1.0);   // rank 0 alone
        QCOMPARE(s.rows(2, 0), 108.0); // 4 + 104
        QCOMPARE(s.rows(2, 1), 2.0);
        QCOMPARE(s.rows(3, 0), 107.0);
        QVERIFY(dense[std::size_t(r)] == Eigen::VectorXd::Constant(2, 3.0));
    }
}

// A rank that calls a collective the others never call is told so; nothing hangs.
void TestDistributed::aRankOutOfStepIsReported()
{
    ThreadedRanks ranks(2);
    try {
        ranks.run([&](int r) {
            double x = 1.0;
            ranks.communicator(r).sum({&x, 1});
            if (r == 1)
                ranks.communicator(r).sum({&x, 1}); // rank 0 has ended
        });
        QFAIL("a collective without the other rank returned");
    } catch (const std::runtime_error& err) {
        QVERIFY2(QString(err.what()).contains("rank 0 ended"), err.what());
    }
}

// Each listed entry's trainer distributes, and no other entry's does (the list, and the docs
// that name them, must follow the code).
void TestDistributed::theListedEntriesDistribute()
{
    std::set<std::string> seen;
    for (const AlgorithmEntry& e : builtinRegistry().entries()) {
        const std::string key = keyOf(e);
        seen.insert(key);
        const bool distributes = e.make(dataFor(e), smallParams(e), kSeed)->distributes();
        if (mustDistribute().count(key))
            QVERIFY2(distributes, qPrintable(QString::fromStdString(key) +
                                             " must run on several ranks, but does not"));
        else
            QVERIFY2(!distributes, qPrintable(QString::fromStdString(key) +
                                              " runs on several ranks: list it here"));
    }
    for (const std::string& key : mustDistribute())
        QVERIFY2(seen.count(key), qPrintable(QString::fromStdString(key) + " is not registered"));
}

void TestDistributed::ranksGiveTheOneRankRun_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    QTest::addColumn<QString>("variant");
    for (const AlgorithmEntry& e : builtinRegistry().entries()) {
        if (!mustDistribute().count(keyOf(e)))
            continue;
        const auto row = [&](const std::string& variant) {
            QTest::newRow((keyOf(e) + (variant.empty() ? "" : ", " + variant)).c_str())
                << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm)
                << QString::fromStdString(variant);
        };
        row("");
        // The adaptive step size's warm-up rounds reduce statistics of their own.
        for (const ParamSpec& p : e.params)
            if (p.key == "schedule")
                row("adaptive");
        for (const Variant& v : variants())
            if (v.model == e.model)
                row(v.name);
    }
}

void TestDistributed::ranksGiveTheOneRankRun()
{
    try {
        oneRankRunOnRanks();
    } catch (const std::exception& err) {
        QFAIL(err.what());
    }
}

void TestDistributed::oneRankRunOnRanks()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    QFETCH(QString, variant);
    const AlgorithmEntry* e = builtinRegistry().find(model.toStdString(), algorithm.toStdString());
    QVERIFY(e);
    const DataSet data = dataFor(*e);
    const ParamValues params = smallParams(*e, variantSettings(e->model, variant.toStdString()));
    const Run one = runAlone(*e, data, params);
    QVERIFY2(one.summary.reason == TerminationReason::BudgetReached ||
                 one.summary.reason == TerminationReason::Converged ||
                 one.summary.reason == TerminationReason::EndOfData,
             one.summary.message.c_str());
    QVERIFY(!one.trace.empty()); // a closed form converges at its first step: the final one
    for (int size : {2, 3}) {
        const std::vector<Run> runs = runOnRanks(*e, data, params, size);
        for (int r = 0; r < size; ++r) {
            // Every rank holds the same state, to the bit: the global parameters from the same
            // sums, and every item's state (rank 0 alone writes checkpoints).
            QVERIFY2(
                runs[std::size_t(r)].state == runs[0].state,
                qPrintable(
                    QString("rank %1 of %2 ends in another state than rank 0").arg(r).arg(size)));
            compareRuns(one, runs[std::size_t(r)], r, size);
            if (QTest::currentTestFailed())
                return;
        }
    }
}

QTEST_GUILESS_MAIN(TestDistributed)
#include "test_distributed.moc"
