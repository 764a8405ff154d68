#include "core/models/bpfa/bpfa_model.h"

#include "core/math/constants.h"
#include "core/math/logistic.h"

#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace svi::bpfa {

ParamFields<Prior> Prior::declare()
{
    return ParamFields<Prior>()
        .add(positiveParam("a", "Prior a", "π_k ~ Beta(a/K, b(K−1)/K)", 10), &Prior::a)
        .add(positiveParam("b", "Prior b", "π_k ~ Beta(a/K, b(K−1)/K)", 10), &Prior::b)
        .add(positiveParam("c", "Prior c", "γ_obs ~ Gamma(c, d) (shape, rate)", 1), &Prior::c)
        .add(positiveParam("d", "Prior d", "γ_obs ~ Gamma(c, d) (shape, rate)", 10), &Prior::d)
        .add(positiveParam("e", "Prior e", "γ_w ~ Gamma(e, f) (shape, rate)", 1), &Prior::e)
        .add(positiveParam("f", "Prior f", "γ_w ~ Gamma(e, f) (shape, rate)", 1), &Prior::f);
}

const ParamFields<Prior>& Prior::fields()
{
    static const ParamFields<Prior> f = declare();
    return f;
}

namespace {

double digamma(double x)
{
    return boost::math::digamma(x);
}
double lgam(double x)
{
    return boost::math::lgamma(x);
}

// θ log θ + (1 − θ) log(1 − θ), with 0 log 0 = 0.
double negEntropyBernoulli(double theta)
{
    double s = 0.0;
    if (theta > 0.0)
        s += theta * std::log(theta);
    if (theta < 1.0)
        s += (1.0 - theta) * std::log1p(-theta);
    return s;
}

// log of a Gamma(shape, 1) draw, accurate for tiny shapes (where the draw itself underflows):
// G(s) = G(s + 1) · U^(1/s).
double logGammaDraw(Rng& rng, double shape)
{
    if (shape < 1.0)
        return std::log(rng.gamma(shape + 1.0, 1.0)) + std::log(rng.uniformOpen()) / shape;
    return std::log(rng.gamma(shape, 1.0));
}

double logAddExp(double x, double y)
{
    const double m = std::max(x, y);
    return m + std::log(std::exp(x - m) + std::exp(y - m));
}

void fillLogit(GlobalView& v)
{
    v.logit = v.logPi - v.log1mPi;
    v.pi = v.logPi.array().exp().matrix();
}

} // namespace

bool Globals::finite() const
{
    return a.allFinite() && b.allFinite() && std::isfinite(c) && std::isfinite(d) &&
           std::isfinite(e) && std::isfinite(f) && lambda.allFinite() && h.allFinite() &&
           (a.array() > 0).all() && (b.array() > 0).all() && c > 0 && d > 0 && e > 0 && f > 0 &&
           (lambda.array() > 0).all();
}

void Globals::blend(const Globals& t, double rho)
{
    const double k = 1.0 - rho;
    a = k * a + rho * t.a;
    b = k * b + rho * t.b;
    c = k * c + rho * t.c;
    d = k * d + rho * t.d;
    e = k * e + rho * t.e;
    f = k * f + rho * t.f;
    lambda = k * lambda + rho * t.lambda;
    h = k * h + rho * t.h;
}

void Globals::addChange(const Globals& t, const Globals& from)
{
    a += t.a - from.a;
    b += t.b - from.b;
    c += t.c - from.c;
    d += t.d - from.d;
    e += t.e - from.e;
    f += t.f - from.f;
    lambda += t.lambda - from.lambda;
    h += t.h - from.h;
}

void Globals::visitState(StateArchive& archive)
{
    archive.field("a", a);
    archive.field("b", b);
    archive.field("c", c);
    archive.field("d", d);
    archive.field("e", e);
    archive.field("f", f);
    archive.field("lambda", lambda);
    archive.field("h", h);
}

