#include "core/models/gmf/gmf_model.h"

#include "core/base/parallel.h"
#include "core/math/digamma.h"
#include "core/math/random.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace svi::gmf {

// Defaults. λ_u = λ_v = 10: the prior variance of the signal u_uᵀv_i is K/(λ_u λ_v), 0.2 at
// K = 20 and 1 at K = 100, at most the variance of ratings about their mean (about 1.3 on
// MovieLens). With λ = 1 it is K, and the fit overfits: on MovieLens 100k (split u1, K = 20,
// 60 sweeps) held-out RMSE 1.04, rising with the sweeps, against 0.95 with λ = 10 at K = 10,
// 20 and 50. The ELBO itself (training data only) prefers λ ≈ 5 at K = 10 and 20 and λ ≈ 20
// at K = 50; λ = 10 is within about 2 % of its best at each.
// a0 = b0 = 1: a proper prior worth two pseudo-ratings of squared residual 1 (the scale of a
// rating step), prior mean E[β] = 1. Against |Ω|/2 in the posterior shape it is negligible for
// any real data set, and being proper it keeps KL(q(β) ‖ p(β)), hence the ELBO, defined
// (a0 = b0 → 0, the usual "vague" choice, is improper in the limit).
ParamFields<Priors> Priors::declare()
{
    return ParamFields<Priors>()
        .add(positiveParam("lambda_u", "Precision λ_u",
                           "u_u ~ N(0, I/λ_u): user factors' prior precision", 10.0),
             &Priors::lambdaU)
        .add(positiveParam("lambda_v", "Precision λ_v",
                           "v_i ~ N(0, I/λ_v): item factors' prior precision", 10.0),
             &Priors::lambdaV)
        .add(positiveParam("a0", "Shape a0", "noise precision β ~ Gamma(a0, b0)", 1.0), &Priors::a0)
        .add(positiveParam("b0", "Rate b0", "noise precision β ~ Gamma(a0, b0)", 1.0), &Priors::b0);
}

const ParamFields<Priors>& Priors::fields()
{
    static const ParamFields<Priors> f = declare();
    return f;
}

namespace {

// Fills ws.stat (lower triangle only) with A = Σ_j (n_j n_jᵀ + T_j), ws.rhs with
// c = Σ_j r_j n_j and ws.sumSquares with Σ_j r_j² over row r's ratings. Only the lower
// triangles of A and of the T_j are read or written: A is symmetric and the triangle halves
// the memory traffic, which with one K×K covariance read per rating is what a sweep costs.
void accumulate(std::int64_t r, const Adjacency& ratings, const Side& other, Workspace& ws)
{
    const Eigen::Index K = other.K();
    ws.stat.setZero();
    ws.rhs.setZero();
    double ss = 0.0;
    for (std::int64_t e = ratings.start[std::size_t(r)]; e < ratings.start[std::size_t(r) + 1];
         ++e) {
        const Eigen::Index j = ratings.other[std::size_t(e)];
        const double x = ratings.value[std::size_t(e)];
        const auto n = other.mean.row(j).transpose();
        const auto T = other.covariance(j);
        for (Eigen::Index k = 0; k < K; ++k)
            ws.stat.col(k).tail(K - k) += T.col(k).tail(K - k) + n[k] * n.tail(K - k);
        ws.rhs.noalias() += x * n;
        ss += x * x;
    }
    ws.sumSquares = ss;
}

// tr(S A) for symmetric S and A of which only the lower triangle of A is filled.
template <typename Cov> double traceProduct(const Cov& S, const Eigen::MatrixXd& lowerA)
{
    const Eigen::Index K = lowerA.rows();
    double t = 0.0;
    for (Eigen::Index k = 0; k < K; ++k)
        t += 2.0 * S.col(k).tail(K - k).dot(lowerA.col(k).tail(K - k)) - S(k, k) * lowerA(k, k);
    return t;
}

// Σ_j E[(r_j − u_rᵀv_j)²] = Σ r² − 2 mᵀc + mᵀ A m + tr(S A) (equation (5) of the header),
// from the accumulated ws (A, c, Σ r²) and row r's m = ws.mean, S.
template <typename Cov> double expectedSquares(const Cov& S, Workspace& ws)
{
    ws.product.noalias() = ws.stat.selfadjointView<Eigen::Lower>() * ws.mean;
    return ws.sumSquares - 2.0 * ws.mean.dot(ws.rhs) + ws.mean.dot(ws.product) +
           traceProduct(S, ws.stat);
}

} // namespace

