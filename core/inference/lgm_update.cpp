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

} // namespace svi