Eigen::VectorXd Globals::difference(const Globals& t) const
{
    const Eigen::Index K = a.size(), KD = lambda.size();
    Eigen::VectorXd g(2 * K + 4 + 2 * KD);
    g.head(K) = t.a - a;
    g.segment(K, K) = t.b - b;
    g.segment(2 * K, 4) << t.c - c, t.d - d, t.e - e, t.f - f;
    g.segment(2 * K + 4, KD) = (t.lambda - lambda).reshaped<Eigen::RowMajor>();
    g.tail(KD) = (t.h - h).reshaped<Eigen::RowMajor>();
    return g;
}

Globals priorGlobals(const Prior& prior, int K, int D)
{
    if (K < 1)
        throw std::invalid_argument("priorGlobals: K = " + std::to_string(K) + ", but must be ≥ 1");
    Globals g;
    g.a = Eigen::VectorXd::Constant(K, prior.a / K);
    g.b = Eigen::VectorXd::Constant(K, prior.b * (K - 1) / K);
    if (K == 1)
        g.b.setConstant(prior.b); // the truncation formula degenerates; keep a proper Beta
    g.c = prior.c;
    g.d = prior.d;
    g.e = prior.e;
    g.f = prior.f;
    g.lambda = MatrixRD::Constant(K, D, double(D));
    g.h = MatrixRD::Zero(K, D);
    return g;
}

GlobalView expectationView(const Globals& g)
{
    GlobalView v;
    v.phi = g.phiMean();
    v.phiSecond = (v.phi.array().square() + g.lambda.array().inverse()).matrix();
    const int K = g.K();
    v.logPi.resize(K);
    v.log1mPi.resize(K);
    for (int k = 0; k < K; ++k) {
        const double dab = digamma(g.a[k] + g.b[k]);
        v.logPi[k] = digamma(g.a[k]) - dab;
        v.log1mPi[k] = digamma(g.b[k]) - dab;
    }
    fillLogit(v);
    v.gamma = g.c / g.d;
    v.logGamma = digamma(g.c) - std::log(g.d);
    v.gammaW = g.e / g.f;
    v.logGammaW = digamma(g.e) - std::log(g.f);
    return v;
}

GlobalView sampleView(const Globals& g, Rng& rng)
{
    GlobalView v;
    const int K = g.K(), D = g.D();
    v.phi.resize(K, D);
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d)
            v.phi(k, d) = g.h(k, d) / g.lambda(k, d) + rng.normal() / std::sqrt(g.lambda(k, d));
    v.phiSecond = v.phi.array().square().matrix();
    v.logPi.resize(K);
    v.log1mPi.resize(K);
    for (int k = 0; k < K; ++k) {
        const double lx = logGammaDraw(rng, g.a[k]);
        const double ly = logGammaDraw(rng, g.b[k]);
        const double ls = logAddExp(lx, ly);
        v.logPi[k] = lx - ls;
        v.log1mPi[k] = ly - ls;
    }
    fillLogit(v);
    v.gamma = rng.gamma(g.c, g.d);
    v.logGamma = std::log(v.gamma);
    v.gammaW = rng.gamma(g.e, g.f);
    v.logGammaW = std::log(v.gammaW);
    return v;
}

GlobalView meanPointView(const Globals& g)
{
    return pointView(g.phiMean(), g.piMean(), g.c / g.d, g.e / g.f);
}

GlobalView pointView(const MatrixRD& phi, const Eigen::VectorXd& pi, double gamma, double gammaW)
{
    GlobalView v;
    v.phi = phi;
    v.phiSecond = phi.array().square().matrix();
    v.logPi = pi.array().max(1e-300).log().matrix();
    v.log1mPi = (1.0 - pi.array()).max(1e-300).log().matrix();
    fillLogit(v);
    v.gamma = gamma;
    v.logGamma = std::log(gamma);
    v.gammaW = gammaW;
    v.logGammaW = std::log(gammaW);
    return v;
}

