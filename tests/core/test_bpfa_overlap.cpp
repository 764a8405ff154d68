// The overlap consensus of BPFA on images (bpfa_overlap.h): pseudo-observations of the
// non-observed pixels at weight α, against an observed entry, against repeated entries, against
// the exact posterior enumerated on a tiny image, and the consensus against its definition.

#include "core/data/image_task.h"
#include "core/models/bpfa/bpfa_model.h"
#include "core/models/bpfa/bpfa_overlap.h"
#include "core/models/bpfa/bpfa_spatial.h"
#include "core/models/bpfa/bpfa_trainer.h"
#include "core/models/builtin.h"
#include "tests/core/bpfa_test_globals.h"
#include "tests/core/registry_testing.h"

#include <Eigen/Dense>
#include <QtTest>
#include <cmath>
#include <omp.h>
#include <set>

using namespace svi;
using namespace svi::bpfa;
using ::test_support::someGlobals;

namespace {

using VecU8 = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>;

Stats statsOf(const Workspace& ws, int K, int D)
{
    Stats s;
    s.resize(K, D);
    s.add(ws);
    return s;
}

void compareStats(const Stats& a, const Stats& b)
{
    QVERIFY((a.zSum - b.zSum).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((a.P - b.P).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((a.C - b.C).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY(std::abs(a.r2 - b.r2) < 1e-9);
    QVERIFY(std::abs(a.obsCount - b.obsCount) < 1e-12);
}

// A w×h image cut into 2×2 patches, its observed pixels given.
ImageLayout tinyImage(int width, int height, const MatrixRU8& observed, const Eigen::ArrayXXf& px)
{
    ImageLayout layout;
    layout.width = width;
    layout.height = height;
    layout.patch = 2;
    layout.mean = 100.0;
    layout.scale = 50.0;
    layout.pixelObserved = observed;
    layout.corrupted = px;
    layout.original = px;
    return layout;
}

} // namespace

class TestBpfaOverlap : public QObject
{
    Q_OBJECT

private slots:
    void pseudoEntryAtWeightOneIsAnObservedEntry();
    void pseudoWeightsAddUp();
    void reusedWorkspaceForgetsItsPseudoEntries();
    void consensusIsTheMeanOfTheLatestPredictions();
    void gibbsWithPseudoPixelsMatchesEnumeratedPosterior();
    void drawnPseudoPixelsStandForAll();
    void trainerResumesWithItsConsensusOnAnyThreadCount_data();
    void trainerResumesWithItsConsensusOnAnyThreadCount();
    void overlapIsAnImageOption();
    void predictiveNoiseCountsPseudoPixelsByTheirWeight();
    void trainerConsensusFollowsTheMinibatchsPredictions();
    void rampWeighsPseudoPixelsByTheVisits();
    void memoryEstimateCountsTheImagesStructure();
};

void TestBpfaOverlap::pseudoEntryAtWeightOneIsAnObservedEntry()
{
    const int K = 4, D = 8;
    const GlobalView v = expectationView(someGlobals(K, D, 2));
    Rng rng(3);
    Eigen::VectorXd y(D);
    for (int d = 0; d < D; ++d)
        y[d] = rng.normal();
    VecU8 all = VecU8::Ones(D), some = all;
    some[2] = some[5] = 0;
    Workspace observed, pseudo;
    observed.resize(K, D);
    pseudo.resize(K, D);
    observed.gather(y, all, v);
    pseudo.gather(y, some, v);
    pseudo.appendPseudo(2, y[2], 1.0, v);
    pseudo.appendPseudo(5, y[5], 1.0, v);
    QCOMPARE(pseudo.Do, D);
    QCOMPARE(pseudo.weight, double(D));
    // The same entries in another order: the same local optimum, bound and statistics.
    mfLocal(observed, v, 300, 0.0);
    mfLocal(pseudo, v, 300, 0.0);
    QVERIFY((observed.theta - pseudo.theta).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((observed.mean - pseudo.mean).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY(std::abs(mfLocalElbo(observed, v) - mfLocalElbo(pseudo, v)) < 1e-9);
    compareStats(statsOf(observed, K, D), statsOf(pseudo, K, D));
}

void TestBpfaOverlap::pseudoWeightsAddUp()
{
    // N(u | xφ, 1/γ)^α · N(u | xφ, 1/γ)^β = N(u | xφ, 1/γ)^(α+β): one pseudo entry at weight 0.7
    // is two at 0.3 and 0.4, for every local family and for the statistics.
    const int K = 4, D = 8;
    const GlobalView v = expectationView(someGlobals(K, D, 4));
    Rng rng(5);
    Eigen::VectorXd y(D);
    for (int d = 0; d < D; ++d)
        y[d] = rng.normal();
    // Entry 3 is seen by neither, so that the workspace has room (D entries) for the repeat.
    VecU8 some = VecU8::Ones(D);
    some[1] = some[3] = some[6] = 0;
    for (int family = 0; family < 2; ++family) {
        Workspace once, twice;
        once.resize(K, D);
        twice.resize(K, D);
        once.gather(y, some, v);
        twice.gather(y, some, v);
        once.appendPseudo(1, 0.8, 0.7, v);
        once.appendPseudo(6, -0.3, 0.2, v);
        twice.appendPseudo(1, 0.8, 0.3, v);
        twice.appendPseudo(6, -0.3, 0.2, v);
        twice.appendPseudo(1, 0.8, 0.4, v);
        QVERIFY(std::abs(once.weight - twice.weight) < 1e-12);
        if (family == 0) {
            mfLocal(once, v, 300, 0.0);
            mfLocal(twice, v, 300, 0.0);
            QVERIFY(std::abs(mfLocalElbo(once, v) - mfLocalElbo(twice, v)) < 1e-9);
        } else {
            titsiasLocal(once, v, 300, 0.0);
            titsiasLocal(twice, v, 300, 0.0);
            QVERIFY(std::abs(titsiasLocalElbo(once, v) - titsiasLocalElbo(twice, v)) < 1e-9);
        }
        QVERIFY((once.theta - twice.theta).cwiseAbs().maxCoeff() < 1e-9);
        QVERIFY((once.mean - twice.mean).cwiseAbs().maxCoeff() < 1e-9);
        compareStats(statsOf(once, K, D), statsOf(twice, K, D));
    }
}

void TestBpfaOverlap::reusedWorkspaceForgetsItsPseudoEntries()
{
    const int K = 3, D = 6;
    const GlobalView v = expectationView(someGlobals(K, D, 6));
    Eigen::VectorXd y(D);
    y << 0.4, -1.0, 0.3, 0.9, -0.2, 0.5;
    VecU8 few = VecU8::Zero(D), all = VecU8::Ones(D);
    few[0] = 1;
    Workspace reused, fresh;
    reused.resize(K, D);
    fresh.resize(K, D);
    reused.gather(y, few, v);
    for (int d = 1; d < D; ++d)
        reused.appendPseudo(d, 0.1 * d, 0.25, v);
    mfLocal(reused, v, 50, 0.0);
    // The next item has every entry observed, where the last had pseudo ones.
    reused.gather(y, all, v);
    fresh.gather(y, all, v);
    mfLocal(reused, v, 300, 0.0);
    mfLocal(fresh, v, 300, 0.0);
    QCOMPARE(reused.weight, double(D));
    compareStats(statsOf(reused, K, D), statsOf(fresh, K, D));
}

void TestBpfaOverlap::consensusIsTheMeanOfTheLatestPredictions()
{
    // A 4×3 image of 2×2 patches (3 across, 2 down: 6 patches); pixels covered by 1, 2 or 4.
    const int W = 4, H = 3, across = 3, patches = 6;
    MatrixRU8 observed = MatrixRU8::Zero(H, W);
    observed(0, 0) = observed(1, 2) = observed(2, 3) = 1;
    Eigen::ArrayXXf px = Eigen::ArrayXXf::Constant(H, W, 0.0f);
    px(0, 0) = 150.0f;
    px(1, 2) = 50.0f;
    px(2, 3) = 200.0f;
    OverlapConsensus u(tinyImage(W, H, observed, px));
    QCOMPARE(u.coverage(0, 0), 1);
    QCOMPARE(u.coverage(0, 1), 2);
    QCOMPARE(u.coverage(1, 1), 4);
    QCOMPARE(u.coverage(2, 3), 1);
    QCOMPARE(u.value(0, 0), 1.0); // (150 − 100) / 50
    QCOMPARE(u.value(1, 2), -1.0);
    // The start at a non-observed pixel: the mean of the observed ones within 1 pixel (the 3×3
    // window), or within 2 where there is none.
    auto start = [&](int r, int c) {
        for (int h = 1;; h *= 2) {
            double sum = 0.0;
            int n = 0;
            for (int i = std::max(0, r - h); i <= std::min(H - 1, r + h); ++i)
                for (int j = std::max(0, c - h); j <= std::min(W - 1, c + h); ++j)
                    if (observed(i, j)) {
                        sum += (px(i, j) - 100.0) / 50.0;
                        ++n;
                    }
            if (n > 0)
                return sum / n;
        }
    };
    QVERIFY(std::abs(u.value(0, 1) - 0.0) < 1e-7); // (0, 0) and (1, 2): (1 − 1) / 2
    QVERIFY(std::abs(u.value(2, 0) - 0.0) < 1e-7); // none within 1; (0, 0) and (1, 2) within 2
    QVERIFY(std::abs(u.value(0, 3) + 1.0) < 1e-7); // (1, 2) only
    QVERIFY(std::abs(u.value(2, 2) - 0.5) < 1e-7); // (1, 2) and (2, 3)
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c)
            if (!observed(r, c))
                QVERIFY(std::abs(u.value(r, c) - start(r, c)) < 1e-7);
    // Until a patch is visited it predicts the start: ū is the mean of the latest predictions.
    Rng rng(7);
    std::vector<Eigen::VectorXf> latest(patches, Eigen::VectorXf::Zero(4));
    for (int i = 0; i < patches; ++i)
        for (int d = 0; d < 4; ++d) {
            const int r = i / across + d / 2, c = i % across + d % 2;
            latest[std::size_t(i)][d] = observed(r, c) ? 0.0f : float(start(r, c));
        }
    for (int visit = 0; visit < 40; ++visit) {
        const std::int64_t i = std::int64_t(rng.below(patches));
        Eigen::VectorXf pred(4);
        for (int d = 0; d < 4; ++d)
            pred[d] = float(rng.normal());
        u.update(i, pred.data());
        latest[std::size_t(i)] = pred;
    }
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c) {
            if (observed(r, c)) {
                QCOMPARE(u.value(r, c), (double(px(r, c)) - 100.0) / 50.0);
                continue;
            }
            double sum = 0.0;
            int n = 0;
            for (int i = 0; i < patches; ++i) {
                const int top = i / across, left = i % across;
                if (r >= top && r < top + 2 && c >= left && c < left + 2) {
                    sum += latest[std::size_t(i)][(r - top) * 2 + (c - left)];
                    ++n;
                }
            }
            QVERIFY2(std::abs(u.value(r, c) - sum / n) < 1e-6,
                     qPrintable(QString("pixel (%1, %2): %3 against %4")
                                    .arg(r)
                                    .arg(c)
                                    .arg(u.value(r, c))
                                    .arg(sum / n)));
        }
}

void TestBpfaOverlap::gibbsWithPseudoPixelsMatchesEnumeratedPosterior()
{
    // Patch 1 (top row, middle) of a 4×3 image with 2×2 patches: two of its pixels observed,
    // two seen at the consensus with α = 0.3. Its exact posterior over z (weights integrated
    // out): y ~ N(0, Φ_Sᵀ Φ_S / γ_w + diag(1 / (α_j γ))), every configuration enumerated.
    const int W = 4, H = 3, K = 3, D = 4;
    MatrixRU8 observed = MatrixRU8::Zero(H, W);
    observed(0, 1) = observed(1, 2) = 1;
    Eigen::ArrayXXf px = Eigen::ArrayXXf::Constant(H, W, 100.0f);
    px(0, 1) = 160.0f;
    px(1, 2) = 70.0f;
    OverlapConsensus u(tinyImage(W, H, observed, px));
    // Predictions from the neighbours: patch 0 and patch 2 cover pixels (0, 2) and (1, 1).
    const float p0[4] = {0.0f, 0.0f, 0.0f, 0.9f};  // patch 0: pixel (1, 1) is its d = 3
    const float p2[4] = {-0.6f, 0.0f, 0.0f, 0.0f}; // patch 2: pixel (0, 2) is its d = 0
    u.update(0, p0);
    u.update(2, p2);
    const double alpha = 0.3;

    Rng rng(11);
    MatrixRD phi(K, D);
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d)
            phi(k, d) = rng.normal();
    Eigen::VectorXd pi(K);
    pi << 0.4, 0.3, 0.6;
    const double gamma = 3.0, gammaW = 1.2;
    const GlobalView v = pointView(phi, pi, gamma, gammaW);

    // Patch 1's pixels, row-major: (0,1) observed, (0,2) consensus, (1,1) consensus, (1,2)
    // observed.
    Eigen::VectorXd y(D);
    y << 1.2, 0.0, 0.0, -0.6;
    VecU8 obs(D);
    obs << 1, 0, 0, 1;
    Workspace ws;
    ws.resize(K, D);
    ws.gather(y, obs, v);
    u.appendTo(ws, 1, alpha, v);
    QCOMPARE(ws.Do, D);
    const Eigen::Vector4d value(1.2, u.value(0, 2), u.value(1, 1), -0.6);
    const Eigen::Vector4d precision(gamma, alpha * gamma, alpha * gamma, gamma);
    // Patches not yet visited predict the start, 0.3 at both pixels (the mean of (0, 1) and
    // (1, 2), the observed pixels within 1 pixel).
    QVERIFY(std::abs(value[1] - (0.3 - 0.6) / 2) < 1e-6);     // pixel (0, 2): patches 1 and 2
    QVERIFY(std::abs(value[2] - (0.9 + 3 * 0.3) / 4) < 1e-6); // (1, 1): patches 0, 1, 3, 4
    // The pseudo entries, in the patch's order, at the consensus scaled by √α.
    QCOMPARE(ws.obs[2], 1);
    QCOMPARE(ws.obs[3], 2);
    QVERIFY(std::abs(ws.y[2] - std::sqrt(alpha) * value[1]) < 1e-12);
    QVERIFY(std::abs(ws.y[3] - std::sqrt(alpha) * value[2]) < 1e-12);

    std::vector<double> logw;
    for (unsigned mask = 0; mask < (1u << K); ++mask) {
        double l =
            ::test_support::logMarginalOf(phi, precision.cwiseInverse(), value, mask, gammaW);
        for (int k = 0; k < K; ++k)
            l += (mask & (1u << k)) ? std::log(pi[k]) : std::log1p(-pi[k]);
        logw.push_back(l);
    }
    ::test_support::checkGibbsFrequencies(ws, v, logw, 13);
}

void TestBpfaOverlap::drawnPseudoPixelsStandForAll()
{
    // A 6×6 image of 4×4 patches, 4 pixels of patch 8 (the bottom-right one) observed: 12
    // pseudo pixels, of which 5 drawn at each visit, each at weight α · 12 / 5; every one drawn
    // as often as the others.
    const int W = 6, H = 6, K = 2, D = 16, n = 12, m = 5;
    MatrixRU8 observed = MatrixRU8::Zero(H, W);
    observed(2, 2) = observed(3, 4) = observed(4, 3) = observed(5, 5) = 1;
    Eigen::ArrayXXf px = Eigen::ArrayXXf::Constant(H, W, 100.0f);
    ImageLayout layout = tinyImage(W, H, observed, px);
    layout.patch = 4;
    const OverlapConsensus u(layout);
    const GlobalView v = expectationView(someGlobals(K, D, 4));
    Eigen::VectorXd y = Eigen::VectorXd::Zero(D);
    VecU8 obs = VecU8::Zero(D);
    for (int d : {0, 6, 9, 15}) // (2, 2), (3, 4), (4, 3), (5, 5) in patch 8 (top 2, left 2)
        obs[d] = 1;
    Workspace ws;
    ws.resize(K, D);
    const double alpha = 0.3;
    std::vector<int> drawn(D, 0);
    Rng rng(5);
    const int visits = 12000;
    for (int visit = 0; visit < visits; ++visit) {
        ws.gather(y, obs, v);
        u.appendTo(ws, 8, alpha, v, &rng, m);
        QCOMPARE(ws.Do, 4 + m);
        QVERIFY(std::abs(ws.weight - (4 + alpha * n)) < 1e-12);
        std::set<int> distinct;
        for (int j = 4; j < ws.Do; ++j) {
            QVERIFY(!obs[ws.obs[std::size_t(j)]]);
            QVERIFY(std::abs(ws.scale[j] - std::sqrt(alpha * n / m)) < 1e-12);
            distinct.insert(ws.obs[std::size_t(j)]);
            ++drawn[std::size_t(ws.obs[std::size_t(j)])];
        }
        QCOMPARE(int(distinct.size()), m);
    }
    const double expected = double(visits) * m / n,
                 sd = std::sqrt(expected * (1.0 - double(m) / n));
    for (int d = 0; d < D; ++d)
        if (!obs[d])
            QVERIFY2(std::abs(drawn[std::size_t(d)] - expected) < 5 * sd,
                     qPrintable(QString("pixel %1: %2 draws, %3 expected")
                                    .arg(d)
                                    .arg(drawn[std::size_t(d)])
                                    .arg(expected)));
    // With as many draws as pseudo pixels, or without a generator: all of them at weight α.
    for (Rng* r : {&rng, static_cast<Rng*>(nullptr)}) {
        ws.gather(y, obs, v);
        u.appendTo(ws, 8, alpha, v, r, r ? n : m);
        QCOMPARE(ws.Do, D);
        QVERIFY(std::abs(ws.scale[4] - std::sqrt(alpha)) < 1e-12);
    }
}

namespace {

// A 30×30 image of stripes and a ramp, 80 % of its pixels missing, cut into 4×4 patches.
DenseDataPtr stripes()
{
    Eigen::ArrayXXf image(30, 30);
    for (int r = 0; r < 30; ++r)
        for (int c = 0; c < 30; ++c)
            image(r, c) = float(40 + 4 * c + ((r / 3) % 2 ? 60 : 0));
    InpaintOptions task;
    task.missing = 0.8;
    task.patch = 4;
    return makeInpaintingData(image, task, "stripes");
}

BpfaOptions overlapOptions()
{
    BpfaOptions o;
    o.K = 12;
    o.minibatch = 60;
    o.init = "random";
    o.evalItems = 50;
    o.overlapWeight = 0.25;
    o.neighbourCoupling = 0.0; // the overlap alone
    o.overlapRamp = 0;         // at its full weight from the first visit
    return o;
}

} // namespace

void TestBpfaOverlap::trainerResumesWithItsConsensusOnAnyThreadCount_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<double>("alpha");
    QTest::addColumn<double>("beta");
    QTest::addColumn<int>("ramp");
    QTest::newRow("gibbs-ssvi") << int(BpfaAlgorithm::GibbsSsvi) << 0.25 << 0.0 << 0;
    QTest::newRow("mf-svi") << int(BpfaAlgorithm::MfSvi) << 0.25 << 0.0 << 0;
    QTest::newRow("titsias-ssvi") << int(BpfaAlgorithm::TitsiasSsvi) << 0.25 << 0.0 << 0;
    QTest::newRow("streaming") << int(BpfaAlgorithm::Streaming) << 0.25 << 0.0 << 0;
    // The neighbour coupling (bpfa_spatial.h): its stored expectations are state as well.
    QTest::newRow("gibbs-ssvi, coupling") << int(BpfaAlgorithm::GibbsSsvi) << 0.0 << 1.0 << 0;
    QTest::newRow("mf-ssvi, overlap and coupling")
        << int(BpfaAlgorithm::MfSsvi) << 0.25 << 1.0 << 0;
    // The ramp: the patches' visits are state too.
    QTest::newRow("gibbs-ssvi, ramp") << int(BpfaAlgorithm::GibbsSsvi) << 0.25 << 1.0 << 2;
}

void TestBpfaOverlap::trainerResumesWithItsConsensusOnAnyThreadCount()
{
    // Ten steps on two threads against five on one, a checkpoint, a new trainer and five more:
    // the same globals and the same reconstruction, to the bit. The consensus is part of the
    // state (without it the resumed run sees the mean level where the first saw predictions).
    QFETCH(int, algorithm);
    QFETCH(double, alpha);
    QFETCH(double, beta);
    QFETCH(int, ramp);
    const DenseDataPtr data = stripes();
    const BpfaAlgorithm a = BpfaAlgorithm(algorithm);
    auto overlapOptions = [&] {
        BpfaOptions o = ::overlapOptions();
        o.overlapWeight = alpha;
        o.neighbourCoupling = beta;
        o.overlapRamp = ramp;
        return o;
    };
    omp_set_num_threads(2);
    BpfaTrainer whole(data, a, overlapOptions(), 5);
    for (int t = 1; t <= 10; ++t)
        whole.step(t);
    omp_set_num_threads(1);
    BpfaTrainer first(data, a, overlapOptions(), 5);
    for (int t = 1; t <= 5; ++t)
        first.step(t);
    StateArchive out;
    first.visitState(out);
    BpfaTrainer second(data, a, overlapOptions(), 5);
    StateArchive in(out.bytes());
    second.visitState(in);
    in.finish();
    for (int t = 6; t <= 10; ++t)
        second.step(t);
    omp_set_num_threads(2);
    const bpfa::Globals& g = whole.globals();
    const bpfa::Globals& h = second.globals();
    QVERIFY(g.a == h.a && g.b == h.b && g.lambda == h.lambda && g.h == h.h);
    QCOMPARE(g.c, h.c);
    QCOMPARE(g.d, h.d);
    QVERIFY(whole.predictAll() == second.predictAll());
    // And the consensus changed the fit: the same run without it ends elsewhere.
    BpfaOptions off = overlapOptions();
    off.overlapWeight = 0.0;
    off.neighbourCoupling = 0.0;
    BpfaTrainer plain(data, a, off, 5);
    for (int t = 1; t <= 10; ++t)
        plain.step(t);
    QVERIFY(!(plain.globals().h == g.h));
}

void TestBpfaOverlap::overlapIsAnImageOption()
{
    // On a table (no image) the weight changes nothing.
    const svi::DenseDataPtr table = ::test_support::randomTable();
    BpfaOptions on = overlapOptions(), off = overlapOptions();
    off.overlapWeight = 0.0;
    BpfaTrainer a(table, BpfaAlgorithm::GibbsSsvi, on, 2),
        b(table, BpfaAlgorithm::GibbsSsvi, off, 2);
    for (int t = 1; t <= 3; ++t) {
        a.step(t);
        b.step(t);
    }
    QVERIFY(a.globals().h == b.globals().h);
}

namespace {

// A 3×3 image of 2×2 patches (4 items, D = 4) whose observed pixels are all 0.5 in normalised
// units (the layout's mean 0 and scale 1); each patch sees 2 or 3 of its pixels:
//   1 1 0
//   1 0 1
//   0 1 1
DenseDataPtr checkerboard()
{
    MatrixRU8 mask(3, 3);
    mask << 1, 1, 0, 1, 0, 1, 0, 1, 1;
    auto data = std::make_shared<DenseData>();
    ImageLayout layout;
    layout.width = layout.height = 3;
    layout.patch = 2;
    layout.mean = 0.0;
    layout.scale = 1.0;
    layout.pixelObserved = mask;
    layout.corrupted = Eigen::ArrayXXf::Zero(3, 3);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            if (mask(r, c))
                layout.corrupted(r, c) = 0.5f;
    layout.original = layout.corrupted;
    data->values.resize(4, 4);
    data->roles.resize(4, 4);
    for (int i = 0; i < 4; ++i)
        for (int d = 0; d < 4; ++d) {
            const int r = i / 2 + d / 2, c = i % 2 + d % 2;
            data->values(i, d) = layout.corrupted(r, c);
            data->roles(i, d) = std::uint8_t(mask(r, c) ? EntryRole::Observed : EntryRole::Missing);
        }
    data->image = layout;
    data->source = "checkerboard";
    return data;
}

} // namespace

void TestBpfaOverlap::predictiveNoiseCountsPseudoPixelsByTheirWeight()
{
    // With Φ = 0 every prediction is 0, so the left-out entry's squared error is 0.25 whichever
    // it is; an item stands for (its observed entries + α × its pseudo ones) entries.
    const DenseDataPtr data = checkerboard();
    BpfaOptions o = overlapOptions();
    o.K = 3;
    o.noiseFit = "predictive";
    BpfaTrainer t(data, BpfaAlgorithm::GibbsSsvi, o, 3);
    const bpfa::GlobalView v =
        bpfa::pointView(MatrixRD::Zero(3, 4), Eigen::VectorXd::Constant(3, 0.5), 2.0, 1.0);
    const bpfa::Stats s = t.localStats({0, 1, 2, 3}, v, 1);
    const double seen = 3 + 2 + 2 + 3, pseudo = 4 * 4 - seen;
    const double count = seen + o.overlapWeight * pseudo;
    QVERIFY2(std::abs(s.obsCount - count) < 1e-12,
             qPrintable(QString("%1 against %2").arg(s.obsCount).arg(count)));
    QVERIFY2(std::abs(s.r2 - 0.25 * count) < 1e-12,
             qPrintable(QString("%1 against %2").arg(s.r2).arg(0.25 * count)));
}

void TestBpfaOverlap::trainerConsensusFollowsTheMinibatchsPredictions()
{
    // MF-SVI's local step is deterministic given the view: every patch of the minibatch sees the
    // consensus from before it, then their predictions replace their shares of ū.
    const DenseDataPtr data = checkerboard();
    BpfaOptions o = overlapOptions();
    o.K = 3;
    o.noiseFit = "model";
    BpfaTrainer t(data, BpfaAlgorithm::MfSvi, o, 3);
    const Globals g = someGlobals(3, 4, 9);
    const bpfa::GlobalView v = expectationView(g);
    t.localStats({2, 0, 3, 1}, v, 1);
    const OverlapConsensus before(*data->image);
    OverlapConsensus u = before;
    Workspace ws;
    ws.resize(3, 4);
    // Patch i's local step with its pseudo entries at consensus `at`, and its prediction.
    auto predict = [&](std::int64_t i, const OverlapConsensus& at) {
        ws.gather(*data, i, v);
        at.appendTo(ws, i, o.overlapWeight, v);
        mfLocal(ws, v, o.localIters, o.localTol);
        Eigen::VectorXf pred = Eigen::VectorXf::Zero(4);
        for (int k = 0; k < 3; ++k)
            pred += (ws.ex[k] * v.phi.row(k).transpose()).cast<float>();
        return pred;
    };
    for (std::int64_t i : {2, 0, 3, 1}) {
        const Eigen::VectorXf pred = predict(i, before);
        u.update(i, pred.data());
    }
    bool moved = false;
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            QVERIFY(std::abs(t.overlap().value(r, c) - u.value(r, c)) < 1e-12);
            moved = moved || std::abs(u.value(r, c) - before.value(r, c)) > 1e-3;
        }
    QVERIFY(moved);
    // The reconstruction pass sees every patch's pseudo entries at that consensus.
    t.setGlobals(g);
    const MatrixRF all = t.predictAll();
    for (std::int64_t i = 0; i < 4; ++i)
        QVERIFY((all.row(i).transpose() - predict(i, u)).cwiseAbs().maxCoeff() < 1e-6f);
}

