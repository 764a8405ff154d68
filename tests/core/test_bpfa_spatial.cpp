// The neighbour coupling of BPFA on images (bpfa_spatial.h): the patch grid's neighbours, the
// prior's shift against its definition, the Gibbs local step against the posterior enumerated
// under the shifted prior, the bound's prior term against the shifted Bernoulli, and the
// trainer's stored expectations against the local steps of its minibatch.

#include "core/data/image_task.h"
#include "core/models/bpfa/bpfa_model.h"
#include "core/models/bpfa/bpfa_spatial.h"
#include "core/models/bpfa/bpfa_trainer.h"
#include "tests/core/bpfa_test_globals.h"

#include <Eigen/Dense>
#include <QtTest>
#include <cmath>
#include <set>

using namespace svi;
using namespace svi::bpfa;
using test_support::someGlobals;

namespace {

using VecU8 = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>;

// A width×height image cut into 2×2 patches, every pixel observed.
ImageLayout gridOf(int width, int height)
{
    ImageLayout layout;
    layout.width = width;
    layout.height = height;
    layout.patch = 2;
    layout.pixelObserved = MatrixRU8::Ones(height, width);
    layout.corrupted = Eigen::ArrayXXf::Zero(height, width);
    layout.original = layout.corrupted;
    return layout;
}

double quantised(float e)
{
    return std::lround(e * 255.0f) / 255.0;
}

double sigmoid(double x)
{
    return 1.0 / (1.0 + std::exp(-x));
}

// A 16×16 image of a ramp and a disc, 70 % of its pixels missing, cut into 4×4 patches.
DenseDataPtr disc()
{
    Eigen::ArrayXXf image(16, 16);
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c)
            image(r, c) = float(30 + 6 * r + ((r - 8) * (r - 8) + (c - 7) * (c - 7) < 20 ? 90 : 0));
    InpaintOptions task;
    task.missing = 0.7;
    task.patch = 4;
    return makeInpaintingData(image, task, "disc");
}

} // namespace

class TestBpfaSpatial : public QObject
{
    Q_OBJECT

private slots:
    void neighboursAreThePatchesOnePixelAway();
    void shiftIsTheVisitedNeighboursCentredExpectations();
    void gibbsWithShiftedPriorMatchesEnumeratedPosterior();
    void boundsPriorTermIsTheShiftedBernoulli();
    void trainerCouplingFollowsTheMinibatchsExpectations();
    void couplingIsAnImageOption();
};

void TestBpfaSpatial::neighboursAreThePatchesOnePixelAway()
{
    // 5×4 pixels: 4 patches across, 3 down.
    const NeighbourCoupling u(gridOf(5, 4), 3);
    std::int64_t nb[4];
    QCOMPARE(u.neighbours(0, nb), 2);
    QCOMPARE(std::set<std::int64_t>(nb, nb + 2), (std::set<std::int64_t>{1, 4}));
    QCOMPARE(u.neighbours(2, nb), 3);
    QCOMPARE(std::set<std::int64_t>(nb, nb + 3), (std::set<std::int64_t>{1, 3, 6}));
    QCOMPARE(u.neighbours(5, nb), 4);
    QCOMPARE(std::set<std::int64_t>(nb, nb + 4), (std::set<std::int64_t>{1, 4, 6, 9}));
    QCOMPARE(u.neighbours(11, nb), 2);
    QCOMPARE(std::set<std::int64_t>(nb, nb + 2), (std::set<std::int64_t>{7, 10}));
}

