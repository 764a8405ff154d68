// Gaussian matrix factorization by batch VB, checked against independent computations: one
// user's update and the whole ELBO written out with dense matrices (a general inverse and
// determinant instead of the library's Cholesky, the expected squared error rating by
// rating), finite differences of that ELBO at the coordinate optimum, monotone ELBOs over
// sweeps, independence of the thread count, and recovery of a planted low-rank matrix and its
// noise level from synthetic ratings.

#include "core/math/random.h"
#include "core/models/builtin.h"
#include "core/models/gmf/gmf_model.h"
#include "core/models/gmf/gmf_trainer.h"
#include "core/run/registry.h"

#include <Eigen/LU>
#include <QtTest>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <omp.h>

using namespace svi;

namespace {

// Ratings x_ui = offset + u_uᵀv_i + σ ε_ui from planted factors with entries N(0, s²), each
// (u, i) observed with probability `observed`; of those, `heldOutShare` go to the test split
// and `validationShare` to the validation split (none: no validation rows).
struct Planted
{
    CountDataPtr data;
    Eigen::MatrixXd U, V;
};

Planted planted(int users, int items, int rank, double sigma, double observed, std::uint64_t seed,
                double heldOutShare = 0.2, double validationShare = 0.0)
{
    const double offset = 10.0; // keeps every rating positive, as CountData requires
    Planted p;
    Rng rng(seed);
    // s⁴ rank = 1: the planted signal u_uᵀv_i has unit variance.
    const double s = std::pow(1.0 / rank, 0.25);
    p.U.resize(users, rank);
    p.V.resize(items, rank);
    for (Eigen::Index i = 0; i < p.U.size(); ++i)
        p.U.data()[i] = s * rng.normal();
    for (Eigen::Index i = 0; i < p.V.size(); ++i)
        p.V.data()[i] = s * rng.normal();
    auto d = std::make_shared<CountData>();
    d->vocabularySize = items;
    d->kind = "ratings";
    d->source = "planted ratings";
    for (int u = 0; u < users; ++u) {
        // Splits: 0 training, 1 test, 2 validation.
        std::vector<std::int32_t> cols[3];
        std::vector<float> xs[3];
        for (int i = 0; i < items; ++i) {
            if (rng.uniform() >= observed)
                continue;
            const double x = offset + p.U.row(u).dot(p.V.row(i)) + sigma * rng.normal();
            const double split = rng.uniform();
            const int to = split < heldOutShare                     ? 1
                           : split < heldOutShare + validationShare ? 2
                                                                    : 0;
            cols[to].push_back(i);
            xs[to].push_back(float(x));
        }
        // Every user rates something in training (vanishingly rare to need at these sizes).
        if (cols[0].empty() && !cols[1].empty()) {
            cols[0].push_back(cols[1].back());
            xs[0].push_back(xs[1].back());
            cols[1].pop_back();
            xs[1].pop_back();
        }
        if (cols[0].empty())
            throw std::logic_error("planted: a user without training ratings");
        d->train.appendRow(cols[0], xs[0]);
        d->heldOut.appendRow(cols[1], xs[1]);
        if (validationShare > 0.0)
            d->validation.appendRow(cols[2], xs[2]);
    }
    d->finalise();
    p.data = d;
    return p;
}

// Arbitrary small 1–5 ratings (not from the model), every user with at least one.
CountDataPtr smallRatings(int users, int items, std::uint64_t seed)
{
    auto d = std::make_shared<CountData>();
    d->vocabularySize = items;
    d->kind = "ratings";
    d->source = "small ratings";
    Rng rng(seed);
    for (int u = 0; u < users; ++u) {
        std::vector<std::int32_t> cols;
        std::vector<float> xs;
        for (int i = 0; i < items; ++i)
            if (rng.uniform() < 0.6 || (i == items - 1 && cols.empty())) {
                cols.push_back(i);
                xs.push_back(float(1 + rng.below(5)));
            }
        d->train.appendRow(cols, xs);
        d->heldOut.appendRow({}, {});
    }
    d->finalise();
    return d;
}

GmfOptions options(int K)
{
    GmfOptions o;
    o.K = K;
    return o;
}

Eigen::MatrixXd cov(const gmf::Side& s, Eigen::Index r)
{
    return s.covariance(r);
}

// The ELBO written out from the model, rating by rating with E[(r − uᵀv)²] =
// (r − mᵀn)² + mᵀTm + nᵀSn + tr(ST), and the Gaussian KLs with a general determinant.
double elboByHand(const CountData& d, const gmf::Side& users, const gmf::Side& items,
                  const gmf::Noise& noise, const gmf::Priors& p)
{
    const int K = users.K();
    double sum = 0.0, n = 0.0;
    for (std::int64_t u = 0; u < d.rows(); ++u)
        for (float x : d.train.rowCounts(u))
            sum += x, n += 1.0;
    const double mu = sum / n;
    const double eBeta = noise.shape / noise.rate;
    const double eLogBeta = boost::math::digamma(noise.shape) - std::log(noise.rate);
    double L = 0.0;
    for (std::int64_t u = 0; u < d.rows(); ++u) {
        const auto cols = d.train.rowCols(u);
        const auto xs = d.train.rowCounts(u);
        const Eigen::VectorXd m = users.mean.row(u).transpose();
        const Eigen::MatrixXd S = cov(users, u);
        for (std::size_t e = 0; e < cols.size(); ++e) {
            const Eigen::VectorXd nv = items.mean.row(cols[e]).transpose();
            const Eigen::MatrixXd T = cov(items, cols[e]);
            const double r = xs[e] - mu;
            const double sq =
                (r - m.dot(nv)) * (r - m.dot(nv)) + m.dot(T * m) + nv.dot(S * nv) + (S * T).trace();
            L += 0.5 * (eLogBeta - std::log(2.0 * std::numbers::pi)) - 0.5 * eBeta * sq;
        }
    }
    const auto kl = [&](const gmf::Side& s, double lambda) {
        double t = 0.0;
        for (Eigen::Index r = 0; r < s.rows(); ++r) {
            const Eigen::MatrixXd S = cov(s, r);
            t += 0.5 * (lambda * S.trace() + lambda * s.mean.row(r).squaredNorm() - K -
                        K * std::log(lambda) - std::log(S.determinant()));
        }
        return t;
    };
    const double a = noise.shape, b = noise.rate;
    const double gammaKl = (a - p.a0) * boost::math::digamma(a) - std::lgamma(a) +
                           std::lgamma(p.a0) + p.a0 * (std::log(b) - std::log(p.b0)) +
                           a * (p.b0 - b) / b;
    return L - kl(users, p.lambdaU) - kl(items, p.lambdaV) - gammaKl;
}

double maxAbs(const Eigen::MatrixXd& a)
{
    return a.cwiseAbs().maxCoeff();
}

} // namespace

