#include "core/inference/score_families.h"

#include "core/base/params.h"
#include "core/inference/gamma_reparam.h"
#include "core/inference/positive_sgvb.h"
#include "core/math/digamma.h"
#include "core/math/logistic.h"
#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <stdexcept>
#include <vector>

namespace svi {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A gamma draw of a small shape can round to 0, whose log is −∞: the smallest normal double
// stands in for it (its log, −708, is as far as the model's terms can go).
constexpr double kTinyDraw = std::numeric_limits<double>::min();
const double kLogRoot2Pi = 0.5 * std::log(2.0 * std::numbers::pi);

// What a variable's draws share, computed once from λ for all of them: the family's
// parameters, their logs and the softplus's derivatives r′ = σ(·).
struct Prepared
{
    double m = 0, s = 0, logS = 0, kS = 0;                                // normal, log-normal
    double a = 0, b = 0, logB = 0, lgammaA = 0, psiA = 0, kA = 0, kB = 0; // gamma
    double p = 0, logP = 0, log1mP = 0;                                   // bernoulli
    double rate = 0, eta = 0;                                             // poisson
    std::vector<double> probs, logProbs;                                  // categorical
};

// Prepares variable `lam` of `block`; false when λ is not finite (no draw: NaN).
bool prepare(const QBlock& block, const double* lam, int width, Prepared& q)
{
    for (int k = 0; k < width; ++k)
        if (!std::isfinite(lam[k]))
            return false;
    switch (block.family) {
    case QFamily::Normal:
    case QFamily::LogNormal:
        q.m = lam[0], q.s = flooredSoftplus(lam[1]), q.logS = std::log(q.s);
        q.kS = sigmoid(lam[1]);
        break;
    case QFamily::Gamma:
        q.a = flooredSoftplus(lam[0]), q.b = flooredSoftplus(lam[1]), q.logB = std::log(q.b);
        q.lgammaA = std::lgamma(q.a), q.psiA = digamma(q.a);
        q.kA = sigmoid(lam[0]), q.kB = sigmoid(lam[1]);
        break;
    case QFamily::Bernoulli:
        // log σ(ℓ) = −softplus(−ℓ), log(1 − σ(ℓ)) = −softplus(ℓ): exact in both tails.
        q.p = sigmoid(lam[0]), q.logP = -softplus(-lam[0]), q.log1mP = -softplus(lam[0]);
        break;
    case QFamily::Categorical: {
        const int K = block.categories;
        q.probs.resize(std::size_t(K)), q.logProbs.resize(std::size_t(K));
        double top = lam[0];
        for (int j = 1; j < K; ++j)
            top = std::max(top, lam[j]);
        double sum = 0.0;
        for (int j = 0; j < K; ++j)
            sum += std::exp(lam[j] - top);
        const double logSum = top + std::log(sum);
        for (int j = 0; j < K; ++j) {
            q.logProbs[std::size_t(j)] = lam[j] - logSum;
            q.probs[std::size_t(j)] = std::exp(q.logProbs[std::size_t(j)]);
        }
        break;
    }
    case QFamily::Poisson:
        q.eta = lam[0], q.rate = std::exp(lam[0]);
        break;
    }
    return true;
}

// n = m + s ε of a prepared normal (or a log-normal's exponent), with log q of n.
double normalDraw(const Prepared& q, Rng& rng, double& eps, double& logQ)
{
    eps = rng.normal();
    logQ = -kLogRoot2Pi - q.logS - 0.5 * eps * eps;
    return q.m + q.s * eps;
}

// log q(x) of a prepared gamma at x (log x given).
double gammaLogQ(const Prepared& q, double x, double logX)
{
    return q.a * q.logB - q.lgammaA + (q.a - 1.0) * logX - q.b * x;
}

// One draw of a prepared variable: its value, log q at it into logQ, the score into score
// (`width` entries, a stride apart).
double drawPrepared(const QBlock& block, const Prepared& q, Rng& rng, double& logQ, double* score,
                    Eigen::Index stride)
{
    switch (block.family) {
    case QFamily::Normal:
    case QFamily::LogNormal: {
        // n = m + s ε: score (n − m)/s² = ε/s and (−1/s + (n − m)²/s³) r′(σ) = (ε² − 1) r′/s.
        double eps = 0.0;
        const double n = normalDraw(q, rng, eps, logQ);
        score[0] = eps / q.s;
        score[stride] = (eps * eps - 1.0) * q.kS / q.s;
        if (block.family == QFamily::Normal)
            return n;
        logQ -= n; // the density of z = eⁿ: the normal's over dz/dn = z
        return std::exp(n);
    }
    case QFamily::Gamma: {
        const double x = std::max(rng.gamma(q.a, q.b), kTinyDraw), logX = std::log(x);
        score[0] = (q.logB - q.psiA + logX) * q.kA;
        score[stride] = (q.a / q.b - x) * q.kB;
        logQ = gammaLogQ(q, x, logX);
        return x;
    }
    case QFamily::Bernoulli: {
        const bool one = rng.uniform() < q.p;
        score[0] = (one ? 1.0 : 0.0) - q.p;
        logQ = one ? q.logP : q.log1mP;
        return one ? 1.0 : 0.0;
    }
    case QFamily::Categorical: {
        const int K = block.categories;
        double u = rng.uniform();
        int k = K - 1;
        for (int j = 0; j < K - 1; ++j)
            if ((u -= q.probs[std::size_t(j)]) < 0.0) {
                k = j;
                break;
            }
        for (int j = 0; j < K; ++j)
            score[j * stride] = (j == k ? 1.0 : 0.0) - q.probs[std::size_t(j)];
        logQ = q.logProbs[std::size_t(k)];
        return double(k);
    }
    case QFamily::Poisson: {
        std::poisson_distribution<std::int64_t> poisson(q.rate);
        const double z = double(poisson(rng));
        score[0] = z - q.rate;
        logQ = z * q.eta - q.rate - std::lgamma(z + 1.0);
        return z;
    }
    }
    return kNaN;
}

// Whether pathPrepared draws the block's family.
bool reparameterisable(const QBlock& block)
{
    return block.family == QFamily::Normal || block.family == QFamily::LogNormal ||
           block.family == QFamily::Gamma;
}

// One reparameterised draw of a prepared variable (normal, log-normal, gamma): its value, log q
// at it into logQ, ∂z/∂λ into path (`width` entries, a stride apart); NaN for other families.
double pathPrepared(const QBlock& block, const Prepared& q, Rng& rng, double& logQ, double* path,
                    Eigen::Index stride)
{
    switch (block.family) {
    case QFamily::Normal:
    case QFamily::LogNormal: {
        double eps = 0.0;
        const double n = normalDraw(q, rng, eps, logQ);
        // ∂z/∂m and ∂z/∂σ: 1 and ε r′(σ) for n, times dz/dn = z for z = eⁿ.
        const double z = block.family == QFamily::Normal ? n : std::exp(n);
        const double dz = block.family == QFamily::Normal ? 1.0 : z;
        if (block.family == QFamily::LogNormal)
            logQ -= n;
        path[0] = dz, path[stride] = dz * eps * q.kS;
        return z;
    }
    case QFamily::Gamma: {
        const GammaDraw g = gammaQuantileDraw(q.a, q.b, rng.uniformOpen());
        logQ = gammaLogQ(q, g.x, g.logX);
        path[0] = g.x * g.dLogXdA * q.kA;
        path[stride] = -g.x / q.b * q.kB;
        return g.x;
    }
    default: // not drawn by reparameterisation (drawEach refuses the family)
        return kNaN;
    }
}

int widthOf(const QBlock& block)
{
    switch (block.family) {
    case QFamily::Normal:
    case QFamily::LogNormal:
    case QFamily::Gamma:
        return 2;
    case QFamily::Categorical:
        return block.categories;
    case QFamily::Bernoulli:
    case QFamily::Poisson:
        return 1;
    }
    return 1;
}

} // namespace

