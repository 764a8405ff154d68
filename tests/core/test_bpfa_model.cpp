// Checks of the BPFA mathematics against independent computations: the batch update of
// eq. 7 written out term by term, exact enumeration of the local posterior on a tiny model,
// monotone local ELBOs, and finite differences at the coordinate-ascent optimum.

#include "core/models/bpfa/bpfa_model.h"
#include "core/models/bpfa/bpfa_trainer.h"
#include "tests/core/bpfa_test_globals.h"

#include <Eigen/Dense>
#include <QtTest>
#include <cmath>
#include <map>

using namespace svi;
using namespace svi::bpfa;
using test_support::someGlobals;

namespace {

using VecU8 = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>;

// A small data set with some missing and held-out entries.
DenseDataPtr smallData(std::int64_t N, int D, std::uint64_t seed)
{
    auto data = std::make_shared<DenseData>();
    data->values.resize(N, D);
    data->roles.resize(N, D);
    Rng rng(seed);
    for (std::int64_t i = 0; i < N; ++i)
        for (int d = 0; d < D; ++d) {
            data->values(i, d) = float(rng.normal());
            const double u = rng.uniform();
            data->roles(i, d) = std::uint8_t(u < 0.2   ? EntryRole::Missing
                                             : u < 0.3 ? EntryRole::HeldOut
                                                       : EntryRole::Observed);
        }
    data->source = "test";
    return data;
}

// log N(y; 0, Σ) with Σ = Φ_Sᵀ Φ_S / γ_w + I / γ over the observed entries: the exact
// marginal of configuration S with the weights integrated out.
double logMarginal(const Eigen::MatrixXd& phiObs, const Eigen::VectorXd& y, unsigned mask,
                   double gamma, double gammaW)
{
    const int K = int(phiObs.rows());
    const int n = int(y.size());
    Eigen::MatrixXd cov = Eigen::MatrixXd::Identity(n, n) / gamma;
    for (int k = 0; k < K; ++k)
        if (mask & (1u << k))
            cov += phiObs.row(k).transpose() * phiObs.row(k) / gammaW;
    Eigen::LLT<Eigen::MatrixXd> llt(cov);
    const Eigen::VectorXd s = llt.matrixL().solve(y);
    const double logDet = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    return -0.5 * (n * std::log(2 * M_PI) + logDet + s.squaredNorm());
}

// The Mimno target integrated over w for configuration S:
// log ∫ exp(−γ/2 (wᵀ M w − 2 wᵀ b) + Σ_S logit_k − γ_w/2 ‖w‖²) dw, with M_kk = Σ_obs E[φ_k²]
// and M_jk = φ̄_j·φ̄_k (j ≠ k) — written without any of the sampler's algebra.
double logMimnoWeight(const GlobalView& v, const std::vector<int>& obs, const Eigen::VectorXd& y,
                      unsigned mask)
{
    const int K = int(v.phi.rows());
    std::vector<int> S;
    for (int k = 0; k < K; ++k)
        if (mask & (1u << k))
            S.push_back(k);
    const int s = int(S.size());
    double logw = 0.0;
    for (int k : S)
        logw += v.logit[k];
    logw += 0.5 * (K - s) * std::log(2 * M_PI / v.gammaW);
    if (s == 0)
        return logw;
    Eigen::MatrixXd Q(s, s);
    Eigen::VectorXd b(s);
    for (int p = 0; p < s; ++p) {
        double bp = 0.0;
        for (std::size_t j = 0; j < obs.size(); ++j)
            bp += v.phi(S[p], obs[j]) * y[Eigen::Index(j)];
        b[p] = v.gamma * bp;
        for (int q = 0; q < s; ++q) {
            double m = 0.0;
            for (int d : obs)
                m += p == q ? v.phiSecond(S[p], d) : v.phi(S[p], d) * v.phi(S[q], d);
            Q(p, q) = v.gamma * m + (p == q ? v.gammaW : 0.0);
        }
    }
    Eigen::LLT<Eigen::MatrixXd> llt(Q);
    const double logDet = 2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
    logw += 0.5 * s * std::log(2 * M_PI) - 0.5 * logDet + 0.5 * b.dot(llt.solve(b));
    return logw;
}

std::vector<double> normalise(std::vector<double> logw)
{
    const double mx = *std::max_element(logw.begin(), logw.end());
    double total = 0.0;
    for (double& l : logw)
        total += (l = std::exp(l - mx));
    for (double& l : logw)
        l /= total;
    return logw;
}

// Frequencies of z configurations from a long chain, continuing the sampler one sweep at a
// time.
std::vector<double> chainFrequencies(Workspace& ws, const GlobalView& v, int sweeps,
                                     std::uint64_t seed)
{
    const int K = ws.K;
    std::vector<double> freq(1u << K, 0.0);
    Rng rng(seed);
    gibbsLocal(ws, v, 50, 1, rng);
    for (int s = 0; s < sweeps; ++s) {
        gibbsLocal(ws, v, 0, 1, rng, true);
        unsigned mask = 0;
        for (int k = 0; k < K; ++k)
            if (ws.z[k] != 0.0)
                mask |= 1u << k;
        freq[mask] += 1.0 / sweeps;
    }
    return freq;
}

} // namespace