void TestBpfaOverlap::rampWeighsPseudoPixelsByTheVisits()
{
    // With overlap_ramp = 3 a patch's missing pixels weigh α·min(1, v/3) after v visits: none at
    // the first, then α/3, 2α/3, α, α. Each patch counts its own visits; the count stops at 255.
    const DenseDataPtr data = checkerboard();
    const double alpha = 0.3;
    ImageStructure s(*data->image, 3, alpha, 0.0, 0, 3);
    const bpfa::GlobalView v =
        bpfa::pointView(MatrixRD::Zero(3, 4), Eigen::VectorXd::Constant(3, 0.5), 2.0, 1.0);
    Workspace ws;
    ws.resize(3, 4);
    const float record[4] = {0.1f, 0.2f, 0.3f, 0.4f};
    const double seen = 3.0, pseudo = 1.0; // patch 0 sees 3 of its 4 pixels
    for (int visits = 0; visits <= 5; ++visits) {
        QCOMPARE(s.overlap().visits(0), visits);
        ws.gather(*data, 0, v);
        s.apply(ws, 0, v);
        const double weight = alpha * std::min(1.0, visits / 3.0);
        QCOMPARE(ws.Do, visits == 0 ? 3 : 4);
        QVERIFY(std::abs(ws.weight - (seen + weight * pseudo)) < 1e-12);
        s.update(0, record);
    }
    // Patch 3 was not visited: still none.
    QCOMPARE(s.overlap().visits(3), 0);
    ws.gather(*data, 3, v);
    s.apply(ws, 3, v);
    QCOMPARE(ws.Do, 3);
    for (int visit = 6; visit < 300; ++visit)
        s.update(0, record);
    QCOMPARE(s.overlap().visits(0), 255);
    // Without the ramp, the full weight from the first visit.
    ImageStructure at(*data->image, 3, alpha, 0.0, 0, 0);
    ws.gather(*data, 3, v);
    at.apply(ws, 3, v);
    QCOMPARE(ws.Do, 4);
    QVERIFY(std::abs(ws.weight - (3.0 + alpha)) < 1e-12);
}