std::int64_t Adjacency::longest() const
{
    std::int64_t n = 0;
    for (std::int64_t r = 0; r < rows(); ++r)
        n = std::max(n, count(r));
    return n;
}

Residuals residuals(const CountData& d)
{
    Residuals res;
    const SparseRows& train = d.train;
    double sum = 0.0;
    std::int64_t n = 0;
    for (std::int64_t u : d.trainingRows()) {
        for (float x : train.rowCounts(u))
            sum += x;
        n += train.rowNonZeros(u);
    }
    if (n == 0)
        throw std::invalid_argument("data: '" + d.source + "' has no training ratings");
    res.mu = sum / double(n);
    res.count = n;

    // By user: the training rows' entries, other rows empty.
    std::vector<unsigned char> training(std::size_t(d.rows()), 0);
    for (std::int64_t u : d.trainingRows())
        training[std::size_t(u)] = 1;
    Adjacency& byUser = res.byUser;
    byUser.start.assign(1, 0);
    byUser.other.reserve(std::size_t(n));
    byUser.value.reserve(std::size_t(n));
    for (std::int64_t u = 0; u < d.rows(); ++u) {
        if (training[std::size_t(u)]) {
            const auto cols = train.rowCols(u);
            const auto xs = train.rowCounts(u);
            for (std::size_t e = 0; e < cols.size(); ++e) {
                byUser.other.push_back(cols[e]);
                byUser.value.push_back(double(xs[e]) - res.mu);
            }
        }
        byUser.start.push_back(std::int64_t(byUser.other.size()));
    }

    // By item: a counting sort of the same entries; users stay ascending within an item.
    Adjacency& byItem = res.byItem;
    byItem.start.assign(std::size_t(d.cols()) + 1, 0);
    for (std::int32_t i : byUser.other)
        ++byItem.start[std::size_t(i) + 1];
    for (std::size_t i = 0; i < std::size_t(d.cols()); ++i)
        byItem.start[i + 1] += byItem.start[i];
    byItem.other.resize(std::size_t(n));
    byItem.value.resize(std::size_t(n));
    std::vector<std::int64_t> next(byItem.start.begin(), byItem.start.end() - 1);
    for (std::int64_t u = 0; u < byUser.rows(); ++u)
        for (std::int64_t e = byUser.start[std::size_t(u)]; e < byUser.start[std::size_t(u) + 1];
             ++e) {
            const std::size_t slot = std::size_t(next[std::size_t(byUser.other[std::size_t(e)])]++);
            byItem.other[slot] = std::int32_t(u);
            byItem.value[slot] = byUser.value[std::size_t(e)];
        }
    return res;
}

double Noise::logMean() const
{
    return digamma(shape) - std::log(rate);
}

void Workspace::resize(int K)
{
    stat.resize(K, K);
    factor.resize(K, K);
    inverse.resize(K, K);
    rhs.resize(K);
    mean.resize(K);
    product.resize(K);
}

void initialise(Side& s, std::int64_t rows, int K, std::uint64_t seed, std::uint64_t stream)
{
    s.mean.resize(rows, K);
    s.cov.resize(K, rows * K);
    for (std::int64_t r = 0; r < rows; ++r) {
        Rng rng = Rng::stream(seed, stream, std::uint64_t(r));
        for (int k = 0; k < K; ++k)
            s.mean(r, k) = 0.1 * rng.normal();
        s.covariance(r) = 0.01 * Eigen::MatrixXd::Identity(K, K);
    }
}

Noise initialNoise(const Residuals& res, const Priors& p)
{
    double ss = 0.0;
    for (double x : res.byUser.value)
        ss += x * x;
    return {p.a0 + 0.5 * double(res.count), p.b0 + 0.5 * ss};
}