void Workspace::resize(int K_, int D_)
{
    K = K_;
    D = D_;
    obs.reserve(D);
    y.resize(D);
    scale.setOnes(D);
    G.resize(K, D);
    G2.resize(K);
    Gn.resize(K);
    r.resize(D);
    theta.resize(K);
    mean.resize(K);
    prec.resize(K);
    z.resize(K);
    x.resize(K);
    ez.resize(K);
    ex.resize(K);
    ex2.resize(K);
    exr.resize(K, D);
    shift.setZero(K);
}

namespace {

// Restricts the view to the observed dims in ws.obs (already filled) and ws.y.
void gatherView(Workspace& ws, const GlobalView& view)
{
    const int Do = ws.Do;
    // Resizing to a smaller or equal size within the reserved capacity does not allocate for
    // Eigen vectors only when the size is unchanged, so keep full-D storage and use views.
    for (int k = 0; k < ws.K; ++k) {
        const double* src = view.phi.row(k).data();
        const double* src2 = view.phiSecond.row(k).data();
        double g2 = 0.0, gn = 0.0;
        for (int j = 0; j < Do; ++j) {
            const double v = src[ws.obs[j]];
            ws.G(k, j) = v;
            gn += v * v;
            g2 += src2[ws.obs[j]];
        }
        ws.G2[k] = g2;
        ws.Gn[k] = gn;
    }
}

} // namespace

void Workspace::gather(const DenseData& data, std::int64_t i, const GlobalView& view)
{
    obs.clear();
    const float* vals = data.valueRow(i);
    const std::uint8_t* roles = data.roleRow(i);
    for (int d = 0; d < D; ++d)
        if (roles[d] == std::uint8_t(EntryRole::Observed)) {
            y[int(obs.size())] = vals[d];
            obs.push_back(d);
        }
    Do = int(obs.size());
    weight = Do;
    scale.head(Do).setOnes();
    shift.setZero();
    gatherView(*this, view);
}

void Workspace::gather(
    const Eigen::Ref<const Eigen::VectorXd>& yIn,
    const Eigen::Ref<const Eigen::Matrix<std::uint8_t, Eigen::Dynamic, 1>>& observed,
    const GlobalView& view)
{
    obs.clear();
    for (int d = 0; d < D; ++d)
        if (observed[d]) {
            y[int(obs.size())] = yIn[d];
            obs.push_back(d);
        }
    Do = int(obs.size());
    weight = Do;
    scale.head(Do).setOnes();
    shift.setZero();
    gatherView(*this, view);
}

void Workspace::appendPseudo(int d, double value, double alpha, const GlobalView& view)
{
    const double s = std::sqrt(alpha);
    y[Do] = s * value;
    scale[Do] = s;
    obs.push_back(d);
    for (int k = 0; k < K; ++k) {
        const double v = s * view.phi(k, d);
        G(k, Do) = v;
        G2[k] += alpha * view.phiSecond(k, d);
        Gn[k] += v * v;
    }
    weight += alpha;
    ++Do;
}

int Workspace::leaveOut(int j, const GlobalView& view)
{
    const int last = Do - 1;
    const int d = obs[std::size_t(j)];
    for (int k = 0; k < K; ++k) {
        G2[k] -= view.phiSecond(k, d);
        Gn[k] -= view.phi(k, d) * view.phi(k, d);
        std::swap(G(k, j), G(k, last));
    }
    std::swap(y[j], y[last]);
    std::swap(obs[std::size_t(j)], obs[std::size_t(last)]);
    obs.pop_back();
    Do = last;
    weight -= 1.0;
    return d;
}

double Workspace::predictionError(int d, double value, const GlobalView& view) const
{
    double mean = 0.0;
    for (int k = 0; k < K; ++k)
        if (ex[k] != 0.0)
            mean += ex[k] * view.phi(k, d);
    return (value - mean) * (value - mean);
}

