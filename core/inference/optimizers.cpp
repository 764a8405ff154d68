#include "core/inference/optimizers.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace svi {
namespace {

void checkSizes(const char* who, Eigen::Index x, Eigen::Index g, Eigen::Index earlier)
{
    if (g != x || (earlier != 0 && earlier != g))
        throw std::invalid_argument(
            std::string(who) + ": a gradient of " + std::to_string(g) +
            " entries for a parameter of " + std::to_string(x) +
            (earlier ? " (earlier: " + std::to_string(earlier) + ")" : std::string()));
}

// AdaGrad's rule (Duchi, Hazan & Singer 2011), x ← x + γ g / (√S + ε) after S ← S + g²: one
// body for class AdaGrad (paper 002's constants) and Optimizer's adagrad (paper 003's).
void adagradStep(Eigen::Ref<Eigen::ArrayXd> x, const Eigen::Ref<const Eigen::ArrayXd>& g,
                 Eigen::ArrayXd& sumSq, double rate, double epsilon)
{
    sumSq += g.square();
    x += rate * g / (sumSq.sqrt() + epsilon);
}

} // namespace

void AdaGrad::visitState(StateArchive& a)
{
    a.field("steps", m_steps);
    a.field("sum_sq", m_sumSq);
}

// A writable Eigen::Ref is a view, passed by value as Eigen advises.
void AdaGrad::ascend(Eigen::Ref<Eigen::ArrayXd> x, // NOLINT(performance-unnecessary-value-param)
                     const Eigen::Ref<const Eigen::ArrayXd>& g)
{
    checkSizes("AdaGrad", x.size(), g.size(), m_sumSq.size());
    if (m_sumSq.size() == 0)
        m_sumSq = Eigen::ArrayXd::Zero(g.size());
    adagradStep(x, g, m_sumSq, m_rate, m_eps);
    ++m_steps;
}

void AdaGrad::ascend(Eigen::MatrixXd& x, const Eigen::MatrixXd& g)
{
    if (g.rows() != x.rows() || g.cols() != x.cols())
        throw std::invalid_argument("AdaGrad: a " + std::to_string(g.rows()) + "×" +
                                    std::to_string(g.cols()) + " gradient for a " +
                                    std::to_string(x.rows()) + "×" + std::to_string(x.cols()) +
                                    " parameter");
    Eigen::Map<Eigen::ArrayXd> xv(x.data(), x.size());
    const Eigen::Map<const Eigen::ArrayXd> gv(g.data(), g.size());
    ascend(xv, gv);
}

std::string optimizerName(OptimizerKind kind)
{
    switch (kind) {
    case OptimizerKind::Sgd:
        return "sgd";
    case OptimizerKind::AdaGrad:
        return "adagrad";
    case OptimizerKind::RmsProp:
        return "rmsprop";
    case OptimizerKind::Adam:
        return "adam";
    case OptimizerKind::AdaDelta:
        break;
    }
    return "adadelta";
}

OptimizerKind optimizerFromName(const std::string& name)
{
    for (OptimizerKind k : {OptimizerKind::Sgd, OptimizerKind::AdaGrad, OptimizerKind::RmsProp,
                            OptimizerKind::AdaDelta, OptimizerKind::Adam})
        if (optimizerName(k) == name)
            return k;
    throw std::invalid_argument(
        fieldError("optimizer", name, "must be sgd, adagrad, rmsprop, adadelta or adam"));
}

double OptimizerOptions::ownRate(OptimizerKind kind)
{
    switch (kind) {
    case OptimizerKind::Sgd:
        return 0.001;
    case OptimizerKind::AdaGrad:
        return 0.1;
    case OptimizerKind::RmsProp:
    case OptimizerKind::Adam:
        return 0.01;
    case OptimizerKind::AdaDelta:
        break;
    }
    return 1.0;
}