void TestBpfaSpatial::shiftIsTheVisitedNeighboursCentredExpectations()
{
    const int K = 3, D = 4;
    NeighbourCoupling u(gridOf(5, 4), K);
    const float e1[K] = {0.2f, 0.9f, 0.5f}, e4[K] = {1.0f, 0.0f, 0.33f};
    u.update(1, e1);
    u.update(4, e4);
    QCOMPARE(u.stored(3, 0), -1.0); // not visited
    for (int k = 0; k < K; ++k) {
        QCOMPARE(u.stored(1, k), quantised(e1[k]));
        QVERIFY(std::abs(u.stored(4, k) - e4[k]) <= 0.5 / 255 + 1e-9);
    }
    Eigen::VectorXd pi(K);
    pi << 0.1, 0.6, 0.35;
    const GlobalView v = pointView(MatrixRD::Zero(K, D), pi, 1.0, 1.0);
    const double beta = 1.7;
    Workspace ws;
    ws.resize(K, D);
    // Patch 0 (neighbours 1 and 4, both visited) and patch 5 (neighbours 1, 4, 6, 9: two
    // visited) get the same shift; patch 11 (neighbours 7 and 10, neither visited) none.
    for (std::int64_t i : {0, 5, 11}) {
        ws.shift.setZero();
        u.shiftPrior(ws, i, beta, v);
        for (int k = 0; k < K; ++k) {
            const double expected =
                i == 11 ? 0.0 : beta * (quantised(e1[k]) - pi[k] + quantised(e4[k]) - pi[k]);
            QVERIFY2(std::abs(ws.shift[k] - expected) < 1e-12,
                     qPrintable(QString("patch %1, k %2: %3 against %4")
                                    .arg(i)
                                    .arg(k)
                                    .arg(ws.shift[k])
                                    .arg(expected)));
        }
    }
    // A later visit replaces the earlier expectations.
    const float again[K] = {0.0f, 0.0f, 0.0f};
    u.update(1, again);
    ws.shift.setZero();
    u.shiftPrior(ws, 0, beta, v);
    for (int k = 0; k < K; ++k)
        QVERIFY(std::abs(ws.shift[k] - beta * (0.0 - pi[k] + quantised(e4[k]) - pi[k])) < 1e-12);
}

void TestBpfaSpatial::gibbsWithShiftedPriorMatchesEnumeratedPosterior()
{
    // One patch of a 3×3 image (patch 0: neighbours 1 and 2, both visited), three of its four
    // pixels observed. Its exact posterior over z (weights integrated out) under the coupled
    // prior: p(z) ∝ N(y_obs | 0, Φ_Sᵀ Φ_S / γ_w + I / γ) Π_k σ(logit π_k + s_k)^z_k
    // (1 − σ(logit π_k + s_k))^(1 − z_k), every configuration enumerated.
    const int K = 3, D = 4;
    NeighbourCoupling u(gridOf(3, 3), K);
    const float e1[K] = {0.9f, 0.1f, 0.7f}, e2[K] = {1.0f, 0.0f, 0.4f};
    u.update(1, e1);
    u.update(2, e2);
    Rng rng(21);
    MatrixRD phi(K, D);
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d)
            phi(k, d) = rng.normal();
    Eigen::VectorXd pi(K);
    pi << 0.3, 0.5, 0.2;
    const double gamma = 2.5, gammaW = 1.1, beta = 1.3;
    const GlobalView v = pointView(phi, pi, gamma, gammaW);
    Eigen::VectorXd y(D);
    y << 0.8, -1.1, 0.0, 0.4;
    VecU8 obs(D);
    obs << 1, 1, 0, 1;
    Workspace ws;
    ws.resize(K, D);
    ws.gather(y, obs, v);
    u.shiftPrior(ws, 0, beta, v);
    Eigen::VectorXd shift(K);
    for (int k = 0; k < K; ++k)
        shift[k] = beta * (quantised(e1[k]) + quantised(e2[k]) - 2 * pi[k]);
    QVERIFY((ws.shift - shift).cwiseAbs().maxCoeff() < 1e-12);

    const Eigen::Vector3d yo(0.8, -1.1, 0.4);
    Eigen::MatrixXd phiObs(K, 3);
    phiObs << phi.col(0), phi.col(1), phi.col(3);
    std::vector<double> logw;
    for (unsigned mask = 0; mask < (1u << K); ++mask) {
        double l = test_support::logMarginalOf(phiObs, Eigen::VectorXd::Constant(3, 1.0 / gamma),
                                               yo, mask, gammaW);
        for (int k = 0; k < K; ++k) {
            const double p = sigmoid(std::log(pi[k] / (1 - pi[k])) + shift[k]);
            l += (mask & (1u << k)) ? std::log(p) : std::log1p(-p);
        }
        logw.push_back(l);
    }
    test_support::checkGibbsFrequencies(ws, v, logw, 23);
}