// The workspace keeps full-size (K×D, D) storage; only the first Do columns / entries are
// meaningful for the current item. These helpers give the live parts.
namespace {
inline auto Gk(const Workspace& ws, int k)
{
    return ws.G.row(k).head(ws.Do);
}
inline auto rv(Workspace& ws)
{
    return ws.r.head(ws.Do);
}
inline auto yv(const Workspace& ws)
{
    return ws.y.head(ws.Do);
}

// E‖y − Σ_k x_k φ_k‖² for a factorised local family, given r̄ = y − Σ_k E[x_k] φ_k.
double factorisedSquaredResidual(const Workspace& ws, double rbarSquared)
{
    double er2 = rbarSquared;
    for (int k = 0; k < ws.K; ++k)
        er2 += ws.ex2[k] * ws.G2[k] - ws.ex[k] * ws.ex[k] * ws.Gn[k];
    return er2;
}

// Fills exr = E[x_k r] and er2 for a factorised family from ws.r (= r̄) and the moments:
// E[x_k r] = E[x_k] r̄ − Var(x_k) φ_k, since x_k is independent of the other x_j.
void finishFactorised(Workspace& ws)
{
    const auto r = ws.r.head(ws.Do);
    for (int k = 0; k < ws.K; ++k) {
        const double e = ws.ex[k];
        const double varx = ws.ex2[k] - e * e;
        ws.exr.row(k).head(ws.Do) = e * r.transpose() - varx * Gk(ws, k);
    }
    ws.er2 = factorisedSquaredResidual(ws, r.squaredNorm());
}

// The expected log-likelihood and the expected log-priors of z and w that do not depend on
// the family, for the current θ and a given E‖r‖².
double sharedLocalTerms(const Workspace& ws, const GlobalView& view, double er2)
{
    double L = 0.5 * ws.weight * (view.logGamma - kLog2Pi) - 0.5 * view.gamma * er2;
    for (int k = 0; k < ws.K; ++k) {
        L += ws.theta[k] * view.logPi[k] + (1.0 - ws.theta[k]) * view.log1mPi[k];
        // A shifted prior p(z_k = 1) = σ(logit π_k + s_k): θ_k s_k − log(1 − π_k + π_k e^{s_k}),
        // π_k = exp E[log π_k] in the normaliser.
        if (const double s = ws.shift[k]; s != 0.0)
            L += ws.theta[k] * s - std::log1p(view.pi[k] * std::expm1(s));
    }
    L += 0.5 * ws.K * (view.logGammaW - kLog2Pi);
    return L;
}

// Recomputes r̄ from θ, ν/κ (so the ELBO does not trust the cached residual) and returns
// E‖r‖² with E[x_k] = θ_k m_k and E[x_k²] = θ_k (m_k² + 1/κ_k).
double recomputeSquaredResidual(const Workspace& ws)
{
    Eigen::VectorXd r = ws.y.head(ws.Do);
    double er2 = 0.0;
    for (int k = 0; k < ws.K; ++k) {
        const double e = ws.theta[k] * ws.mean[k];
        const double e2 = ws.theta[k] * (ws.mean[k] * ws.mean[k] + 1.0 / ws.prec[k]);
        r.noalias() -= e * Gk(ws, k).transpose();
        er2 += e2 * ws.G2[k] - e * e * ws.Gn[k];
    }
    return er2 + r.squaredNorm();
}
} // namespace