void TestBpfaOverlap::memoryEstimateCountsTheImagesStructure()
{
    // The declared memory of a run on an image counts the overlap's predictions (patches × D
    // floats) and image (a double a pixel) and the coupling's expectations (patches × (K + 1)
    // bytes) when they are on, and not when they are off.
    const DenseDataPtr data = checkerboard();
    const AlgorithmEntry* e = builtinRegistry().find("bpfa", "gibbs-ssvi");
    QVERIFY(e);
    auto bytesOf = [&](double alpha, double beta, const std::string& setting) {
        using svi::test_support::real;
        const ParamValues v = svi::test_support::smallParams(
            *e, {{"overlap_weight", real(alpha)}, {"neighbour_coupling", real(beta)}});
        double bytes = -1.0;
        for (const MemoryTerm& t : e->memory(DataSet(data), v))
            if (t.setting == setting)
                bytes = t.bytes;
        return bytes;
    };
    const double N = 4, D = 4, K = 8;                                    // the small settings' K
    QCOMPARE(bytesOf(0.25, 1.0, "overlap_weight"), 4 * N * D + 8 * 9.0); // 3×3 pixels
    QCOMPARE(bytesOf(0.25, 1.0, "neighbour_coupling"), N * (K + 1));
    QCOMPARE(bytesOf(0.0, 0.0, "overlap_weight"), -1.0);
    QCOMPARE(bytesOf(0.0, 0.0, "neighbour_coupling"), -1.0);
}

QTEST_GUILESS_MAIN(TestBpfaOverlap)
#include "test_bpfa_overlap.moc"