class TestGmf : public QObject
{
    Q_OBJECT

private slots:
    void elboIsMonotone_data();
    void elboIsMonotone();
    void userUpdateMatchesDenseComputation();
    void copiedWorkspacesGiveTheSameUpdate();
    void elboIsStationaryAfterUserUpdate();
    void doesNotDependOnThreads();
    void recoversPlantedMatrixAndNoise_data();
    void recoversPlantedMatrixAndNoise();
    void rejectsBadOptions_data();
    void rejectsBadOptions();
    void registryBuildsTrainer();
};

void TestGmf::elboIsMonotone_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("K");
    QTest::addColumn<double>("lambdaU");
    QTest::addColumn<double>("lambdaV");
    for (int seed = 1; seed <= 5; ++seed)
        QTest::newRow(qPrintable(QString("seed %1").arg(seed))) << seed << 4 << 10.0 << 10.0;
    QTest::newRow("K = 1") << 6 << 1 << 10.0 << 10.0;
    QTest::newRow("K = 12, more than the data support") << 7 << 12 << 10.0 << 10.0;
    QTest::newRow("λ_u ≠ λ_v") << 8 << 4 << 0.8 << 2.5;
    QTest::newRow("weak priors λ = 0.1") << 9 << 6 << 0.1 << 0.1;
}

