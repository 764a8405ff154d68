// The edge partition model's Gibbs sampler (core/models/epm/epm_gibbs.h): its samplers' laws,
// each full conditional against the augmented joint by finite differences, the collapsed
// (CRT) steps of a_i and γ0 against their exact conditionals by quadrature, and the whole
// sampler's posterior on a 4-node graph against importance sampling from the prior.

#include "core/models/epm/epm_gibbs.h"
#include "tests/core/epm_testing.h"

#include <QtTest>
#include <boost/math/distributions/gamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <functional>
#include <set>
#include <utility>

using namespace svi;
using namespace svi::epm;

namespace {

double logGammaPdf(double x, double shape, double rate)
{
    return shape * std::log(rate) - boost::math::lgamma(shape) + (shape - 1.0) * std::log(x) -
           rate * x;
}

// The augmented joint of the continuous variables given the counts M (N×K) and m_k, written
// pair by pair: Σ M_ik log φ_ik + Σ m_k log r_k − Σ_{train i<j} Σ_k r_k φ_ik φ_jk + log priors.
double augmentedJoint(const GraphData& d, const GibbsSampler& s, const Priors& P)
{
    const GibbsState& x = s.state();
    const int N = d.nodes, K = s.K();
    std::set<std::pair<int, int>> held;
    for (const LabelledPair& h : d.heldOut)
        held.insert({h.i, h.j});
    double f = 0.0;
    for (int i = 0; i < N; ++i)
        for (int k = 0; k < K; ++k)
            f += s.nodeCounts()(i, k) * std::log(x.phi(i, k)) +
                 logGammaPdf(x.phi(i, k), x.a[i], x.c[i]);
    for (int i = 0; i < N; ++i)
        for (int j = i + 1; j < N; ++j)
            if (!held.count({i, j}))
                for (int k = 0; k < K; ++k)
                    f -= x.r[k] * x.phi(i, k) * x.phi(j, k);
    for (int k = 0; k < K; ++k)
        f += s.communityCounts()[k] * std::log(x.r[k]) + logGammaPdf(x.r[k], x.gamma0 / K, x.c0);
    for (int i = 0; i < N; ++i)
        f += logGammaPdf(x.a[i], P.aShape, P.aRate) + logGammaPdf(x.c[i], P.e0, P.f0);
    return f + logGammaPdf(x.gamma0, P.e0, P.f0) + logGammaPdf(x.c0, P.e0, P.f0);
}

// d/dv of the augmented joint at the current state by central differences, v a reference to
// one variable of the state.
double derivative(const GraphData& d, GibbsSampler& s, const Priors& P, double& v)
{
    const double v0 = v, h = 1e-6 * v0;
    v = v0 + h;
    s.refreshSums();
    const double up = augmentedJoint(d, s, P);
    v = v0 - h;
    s.refreshSums();
    const double down = augmentedJoint(d, s, P);
    v = v0;
    s.refreshSums();
    return (up - down) / (2.0 * h);
}

// A Gamma(shape, rate) conditional means d/dv log p = (shape − 1)/v − rate at every v: checked
// at the current value and at 1.7 times it (two points fix both parameters).
void checkConditional(const GraphData& d, GibbsSampler& s, const Priors& P, double& v,
                      const std::function<GammaParams()>& conditional, const QString& name)
{
    const GammaParams g = conditional();
    const double v0 = v;
    for (double scale : {1.0, 1.7}) {
        v = v0 * scale;
        s.refreshSums();
        const double fd = derivative(d, s, P, v);
        const double want = (g.shape - 1.0) / v - g.rate;
        QVERIFY2(
            std::abs(fd - want) < 1e-5 * std::max(1.0, std::abs(want)),
            qPrintable(
                QString("%1 at %2: joint %3, conditional %4").arg(name).arg(v).arg(fd).arg(want)));
    }
    v = v0;
    s.refreshSums();
}

// ∫ f(x) p(x) dx / ∫ p(x) dx for an unnormalised log density on (0, ∞), by the trapezoid rule
// in log x over [1e-10, 1e4] (200,000 points).
double expectation(const std::function<double(double)>& logDensity,
                   const std::function<double(double)>& f)
{
    const int n = 200000;
    const double lo = std::log(1e-10), hi = std::log(1e4), h = (hi - lo) / n;
    std::vector<double> lp(n + 1);
    double peak = -INFINITY;
    for (int k = 0; k <= n; ++k) {
        const double x = std::exp(lo + k * h);
        lp[std::size_t(k)] = logDensity(x) + std::log(x); // dx = x d(log x)
        peak = std::max(peak, lp[std::size_t(k)]);
    }
    double num = 0.0, den = 0.0;
    for (int k = 0; k <= n; ++k) {
        const double w = std::exp(lp[std::size_t(k)] - peak) * (k == 0 || k == n ? 0.5 : 1.0);
        num += w * f(std::exp(lo + k * h));
        den += w;
    }
    return num / den;
}

// log NB(m; α, p) in α (the terms that depend on it): log Γ(m + α) − log Γ(α) + α log(1 − p).
double logNbInShape(double m, double alpha, double p)
{
    return boost::math::lgamma(m + alpha) - boost::math::lgamma(alpha) + alpha * std::log1p(-p);
}

// The mean of a chain and its standard error by 50 batch means.
std::pair<double, double> meanAndError(const std::vector<double>& chain)
{
    const std::size_t batches = 50, per = chain.size() / batches;
    double total = 0.0;
    std::vector<double> b(batches, 0.0);
    for (std::size_t k = 0; k < batches * per; ++k) {
        b[k / per] += chain[k] / double(per);
        total += chain[k];
    }
    const double mean = total / double(batches * per);
    double ss = 0.0;
    for (double v : b)
        ss += (v - mean) * (v - mean);
    return {mean, std::sqrt(ss / double(batches - 1) / double(batches))};
}

} // namespace

