// Poisson factorization (HPF and PMF) fitted by batch VB and SVI, checked against independent
// computations: the coordinate-ascent updates written out term by term with explicit φ on a
// tiny model, finite differences of the ELBO at a user's local fixed point, monotone batch
// ELBOs, an SVI step with ρ = 1 on all users against the batch sweep, recovery of planted
// factors from synthetic Poisson data, and the ranking measures by hand.

#include "core/math/digamma.h"
#include "core/math/random.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/builtin.h"
#include "core/models/pf/pf_model.h"
#include "core/models/pf/pf_trainer.h"
#include "core/run/registry.h"
#include "tests/core/pf_testing.h"

#include <QtTest>
#include <boost/math/special_functions/digamma.hpp>
#include <cmath>
#include <limits>
#include <numeric>

using namespace svi;
using pf::MatrixRD;
using test_support::Planted;
using test_support::planted;

namespace {

// Arbitrary small counts (not from the model), every user with at least one rating.
CountDataPtr smallCounts(int users, int items, std::uint64_t seed)
{
    auto d = std::make_shared<CountData>();
    d->vocabularySize = items;
    d->source = "small counts";
    Rng rng(seed);
    for (int u = 0; u < users; ++u) {
        std::vector<std::int32_t> cols;
        std::vector<float> counts;
        for (int i = 0; i < items; ++i)
            if (rng.uniform() < 0.5 || (i == items - 1 && cols.empty())) {
                cols.push_back(i);
                counts.push_back(float(1 + rng.below(5)));
            }
        d->train.appendRow(cols, counts);
        d->heldOut.appendRow({}, {});
    }
    d->finalise();
    return d;
}

PfOptions options(bool hierarchical, int K)
{
    PfOptions o;
    o.K = K;
    o.priors.hierarchical = hierarchical;
    return o;
}

double maxRelDiff(const MatrixRD& a, const MatrixRD& b)
{
    return ((a - b).array().abs() / (1.0 + b.array().abs())).maxCoeff();
}

double psi(double x)
{
    return boost::math::digamma(x);
}

} // namespace

class TestPf : public QObject
{
    Q_OBJECT

private slots:
    void batchSweepMatchesUpdatesWrittenOut_data();
    void batchSweepMatchesUpdatesWrittenOut();
    void localFixedPointIsStationary();
    void batchElboIsMonotone_data();
    void batchElboIsMonotone();
    void fullBatchSviStepWithRhoOneIsTheBatchSweep_data();
    void fullBatchSviStepWithRhoOneIsTheBatchSweep();
    void sviDoesNotDependOnThreads();
    void recoversPlantedFactors_data();
    void recoversPlantedFactors();
    void adaptiveScheduleTrains();
    void rankingByHand();
    void topItemsBreaksTiesAndExcludes();
    void rejectsBadOptions_data();
    void rejectsBadOptions();
    void registryDeclaresBothModels();
    void divergedSeesEveryItemParameter();
};

// diverged() looks at every parameter of the item side (shapes, rates, popularity levels): one
// bad value anywhere is enough; finite, positive values are not divergence.
void TestPf::divergedSeesEveryItemParameter()
{
    const CountDataPtr data = smallCounts(6, 5, 11);
    PfTrainer trainer(data, PfAlgorithm::Batch, options(true, 3), 5);
    trainer.step(1);
    QVERIFY(!trainer.diverged());
    const MatrixRD shp = trainer.items().shp, rte = trainer.items().rte;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double inf = std::numeric_limits<double>::infinity();
    for (const double bad : {nan, inf, 0.0, -1.0})
        for (const bool inShape : {true, false}) {
            MatrixRD s = shp, r = rte;
            (inShape ? s : r)(4, 2) = bad;
            trainer.setItems(s, r);
            QVERIFY2(
                trainer.diverged(),
                qPrintable(QString("%1 in the %2").arg(bad).arg(inShape ? "shapes" : "rates")));
        }
    trainer.setItems(shp, rte);
    QVERIFY(!trainer.diverged());
}