void TestGmf::elboIsMonotone()
{
    QFETCH(int, seed);
    QFETCH(int, K);
    QFETCH(double, lambdaU);
    QFETCH(double, lambdaV);
    const Planted p = planted(60, 45, 3, 0.5, 0.4, std::uint64_t(seed));
    GmfOptions o = options(K);
    o.priors.lambdaU = lambdaU;
    o.priors.lambdaV = lambdaV;
    GmfTrainer trainer(p.data, o, std::uint64_t(seed));
    double previous = trainer.elbo();
    const double first = previous;
    for (int t = 1; t <= 50; ++t) {
        QCOMPARE(trainer.step(t), 1.0);
        const double elbo = trainer.elbo();
        QVERIFY2(elbo >= previous - 1e-9 * std::abs(previous),
                 qPrintable(QString("sweep %1: %2 < %3")
                                .arg(t)
                                .arg(elbo, 0, 'g', 15)
                                .arg(previous, 0, 'g', 15)));
        previous = elbo;
    }
    QVERIFY(previous > first + 1.0);
    QVERIFY(!trainer.diverged());
    // The full evaluation's ELBO is the exact one, and the library's ELBO is the one written
    // out rating by rating.
    QCOMPARE(trainer.evaluate(true).elbo, previous);
    const double byHand =
        elboByHand(*p.data, trainer.users(), trainer.items(), trainer.noise(), o.priors);
    QVERIFY2(std::abs(byHand - previous) < 1e-9 * std::abs(byHand),
             qPrintable(QString("%1 vs %2").arg(byHand, 0, 'g', 15).arg(previous, 0, 'g', 15)));
}

// One user's update (3) against the formulas computed with dense matrices: A_u = Σ_i (n nᵀ +
// T_i), S_u = (λ_u I + E[β] A_u)⁻¹ by a general inverse, m_u = S_u E[β] Σ_i (x_ui − μ) n_i, and
// the returned expected squared error summed rating by rating.
void TestGmf::userUpdateMatchesDenseComputation()
{
    const int U = 6, I = 5, K = 3;
    const CountDataPtr data = smallRatings(U, I, 13);
    GmfOptions o = options(K);
    o.priors.lambdaU = 0.7;
    o.priors.lambdaV = 1.9;
    GmfTrainer trainer(data, o, 4);
    for (int t = 1; t <= 2; ++t)
        trainer.step(t); // away from the starting point; q(β) from a sweep
    const std::int64_t u = 3;
    const gmf::Side& items = trainer.items();
    const double eBeta = trainer.noise().shape / trainer.noise().rate;

    double sum = 0.0;
    for (float x : data->train.counts)
        sum += x;
    const double mu = sum / double(data->train.nonZeros());
    QCOMPARE(trainer.offset(), mu);

    const auto cols = data->train.rowCols(u);
    const auto xs = data->train.rowCounts(u);
    QVERIFY(cols.size() >= 2);
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(K, K);
    Eigen::VectorXd c = Eigen::VectorXd::Zero(K);
    for (std::size_t e = 0; e < cols.size(); ++e) {
        const Eigen::VectorXd n = items.mean.row(cols[e]).transpose();
        A += n * n.transpose() + cov(items, cols[e]);
        c += (xs[e] - mu) * n;
    }
    const Eigen::MatrixXd S =
        (o.priors.lambdaU * Eigen::MatrixXd::Identity(K, K) + eBeta * A).inverse();
    const Eigen::VectorXd m = S * (eBeta * c);
    double squares = 0.0;
    for (std::size_t e = 0; e < cols.size(); ++e) {
        const Eigen::VectorXd n = items.mean.row(cols[e]).transpose();
        const Eigen::MatrixXd T = cov(items, cols[e]);
        const double r = xs[e] - mu;
        squares += (r - m.dot(n)) * (r - m.dot(n)) + m.dot(T * m) + n.dot(S * n) + (S * T).trace();
    }

    gmf::Side users = trainer.users();
    const Eigen::VectorXd before = users.mean.row(u).transpose();
    gmf::Workspace ws;
    ws.resize(K);
    const double returned =
        gmf::updateRow(users, u, trainer.residuals().byUser, items, o.priors.lambdaU, eBeta, ws);
    // The second sweep moved u, so a no-op update could not pass; but the update of the
    // trainer's last sweep is a fixed point only up to the item block that followed it.
    QVERIFY((before - m).cwiseAbs().maxCoeff() > 1e-6);
    QVERIFY2(maxAbs(users.mean.row(u).transpose() - m) < 1e-12, "m_u");
    QVERIFY2(maxAbs(cov(users, u) - S) < 1e-12, "S_u");
    QVERIFY2(maxAbs(cov(users, u) - cov(users, u).transpose()) == 0.0, "S_u symmetric");
    QVERIFY2(std::abs(returned - squares) < 1e-12 * squares, "expected squared error");
    // Other users untouched.
    QVERIFY(maxAbs(users.mean.topRows(u) - trainer.users().mean.topRows(u)) == 0.0);
}

