#include "core/inference/positive_sgvb.h"

#include "core/base/parallel.h"
#include "core/base/params.h"
#include "core/inference/gamma_reparam.h"
#include "core/math/gauss_hermite.h"
#include "core/math/logistic.h"
#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi {
namespace {

constexpr double kTiny = std::numeric_limits<double>::min();
// Below this many variables a step's draws (about a microsecond each) are taken on the calling
// thread: waking the team costs more than it saves, and far more on a loaded machine.
constexpr Eigen::Index kParallelDraws = 2048;

struct Draw
{
    Eigen::ArrayXd& x;
    Eigen::ArrayXd& aux;  // normal: ε
    Eigen::ArrayXd& dLog; // gamma: ∂ log x/∂a; normal: θ = m + s ε
};

// One draw of q (parameters theta) from the streams (seed, a, b, chunk).
void drawQ(SgvbMethod method, const Eigen::ArrayXd& theta, Eigen::Index n, std::uint64_t seed,
           std::uint64_t a, std::uint64_t b, Draw d)
{
    if (method == SgvbMethod::Map) {
        for (Eigen::Index i = 0; i < n; ++i)
            d.x[i] = std::max(softplus(theta[i]), kTiny);
        return;
    }
    forChunks(
        n,
        [&](int chunk, std::int64_t begin, std::int64_t end) {
            Rng rng = Rng::stream(seed, a, b, std::uint64_t(chunk));
            for (std::int64_t i = begin; i < end; ++i) {
                if (!std::isfinite(theta[i]) || !std::isfinite(theta[n + i])) {
                    // A diverged q: no draw (gammaQuantileDraw would throw inside the parallel
                    // region); the NaN reaches the bound, and the trainer ends the run as diverged.
                    d.x[i] = d.dLog[i] = d.aux[i] = std::numeric_limits<double>::quiet_NaN();
                    continue;
                }
                if (method == SgvbMethod::Gamma) {
                    const GammaDraw g =
                        gammaQuantileDraw(flooredSoftplus(theta[i]), flooredSoftplus(theta[n + i]),
                                          rng.uniformOpen());
                    d.x[i] = g.x;
                    d.dLog[i] = g.dLogXdA;
                } else {
                    const double eps = rng.normal();
                    const double th = theta[i] + flooredSoftplus(theta[n + i]) * eps;
                    d.aux[i] = eps;
                    d.dLog[i] = th;
                    d.x[i] = std::max(softplus(th), kTiny);
                }
            }
        },
        n >= kParallelDraws);
}

// log σ(θ) summed: the normal's log Jacobian of x = r(θ).
double logJacobian(const Eigen::ArrayXd& thetaDraw)
{
    double s = 0.0;
    for (Eigen::Index i = 0; i < thetaDraw.size(); ++i)
        s -= softplus(-thetaDraw[i]);
    return s;
}

double entropyOf(SgvbMethod method, const Eigen::ArrayXd& theta, Eigen::Index n)
{
    double h = 0.0;
    if (method == SgvbMethod::Gamma)
        for (Eigen::Index i = 0; i < n; ++i)
            h += gammaEntropy(flooredSoftplus(theta[i]), flooredSoftplus(theta[n + i]));
    else if (method == SgvbMethod::Normal)
        for (Eigen::Index i = 0; i < n; ++i)
            h += 0.5 * std::log(2.0 * std::numbers::pi * std::numbers::e) +
                 std::log(flooredSoftplus(theta[n + i]));
    return h;
}

void checkInit(const Eigen::ArrayXd& mean, const Eigen::ArrayXd& variance)
{
    if (mean.size() != variance.size() || mean.size() == 0)
        throw std::invalid_argument("PositiveSgvb: " + std::to_string(mean.size()) + " means and " +
                                    std::to_string(variance.size()) +
                                    " variances (must be as many, at least one)");
    for (Eigen::Index i = 0; i < mean.size(); ++i)
        if (!(mean[i] > 0.0 && variance[i] > 0.0 && std::isfinite(mean[i]) &&
              std::isfinite(variance[i])))
            throw std::invalid_argument(fieldError(
                "PositiveSgvb: initial mean, variance [" + std::to_string(i) + "]",
                formatNumber(mean[i]) + ", " + formatNumber(variance[i]), "must be > 0"));
}

} // namespace

// The stream id of gradientVariance()'s draws.
constexpr std::uint64_t kVarianceStream = 0x76617269616e6365ULL; // "variance"

double PositiveModel::blankets(const Eigen::ArrayXd& x, Eigen::ArrayXd& blanket) const
{
    Eigen::ArrayXd grad(size());
    const double lf = logJoint(x, grad);
    blanket.setConstant(size(), lf);
    return lf;
}

std::string entropyGradientName(EntropyGradient e)
{
    return e == EntropyGradient::Sampled ? "sampled" : "analytic";
}