namespace {

// Coordinate ascent shared by the factorised local families. `update(k, B)` sets θ_k, m_k
// (= ν_k/κ_k) and κ_k from B = φ_k·r^{−k}, each an exact block maximisation of the local
// bound; the residual r = y − Σ_k θ_k m_k φ_k is kept current. Stops after maxIters sweeps or
// when no θ_k moved by tol and no term E[x_k] φ_k of the prediction by tol in norm (θ alone is
// not enough: with every θ_k saturated the weights may still be far from converged). Then
// fills the moments; `spikeW2` is E[w_k² | z_k = 0] (0 when the
// family has no separate spike, i.e. q(w_k) does not depend on z_k).
template <typename Update>
void factorisedAscent(Workspace& ws, int maxIters, double tol, double spikeW2, Update&& update)
{
    const int K = ws.K;
    auto r = rv(ws);
    r = yv(ws);
    int it = 0;
    for (; it < maxIters; ++it) {
        double maxDelta = 0.0, maxMove = 0.0; // max |Δθ_k|, max ‖ΔE[x_k] φ_k‖²
        for (int k = 0; k < K; ++k) {
            const double thetaOld = ws.theta[k];
            const double eOld = thetaOld * ws.mean[k];
            update(k, Gk(ws, k).dot(r) + eOld * ws.Gn[k]);
            const double eNew = ws.theta[k] * ws.mean[k];
            if (eNew != eOld) {
                r.noalias() -= (eNew - eOld) * Gk(ws, k).transpose();
                maxMove = std::max(maxMove, (eNew - eOld) * (eNew - eOld) * ws.Gn[k]);
            }
            maxDelta = std::max(maxDelta, std::abs(ws.theta[k] - thetaOld));
        }
        if (maxDelta < tol && maxMove < tol * tol) {
            ++it;
            break;
        }
    }
    ws.ez = ws.theta;
    ws.ex = ws.theta.cwiseProduct(ws.mean);
    ws.ew2 = 0.0;
    for (int k = 0; k < K; ++k) {
        const double s = ws.mean[k] * ws.mean[k] + 1.0 / ws.prec[k];
        ws.ex2[k] = ws.theta[k] * s;
        ws.ew2 += spikeW2 > 0.0 ? ws.theta[k] * s + (1.0 - ws.theta[k]) * spikeW2 : s;
    }
    finishFactorised(ws);
}

} // namespace

void mfLocal(Workspace& ws, const GlobalView& view, int maxIters, double tol)
{
    const double g = view.gamma, gw = view.gammaW;
    // Every feature starts on with q(w_k) at its prior, so the first sweep fits each feature
    // to what the earlier ones left unexplained.
    ws.theta.setOnes();
    ws.mean.setZero();
    ws.prec.setConstant(gw);
    factorisedAscent(ws, maxIters, tol, 0.0, [&](int k, double B) {
        const double A = ws.G2[k];
        // q(w_k) given θ_k, then θ_k given q(w_k).
        const double kappa = gw + g * ws.theta[k] * A;
        const double m = g * ws.theta[k] * B / kappa;
        const double s = m * m + 1.0 / kappa;
        ws.theta[k] = sigmoid(view.logit[k] + ws.shift[k] + g * (m * B - 0.5 * s * A));
        ws.mean[k] = m;
        ws.prec[k] = kappa;
    });
}

void titsiasLocal(Workspace& ws, const GlobalView& view, int maxIters, double tol)
{
    const double g = view.gamma, gw = view.gammaW;
    // Every feature starts off; κ_k does not depend on the other features.
    ws.theta.setZero();
    ws.mean.setZero();
    for (int k = 0; k < ws.K; ++k)
        ws.prec[k] = gw + g * ws.G2[k];
    factorisedAscent(ws, maxIters, tol, 1.0 / gw, [&](int k, double B) {
        const double kappa = ws.prec[k];
        const double m = g * B / kappa;
        // Joint maximum over (θ_k, m_k, κ_k): the log-odds of the slab against the spike.
        ws.theta[k] =
            sigmoid(view.logit[k] + ws.shift[k] + 0.5 * std::log(gw / kappa) + 0.5 * kappa * m * m);
        ws.mean[k] = m;
    });
}