void TestBpfaSpatial::boundsPriorTermIsTheShiftedBernoulli()
{
    // At the same local parameters, the mean-field bound with a shifted prior minus the bound
    // without it is Σ_k E[log p_s(z_k)] − E[log p(z_k)], p_s(z_k = 1) = σ(logit π_k + s_k).
    const int K = 4, D = 6;
    Rng rng(31);
    Eigen::VectorXd pi(K);
    pi << 0.15, 0.5, 0.8, 0.05;
    MatrixRD phi(K, D);
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d)
            phi(k, d) = rng.normal();
    const GlobalView v = pointView(phi, pi, 2.0, 1.5);
    Eigen::VectorXd y(D);
    for (int d = 0; d < D; ++d)
        y[d] = rng.normal();
    Workspace ws;
    ws.resize(K, D);
    ws.gather(y, VecU8::Ones(D), v);
    mfLocal(ws, v, 50, 0.0);
    const double plain = mfLocalElbo(ws, v);
    Eigen::VectorXd s(K);
    s << 1.2, -0.7, 2.5, 0.0;
    ws.shift = s;
    const double shifted = mfLocalElbo(ws, v);
    double expected = 0.0;
    for (int k = 0; k < K; ++k) {
        const double p = sigmoid(std::log(pi[k] / (1 - pi[k])) + s[k]), t = ws.theta[k];
        expected += t * std::log(p / pi[k]) + (1 - t) * std::log((1 - p) / (1 - pi[k]));
    }
    QVERIFY2(std::abs(shifted - plain - expected) < 1e-10,
             qPrintable(QString("%1 against %2").arg(shifted - plain).arg(expected)));
}

void TestBpfaSpatial::trainerCouplingFollowsTheMinibatchsExpectations()
{
    // MF-SVI's local step is deterministic given the view. After a pass over every patch, each
    // patch of a minibatch sees its neighbours' expectations from before the minibatch; then its
    // own E[z] replaces its stored ones.
    const DenseDataPtr data = disc();
    BpfaOptions o;
    o.K = 5;
    o.init = "random";
    o.noiseFit = "model";
    o.neighbourCoupling = 1.5;
    o.overlapWeight = 0.0; // the coupling alone
    BpfaTrainer t(data, BpfaAlgorithm::MfSvi, o, 3);
    const Globals g = someGlobals(o.K, 16, 9);
    const GlobalView v = expectationView(g);
    std::vector<std::int64_t> all(std::size_t(data->rows()));
    for (std::int64_t i = 0; i < data->rows(); ++i)
        all[std::size_t(i)] = i;
    t.localStats(all, v, 1);
    const NeighbourCoupling before = t.coupling();
    const std::vector<std::int64_t> batch = {40, 41, 27, 53, 0};
    t.localStats(batch, v, 2);
    Workspace ws;
    ws.resize(o.K, 16);
    bool shiftMatters = false;
    for (std::int64_t i : batch) {
        ws.gather(*data, i, v);
        mfLocal(ws, v, o.localIters, o.localTol);
        const Eigen::VectorXd independent = ws.ez;
        ws.gather(*data, i, v);
        before.shiftPrior(ws, i, o.neighbourCoupling, v);
        QVERIFY(ws.shift.cwiseAbs().maxCoeff() > 0.0);
        mfLocal(ws, v, o.localIters, o.localTol);
        for (int k = 0; k < o.K; ++k) {
            QCOMPARE(t.coupling().stored(i, k), quantised(float(ws.ez[k])));
            shiftMatters = shiftMatters || std::abs(ws.ez[k] - independent[k]) > 0.01;
        }
    }
    QVERIFY(shiftMatters);
    // A patch outside the minibatch keeps what the first pass stored.
    for (int k = 0; k < o.K; ++k)
        QCOMPARE(t.coupling().stored(100, k), before.stored(100, k));
}

void TestBpfaSpatial::couplingIsAnImageOption()
{
    // On a table (no image) β changes nothing; on an image it changes the fit.
    const svi::DenseDataPtr table = test_support::randomTable();
    BpfaOptions on, off;
    on.K = off.K = 6;
    on.init = off.init = "random";
    on.minibatch = off.minibatch = 40;
    on.neighbourCoupling = 2.0;
    off.neighbourCoupling = 0.0;
    for (const DenseDataPtr& data : {table, disc()}) {
        BpfaTrainer a(data, BpfaAlgorithm::GibbsSsvi, on, 2),
            b(data, BpfaAlgorithm::GibbsSsvi, off, 2);
        for (int t = 1; t <= 4; ++t) {
            a.step(t);
            b.step(t);
        }
        QCOMPARE(a.globals().h == b.globals().h, data == table);
        QCOMPARE(a.coupling().empty(), data == table);
    }
}

QTEST_GUILESS_MAIN(TestBpfaSpatial)
#include "test_bpfa_spatial.moc"