std::string qFamilyName(QFamily family)
{
    switch (family) {
    case QFamily::Normal:
        return "normal";
    case QFamily::LogNormal:
        return "log-normal";
    case QFamily::Gamma:
        return "gamma";
    case QFamily::Bernoulli:
        return "bernoulli";
    case QFamily::Categorical:
        return "categorical";
    case QFamily::Poisson:
        return "poisson";
    }
    return "?";
}

QLayout::QLayout(std::vector<QBlock> blocks) : m_blocks(std::move(blocks))
{
    for (const QBlock& b : m_blocks) {
        if (b.count < 0)
            throw std::invalid_argument(
                fieldError("block " + b.name + ": count", std::to_string(b.count), "must be ≥ 0"));
        if (b.family == QFamily::Categorical && b.categories < 2)
            throw std::invalid_argument(fieldError("block " + b.name + ": categories",
                                                   std::to_string(b.categories), "must be ≥ 2"));
        m_firstVariable.push_back(m_variables);
        m_firstParameter.push_back(m_parameters);
        m_variables += b.count;
        m_parameters += b.count * widthOf(b);
    }
}

int QLayout::width(int b) const
{
    return widthOf(m_blocks[std::size_t(b)]);
}

int QLayout::blockOf(Eigen::Index v) const
{
    const auto it = std::upper_bound(m_firstVariable.begin(), m_firstVariable.end(), v);
    return int(it - m_firstVariable.begin()) - 1;
}