// Workspaces are values: the trainer keeps one per thread in a vector, which copies them when
// it grows, before and after they were used. A copy made at any point gives the same update
// as the original (and, under the sanitizers, copying one that has not factorised anything
// yet reads no uninitialised state: an Eigen::LLT member did).
void TestGmf::copiedWorkspacesGiveTheSameUpdate()
{
    const int K = 4;
    const CountDataPtr data = smallRatings(7, 6, 21);
    GmfTrainer trainer(data, options(K), 5);
    trainer.step(1);
    const double eBeta = trainer.noise().shape / trainer.noise().rate;
    std::vector<gmf::Workspace> pool(1);
    pool[0].resize(K);
    pool.resize(5); // moves the sized, unused workspace
    std::vector<gmf::Workspace> copies = pool;
    gmf::Side a = trainer.users(), b = trainer.users();
    for (std::int64_t u = 0; u < 7; ++u) {
        const double ea =
            gmf::updateRow(a, u, trainer.residuals().byUser, trainer.items(), 0.9, eBeta, pool[0]);
        copies.push_back(pool[0]); // a used one, copied
        const double eb = gmf::updateRow(b, u, trainer.residuals().byUser, trainer.items(), 0.9,
                                         eBeta, copies.back());
        QCOMPARE(ea, eb);
    }
    QCOMPARE(maxAbs(a.mean - b.mean), 0.0);
    QCOMPARE(maxAbs(a.cov - b.cov), 0.0);
    QVERIFY(a.mean.allFinite());
}