// One batch sweep against the updates of Gopalan et al. (2015) written out with explicit φ on
// a 4×5 model: φ from the starting parameters, then γ and κ for every user, then λ and τ.
void TestPf::batchSweepMatchesUpdatesWrittenOut_data()
{
    QTest::addColumn<bool>("hierarchical");
    QTest::newRow("hpf") << true;
    QTest::newRow("pmf") << false;
}

void TestPf::batchSweepMatchesUpdatesWrittenOut()
{
    QFETCH(bool, hierarchical);
    const int U = 4, I = 5, K = 3;
    const CountDataPtr data = smallCounts(U, I, 7);
    PfOptions o = options(hierarchical, K);
    o.priors.a = 0.4, o.priors.c = 0.6, o.priors.aPrime = 0.7, o.priors.bPrime = 2.0;
    o.priors.cPrime = 0.5, o.priors.dPrime = 0.8, o.priors.b = 1.3, o.priors.d = 0.9;
    PfTrainer trainer(data, PfAlgorithm::Batch, o, 3);
    const pf::Side u0 = trainer.users(), i0 = trainer.items();

    // Dense y.
    MatrixRD y = MatrixRD::Zero(U, I);
    for (int u = 0; u < U; ++u) {
        const auto cols = data->train.rowCols(u);
        const auto cnt = data->train.rowCounts(u);
        for (std::size_t n = 0; n < cols.size(); ++n)
            y(u, cols[n]) = cnt[n];
    }
    auto elog = [](double s, double r) { return psi(s) - std::log(r); };
    // φ_uik from the starting parameters.
    std::vector<MatrixRD> phi(U, MatrixRD::Zero(I, K));
    for (int u = 0; u < U; ++u)
        for (int i = 0; i < I; ++i) {
            double z = 0;
            for (int k = 0; k < K; ++k) {
                phi[u](i, k) =
                    std::exp(elog(u0.shp(u, k), u0.rte(u, k)) + elog(i0.shp(i, k), i0.rte(i, k)));
                z += phi[u](i, k);
            }
            phi[u].row(i) /= z;
        }
    const double xiRate0 = o.priors.aPrime / o.priors.bPrime;
    const double etaRate0 = o.priors.cPrime / o.priors.dPrime;
    // Users: γ, then κ.
    MatrixRD gShp(U, K), gRte(U, K);
    Eigen::VectorXd kRte(U);
    for (int u = 0; u < U; ++u) {
        const double eXi = hierarchical ? u0.levelShape / u0.levelRate[u] : o.priors.b;
        for (int k = 0; k < K; ++k) {
            double s = o.priors.a, r = eXi;
            for (int i = 0; i < I; ++i) {
                s += y(u, i) * phi[u](i, k);
                r += i0.shp(i, k) / i0.rte(i, k);
            }
            gShp(u, k) = s, gRte(u, k) = r;
        }
        kRte[u] = xiRate0 + (gShp.row(u).array() / gRte.row(u).array()).sum();
    }
    // Items: λ, then τ.
    MatrixRD lShp(I, K), lRte(I, K);
    Eigen::VectorXd tRte(I);
    for (int i = 0; i < I; ++i) {
        const double eEta = hierarchical ? i0.levelShape / i0.levelRate[i] : o.priors.d;
        for (int k = 0; k < K; ++k) {
            double s = o.priors.c, r = eEta;
            for (int u = 0; u < U; ++u) {
                s += y(u, i) * phi[u](i, k);
                r += gShp(u, k) / gRte(u, k);
            }
            lShp(i, k) = s, lRte(i, k) = r;
        }
        tRte[i] = etaRate0 + (lShp.row(i).array() / lRte.row(i).array()).sum();
    }

    QCOMPARE(trainer.step(1), 1.0);
    QVERIFY2(maxRelDiff(trainer.users().shp, gShp) < 1e-10, "γshp");
    QVERIFY2(maxRelDiff(trainer.users().rte, gRte) < 1e-10, "γrte");
    QVERIFY2(maxRelDiff(trainer.items().shp, lShp) < 1e-10, "λshp");
    QVERIFY2(maxRelDiff(trainer.items().rte, lRte) < 1e-10, "λrte");
    if (hierarchical) {
        QCOMPARE(trainer.users().levelShape, o.priors.aPrime + K * o.priors.a);
        QCOMPARE(trainer.items().levelShape, o.priors.cPrime + K * o.priors.c);
        QVERIFY((trainer.users().levelRate - kRte).cwiseAbs().maxCoeff() < 1e-10);
        QVERIFY((trainer.items().levelRate - tRte).cwiseAbs().maxCoeff() < 1e-10);
    } else {
        QCOMPARE(trainer.users().levelRate.size(), Eigen::Index(0));
    }
}