Eigen::Index QLayout::parameterOf(Eigen::Index v) const
{
    const int b = blockOf(v);
    return m_firstParameter[std::size_t(b)] + (v - m_firstVariable[std::size_t(b)]) * width(b);
}

void QLayout::draw(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Rng& rng,
                   Eigen::Ref<Eigen::ArrayXd> z, Eigen::Ref<Eigen::ArrayXd> logQ,
                   Eigen::Ref<Eigen::ArrayXd> score) const
{
    Eigen::Map<Eigen::MatrixXd> zs(z.data(), z.size(), 1), logQs(logQ.data(), logQ.size(), 1),
        scores(score.data(), score.size(), 1);
    drawMany(lambda, 0, m_variables, std::span(&rng, 1), zs, logQs, scores);
}

void QLayout::drawMany(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Index begin,
                       Eigen::Index end, std::span<Rng> rngs, Eigen::Ref<Eigen::MatrixXd> z,
                       Eigen::Ref<Eigen::MatrixXd> logQ, Eigen::Ref<Eigen::MatrixXd> score) const
{
    drawEach(lambda, begin, end, rngs, z, logQ, score, false);
}

void QLayout::drawEach(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Index begin,
                       Eigen::Index end, std::span<Rng> rngs, Eigen::Ref<Eigen::MatrixXd>& z,
                       Eigen::Ref<Eigen::MatrixXd>& logQ, Eigen::Ref<Eigen::MatrixXd>& out,
                       bool path) const
{
    Prepared q;
    const Eigen::Index S = Eigen::Index(rngs.size());
    for (Eigen::Index v = begin; v < end; ++v) {
        const int b = blockOf(v);
        const QBlock& block = m_blocks[std::size_t(b)];
        const int w = widthOf(block);
        const Eigen::Index p = parameterOf(v);
        if ((path && !svi::reparameterisable(block)) || !prepare(block, lambda.data() + p, w, q)) {
            z.row(v).setConstant(kNaN);
            logQ.row(v).setConstant(kNaN);
            out.middleRows(p, w).setConstant(kNaN);
            continue;
        }
        for (Eigen::Index s = 0; s < S; ++s)
            z(v, s) = path
                          ? pathPrepared(block, q, rngs[std::size_t(s)], logQ(v, s), &out(p, s), 1)
                          : drawPrepared(block, q, rngs[std::size_t(s)], logQ(v, s), &out(p, s), 1);
    }
}

bool QLayout::reparameterisable() const
{
    return std::all_of(m_blocks.begin(), m_blocks.end(),
                       [](const QBlock& b) { return svi::reparameterisable(b); });
}

void QLayout::pathMany(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Index begin,
                       Eigen::Index end, std::span<Rng> rngs, Eigen::Ref<Eigen::MatrixXd> z,
                       Eigen::Ref<Eigen::MatrixXd> logQ, Eigen::Ref<Eigen::MatrixXd> path) const
{
    drawEach(lambda, begin, end, rngs, z, logQ, path, true);
}

void QLayout::entropyGradient(const Eigen::Ref<const Eigen::ArrayXd>& lambda,
                              Eigen::Ref<Eigen::ArrayXd> gradient) const
{
    for (std::size_t b = 0; b < m_blocks.size(); ++b) {
        const QBlock& block = m_blocks[b];
        const int w = widthOf(block);
        for (Eigen::Index j = 0; j < block.count; ++j) {
            const Eigen::Index p = m_firstParameter[b] + j * w;
            const double* lam = lambda.data() + p;
            switch (block.family) {
            case QFamily::Normal:
            case QFamily::LogNormal:
                gradient[p] = block.family == QFamily::LogNormal ? 1.0 : 0.0;
                gradient[p + 1] = sigmoid(lam[1]) / flooredSoftplus(lam[1]);
                break;
            case QFamily::Gamma:
                gradient[p] = gammaEntropyDA(flooredSoftplus(lam[0])) * sigmoid(lam[0]);
                gradient[p + 1] = -sigmoid(lam[1]) / flooredSoftplus(lam[1]);
                break;
            default:
                gradient.segment(p, w).setConstant(kNaN);
            }
        }
    }
}