class TestEpmGibbs : public QObject
{
    Q_OBJECT

private slots:
    void samplersHaveTheirLaws();
    void conditionalsMatchTheAugmentedJoint();
    void shapeStepIsTheCollapsedConditional();
    void gamma0StepIsTheCollapsedConditional();
    void posteriorMatchesImportanceSampling();
};

void TestEpmGibbs::samplersHaveTheirLaws()
{
    Rng rng(12);
    const int n = 200000;
    for (double lambda : {0.3, 4.0, 29.0, 45.0, 800.0}) {
        double s = 0.0, ss = 0.0;
        for (int k = 0; k < n; ++k) {
            const double x = double(poisson(rng, lambda));
            s += x;
            ss += x * x;
        }
        const double mean = s / n, var = ss / n - mean * mean;
        QVERIFY2(std::abs(mean - lambda) < 5.0 * std::sqrt(lambda / n),
                 qPrintable(QString("Poisson(%1): mean %2").arg(lambda).arg(mean)));
        QVERIFY2(std::abs(var / lambda - 1.0) < 0.02,
                 qPrintable(QString("Poisson(%1): variance %2").arg(lambda).arg(var)));
    }
    // Zero-truncated: mean λ/(1 − e^{−λ}), never 0.
    for (double lambda : {1e-9, 0.5, 3.0, 40.0}) {
        double s = 0.0;
        std::int64_t least = 1 << 30;
        for (int k = 0; k < n; ++k) {
            const std::int64_t x = zeroTruncatedPoisson(rng, lambda);
            least = std::min(least, x);
            s += double(x);
        }
        const double want = lambda / -std::expm1(-lambda);
        QVERIFY(least >= 1);
        QVERIFY2(std::abs(s / n - want) < 5.0 * std::sqrt(std::max(lambda, 1e-3) / n) + 1e-9,
                 qPrintable(QString("ZTP(%1): mean %2, want %3").arg(lambda).arg(s / n).arg(want)));
    }
    QCOMPARE(zeroTruncatedPoisson(rng, INFINITY), std::int64_t(-1));
    QCOMPARE(zeroTruncatedPoisson(rng, NAN), std::int64_t(-1));
    // CRT(m, α): mean Σ_{n<m} α/(α + n), variance Σ p(1 − p).
    for (auto [m, alpha] : {std::pair{1, 0.3}, std::pair{10, 0.5}, std::pair{50, 5.0}}) {
        double want = 0.0, wantVar = 0.0, s = 0.0;
        for (int k = 0; k < m; ++k) {
            const double p = alpha / (alpha + k);
            want += p;
            wantVar += p * (1.0 - p);
        }
        for (int k = 0; k < n; ++k)
            s += double(chineseRestaurantTables(rng, m, alpha));
        QVERIFY2(
            std::abs(s / n - want) < 5.0 * std::sqrt(wantVar / n) + 1e-12,
            qPrintable(
                QString("CRT(%1, %2): mean %3, want %4").arg(m).arg(alpha).arg(s / n).arg(want)));
    }
    QCOMPARE(chineseRestaurantTables(rng, 0, 1.0), std::int64_t(0));
    QCOMPARE(chineseRestaurantTables(rng, 5, 0.0), std::int64_t(1));
}