// After user u's update, the ELBO (written out by hand) is stationary in m_u and S_u: central
// differences vanish, and every probe lowers it (a maximum, not a saddle). Before it, they do
// not vanish.
void TestGmf::elboIsStationaryAfterUserUpdate()
{
    const int U = 6, I = 5, K = 3;
    const CountDataPtr data = smallRatings(U, I, 17);
    GmfOptions o = options(K);
    // Weak priors, so that after two sweeps user u's update still moves S_u measurably.
    o.priors.lambdaU = 0.5;
    o.priors.lambdaV = 0.8;
    GmfTrainer trainer(data, o, 9);
    trainer.step(1);
    trainer.step(2);
    const std::int64_t u = 1;
    gmf::Side users = trainer.users();
    const gmf::Side& items = trainer.items();
    const gmf::Noise noise = trainer.noise();

    struct Probe
    {
        double mean = 0.0, covariance = 0.0; // largest |central difference|
        double rise = -1e300;                // largest ELBO(probe) − ELBO
    };
    auto probe = [&](gmf::Side& s) {
        const double h = 1e-5;
        Probe p;
        const double at = elboByHand(*data, s, items, noise, o.priors);
        auto central = [&](auto perturb) {
            perturb(h);
            const double up = elboByHand(*data, s, items, noise, o.priors);
            perturb(-2 * h);
            const double down = elboByHand(*data, s, items, noise, o.priors);
            perturb(h);
            p.rise = std::max({p.rise, up - at, down - at});
            return std::abs(up - down) / (2 * h);
        };
        for (int k = 0; k < K; ++k)
            p.mean = std::max(p.mean, central([&](double d) { s.mean(u, k) += d; }));
        // Symmetric perturbations of S_u (S stays symmetric positive definite for small h).
        for (int k = 0; k < K; ++k)
            for (int l = 0; l <= k; ++l)
                p.covariance = std::max(p.covariance, central([&](double d) {
                                            s.covariance(u)(k, l) += d;
                                            if (k != l)
                                                s.covariance(u)(l, k) += d;
                                        }));
        return p;
    };
    const Probe before = probe(users);
    gmf::Workspace ws;
    ws.resize(K);
    gmf::updateRow(users, u, trainer.residuals().byUser, items, o.priors.lambdaU, noise.mean(), ws);
    const Probe after = probe(users);
    QVERIFY2(before.mean > 1e-3, qPrintable(QString::number(before.mean)));
    QVERIFY2(before.covariance > 1e-3, qPrintable(QString::number(before.covariance)));
    QVERIFY2(before.rise > 0.0, qPrintable(QString::number(before.rise)));
    // The resolution of a difference of ELBOs of about 30 over 2h is about 1e-10.
    QVERIFY2(after.mean < 1e-6, qPrintable(QString::number(after.mean)));
    QVERIFY2(after.covariance < 1e-6, qPrintable(QString::number(after.covariance)));
    QVERIFY2(after.rise < 0.0, qPrintable(QString::number(after.rise)));
}

void TestGmf::doesNotDependOnThreads()
{
    const Planted p = planted(120, 80, 3, 0.3, 0.3, 21);
    auto run = [&](int threads) {
        const int saved = omp_get_max_threads();
        omp_set_num_threads(threads);
        GmfTrainer t(p.data, options(6), 8);
        for (int s = 1; s <= 5; ++s)
            t.step(s);
        const Evaluation ev = t.evaluate(true);
        omp_set_num_threads(saved);
        return std::tuple{t.items().mean, t.users().cov, t.noise().rate, ev.elbo, ev.metrics};
    };
    const auto one = run(1), three = run(3);
    QVERIFY(std::get<0>(one) == std::get<0>(three)); // bitwise
    QVERIFY(std::get<1>(one) == std::get<1>(three));
    QCOMPARE(std::get<2>(one), std::get<2>(three));
    QCOMPARE(std::get<3>(one), std::get<3>(three));
    QVERIFY(std::get<4>(one) == std::get<4>(three));
}

void TestGmf::recoversPlantedMatrixAndNoise_data()
{
    QTest::addColumn<int>("seed");
    QTest::addColumn<int>("K");
    QTest::newRow("K = rank, seed 1") << 1 << 3;
    QTest::newRow("K = rank, seed 2") << 2 << 3;
    QTest::newRow("K = 2 rank, seed 3") << 3 << 6;
}