void QLayout::moments(const Eigen::Ref<const Eigen::ArrayXd>& lambda,
                      Eigen::Ref<Eigen::ArrayXd> mean, Eigen::Ref<Eigen::ArrayXd> variance) const
{
    Prepared q;
    for (std::size_t b = 0; b < m_blocks.size(); ++b) {
        const QBlock& block = m_blocks[b];
        const int w = widthOf(block);
        for (Eigen::Index j = 0; j < block.count; ++j) {
            const Eigen::Index v = m_firstVariable[b] + j;
            const double* lam = lambda.data() + m_firstParameter[b] + j * w;
            switch (block.family) {
            case QFamily::Normal: {
                const double s = flooredSoftplus(lam[1]);
                mean[v] = lam[0], variance[v] = s * s;
                break;
            }
            case QFamily::LogNormal: {
                const double s2 = flooredSoftplus(lam[1]) * flooredSoftplus(lam[1]);
                mean[v] = std::exp(lam[0] + 0.5 * s2);
                variance[v] = std::expm1(s2) * mean[v] * mean[v];
                break;
            }
            case QFamily::Gamma: {
                const double a = flooredSoftplus(lam[0]), rate = flooredSoftplus(lam[1]);
                mean[v] = a / rate, variance[v] = a / (rate * rate);
                break;
            }
            case QFamily::Bernoulli: {
                const double q = sigmoid(lam[0]);
                mean[v] = q, variance[v] = q * (1.0 - q);
                break;
            }
            case QFamily::Categorical: {
                prepare(block, lam, w, q);
                const std::vector<double>& p = q.probs;
                double m1 = 0.0, m2 = 0.0;
                for (int k = 0; k < block.categories; ++k)
                    m1 += k * p[std::size_t(k)], m2 += double(k) * k * p[std::size_t(k)];
                mean[v] = m1, variance[v] = m2 - m1 * m1;
                break;
            }
            case QFamily::Poisson:
                mean[v] = variance[v] = std::exp(lam[0]);
                break;
            }
        }
    }
}

void QLayout::setMoments(Eigen::Ref<Eigen::ArrayXd> lambda, Eigen::Index v, double mean,
                         double variance) const
{
    const int b = blockOf(v);
    const QBlock& block = m_blocks[std::size_t(b)];
    double* lam = lambda.data() + parameterOf(v);
    const auto refuse = [&](const std::string& rule) {
        throw std::invalid_argument(fieldError("start of " + block.name + " (mean, variance)",
                                               formatNumber(mean) + ", " + formatNumber(variance),
                                               rule));
    };
    if (!std::isfinite(mean) || !(variance >= 0.0) || !std::isfinite(variance))
        refuse("must be finite, the variance ≥ 0");
    switch (block.family) {
    case QFamily::Normal:
        if (variance <= 0.0)
            refuse("the variance must be > 0");
        lam[0] = mean, lam[1] = softplusInverse(std::sqrt(variance));
        break;
    case QFamily::LogNormal: {
        if (mean <= 0.0 || variance <= 0.0)
            refuse("a log-normal's mean and variance must be > 0");
        const double s2 = std::log1p(variance / (mean * mean));
        lam[0] = std::log(mean) - 0.5 * s2, lam[1] = softplusInverse(std::sqrt(s2));
        break;
    }
    case QFamily::Gamma:
        if (mean <= 0.0 || variance <= 0.0)
            refuse("a gamma's mean and variance must be > 0");
        lam[0] = softplusInverse(mean * mean / variance);
        lam[1] = softplusInverse(mean / variance);
        break;
    case QFamily::Bernoulli:
        if (!(mean > 0.0 && mean < 1.0))
            refuse("a bernoulli's mean must be in (0, 1)");
        lam[0] = std::log(mean / (1.0 - mean));
        break;
    case QFamily::Categorical:
        std::fill(lam, lam + block.categories, 0.0);
        break;
    case QFamily::Poisson:
        if (mean <= 0.0)
            refuse("a poisson's mean must be > 0");
        lam[0] = std::log(mean);
        break;
    }
}

// A writable Eigen::Ref is a view, passed by value as Eigen advises.
void QLayout::setBlockMoments(
    Eigen::Ref<Eigen::ArrayXd> lambda, // NOLINT(performance-unnecessary-value-param)
    int b, double mean, double variance) const
{
    for (Eigen::Index j = 0; j < m_blocks[std::size_t(b)].count; ++j)
        setMoments(lambda, m_firstVariable[std::size_t(b)] + j, mean, variance);
}

} // namespace svi