void TestEpmGibbs::conditionalsMatchTheAugmentedJoint()
{
    const auto g = test_support::plantedGraph(9, 2, 0.6, 0.15, 0.25, 2);
    const Graph graph = Graph::from(*g.data);
    Priors P;
    P.aShape = 0.4;
    P.aRate = 0.7;
    P.e0 = 1.6;
    P.f0 = 0.9;
    GibbsSampler s(graph, 3, P, 5);
    for (int t = 1; t <= 5; ++t)
        s.sweep(t);
    Rng rng(3);
    s.drawCounts(rng); // counts of the current state
    s.refreshSums();
    GibbsState& x = s.state();
    for (int i = 0; i < graph.nodes; ++i)
        for (int k = 0; k < s.K(); ++k)
            checkConditional(
                *g.data, s, P, x.phi(i, k), [&] { return s.phiConditional(i, k); },
                QString("phi(%1, %2)").arg(i).arg(k));
    for (int i = 0; i < graph.nodes; ++i)
        checkConditional(
            *g.data, s, P, x.c[i], [&] { return s.cConditional(i); }, QString("c[%1]").arg(i));
    for (int k = 0; k < s.K(); ++k)
        checkConditional(
            *g.data, s, P, x.r[k], [&] { return s.rConditional(k); }, QString("r[%1]").arg(k));
    checkConditional(
        *g.data, s, P, x.c0, [&] { return s.c0Conditional(); }, "c0");
}

void TestEpmGibbs::shapeStepIsTheCollapsedConditional()
{
    // With φ_i integrated out, M_ik ~ NB(a_i, q_ik/(c_i + q_ik)), so
    //   p(a_i | M, −) ∝ G(a_i; a_shape, a_rate) Π_k NB(M_ik; a_i, q_ik/(c_i + q_ik)).
    // Repeating node i's block (CRT, a_i, φ_i) with everything else fixed is a chain with that
    // stationary law for a_i, and E[φ_ik] = E[(a_i + M_ik)/(c_i + q_ik)].
    const auto g = test_support::plantedGraph(8, 2, 0.6, 0.15, 0.2, 4);
    const Graph graph = Graph::from(*g.data);
    Priors P;
    P.aShape = 0.5;
    P.aRate = 0.5;
    GibbsSampler s(graph, 3, P, 6);
    const int i = 2;
    s.nodeCounts().row(i) << 3.0, 0.0, 1.0;
    const double c = s.state().c[i];
    double q[3], p[3];
    for (int k = 0; k < 3; ++k) {
        q[k] = s.state().r[k] * s.trainNeighbourSum(i, k);
        p[k] = q[k] / (c + q[k]);
    }
    const auto logDensity = [&](double a) {
        double v = (P.aShape - 1.0) * std::log(a) - P.aRate * a;
        for (int k = 0; k < 3; ++k)
            v += logNbInShape(s.nodeCounts()(i, k), a, p[k]);
        return v;
    };
    const double meanA = expectation(logDensity, [](double a) { return a; });
    const double meanA2 = expectation(logDensity, [](double a) { return a * a; });
    const double meanPhi0 =
        expectation(logDensity, [&](double a) { return (a + 3.0) / (c + q[0]); });

    Rng rng(7);
    std::vector<double> as, phis;
    for (int t = 0; t < 200000; ++t) {
        s.updateNode(rng, i);
        as.push_back(s.state().a[i]);
        phis.push_back(s.state().phi(i, 0));
    }
    const auto [ma, ea] = meanAndError(as);
    const auto [mp, ep] = meanAndError(phis);
    double m2 = 0.0;
    for (double a : as)
        m2 += a * a / double(as.size());
    qInfo("a_i: chain %.4f ± %.4f, exact %.4f; phi: chain %.4f ± %.4f, exact %.4f", ma, ea, meanA,
          mp, ep, meanPhi0);
    QVERIFY(std::abs(ma - meanA) < 4.0 * ea + 1e-3);
    QVERIFY(std::abs(mp - meanPhi0) < 4.0 * ep + 1e-3);
    QVERIFY(std::abs(m2 / meanA2 - 1.0) < 0.05);
}