// At a user's local fixed point (φ, γ, κ iterated to convergence with the items fixed) the
// ELBO is stationary in that user's parameters: central differences of userElbo in γshp, γrte
// and κrte vanish, while they do not at the starting point.
void TestPf::localFixedPointIsStationary()
{
    const CountDataPtr data = smallCounts(6, 9, 11);
    const int K = 3;
    PfOptions o = options(true, K);
    PfTrainer trainer(data, PfAlgorithm::Batch, o, 5);
    for (int t = 1; t <= 3; ++t)
        trainer.step(t); // items away from their start
    pf::Side users = trainer.users();
    const pf::Side& items = trainer.items();
    const Eigen::VectorXd sums = pf::columnSums(items.mean);
    const pf::SidePrior prior = pf::userPrior(o.priors);
    const std::int64_t u = 2;

    auto gradNorm = [&](pf::Side& s) {
        double worst = 0.0;
        const double h = 1e-6;
        auto probe = [&](double& x) {
            const double x0 = x;
            x = x0 + h;
            s.refresh(u, u + 1);
            const double up = pf::userElbo(s, u, data->train, items, sums, prior);
            x = x0 - h;
            s.refresh(u, u + 1);
            const double down = pf::userElbo(s, u, data->train, items, sums, prior);
            x = x0;
            s.refresh(u, u + 1);
            worst = std::max(worst, std::abs(up - down) / (2 * h));
        };
        for (int k = 0; k < K; ++k) {
            probe(s.shp(u, k));
            probe(s.rte(u, k));
        }
        probe(s.levelRate[u]);
        return worst;
    };
    const double atStart = gradNorm(users);
    pf::UserWorkspace ws;
    ws.resize(K, 9);
    const int rounds = pf::fitUser(users, u, data->train, items, sums, prior, {5000, 1e-13}, ws);
    QVERIFY(rounds > 2);
    const double atFixedPoint = gradNorm(users);
    QVERIFY2(atStart > 1e-2, qPrintable(QString::number(atStart)));
    QVERIFY2(atFixedPoint < 1e-5, qPrintable(QString::number(atFixedPoint)));
}

void TestPf::batchElboIsMonotone_data()
{
    QTest::addColumn<bool>("hierarchical");
    QTest::addColumn<int>("seed");
    for (int seed = 1; seed <= 4; ++seed) {
        QTest::newRow(qPrintable(QString("hpf seed %1").arg(seed))) << true << seed;
        QTest::newRow(qPrintable(QString("pmf seed %1").arg(seed))) << false << seed;
    }
}

void TestPf::batchElboIsMonotone()
{
    QFETCH(bool, hierarchical);
    QFETCH(int, seed);
    const Planted p = planted(60, 40, 3, std::uint64_t(seed));
    PfTrainer trainer(p.data, PfAlgorithm::Batch, options(hierarchical, 5), std::uint64_t(seed));
    double previous = trainer.elbo();
    const double first = previous;
    for (int t = 1; t <= 60; ++t) {
        trainer.step(t);
        const double elbo = trainer.elbo();
        QVERIFY2(elbo >= previous - 1e-9 * std::abs(previous),
                 qPrintable(QString("sweep %1: %2 < %3")
                                .arg(t)
                                .arg(elbo, 0, 'g', 15)
                                .arg(previous, 0, 'g', 15)));
        previous = elbo;
    }
    QVERIFY(previous > first + 1.0);
    // The full evaluation's ELBO is the exact one.
    QCOMPARE(trainer.evaluate(true).elbo, previous);
}

// SVI with every user in the minibatch, one local round and ρ = 1 (τ0 = 0 at t = 1) is the
// batch sweep: the same φ, users and items (sums in another order: 1e-12).
void TestPf::fullBatchSviStepWithRhoOneIsTheBatchSweep_data()
{
    batchSweepMatchesUpdatesWrittenOut_data();
}