ParamFields<OptimizerOptions> OptimizerOptions::declare(OptimizerKind kind, double momentum,
                                                        double rate, double kappa)
{
    using O = OptimizerOptions;
    ParamFields<O> f;
    f.add(choiceParam("optimizer", "Optimizer",
                      "the gradient steps' rule: sgd, adagrad, rmsprop, adadelta (paper 003, Sec. "
                      "2.4) or adam",
                      {"sgd", "adagrad", "rmsprop", "adadelta", "adam"}, optimizerName(kind)),
          &O::kind, optimizerName, optimizerFromName)
        .add(realParam("rate", "Rate γ",
                       "the step's scale; 0 = the optimizer's own: sgd 0.001, adagrad 0.1, "
                       "rmsprop 0.01, adadelta 1, adam 0.01",
                       rate, 0.0, kHuge),
             &O::rate)
        .add(realParam("rate_kappa", "Rate decay κ",
                       "γ_t = rate · (1 + t/τ)^(−κ): 0 keeps the rate constant; κ in (0.5, 1] "
                       "satisfies Robbins–Monro",
                       kappa, 0.0, 1.0),
             &O::rateKappa)
        .add(positiveParam("rate_tau", "Rate delay τ",
                           "γ_t = rate · (1 + t/τ)^(−κ): steps before the rate starts to fall",
                           100.0),
             &O::rateTau)
        .add(onlyWhen(realParam("momentum", "Momentum λ",
                                "v ← λ v + (1 − λ) g, stepped along v (not by adam): 0 = none; "
                                "paper 003 ran 0.9",
                                momentum, 0.0, 0.999),
                      "optimizer", {"sgd", "adagrad", "rmsprop", "adadelta"}),
             &O::momentum)
        .add(onlyWhen(realParam("rmsprop_decay", "RMSprop decay",
                                "rmsprop: m ← d m + (1 − d) g² (paper 003: 0.9)", 0.9, 0.0, 0.9999),
                      "optimizer", {"rmsprop"}),
             &O::rmspropDecay)
        .add(onlyWhen(realParam("adadelta_rho", "AdaDelta ρ",
                                "adadelta: m ← ρ g² + (1 − ρ) m, ρ the newest square's weight as "
                                "paper 003 writes it (Zeiler's decay is 1 − ρ)",
                                0.9, 0.0001, 1.0),
                      "optimizer", {"adadelta"}),
             &O::adadeltaRho)
        .add(onlyWhen(positiveParam("adadelta_epsilon", "AdaDelta ε",
                                    "adadelta: step √(m_x + ε) / √(m_g + ε) (paper 003: 1e-4)",
                                    1e-4),
                      "optimizer", {"adadelta"}),
             &O::adadeltaEpsilon)
        .add(onlyWhen(realParam("adam_beta1", "Adam β1",
                                "adam: the gradient's average, m ← β1 m + (1 − β1) g", 0.9, 0.0,
                                0.9999),
                      "optimizer", {"adam"}),
             &O::adamBeta1)
        .add(onlyWhen(realParam("adam_beta2", "Adam β2",
                                "adam: the squares' average, s ← β2 s + (1 − β2) g²", 0.999, 0.0,
                                0.999999),
                      "optimizer", {"adam"}),
             &O::adamBeta2);
    return f;
}

const ParamFields<OptimizerOptions>& OptimizerOptions::fields()
{
    static const ParamFields<OptimizerOptions> f = declare();
    return f;
}

Optimizer::Optimizer(const OptimizerOptions& options) : m_options(options.checked()) {}

void Optimizer::visitState(StateArchive& a)
{
    a.field("steps", m_steps);
    a.field("velocity", m_velocity);
    a.field("first", m_first);
    a.field("second", m_second);
}

double Optimizer::rate() const
{
    const double t = double(m_steps);
    return m_options.baseRate() * std::pow(1.0 + t / m_options.rateTau, -m_options.rateKappa);
}

void Optimizer::ascend(Eigen::Ref<Eigen::ArrayXd> x, const Eigen::Ref<const Eigen::ArrayXd>& g)
{
    checkSizes("Optimizer", x.size(), g.size(), m_velocity.size());
    const OptimizerOptions& o = m_options;
    if (m_velocity.size() == 0) {
        m_velocity = Eigen::ArrayXd::Zero(g.size());
        m_first = Eigen::ArrayXd::Zero(g.size());
        m_second = Eigen::ArrayXd::Zero(g.size());
        m_step.resize(g.size());
    }
    const double gamma = rate();
    ++m_steps;
    if (o.kind == OptimizerKind::Adam) {
        m_second = o.adamBeta1 * m_second + (1.0 - o.adamBeta1) * g;
        m_first = o.adamBeta2 * m_first + (1.0 - o.adamBeta2) * g.square();
        const double c1 = 1.0 - std::pow(o.adamBeta1, double(m_steps));
        const double c2 = 1.0 - std::pow(o.adamBeta2, double(m_steps));
        x += gamma * (m_second / c1) / ((m_first / c2).sqrt() + 1e-8);
        return;
    }
    // The first step starts the velocity at g itself: an average over no gradient is none.
    if (o.momentum > 0.0 && m_steps > 1)
        m_velocity = o.momentum * m_velocity + (1.0 - o.momentum) * g;
    else
        m_velocity = g;
    const Eigen::ArrayXd& v = m_velocity;
    switch (o.kind) {
    case OptimizerKind::Sgd:
        x += gamma * v;
        break;
    case OptimizerKind::AdaGrad:
        adagradStep(x, v, m_first, gamma, 1e-6);
        break;
    case OptimizerKind::RmsProp:
        m_first = o.rmspropDecay * m_first + (1.0 - o.rmspropDecay) * v.square();
        x += gamma * v / (1e-6 + m_first.sqrt());
        break;
    case OptimizerKind::AdaDelta:
        m_first = o.adadeltaRho * v.square() + (1.0 - o.adadeltaRho) * m_first;
        m_step = gamma * v * (m_second + o.adadeltaEpsilon).sqrt() /
                 (m_first + o.adadeltaEpsilon).sqrt();
        x += m_step;
        m_second = o.adadeltaRho * m_step.square() + (1.0 - o.adadeltaRho) * m_second;
        break;
    case OptimizerKind::Adam:
        break;
    }
}

} // namespace svi