void TestEpmGibbs::gamma0StepIsTheCollapsedConditional()
{
    // With r_k integrated out, m_k ~ NB(γ0/K, t_k/(c0 + t_k)), so
    //   p(γ0 | m, −) ∝ G(γ0; e0, f0) Π_k NB(m_k; γ0/K, t_k/(c0 + t_k)),
    // the stationary law of repeated (CRT, γ0, r) steps with φ and c0 fixed.
    const auto g = test_support::plantedGraph(8, 2, 0.6, 0.15, 0.2, 5);
    const Graph graph = Graph::from(*g.data);
    Priors P;
    P.e0 = 1.5;
    P.f0 = 0.7;
    const int K = 4;
    GibbsSampler s(graph, K, P, 8);
    s.communityCounts() << 6.0, 0.0, 2.0, 1.0;
    s.state().c0 = 1.3;
    s.refreshSums();
    std::vector<double> t(K);
    for (int k = 0; k < K; ++k)
        t[std::size_t(k)] = s.trainPairProduct(k);
    const auto logDensity = [&](double g0) {
        double v = (P.e0 - 1.0) * std::log(g0) - P.f0 * g0;
        for (int k = 0; k < K; ++k)
            v += logNbInShape(s.communityCounts()[k], g0 / K,
                              t[std::size_t(k)] / (1.3 + t[std::size_t(k)]));
        return v;
    };
    const double meanG = expectation(logDensity, [](double x) { return x; });
    const double meanR1 =
        expectation(logDensity, [&](double x) { return (x / K + 0.0) / (1.3 + t[1]); });
    Rng rng(9);
    std::vector<double> gs, r1;
    for (int n = 0; n < 200000; ++n) {
        s.updateGamma0AndR(rng);
        gs.push_back(s.state().gamma0);
        r1.push_back(s.state().r[1]);
    }
    const auto [mg, eg] = meanAndError(gs);
    const auto [mr, er] = meanAndError(r1);
    qInfo("gamma0: chain %.4f ± %.4f, exact %.4f; r_1: chain %.5f ± %.5f, exact %.5f", mg, eg,
          meanG, mr, er, meanR1);
    QVERIFY(std::abs(mg - meanG) < 4.0 * eg + 1e-3);
    QVERIFY(std::abs(mr - meanR1) < 4.0 * er + 1e-4);
}