void TestPf::fullBatchSviStepWithRhoOneIsTheBatchSweep()
{
    QFETCH(bool, hierarchical);
    const Planted p = planted(50, 30, 3, 9);
    PfOptions o = options(hierarchical, 4);
    o.minibatch = 1000;
    o.localIters = 1;
    o.stepSize.tau0 = 0.0;
    PfTrainer svi(p.data, PfAlgorithm::Svi, o, 4), batch(p.data, PfAlgorithm::Batch, o, 4);
    // ρ_t = t^(−κ) is 1 at the first step only.
    QCOMPARE(svi.step(1), 1.0);
    batch.step(1);
    QVERIFY(maxRelDiff(svi.items().shp, batch.items().shp) < 1e-12);
    QVERIFY(maxRelDiff(svi.items().rte, batch.items().rte) < 1e-12);
    QVERIFY(maxRelDiff(svi.users().shp, batch.users().shp) < 1e-12);
    QVERIFY(std::abs(svi.elbo() - batch.elbo()) < 1e-9 * std::abs(batch.elbo()));
    // With a scale of N/|B| a half minibatch at ρ = 1 is not the batch update.
    o.minibatch = 25;
    PfTrainer half(p.data, PfAlgorithm::Svi, o, 4);
    half.step(1);
    QVERIFY(maxRelDiff(half.items().shp, batch.items().shp) > 1e-3);
}

void TestPf::sviDoesNotDependOnThreads()
{
    const Planted p = planted(80, 50, 4, 21);
    PfOptions o = options(true, 6);
    o.minibatch = 16;
    auto run = [&](int threads) {
        const int saved = omp_get_max_threads();
        omp_set_num_threads(threads);
        PfTrainer t(p.data, PfAlgorithm::Svi, o, 8);
        for (int s = 1; s <= 10; ++s)
            t.step(s);
        omp_set_num_threads(saved);
        return std::pair{t.items().shp, t.evaluate(true).metrics};
    };
    const auto one = run(1), two = run(2);
    QVERIFY(one.first == two.first); // bitwise
    QCOMPARE(one.second.at("precision_at_20"), two.second.at("precision_at_20"));
}

void TestPf::recoversPlantedFactors_data()
{
    QTest::addColumn<bool>("hierarchical");
    QTest::addColumn<bool>("svi");
    QTest::newRow("hpf batch") << true << false;
    QTest::newRow("hpf svi") << true << true;
    QTest::newRow("pmf batch") << false << false;
    QTest::newRow("pmf svi") << false << true;
}

// 300 users each preferring one of 3 groups of 20 items: with K = 3, every item's largest
// factor identifies its group (one factor per group), held-out ranking beats popularity by
// far, and the held-out log-likelihood improves on the starting point.
void TestPf::recoversPlantedFactors()
{
    QFETCH(bool, hierarchical);
    QFETCH(bool, svi);
    const int G = 3;
    const Planted p = planted(300, 60, G, 33);
    PfOptions o = options(hierarchical, G);
    o.minibatch = 30;
    o.topN = 5;
    PfTrainer trainer(p.data, svi ? PfAlgorithm::Svi : PfAlgorithm::Batch, o, 2);
    const double llStart = trainer.evaluate(true).metrics.at("heldout_loglik");
    for (int t = 1; t <= (svi ? 300 : 100); ++t)
        trainer.step(t);
    const Evaluation ev = trainer.evaluate(true);

    // Items: factor → group must be a bijection and explain every item.
    std::vector<std::vector<int>> votes(G, std::vector<int>(G, 0));
    for (int i = 0; i < 60; ++i) {
        Eigen::Index k;
        trainer.items().mean.row(i).maxCoeff(&k);
        ++votes[std::size_t(k)][std::size_t(p.itemGroup[std::size_t(i)])];
    }
    int correct = 0;
    std::vector<bool> used(G, false);
    for (int k = 0; k < G; ++k) {
        const auto best =
            std::max_element(votes[std::size_t(k)].begin(), votes[std::size_t(k)].end());
        const int g = int(best - votes[std::size_t(k)].begin());
        QVERIFY2(!used[std::size_t(g)], "two factors found the same group");
        used[std::size_t(g)] = true;
        correct += *best;
    }
    QVERIFY2(correct >= 58, qPrintable(QString("%1 of 60 items in their group").arg(correct)));
    const double precision = ev.metrics.at("precision_at_5");
    const double popularity = ev.metrics.at("popularity_precision_at_5");
    QVERIFY2(precision > popularity + 0.15,
             qPrintable(QString("precision %1, popularity %2").arg(precision).arg(popularity)));
    QVERIFY(ev.metrics.at("recall_at_5") > 0.7);
    QVERIFY(ev.metrics.at("heldout_loglik") > llStart + 0.1);
    QVERIFY(ev.preview && ev.preview->factors);
    QCOMPARE(ev.preview->factors->users.rows(), Eigen::Index(300));
}