void gibbsLocal(Workspace& ws, const GlobalView& view, int burnin, int samples, Rng& rng, bool warm)
{
    const int K = ws.K, Do = ws.Do;
    const double g = view.gamma, gw = view.gammaW;
    auto r = rv(ws);
    r = yv(ws);
    if (warm) {
        for (int k = 0; k < K; ++k)
            if (ws.x[k] != 0.0)
                r.noalias() -= ws.x[k] * Gk(ws, k).transpose();
    } else {
        ws.x.setZero();
        ws.z.setZero();
    }
    // κ_k and the spike/slab normaliser ratio are fixed for the item: compute them once.
    for (int k = 0; k < K; ++k) {
        ws.prec[k] = gw + g * ws.G2[k];
        // The prior log-odds part.
        ws.mean[k] = view.logit[k] + ws.shift[k] + 0.5 * std::log(gw / ws.prec[k]);
    }
    ws.ez.setZero();
    ws.ex.setZero();
    ws.ex2.setZero();
    ws.exr.leftCols(Do).setZero();
    ws.ew2 = 0.0;
    double er2 = 0.0;
    const int sweeps = burnin + samples;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        for (int k = 0; k < K; ++k) {
            const double xOld = ws.x[k];
            const double B = Gk(ws, k).dot(r) + xOld * ws.Gn[k];
            const double kappa = ws.prec[k];
            const double mu = g * B / kappa;
            const double logOdds = ws.mean[k] + 0.5 * kappa * mu * mu;
            bool on;
            if (logOdds > 40.0)
                on = true;
            else if (logOdds < -40.0)
                on = false;
            else {
                const double u = rng.uniform();
                // z_k = 1 with probability σ(l). For l < 0, σ(l) < e^l ≤ 1/(1 − l + l²/2), so
                // most draws of an unlikely feature are decided without the exponential (the
                // decision is the same as comparing with σ(l) itself).
                if (logOdds < 0.0 && u * (1.0 - logOdds + 0.5 * logOdds * logOdds) >= 1.0)
                    on = false;
                else
                    on = u < sigmoid(logOdds);
            }
            // w_k | z_k = 0 is N(0, 1/γ_w) and does not touch the likelihood: it is never
            // stored (x_k = 0); its second moment enters E‖w‖² exactly below.
            const double xNew = on ? mu + rng.normal() / std::sqrt(kappa) : 0.0;
            if (xNew != xOld)
                r.noalias() -= (xNew - xOld) * Gk(ws, k).transpose();
            ws.x[k] = xNew;
            ws.z[k] = on ? 1.0 : 0.0;
        }
        if (sweep >= burnin) {
            for (int k = 0; k < K; ++k) {
                if (ws.z[k] != 0.0) {
                    const double xk = ws.x[k];
                    ws.ez[k] += 1.0;
                    ws.ex[k] += xk;
                    ws.ex2[k] += xk * xk;
                    ws.exr.row(k).head(Do).noalias() += xk * r.transpose();
                    ws.ew2 += xk * xk;
                } else {
                    ws.ew2 += 1.0 / gw;
                }
            }
            er2 += r.squaredNorm();
        }
    }
    const double inv = samples > 0 ? 1.0 / samples : 0.0;
    ws.ez *= inv;
    ws.ex *= inv;
    ws.ex2 *= inv;
    ws.exr.leftCols(Do) *= inv;
    ws.ew2 *= inv;
    er2 *= inv;
    // Under an expectation view (Mimno-SVI) E_q(Φ) adds the variance of the loadings.
    for (int k = 0; k < K; ++k)
        er2 += ws.ex2[k] * (ws.G2[k] - ws.Gn[k]);
    ws.er2 = er2;
}

double mfLocalElbo(const Workspace& ws, const GlobalView& view)
{
    double L = sharedLocalTerms(ws, view, recomputeSquaredResidual(ws));
    for (int k = 0; k < ws.K; ++k) {
        const double s = ws.mean[k] * ws.mean[k] + 1.0 / ws.prec[k];
        L -= 0.5 * view.gammaW * s;                          // E log p(w_k)
        L += -negEntropyBernoulli(ws.theta[k])               // H[q(z_k)]
             + 0.5 * (kLog2Pi + 1.0 - std::log(ws.prec[k])); // H[q(w_k)]
    }
    return L;
}

double titsiasLocalElbo(const Workspace& ws, const GlobalView& view)
{
    double L = sharedLocalTerms(ws, view, recomputeSquaredResidual(ws));
    const double gw = view.gammaW;
    for (int k = 0; k < ws.K; ++k) {
        const double t = ws.theta[k];
        const double s = ws.mean[k] * ws.mean[k] + 1.0 / ws.prec[k];
        L -= 0.5 * gw * (t * s + (1.0 - t) / gw);
        L += -negEntropyBernoulli(t) + t * 0.5 * (kLog2Pi + 1.0 - std::log(ws.prec[k])) +
             (1.0 - t) * 0.5 * (kLog2Pi + 1.0 - std::log(gw));
    }
    return L;
}