// 300 users × 200 items of rank 3 (unit-variance signal) plus noise σ = 0.3, 30 % observed
// (of that a fifth held out, a tenth for validation: about 42 training ratings per user and 63
// per item), fitted at the default priors. After 100 sweeps:
//   - held-out RMSE < 0.4: σ plus the estimation error (expected ≈ 0.32; the signal alone has
//     RMS 1, so predicting μ scores ≈ 1.04);
//   - E[β]^(−1/2) within 20 % of σ;
//   - the RMS error of m_uᵀn_i against the planted u_uᵀv_i over the whole matrix < 0.2;
//   - the held-out log-likelihood improved by > 0.8 nat per rating (≈ 1.1 expected), and the
//     validation one is close to it.
// With K = 2 × rank the superfluous factors must not spoil any of this. Over 60 further seeds
// each (run locally): RMSE 0.316–0.342, E[β]^(−1/2) 0.281–0.307, signal error ≤ 0.146.
void TestGmf::recoversPlantedMatrixAndNoise()
{
    QFETCH(int, seed);
    QFETCH(int, K);
    const double sigma = 0.3;
    const Planted p = planted(300, 200, 3, sigma, 0.3, std::uint64_t(seed), 0.2, 0.1);
    GmfOptions o = options(K);
    o.topN = 10;
    GmfTrainer trainer(p.data, o, std::uint64_t(seed));
    const Evaluation start = trainer.evaluate(true);
    for (int t = 1; t <= 100; ++t)
        trainer.step(t);
    const Evaluation ev = trainer.evaluate(true);
    const double rmse = ev.metrics.at("rmse");
    const double noiseSd = 1.0 / std::sqrt(trainer.noise().mean());
    QVERIFY2(rmse < 0.4, qPrintable(QString("held-out RMSE %1").arg(rmse)));
    QVERIFY2(std::abs(noiseSd - sigma) < 0.2 * sigma,
             qPrintable(QString("E[β]^(-1/2) = %1, σ = %2").arg(noiseSd).arg(sigma)));
    QVERIFY(start.metrics.at("rmse") > 0.9);
    // ≈ −1.46 at the start, ≈ −0.36 after (the true density scores −0.22).
    QVERIFY(ev.metrics.at("heldout_loglik") > start.metrics.at("heldout_loglik") + 0.8);
    QVERIFY(ev.metrics.at("heldout_loglik") > -0.5);
    // The validation ratings are other ratings of the same kind: about the same density.
    QVERIFY(std::abs(ev.metrics.at("validation_loglik") - ev.metrics.at("heldout_loglik")) < 0.15);
    // The whole planted matrix UVᵀ, observed or not, against the posterior mean m_uᵀn_i.
    const Eigen::MatrixXd fitted = trainer.users().mean * trainer.items().mean.transpose();
    const Eigen::MatrixXd truth = p.U * p.V.transpose();
    const double signalError = std::sqrt((fitted - truth).squaredNorm() / double(truth.size()));
    qInfo("rmse %.4f, E[b]^-1/2 %.4f, signal error %.4f, offset %.4f", rmse, noiseSd, signalError,
          trainer.offset());
    QVERIFY2(signalError < 0.2, qPrintable(QString("RMS error on UVᵀ %1").arg(signalError)));
    QVERIFY(ev.metrics.count("precision_at_10") && ev.metrics.count("popularity_recall_at_10"));
    QVERIFY(ev.preview && ev.preview->factors);
    QCOMPARE(ev.preview->factors->users.rows(), Eigen::Index(300));
    QCOMPARE(ev.preview->factors->items.cols(), Eigen::Index(K));
    QCOMPARE(ev.preview->factors->offset, trainer.offset());
    // The Gaussian log density at the plug-in precision, from the RMSE.
    const double eBeta = trainer.noise().mean();
    QVERIFY(std::abs(ev.metrics.at("heldout_loglik") -
                     (0.5 * std::log(eBeta / (2 * std::numbers::pi)) - 0.5 * eBeta * rmse * rmse)) <
            1e-9);
}

void TestGmf::rejectsBadOptions_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    QTest::newRow("K") << "K"
                       << "K = 0, but must be ≥ 1";
    QTest::newRow("lambda_u") << "lambda_u"
                              << "lambda_u = 0, but must be > 0";
    QTest::newRow("lambda_v") << "lambda_v"
                              << "lambda_v = -1, but must be > 0";
    QTest::newRow("a0") << "a0"
                        << "a0 = 0, but must be > 0";
    QTest::newRow("b0") << "b0"
                        << "b0 = inf, but must be > 0";
    QTest::newRow("eval_users") << "eval_users"
                                << "eval_users = 0, but must be ≥ 1";
    QTest::newRow("top_n") << "top_n"
                           << "top_n = -3, but must be ≥ 1";
}