void TestEpmGibbs::posteriorMatchesImportanceSampling()
{
    // 500,000 sweeps after 20,000 of burn-in: γ0, c0 and Σ r mix slowly (K = 2), and batch
    // means of 10,000 sweeps still understate their error somewhat, hence the long chain.
    // 4 nodes, K = 2: training edges (0,1), (1,2), training non-edges (0,3), (2,3); held out
    // (0,2) (unlinked) and (1,3) (linked). Proper, moderate priors so that the prior is a good
    // importance proposal: the posterior expectations are Σ w f / Σ w over prior draws with
    // w = P(Y_train | φ, r).
    auto d = std::make_shared<GraphData>();
    d->nodes = 4;
    d->source = "4 nodes";
    d->edges = {{0, 1}, {1, 2}, {1, 3}};
    d->trainEdges = {{0, 1}, {1, 2}};
    d->heldOut = {{0, 2, false}, {1, 3, true}};
    Priors P;
    P.aShape = 2.0;
    P.aRate = 2.0;
    P.e0 = 2.0;
    P.f0 = 2.0;
    const int K = 2;
    const std::pair<int, int> trainPairs[] = {{0, 1}, {1, 2}, {0, 3}, {2, 3}};
    const bool linked[] = {true, true, false, false};

    // Quantities: P(y_02), P(y_13), E[γ0], E[c0], E[a_1], E[Σ_k r_k].
    const int Q = 6;
    const auto quantities = [&](const MatrixRD& phi, const Eigen::VectorXd& r, double g0, double c0,
                                const Eigen::VectorXd& a, double out[Q]) {
        out[0] = -std::expm1(-linkRate(phi, r, 0, 2));
        out[1] = -std::expm1(-linkRate(phi, r, 1, 3));
        out[2] = g0;
        out[3] = c0;
        out[4] = a[1];
        out[5] = r.sum();
    };
    double isNum[Q] = {}, isW2F[Q] = {}, isW2F2[Q] = {}, isDen = 0.0, isDen2 = 0.0;
    {
        Rng rng(21);
        MatrixRD phi(4, K);
        Eigen::VectorXd r(K), a(4), c(4);
        const int n = 1000000;
        for (int s = 0; s < n; ++s) {
            const double g0 = rng.gamma(P.e0, P.f0), c0 = rng.gamma(P.e0, P.f0);
            for (int k = 0; k < K; ++k)
                r[k] = rng.gamma(g0 / K, c0);
            for (int i = 0; i < 4; ++i) {
                a[i] = rng.gamma(P.aShape, P.aRate);
                c[i] = rng.gamma(P.e0, P.f0);
                for (int k = 0; k < K; ++k)
                    phi(i, k) = rng.gamma(a[i], c[i]);
            }
            double w = 1.0;
            for (int e = 0; e < 4; ++e) {
                const double p = linkRate(phi, r, trainPairs[e].first, trainPairs[e].second);
                w *= linked[e] ? -std::expm1(-p) : std::exp(-p);
            }
            double q[Q];
            quantities(phi, r, g0, c0, a, q);
            for (int j = 0; j < Q; ++j) {
                isNum[j] += w * q[j];
                isW2F[j] += w * w * q[j];
                isW2F2[j] += w * w * q[j] * q[j];
            }
            isDen += w;
            isDen2 += w * w;
        }
    }
    const Graph graph = Graph::from(*d);
    GibbsSampler sampler(graph, K, P, 31);
    std::vector<std::vector<double>> chains(Q);
    for (int t = 1; t <= 520000; ++t) {
        sampler.sweep(t);
        if (t <= 20000)
            continue;
        double q[Q];
        const GibbsState& s = sampler.state();
        quantities(s.phi, s.r, s.gamma0, s.c0, s.a, q);
        for (int j = 0; j < Q; ++j)
            chains[std::size_t(j)].push_back(q[j]);
    }
    const char* names[Q] = {"P(y02)", "P(y13)", "gamma0", "c0", "a1", "sum r"};
    for (int j = 0; j < Q; ++j) {
        const double is = isNum[j] / isDen;
        // The self-normalised estimator's standard error (delta method):
        // √(Σ w² (f − μ̂)²) / Σ w.
        const double isErr =
            std::sqrt(std::max(isW2F2[j] - 2.0 * is * isW2F[j] + is * is * isDen2, 0.0)) / isDen;
        const auto [mean, err] = meanAndError(chains[std::size_t(j)]);
        qInfo("%s: Gibbs %.4f ± %.4f, importance sampling %.4f ± %.4f", names[j], mean, err, is,
              isErr);
        QVERIFY2(std::abs(mean - is) < 4.0 * std::hypot(err, isErr) + 2e-3, names[j]);
    }
}

QTEST_GUILESS_MAIN(TestEpmGibbs)
#include "test_epm_gibbs.moc"