void TestPf::adaptiveScheduleTrains()
{
    const Planted p = planted(200, 60, 3, 5);
    PfOptions o = options(true, 3);
    o.minibatch = 20;
    o.stepSize.schedule = StepSchedule::Adaptive;
    o.stepSize.adaptiveInit = 4;
    PfTrainer trainer(p.data, PfAlgorithm::Svi, o, 6);
    const double start = trainer.elbo();
    double lastRho = 1.0;
    for (int t = 1; t <= 60; ++t) {
        lastRho = trainer.step(t);
        QVERIFY(lastRho > 0.0 && lastRho <= 1.0);
    }
    QVERIFY(lastRho < 1.0);
    QVERIFY(trainer.elbo() > start);
    QVERIFY(trainer.evaluate(true).metrics.at("precision_at_20") >
            trainer.evaluate(true).metrics.at("popularity_precision_at_20"));
}

// Two users, five items: precision@2 and recall@2 counted by hand.
void TestPf::rankingByHand()
{
    CountData d;
    d.vocabularySize = 5;
    // user 0 rated 0 in training, 1 and 3 held out; user 1 rated 4, 2 held out, 0 in validation.
    d.train.appendRow(std::vector<std::int32_t>{0}, std::vector<float>{1});
    d.train.appendRow(std::vector<std::int32_t>{4}, std::vector<float>{1});
    d.heldOut.appendRow(std::vector<std::int32_t>{1, 3}, std::vector<float>{1, 1});
    d.heldOut.appendRow(std::vector<std::int32_t>{2}, std::vector<float>{1});
    d.validation.appendRow({}, {});
    d.validation.appendRow(std::vector<std::int32_t>{0}, std::vector<float>{1});
    d.finalise();
    // Scores: user 0 ranks 0 (excluded), then 1, 2: top 2 = {1, 2}, 1 hit of 2 test items.
    // user 1 ranks 0 (validation, excluded), 4 (training), then 3, 2: top 2 = {3, 2}, 1 hit of
    // 1 test item.
    const std::vector<std::vector<double>> scores = {{9, 8, 7, 1, 0}, {9, 0, 5, 6, 8}};
    const std::vector<std::int64_t> users = {0, 1};
    const RankingScore r = rankingScore(d, users, 2, [&](std::int64_t u, Eigen::VectorXd& out) {
        out = Eigen::Map<const Eigen::VectorXd>(scores[std::size_t(u)].data(), 5);
    });
    QCOMPARE(r.users, std::int64_t(2));
    QCOMPARE(r.precision, (0.5 + 0.5) / 2);
    QCOMPARE(r.recall, (1.0 / 2 + 1.0 / 1) / 2);
    QCOMPARE(r.normalizedPrecision, (1.0 / 2 + 1.0 / 1) / 2);
    // With n = 1: user 0's top item 1 is a hit (1 of 2 test items), user 1's item 3 is not.
    const RankingScore one = rankingScore(d, users, 1, [&](std::int64_t u, Eigen::VectorXd& out) {
        out = Eigen::Map<const Eigen::VectorXd>(scores[std::size_t(u)].data(), 5);
    });
    QCOMPARE(one.precision, 0.5);
    QCOMPARE(one.recall, 0.25);
    QCOMPARE(one.normalizedPrecision, 0.5);
    // Popularity: one training rating each for items 0 and 4.
    const Eigen::VectorXd pop = popularityScores(d);
    QCOMPARE(pop[0], 1.0);
    QCOMPARE(pop[4], 1.0);
    QCOMPARE(pop[2], 0.0);
    QCOMPARE(atKey("precision", 20), std::string("precision_at_20"));
    QCOMPARE(nearestRating({1, 2, 3, 4, 5}, 3.49), 3.0);
    QCOMPARE(nearestRating({1, 2, 3, 4, 5}, 3.5), 3.0);
    QCOMPARE(nearestRating({1, 2, 3, 4, 5}, 9.0), 5.0);
    QCOMPARE(nearestRating({0.5, 1.0, 1.5}, 0.0), 0.5);
}