void TestGmf::rejectsBadOptions()
{
    QFETCH(QString, field);
    QFETCH(QString, message);
    GmfOptions o = options(3);
    if (field == "K")
        o.K = 0;
    else if (field == "lambda_u")
        o.priors.lambdaU = 0;
    else if (field == "lambda_v")
        o.priors.lambdaV = -1;
    else if (field == "a0")
        o.priors.a0 = 0;
    else if (field == "b0")
        o.priors.b0 = std::numeric_limits<double>::infinity();
    else if (field == "eval_users")
        o.evalUsers = 0;
    else
        o.topN = -3;
    const CountDataPtr data = smallRatings(5, 5, 1);
    try {
        GmfTrainer t(data, o, 1);
        QFAIL("accepted");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromStdString(plainSettingRefs(e.what())), message);
    }
    // No training ratings at all.
    auto empty = std::make_shared<CountData>();
    empty->vocabularySize = 3;
    empty->train.appendRow({}, {});
    empty->heldOut.appendRow({}, {});
    empty->finalise();
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, GmfTrainer(empty, options(2), 1));
}

void TestGmf::registryBuildsTrainer()
{
    const Registry& r = builtinRegistry();
    const AlgorithmEntry* e = r.find("gmf", "batch");
    QVERIFY(e);
    QCOMPARE(e->label, std::string("Batch variational Bayes"));
    QVERIFY(e->fits("ratings"));
    QVERIFY(!e->fits("image") && !e->fits("corpus"));
    for (const char* key : {"K", "lambda_u", "lambda_v", "a0", "b0", "eval_users", "top_n"})
        QVERIFY2(std::any_of(e->params.begin(), e->params.end(),
                             [&](const ParamSpec& s) { return s.key == key; }),
                 key);
    // The declared defaults are the options struct's.
    const GmfOptions fromDefaults = GmfOptions::fromParams(defaultValues(e->params));
    const GmfOptions plain;
    QCOMPARE(fromDefaults.K, plain.K);
    QCOMPARE(fromDefaults.priors.lambdaU, plain.priors.lambdaU);
    QCOMPARE(fromDefaults.priors.lambdaV, plain.priors.lambdaV);
    QCOMPARE(fromDefaults.priors.a0, plain.priors.a0);
    QCOMPARE(fromDefaults.priors.b0, plain.priors.b0);
    QCOMPARE(fromDefaults.evalUsers, plain.evalUsers);
    QCOMPARE(fromDefaults.topN, plain.topN);

    const Planted p = planted(50, 30, 2, 0.3, 0.4, 3);
    ParamValues values = defaultValues(e->params);
    values["K"] = std::int64_t(2);
    values["lambda_v"] = 2.5; // not the default
    auto t = e->make(DataSet(p.data), values, 1);
    QCOMPARE(t->itemsPerStep(), std::int64_t(50));
    t->step(1);
    const Evaluation ev = t->evaluate(false);
    QVERIFY(std::isfinite(ev.elbo));
    for (const char* key : {"heldout_loglik", "rmse", "accuracy", "precision_at_20", "recall_at_20",
                            "popularity_precision_at_20", "popularity_recall_at_20"})
        QVERIFY2(ev.metrics.count(key), key);
    QCOMPARE(ev.preview->factors->items.cols(), Eigen::Index(2));
    // Parameters reach the trainer: λ_v = 2.5 gives other items than the default.
    ParamValues defaults = defaultValues(e->params);
    defaults["K"] = std::int64_t(2);
    auto t2 = e->make(DataSet(p.data), defaults, 1);
    t2->step(1);
    QVERIFY(t2->evaluate(false).preview->factors->items != ev.preview->factors->items);
}

QTEST_GUILESS_MAIN(TestGmf)
#include "test_gmf.moc"
