#include "core/models/ctm/ctm_math.h"

#include <cmath>

namespace svi::ctm {

void logisticNormal(const Eigen::Ref<const Eigen::VectorXd>& eta, Eigen::Ref<Eigen::VectorXd> theta)
{
    const Eigen::Index k1 = eta.size();
    const double top = std::max(eta.size() > 0 ? eta.maxCoeff() : 0.0, 0.0);
    theta.head(k1) = (eta.array() - top).exp();
    theta[k1] = std::exp(-top);
    theta /= theta.sum();
}

double documentTerms(const Eigen::Ref<const Eigen::VectorXd>& eta,
                     std::span<const std::int32_t> words, std::span<const float> counts,
                     const MatrixRD& topicsByWord, Eigen::Ref<Eigen::VectorXd> grad,
                     Eigen::MatrixXd* hess, Eigen::VectorXd& theta, Eigen::VectorXd& r)
{
    const Eigen::Index K = eta.size() + 1, k1 = eta.size();
    theta.resize(K);
    r.resize(K);
    logisticNormal(eta, theta);
    double value = 0.0, total = 0.0;
    for (std::size_t n = 0; n < words.size(); ++n) {
        const double c = counts[n];
        r = theta.cwiseProduct(topicsByWord.row(words[n]).transpose());
        const double p = r.sum();
        value += c * std::log(p);
        r /= p;
        grad += c * r.head(k1);
        if (hess) {
            hess->diagonal() += c * r.head(k1);
            hess->noalias() -= c * r.head(k1) * r.head(k1).transpose();
        }
        total += c;
    }
    // The h̃ parts, once for all the document's words.
    grad -= total * theta.head(k1);
    if (hess) {
        hess->diagonal() -= total * theta.head(k1);
        hess->noalias() += total * theta.head(k1) * theta.head(k1).transpose();
    }
    return value;
}

} // namespace svi::ctm