void TestPf::topItemsBreaksTiesAndExcludes()
{
    RankingScratch scratch;
    const std::vector<double> scores = {1, 3, 3, 2, 3};
    const std::vector<std::int32_t> ex = {2};
    const auto top = topItems(scores, {ex}, 3, scratch);
    QCOMPARE(top, (std::vector<std::int32_t>{1, 4, 3}));
    QVERIFY(std::all_of(scratch.excluded.begin(), scratch.excluded.end(),
                        [](unsigned char c) { return c == 0; }));
    QCOMPARE(topItems(scores, {ex}, 10, scratch).size(), std::size_t(4));
    QCOMPARE(countHits(top, std::vector<std::int32_t>{0, 3, 4}), 2);
}

void TestPf::rejectsBadOptions_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("K") << "K"
                       << "K = 0, but must be ≥ 1";
    QTest::newRow("a") << "a"
                       << "a = -1, but must be > 0";
    QTest::newRow("kappa") << "kappa"
                           << "kappa = 2, but must be in [0.5, 1]";
    QTest::newRow("minibatch") << "minibatch"
                               << "minibatch = 0, but must be ≥ 1";
}

void TestPf::rejectsBadOptions()
{
    QFETCH(QString, field);
    QFETCH(QString, message);
    PfOptions o = options(true, 3);
    if (field == "K")
        o.K = 0;
    else if (field == "a")
        o.priors.a = -1;
    else if (field == "kappa")
        o.stepSize.kappa = 2;
    else
        o.minibatch = 0;
    const CountDataPtr data = smallCounts(5, 5, 1);
    try {
        PfTrainer t(data, PfAlgorithm::Svi, o, 1);
        QFAIL("accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromStdString(plainSettingRefs(e.what())), message);
    }
    // No ratings at all.
    auto empty = std::make_shared<CountData>();
    empty->vocabularySize = 3;
    empty->train.appendRow({}, {});
    empty->heldOut.appendRow({}, {});
    empty->finalise();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             PfTrainer(empty, PfAlgorithm::Batch, options(true, 2), 1));
}

void TestPf::registryDeclaresBothModels()
{
    const Registry& r = builtinRegistry();
    for (const char* model : {"hpf", "pmf"})
        for (const char* algorithm : {"svi", "batch"}) {
            const AlgorithmEntry* e = r.find(model, algorithm);
            QVERIFY2(e, model);
            QVERIFY(e->fits("ratings") && e->fits("corpus")); // text: test_pf_text
            QVERIFY(!e->fits("image"));
        }
    const AlgorithmEntry* hpf = r.find("hpf", "svi");
    auto has = [&](const AlgorithmEntry* e, const std::string& key) {
        return std::any_of(e->params.begin(), e->params.end(),
                           [&](const ParamSpec& s) { return s.key == key; });
    };
    QVERIFY(has(hpf, "a_prime") && has(hpf, "schedule") && has(hpf, "top_n"));
    QVERIFY(!has(r.find("pmf", "batch"), "a_prime") && has(r.find("pmf", "batch"), "b"));
    QVERIFY(!has(r.find("hpf", "batch"), "minibatch"));
    // Built through the registry on a planted set, trained, evaluated.
    const Planted p = planted(40, 20, 2, 3);
    ParamValues values = defaultValues(hpf->params);
    values["K"] = std::int64_t(2);
    auto t = hpf->make(DataSet(p.data), values, 1);
    t->step(1);
    QVERIFY(t->evaluate(false).metrics.count("recall_at_20"));
}

QTEST_GUILESS_MAIN(TestPf)
#include "test_pf.moc"
