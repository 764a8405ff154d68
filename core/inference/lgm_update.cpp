#include "core/inference/lgm_update.h"

namespace svi {

double lgmUpdate(LgmAlgorithm algorithm, GaussianQ& q, const LgmGradients& grads,
                 const GaussianPrior& prior, double rho, AdaGrad& meanOpt, AdaGrad& rootOpt)
{
    switch (algorithm) {
    case LgmAlgorithm::McSsvi:
    case LgmAlgorithm::FixedPoint:
        return q.naturalStep(rho, grads, prior, true);
    case LgmAlgorithm::HybridMcSsvi:
    case LgmAlgorithm::BatchHybrid: {
        // The mean's gradient at the current q (it does not depend on S), then S by eq. 24.
        Eigen::VectorXd m = q.mean();
        meanOpt.ascend(m, q.meanGradient(grads, prior));
        const double used = q.naturalStep(rho, grads, prior, false);
        q.setMean(m);
        return used;
    }
    case LgmAlgorithm::SDsvi: {
        Eigen::VectorXd m = q.mean();
        Eigen::MatrixXd root = q.root();
        meanOpt.ascend(m, q.meanGradient(grads, prior));
        rootOpt.ascend(root, q.rootGradient(grads, prior));
        q.setMean(m);
        q.setRoot(root);
        return meanOpt.rate();
    }
    }
    return rho;
}

QStepSizes::QStepSizes(const StepSizeOptions& options, std::size_t count) : m_options(options)
{
    if (adaptive())
        m_rates.resize(count);
}

bool QStepSizes::needsWarmUp(std::size_t i) const
{
    return adaptive() && m_rates[i].warmUpCount() < m_options.adaptiveInit;
}

namespace {

// lgmUpdate's natural step moves the mean too for these.
bool naturalMean(LgmAlgorithm a)
{
    return a == LgmAlgorithm::McSsvi || a == LgmAlgorithm::FixedPoint;
}

} // namespace

void QStepSizes::warmUp(std::size_t i, LgmAlgorithm algorithm, GaussianQ& q,
                        const LgmGradients& grads, const GaussianPrior& prior)
{
    q.naturalGradient(grads, prior, naturalMean(algorithm), m_natural);
    m_rates[i].warmUp(m_natural);
}

double QStepSizes::rho(std::size_t i, LgmAlgorithm algorithm, GaussianQ& q,
                       const LgmGradients& grads, const GaussianPrior& prior)
{
    q.naturalGradient(grads, prior, naturalMean(algorithm), m_natural);
    return m_rates[i].rho(m_natural);
}

void QStepSizes::visitState(StateArchive& a)
{
    a.field("rates", m_rates);
    a.field("warm_ups", m_warmUps);
}

} // namespace svi