EntropyGradient entropyGradientFromName(const std::string& name)
{
    if (name == "analytic")
        return EntropyGradient::Analytic;
    if (name == "sampled")
        return EntropyGradient::Sampled;
    throw std::invalid_argument(fieldError("entropy", name, "must be analytic or sampled"));
}

ParamFields<SgvbOptions> SgvbOptions::declare(SgvbMethod method)
{
    ParamFields<SgvbOptions> f;
    f.add(&SgvbOptions::optimizer, OptimizerOptions::declare(OptimizerKind::AdaDelta, 0.9));
    if (method == SgvbMethod::Gamma)
        f.add(choiceParam("entropy", "Entropy gradient",
                          "sampled: the path derivative of −log q at the draw, as Algorithm 1 "
                          "prints it (its noise vanishes near the optimum); analytic: ∂H/∂a = 1 + "
                          "(1 − a)ψ′(a), ∂H/∂b = −1/b",
                          {"sampled", "analytic"}, "sampled"),
              &SgvbOptions::entropy, entropyGradientName, entropyGradientFromName);
    if (method != SgvbMethod::Map)
        f.add(intParam("elbo_samples", "Bound draws",
                       "draws of q averaged for the bound reported at an evaluation", 10, 1, 10000),
              &SgvbOptions::elboSamples)
            .add(intParam("variance_repeats", "Variance repeats",
                          "one-draw gradient estimates at each evaluation whose spread is the "
                          "gradient-variance metric (0: not measured)",
                          10, 0, 1000),
                 &SgvbOptions::varianceRepeats);
    return f;
}

const ParamFields<SgvbOptions>& SgvbOptions::fields()
{
    static const ParamFields<SgvbOptions> f = declare(SgvbMethod::Gamma);
    return f;
}

void PositiveSgvb::visitState(StateArchive& a)
{
    a.field("theta", m_theta);
    a.field("optimizer", m_optimizer);
}

PositiveSgvb::PositiveSgvb(SgvbMethod method, const Eigen::ArrayXd& mean,
                           const Eigen::ArrayXd& variance, const OptimizerOptions& optimizer,
                           std::uint64_t seed, EntropyGradient entropy)
    : m_method(method), m_entropy(entropy), m_size(mean.size()), m_seed(seed),
      m_optimizer(optimizer)
{
    checkInit(mean, variance);
    const Eigen::Index n = m_size;
    m_theta.resize(method == SgvbMethod::Map ? n : 2 * n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const double m = mean[i], v = variance[i];
        if (method == SgvbMethod::Gamma) {
            m_theta[i] = softplusInverse(m * m / v);
            m_theta[n + i] = softplusInverse(m / v);
        } else if (method == SgvbMethod::Normal) {
            m_theta[i] = softplusInverse(m);
            m_theta[n + i] = softplusInverse(std::sqrt(v) / sigmoid(m_theta[i]));
        } else {
            m_theta[i] = softplusInverse(m);
        }
    }
    for (Eigen::ArrayXd* a : {&m_x, &m_aux, &m_dLog, &m_grad})
        a->setZero(n);
    m_g.setZero(m_theta.size());
}

double PositiveSgvb::step(const PositiveModel& model, std::int64_t t)
{
    const Eigen::ArrayXd& x = drawStep(t);
    return ascend(model.logJoint(x, m_grad));
}

const Eigen::ArrayXd& PositiveSgvb::drawStep(std::int64_t t)
{
    drawQ(m_method, m_theta, m_size, m_seed, 1, std::uint64_t(t), {m_x, m_aux, m_dLog});
    return m_x;
}

void PositiveSgvb::parameterGradient(const Eigen::ArrayXd& x, const Eigen::ArrayXd& aux,
                                     const Eigen::ArrayXd& dLog, const Eigen::ArrayXd& gradX,
                                     Eigen::ArrayXd& g) const
{
    const Eigen::Index n = m_size;
    for (Eigen::Index i = 0; i < n; ++i) {
        const double gx = gradX[i];
        if (m_method == SgvbMethod::Map) {
            g[i] = gx * sigmoid(m_theta[i]);
            continue;
        }
        const double s1 = sigmoid(m_theta[i]), s2 = sigmoid(m_theta[n + i]);
        if (m_method == SgvbMethod::Gamma) {
            const double a = flooredSoftplus(m_theta[i]), b = flooredSoftplus(m_theta[n + i]);
            // x ∂L/∂x, L = log f (analytic entropy) or log f − log q (sampled).
            double xg = x[i] * gx;
            if (m_entropy == EntropyGradient::Sampled)
                xg += (1.0 - a) + b * x[i];
            double ga = xg * dLog[i], gb = -xg / b;
            if (m_entropy == EntropyGradient::Analytic) {
                ga += gammaEntropyDA(a);
                gb -= 1.0 / b;
            }
            g[i] = ga * s1;
            g[n + i] = gb * s2;
        } else {
            // d/dθ [log f(r(θ)) + log σ(θ)] at θ = m + s ε; ∂/∂m = that, ∂/∂s = that ε + 1/s.
            const double th = dLog[i];
            const double h = gx * sigmoid(th) + (1.0 - sigmoid(th));
            g[i] = h;
            g[n + i] = (h * aux[i] + 1.0 / flooredSoftplus(m_theta[n + i])) * s2;
        }
    }
}