double updateRow(Side& self, std::int64_t r, const Adjacency& ratings, const Side& other,
                 double lambda, double eBeta, Workspace& ws)
{
    const Eigen::Index K = self.K();
    accumulate(r, ratings, other, ws);
    // Precision λ I + E[β] A (lower triangle), then S = precision⁻¹ and m = S E[β] c (3).
    ws.factor.triangularView<Eigen::Lower>() = eBeta * ws.stat;
    ws.factor.diagonal().array() += lambda;
    // Reads the lower triangle and overwrites it with L; positive definite for λ > 0.
    const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(ws.factor);
    // S = P⁻¹ = L⁻ᵀL⁻¹ without a K×K right-hand side (Eigen's blocked solves take heap buffers
    // past K ≈ 128): M = L⁻¹ column by column (column j is zero above j), then the lower
    // triangle of S column by column, S[j:, j] = M[j:, j:]ᵀ M[j:, j].
    auto S = self.covariance(r);
    const Eigen::MatrixXd& L = ws.factor;
    Eigen::MatrixXd& M = ws.inverse;
    for (Eigen::Index j = 0; j < K; ++j) {
        auto x = M.col(j).tail(K - j);
        x.setZero();
        x[0] = 1.0;
        L.bottomRightCorner(K - j, K - j).triangularView<Eigen::Lower>().solveInPlace(x);
    }
    for (Eigen::Index j = 0; j < K; ++j)
        S.col(j).tail(K - j).noalias() =
            M.bottomRightCorner(K - j, K - j).triangularView<Eigen::Lower>().transpose() *
            M.col(j).tail(K - j);
    // The upper triangle mirrors the lower, so S is exactly symmetric.
    for (Eigen::Index k = 0; k + 1 < K; ++k)
        S.row(k).tail(K - k - 1) = S.col(k).tail(K - k - 1).transpose();
    ws.mean = eBeta * ws.rhs;
    llt.solveInPlace(ws.mean);
    self.mean.row(r) = ws.mean.transpose();
    return expectedSquares(S, ws);
}

double userElbo(const Side& users, std::int64_t u, const Adjacency& byUser, const Side& items,
                double lambdaU, const Noise& noise, Workspace& ws)
{
    accumulate(u, byUser, items, ws);
    ws.mean = users.mean.row(u).transpose();
    const double squares = expectedSquares(users.covariance(u), ws);
    const double n = double(byUser.count(u));
    const double loglik = 0.5 * n * (noise.logMean() - std::log(2.0 * std::numbers::pi)) -
                          0.5 * noise.mean() * squares;
    return loglik - gaussianKl(users, u, lambdaU, ws);
}

double gaussianKl(const Side& side, std::int64_t r, double lambda, Workspace& ws)
{
    const auto S = side.covariance(r);
    ws.factor.triangularView<Eigen::Lower>() = S;
    const Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(ws.factor);
    const double logDet = 2.0 * ws.factor.diagonal().array().log().sum();
    const double K = double(side.K());
    return 0.5 * (lambda * S.trace() + lambda * side.mean.row(r).squaredNorm() - K -
                  K * std::log(lambda) - logDet);
}

double sideKl(const Side& side, double lambda)
{
    std::vector<double> partial(kChunks, 0.0);
    forChunks(side.rows(), [&](int c, std::int64_t begin, std::int64_t end) {
        Workspace ws;
        ws.resize(side.K());
        double s = 0.0;
        for (std::int64_t r = begin; r < end; ++r)
            s += gaussianKl(side, r, lambda, ws);
        partial[std::size_t(c)] = s;
    });
    double s = 0.0;
    for (double p : partial)
        s += p;
    return s;
}

double gammaKl(double a, double b, double a0, double b0)
{
    return (a - a0) * digamma(a) - boost::math::lgamma(a) + boost::math::lgamma(a0) +
           a0 * (std::log(b) - std::log(b0)) + a * (b0 - b) / b;
}

} // namespace svi::gmf