class TestBpfaModel : public QObject
{
    Q_OBJECT

private slots:
    void globalTargetEqualsBatchUpdate();
    void fullBatchStepWithRhoOneEqualsBatchUpdate();
    void gibbsSamplerMatchesEnumeratedPosterior();
    void mimnoSamplerMatchesItsTarget();
    void localElboNeverDecreases_data();
    void localElboNeverDecreases();
    void localOptimumIsStationary_data();
    void localOptimumIsStationary();
    void globalElboTermIsMinusKl();
    void priorNaturalParameters();
    void leavingAnEntryOutIsGatheringWithoutIt();
};

// Eq. 7 written out term by term from the mean-field local parameters (θ, ν/κ, κ) of every
// item, against the library's statistics + globalTarget.
void TestBpfaModel::globalTargetEqualsBatchUpdate()
{
    const int K = 4, D = 7;
    const std::int64_t N = 40;
    const DenseDataPtr data = smallData(N, D, 11);
    const Globals g = someGlobals(K, D, 12);
    const GlobalView v = expectationView(g);
    const Prior prior;

    Workspace ws;
    ws.resize(K, D);
    Stats stats;
    stats.resize(K, D);
    Eigen::MatrixXd theta(N, K), m(N, K), kappa(N, K);
    for (std::int64_t i = 0; i < N; ++i) {
        ws.gather(*data, i, v);
        mfLocal(ws, v, 30, 0.0);
        stats.add(ws);
        theta.row(i) = ws.theta.transpose();
        m.row(i) = ws.mean.transpose();
        kappa.row(i) = ws.prec.transpose();
    }
    const Globals t = globalTarget(prior, stats, v, 1.0, K, D);

    const Eigen::MatrixXd phiBar = g.phiMean();
    const double Eg = g.c / g.d;
    Eigen::VectorXd a = Eigen::VectorXd::Constant(K, prior.a / K);
    Eigen::VectorXd b = Eigen::VectorXd::Constant(K, prior.b * (K - 1) / K);
    double c = prior.c, d = prior.d, e = prior.e, f = prior.f;
    Eigen::MatrixXd lam = Eigen::MatrixXd::Constant(K, D, D), h = Eigen::MatrixXd::Zero(K, D);
    for (std::int64_t i = 0; i < N; ++i) {
        for (int k = 0; k < K; ++k) {
            const double ex = theta(i, k) * m(i, k);
            const double ew2 = m(i, k) * m(i, k) + 1.0 / kappa(i, k);
            a[k] += theta(i, k);
            b[k] += 1.0 - theta(i, k);
            f += 0.5 * ew2;
            for (int dd = 0; dd < D; ++dd) {
                if (!data->observed(i, dd))
                    continue;
                lam(k, dd) += Eg * theta(i, k) * ew2;
                double yk = data->values(i, dd);
                for (int j = 0; j < K; ++j)
                    if (j != k)
                        yk -= theta(i, j) * m(i, j) * phiBar(j, dd);
                h(k, dd) += Eg * ex * yk;
            }
        }
        e += 0.5 * K;
        for (int dd = 0; dd < D; ++dd) {
            if (!data->observed(i, dd))
                continue;
            c += 0.5;
            // E‖y − Σ x φ‖² entry by entry, x_k and φ_k independent under q.
            double mean = data->values(i, dd);
            double var = 0.0;
            for (int k = 0; k < K; ++k) {
                const double ex = theta(i, k) * m(i, k);
                const double ex2 = theta(i, k) * (m(i, k) * m(i, k) + 1.0 / kappa(i, k));
                const double ephi2 = phiBar(k, dd) * phiBar(k, dd) + 1.0 / g.lambda(k, dd);
                mean -= ex * phiBar(k, dd);
                var += ex2 * ephi2 - ex * ex * phiBar(k, dd) * phiBar(k, dd);
            }
            d += 0.5 * (mean * mean + var);
        }
    }
    QVERIFY((t.a - a).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((t.b - b).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY(std::abs(t.c - c) < 1e-9);
    QVERIFY(std::abs(t.d - d) < 1e-8 * d);
    QVERIFY(std::abs(t.e - e) < 1e-9);
    QVERIFY(std::abs(t.f - f) < 1e-8 * f);
    QVERIFY((t.lambda - lam).cwiseAbs().maxCoeff() < 1e-8);
    QVERIFY((t.h - h).cwiseAbs().maxCoeff() < 1e-8);
}

// Algorithm 1 with ρ = 1 and the whole data set as the minibatch must land exactly on the
// batch update from the same globals.
void TestBpfaModel::fullBatchStepWithRhoOneEqualsBatchUpdate()
{
    const int K = 3, D = 6;
    const std::int64_t N = 30;
    const DenseDataPtr data = smallData(N, D, 21);
    BpfaOptions o;
    o.K = K;
    o.minibatch = N;
    o.init = "random";
    o.noiseFit = "model"; // eq. 7: the noise from every observed residual, as the batch update
    o.evalItems = 5;
    BpfaTrainer trainer(data, BpfaAlgorithm::MfSvi, o, 3);
    const Globals g0 = trainer.globals();

    const GlobalView v = expectationView(g0);
    Workspace ws;
    ws.resize(K, D);
    Stats stats;
    stats.resize(K, D);
    for (std::int64_t i = 0; i < N; ++i) {
        ws.gather(*data, i, v);
        mfLocal(ws, v, o.localIters, o.localTol);
        stats.add(ws);
    }
    const Globals batch = globalTarget(o.prior, stats, v, 1.0, K, D);

    const double rho = trainer.step(1);
    QCOMPARE(rho, 1.0);
    const Globals& g1 = trainer.globals();
    QVERIFY((g1.a - batch.a).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((g1.b - batch.b).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY(std::abs(g1.d - batch.d) < 1e-9 * batch.d);
    QVERIFY(std::abs(g1.f - batch.f) < 1e-9 * batch.f);
    QVERIFY((g1.lambda - batch.lambda).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((g1.h - batch.h).cwiseAbs().maxCoeff() < 1e-9);
    // And it moved: the prior/random start is not the answer.
    QVERIFY((g1.h - g0.h).cwiseAbs().maxCoeff() > 1e-3);
}

void TestBpfaModel::gibbsSamplerMatchesEnumeratedPosterior()
{
    const int K = 3, D = 5;
    Rng rng(5);
    MatrixRD phi(K, D);
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d)
            phi(k, d) = rng.normal();
    // Two correlated atoms make the posterior over z strongly dependent (Sec. 5.3).
    phi.row(1) = phi.row(0) + 0.2 * phi.row(2);
    Eigen::VectorXd pi(K);
    pi << 0.3, 0.5, 0.2;
    const double gamma = 4.0, gammaW = 1.5;
    const GlobalView v = pointView(phi, pi, gamma, gammaW);
    Eigen::VectorXd y(D);
    y << 1.0, -0.5, 0.8, 0.2, -1.2;
    VecU8 observed(D);
    observed << 1, 1, 0, 1, 1;

    Workspace ws;
    ws.resize(K, D);
    ws.gather(y, observed, v);
    Eigen::MatrixXd phiObs(K, ws.Do);
    Eigen::VectorXd yObs(ws.Do);
    for (int j = 0; j < ws.Do; ++j) {
        phiObs.col(j) = phi.col(ws.obs[j]);
        yObs[j] = y[ws.obs[j]];
    }
    std::vector<double> logw;
    for (unsigned mask = 0; mask < (1u << K); ++mask) {
        double l = logMarginal(phiObs, yObs, mask, gamma, gammaW);
        for (int k = 0; k < K; ++k)
            l += (mask & (1u << k)) ? std::log(pi[k]) : std::log1p(-pi[k]);
        logw.push_back(l);
    }
    const std::vector<double> exact = normalise(logw);
    const int sweeps = 60000;
    const std::vector<double> freq = chainFrequencies(ws, v, sweeps, 99);
    for (unsigned mask = 0; mask < exact.size(); ++mask) {
        // A generous Monte Carlo bound (the chain is autocorrelated): 6 binomial s.e. + 0.004.
        const double se = std::sqrt(exact[mask] * (1 - exact[mask]) / sweeps);
        QVERIFY2(std::abs(freq[mask] - exact[mask]) < 6 * se + 0.004,
                 qPrintable(QString("config %1: sampled %2, exact %3")
                                .arg(mask)
                                .arg(freq[mask])
                                .arg(exact[mask])));
    }
    // The posterior is not trivial: at least two configurations carry ≥ 5 % mass.
    QVERIFY(std::count_if(exact.begin(), exact.end(), [](double p) { return p > 0.05; }) >= 2);
}

void TestBpfaModel::mimnoSamplerMatchesItsTarget()
{
    const int K = 4, D = 6;
    const Globals g = someGlobals(K, D, 31);
    const GlobalView v = expectationView(g);
    Rng rng(6);
    Eigen::VectorXd y(D);
    for (int d = 0; d < D; ++d)
        y[d] = 1.5 * rng.normal();
    VecU8 observed = VecU8::Ones(D);
    observed[3] = 0;

    Workspace ws;
    ws.resize(K, D);
    ws.gather(y, observed, v);
    Eigen::VectorXd yObs(ws.Do);
    for (int j = 0; j < ws.Do; ++j)
        yObs[j] = y[ws.obs[j]];
    std::vector<double> logw;
    for (unsigned mask = 0; mask < (1u << K); ++mask)
        logw.push_back(logMimnoWeight(v, ws.obs, yObs, mask));
    const std::vector<double> exact = normalise(logw);
    const int sweeps = 60000;
    const std::vector<double> freq = chainFrequencies(ws, v, sweeps, 7);
    for (unsigned mask = 0; mask < exact.size(); ++mask) {
        const double se = std::sqrt(exact[mask] * (1 - exact[mask]) / sweeps);
        QVERIFY2(std::abs(freq[mask] - exact[mask]) < 6 * se + 0.004,
                 qPrintable(QString("config %1: sampled %2, exact %3")
                                .arg(mask)
                                .arg(freq[mask])
                                .arg(exact[mask])));
    }
    // The variance of the loadings matters here: the target with E[φ²] differs from the
    // one with φ̄² (a sampler that ignored it would fail the comparison above).
    GlobalView point = v;
    point.phiSecond = v.phi.array().square().matrix();
    std::vector<double> logwPoint;
    for (unsigned mask = 0; mask < (1u << K); ++mask)
        logwPoint.push_back(logMimnoWeight(point, ws.obs, yObs, mask));
    const std::vector<double> exactPoint = normalise(logwPoint);
    double tv = 0.0;
    for (std::size_t j = 0; j < exact.size(); ++j)
        tv += 0.5 * std::abs(exact[j] - exactPoint[j]);
    QVERIFY2(tv > 0.02, qPrintable(QString("total variation %1").arg(tv)));
}

void TestBpfaModel::localElboNeverDecreases_data()
{
    QTest::addColumn<bool>("titsias");
    QTest::addColumn<bool>("sampled");
    QTest::newRow("mf, expectations (MF-SVI)") << false << false;
    QTest::newRow("mf, sampled β (MF-SSVI)") << false << true;
    QTest::newRow("spike-and-slab, sampled β (Titsias-SSVI)") << true << true;
    QTest::newRow("spike-and-slab, expectations") << true << false;
}

void TestBpfaModel::localElboNeverDecreases()
{
    QFETCH(bool, titsias);
    QFETCH(bool, sampled);
    const int K = 8, D = 12;
    const DenseDataPtr data = smallData(20, D, 41);
    const Globals g = someGlobals(K, D, 42);
    Rng rng(43);
    const GlobalView v = sampled ? sampleView(g, rng) : expectationView(g);
    Workspace ws;
    ws.resize(K, D);
    for (std::int64_t i = 0; i < 20; ++i) {
        ws.gather(*data, i, v);
        double previous = -std::numeric_limits<double>::infinity();
        for (int sweeps = 1; sweeps <= 12; ++sweeps) {
            if (titsias)
                titsiasLocal(ws, v, sweeps, 0.0);
            else
                mfLocal(ws, v, sweeps, 0.0);
            const double elbo = titsias ? titsiasLocalElbo(ws, v) : mfLocalElbo(ws, v);
            QVERIFY(std::isfinite(elbo));
            QVERIFY2(elbo >= previous - 1e-9 * std::abs(previous),
                     qPrintable(QString("item %1, sweeps %2: %3 < %4")
                                    .arg(i)
                                    .arg(sweeps)
                                    .arg(elbo, 0, 'g', 12)
                                    .arg(previous, 0, 'g', 12)));
            previous = elbo;
        }
    }
}

void TestBpfaModel::localOptimumIsStationary_data()
{
    QTest::addColumn<bool>("titsias");
    QTest::addColumn<bool>("shifted");
    QTest::newRow("mean-field (eq. 9)") << false << false;
    QTest::newRow("spike-and-slab (eq. 11)") << true << false;
    // The neighbour coupling's prior: logit π_k + s_k (bpfa_spatial.h).
    QTest::newRow("mean-field, shifted prior") << false << true;
    QTest::newRow("spike-and-slab, shifted prior") << true << true;
}

// At a fixed point of the coordinate updates every partial derivative of the local ELBO,
// taken by central finite differences, vanishes: the closed-form updates maximise the bound
// they claim to maximise.
void TestBpfaModel::localOptimumIsStationary()
{
    QFETCH(bool, titsias);
    QFETCH(bool, shifted);
    const int K = 5, D = 10;
    const DenseDataPtr data = smallData(6, D, 51);
    Rng shifts(53);
    const Globals g = someGlobals(K, D, 52);
    const GlobalView v = expectationView(g);
    Workspace ws;
    ws.resize(K, D);
    auto elbo = [&](const Workspace& w) {
        return titsias ? titsiasLocalElbo(w, v) : mfLocalElbo(w, v);
    };
    int checked = 0;
    for (std::int64_t i = 0; i < 6; ++i) {
        ws.gather(*data, i, v);
        if (shifted)
            for (int k = 0; k < K; ++k)
                ws.shift[k] = 4.0 * shifts.uniform() - 2.0;
        if (titsias)
            titsiasLocal(ws, v, 2000, 0.0);
        else
            mfLocal(ws, v, 2000, 0.0);
        for (int k = 0; k < K; ++k) {
            for (int which = 0; which < 3; ++which) {
                Eigen::VectorXd& vec = which == 0 ? ws.theta : which == 1 ? ws.mean : ws.prec;
                const double x0 = vec[k];
                if (which == 0 && (x0 < 1e-6 || x0 > 1 - 1e-6))
                    continue; // at the boundary the derivative need not vanish
                // Near θ = 0 or 1 the entropy curves sharply: keep the step well inside.
                const double h = which == 0 ? 1e-3 * std::min({x0, 1.0 - x0, 1e-2})
                                            : 1e-5 * std::max(1.0, std::abs(x0));
                vec[k] = x0 + h;
                const double up = elbo(ws);
                vec[k] = x0 - h;
                const double down = elbo(ws);
                vec[k] = x0;
                const double grad = (up - down) / (2 * h);
                // Spike-and-slab: θ≈0 makes m and κ irrelevant; scale the check by θ.
                const double weight = (titsias && which > 0) ? std::max(ws.theta[k], 1e-3) : 1.0;
                QVERIFY2(std::abs(grad) < 1e-4 / weight * std::max(1.0, weight),
                         qPrintable(QString("item %1 k %2 param %3 = %4: dELBO = %5")
                                        .arg(i)
                                        .arg(k)
                                        .arg(which)
                                        .arg(x0)
                                        .arg(grad)));
                ++checked;
            }
        }
    }
    QVERIFY(checked > 20);
}

void TestBpfaModel::globalElboTermIsMinusKl()
{
    const Prior prior;
    const Globals p = priorGlobals(prior, 6, 9);
    QVERIFY(std::abs(globalElboTerm(prior, p)) < 1e-9);
    Globals q = someGlobals(6, 9, 61);
    QVERIFY(globalElboTerm(prior, q) < -1.0);
    // KL of one Gaussian entry by hand: N(1, 1/4) against N(0, 1/9), D = 9.
    Globals one = p;
    one.lambda(0, 0) = 4.0;
    one.h(0, 0) = 4.0;
    const double kl = 0.5 * (9.0 / 4.0 + 9.0 * 1.0 - 1.0 - std::log(9.0 / 4.0));
    QVERIFY(std::abs(globalElboTerm(prior, one) + kl) < 1e-9);
}

void TestBpfaModel::priorNaturalParameters()
{
    const Prior prior;
    const Globals p = priorGlobals(prior, 250, 64);
    QCOMPARE(p.a[0], 10.0 / 250);
    QCOMPARE(p.b[0], 10.0 * 249 / 250);
    QCOMPARE(p.lambda(3, 5), 64.0);
    QCOMPARE(p.h(3, 5), 0.0);
    QCOMPARE(p.c, 1.0);
    QCOMPARE(p.d, 10.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, priorGlobals(prior, 0, 64));
}

// The predictive noise fit takes one observed entry out of the gathered item: the local step
// must then see exactly the item gathered with that entry unobserved, and the entry's error is
// that of the local posterior-mean prediction.
void TestBpfaModel::leavingAnEntryOutIsGatheringWithoutIt()
{
    const int K = 5, D = 9;
    const Globals g = someGlobals(K, D, 3);
    const GlobalView v = expectationView(g);
    Rng rng(8);
    Eigen::VectorXd y(D);
    for (int d = 0; d < D; ++d)
        y[d] = rng.normal();
    Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1> observed =
        Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>::Ones(D);
    observed[6] = 0;
    Workspace left, without;
    left.resize(K, D);
    without.resize(K, D);
    left.gather(y, observed, v);
    QCOMPARE(left.Do, D - 1);
    const int d = left.leaveOut(2, v); // the third observed entry: dimension 2
    QCOMPARE(d, 2);
    QCOMPARE(left.Do, D - 2);
    QCOMPARE(left.y[left.Do], y[2]);
    observed[2] = 0;
    without.gather(y, observed, v);
    QCOMPARE(without.Do, left.Do);
    for (int k = 0; k < K; ++k) {
        QVERIFY(std::abs(left.G2[k] - without.G2[k]) < 1e-12);
        QVERIFY(std::abs(left.Gn[k] - without.Gn[k]) < 1e-12);
    }
    // The same entries, perhaps in another order: the same local optimum.
    mfLocal(left, v, 200, 0.0);
    mfLocal(without, v, 200, 0.0);
    QVERIFY((left.theta - without.theta).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY((left.mean - without.mean).cwiseAbs().maxCoeff() < 1e-9);
    QVERIFY(std::abs(mfLocalElbo(left, v) - mfLocalElbo(without, v)) < 1e-9);
    // Its error, from the posterior means E[x_k] = θ_k m_k and E[φ_k2].
    double pred = 0.0;
    for (int k = 0; k < K; ++k)
        pred += without.theta[k] * without.mean[k] * g.h(k, 2) / g.lambda(k, 2);
    QVERIFY(std::abs(left.predictionError(2, y[2], v) - (y[2] - pred) * (y[2] - pred)) < 1e-12);
}

QTEST_GUILESS_MAIN(TestBpfaModel)
#include "test_bpfa_model.moc"