double PositiveSgvb::ascend(double logF)
{
    const double bound = boundAtDraw(logF);
    parameterGradient(m_x, m_aux, m_dLog, m_grad, m_g);
    m_optimizer.ascend(m_theta, m_g);
    return bound;
}

double PositiveSgvb::gradientVariance(const PositiveModel& model, int repeats,
                                      std::uint64_t evaluation) const
{
    if (repeats < 2 || m_method == SgvbMethod::Map)
        return std::numeric_limits<double>::quiet_NaN();
    Eigen::ArrayXd x(m_size), aux(m_size), dLog(m_size), gradX(m_size);
    Eigen::ArrayXd g(m_theta.size()), sum = Eigen::ArrayXd::Zero(m_theta.size());
    Eigen::ArrayXd squares = sum;
    for (int r = 0; r < repeats; ++r) {
        // Streams apart from step()'s (1, t), elbo()'s (2 + id, k) and draw()'s (another seed).
        drawQ(m_method, m_theta, m_size, m_seed, kVarianceStream,
              (evaluation << 16) + std::uint64_t(r), {x, aux, dLog});
        model.logJoint(x, gradX);
        parameterGradient(x, aux, dLog, gradX, g);
        sum += g, squares += g.square();
    }
    const Eigen::ArrayXd mean = sum / repeats;
    return ((squares - repeats * mean.square()) / (repeats - 1.0)).sum();
}

double PositiveSgvb::boundAtDraw(double logF) const
{
    if (m_method == SgvbMethod::Map)
        return logF;
    double b = logF + entropyOf(m_method, m_theta, m_size);
    if (m_method == SgvbMethod::Normal)
        b += logJacobian(m_dLog);
    return b;
}

double PositiveSgvb::elbo(const PositiveModel& model, int samples, std::uint64_t evaluation,
                          Communicator& ranks) const
{
    const Eigen::Index n = m_size;
    Eigen::ArrayXd x(n), aux(n), dLog(n), grad(n);
    const int s = m_method == SgvbMethod::Map ? 1 : std::max(samples, 1);
    double sum = 0.0;
    GlobalStatistic terms;
    for (int k = 0; k < s; ++k) {
        drawQ(m_method, m_theta, n, m_seed, 2 + evaluation, std::uint64_t(k), {x, aux, dLog});
        if (ranks.distributed()) {
            // This rank's items, then every rank's: the sums the model finishes from.
            terms.clear();
            model.itemTerms(x, ranks.shardOf(model.itemCount()), terms);
            for (const std::span<double>& part : terms.denseParts())
                ranks.sum(part);
            sum += model.fromItemTerms(x, grad);
        } else {
            sum += model.logJoint(x, grad);
        }
        if (m_method == SgvbMethod::Normal)
            sum += logJacobian(dLog);
    }
    return sum / s + entropyOf(m_method, m_theta, n);
}

void PositiveSgvb::draw(std::uint64_t id, std::uint64_t drawIndex, Eigen::ArrayXd& x) const
{
    Eigen::ArrayXd aux(m_size), dLog(m_size);
    x.resize(m_size);
    // Streams apart from those of step() (1, t) and elbo() (2 + id, k).
    drawQ(m_method, m_theta, m_size, m_seed ^ 0x9e3779b97f4a7c15ULL, id, drawIndex, {x, aux, dLog});
}

Eigen::ArrayXd PositiveSgvb::mean() const
{
    const Eigen::Index n = m_size;
    Eigen::ArrayXd m(n);
    if (m_method == SgvbMethod::Gamma) {
        for (Eigen::Index i = 0; i < n; ++i)
            m[i] = flooredSoftplus(m_theta[i]) / flooredSoftplus(m_theta[n + i]);
    } else if (m_method == SgvbMethod::Normal) {
        static const GaussHermite quadrature(20);
        for (Eigen::Index i = 0; i < n; ++i) {
            const double sd = flooredSoftplus(m_theta[n + i]);
            m[i] = quadrature.expect(m_theta[i], sd * sd, [](double t) { return softplus(t); });
        }
    } else {
        for (Eigen::Index i = 0; i < n; ++i)
            m[i] = softplus(m_theta[i]);
    }
    return m;
}

Eigen::ArrayXd PositiveSgvb::shapes() const
{
    if (m_method != SgvbMethod::Gamma)
        return {};
    return m_theta.head(m_size).unaryExpr([](double t) { return flooredSoftplus(t); });
}

Eigen::ArrayXd PositiveSgvb::rates() const
{
    if (m_method != SgvbMethod::Gamma)
        return {};
    return m_theta.tail(m_size).unaryExpr([](double t) { return flooredSoftplus(t); });
}

double PositiveSgvb::entropy() const
{
    return entropyOf(m_method, m_theta, m_size);
}

} // namespace svi