void Stats::resize(int K, int D)
{
    zSum.resize(K);
    P.resize(K, D);
    C.resize(K, D);
    clear();
}

void Stats::clear()
{
    zSum.setZero();
    P.setZero();
    C.setZero();
    r2 = w2 = obsCount = 0.0;
    items = 0;
}

void Stats::add(const Workspace& ws)
{
    zSum += ws.ez;
    for (int k = 0; k < ws.K; ++k) {
        const double p = ws.ex2[k];
        if (p == 0.0)
            continue; // the feature was never on: its rows of P and C get nothing
        double* Pk = P.row(k).data();
        double* Ck = C.row(k).data();
        const double* exr = ws.exr.row(k).data();
        for (int j = 0; j < ws.Do; ++j) {
            const double s = ws.scale[j]; // exr is E[x_k r] in the scaled entries
            Pk[ws.obs[j]] += p * s * s;
            Ck[ws.obs[j]] += exr[j] * s;
        }
    }
    r2 += ws.er2;
    w2 += ws.ew2;
    obsCount += ws.weight;
    items += 1;
}

void Stats::add(const Stats& o)
{
    zSum += o.zSum;
    P += o.P;
    C += o.C;
    r2 += o.r2;
    w2 += o.w2;
    obsCount += o.obsCount;
    items += o.items;
}

Globals globalTarget(const Prior& prior, const Stats& s, const GlobalView& view, double scale,
                     int K, int D)
{
    // λ̂ = η + scale · Σ_i η̂_i, term by term as in eq. 7 (observed entries only).
    Globals g = priorGlobals(prior, K, D);
    g.a += scale * s.zSum;
    g.b += scale * (double(s.items) - s.zSum.array()).matrix();
    g.c += 0.5 * scale * s.obsCount;
    g.d += 0.5 * scale * s.r2;
    g.e += 0.5 * scale * double(s.items) * K;
    g.f += 0.5 * scale * s.w2;
    g.lambda += (scale * view.gamma) * s.P;
    // h_kd = γ Σ_i m_id E[x_ik (y_id − Σ_{j≠k} x_ij φ_jd)] = γ (C_kd + φ_kd P_kd)
    g.h = (scale * view.gamma) * (s.C.array() + view.phi.array() * s.P.array()).matrix();
    return g;
}

double globalElboTerm(const Prior& prior, const Globals& g)
{
    const int K = g.K(), D = g.D();
    const Globals p = priorGlobals(prior, K, D);
    double kl = 0.0;
    for (int k = 0; k < K; ++k) {
        const double a = g.a[k], b = g.b[k], a0 = p.a[k], b0 = p.b[k];
        const double lbeta = lgam(a) + lgam(b) - lgam(a + b);
        const double lbeta0 = lgam(a0) + lgam(b0) - lgam(a0 + b0);
        kl += lbeta0 - lbeta + (a - a0) * digamma(a) + (b - b0) * digamma(b) +
              (a0 - a + b0 - b) * digamma(a + b);
    }
    auto klGamma = [](double shape, double rate, double shape0, double rate0) {
        return (shape - shape0) * digamma(shape) - lgam(shape) + lgam(shape0) +
               shape0 * (std::log(rate) - std::log(rate0)) + shape * (rate0 - rate) / rate;
    };
    kl += klGamma(g.c, g.d, prior.c, prior.d);
    kl += klGamma(g.e, g.f, prior.e, prior.f);
    // KL(N(m, 1/Λ) ‖ N(0, 1/D)) per entry.
    const double Dd = double(D);
    for (int k = 0; k < K; ++k)
        for (int d = 0; d < D; ++d) {
            const double L = g.lambda(k, d);
            const double m = g.h(k, d) / L;
            kl += 0.5 * (Dd / L + Dd * m * m - 1.0 - std::log(Dd / L));
        }
    return -kl;
}

} // namespace svi::bpfa
