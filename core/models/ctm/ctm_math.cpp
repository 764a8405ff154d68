#include "core/models/ctm/ctm_math.h"

#include "core/math/log_sum_exp.h"

#include <Eigen/Cholesky>
#include <cmath>
#include <numbers>
#include <stdexcept>

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
                     Eigen::MatrixXd* hess, Eigen::VectorXd& theta, Eigen::VectorXd& r,
                     Eigen::VectorXd* hessDiag)
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
        if (hessDiag)
            *hessDiag += c * (r.head(k1).array() * (1.0 - r.head(k1).array())).matrix();
        total += c;
    }
    // The h̃ parts, once for all the document's words.
    grad -= total * theta.head(k1);
    if (hess) {
        hess->diagonal() -= total * theta.head(k1);
        hess->noalias() += total * theta.head(k1) * theta.head(k1).transpose();
    }
    if (hessDiag)
        *hessDiag -= total * (theta.head(k1).array() * (1.0 - theta.head(k1).array())).matrix();
    return value;
}

double simpleTerms(const Eigen::Ref<const Eigen::VectorXd>& eta, const Eigen::VectorXd& wordLogs,
                   Eigen::Ref<Eigen::VectorXd> grad, Eigen::MatrixXd* hess,
                   Eigen::VectorXd* hessDiag, Eigen::VectorXd& theta)
{
    const Eigen::Index K = eta.size() + 1, k1 = eta.size();
    theta.resize(K);
    logisticNormal(eta, theta);
    const double A = theta.dot(wordLogs);
    const Eigen::VectorXd a = theta.cwiseProduct(wordLogs).head(k1);
    const auto h = theta.head(k1);
    grad += a - A * h;
    if (hess) {
        hess->diagonal() += a - A * h;
        hess->noalias() += -a * h.transpose() - h * a.transpose() + 2.0 * A * h * h.transpose();
    }
    if (hessDiag)
        *hessDiag += (a - A * h + (2.0 * A * h.array() * h.array()).matrix() -
                      (2.0 * a.array() * h.array()).matrix());
    return A;
}

double importanceLogLikelihood(std::span<const std::int32_t> words, std::span<const float> counts,
                               const MatrixRD& topicsByWord, const Eigen::VectorXd& mu,
                               const Eigen::MatrixXd& priorPrecision, double logDetPrior,
                               const Eigen::VectorXd& m, const Eigen::MatrixXd& S, double inflation,
                               int samples, Rng& rng)
{
    const Eigen::Index d = m.size();
    const Eigen::MatrixXd proposal = S + inflation * Eigen::MatrixXd::Identity(d, d);
    const Eigen::LLT<Eigen::MatrixXd> llt(proposal);
    if (llt.info() != Eigen::Success)
        throw std::invalid_argument("importance sampling: the proposal's covariance is not "
                                    "positive definite");
    const Eigen::MatrixXd L = llt.matrixL();
    const double logDetProposal = 2.0 * L.diagonal().array().log().sum();
    const double half = 0.5 * double(d) * std::log(2.0 * std::numbers::pi);
    Eigen::VectorXd z(d), eta(d), grad(d), theta, r;
    LogSumExp lse;
    for (int s = 0; s < samples; ++s) {
        for (Eigen::Index k = 0; k < d; ++k)
            z[k] = rng.normal();
        eta.noalias() = m + L * z;
        const Eigen::VectorXd dev = eta - mu;
        const double logPrior = -half - 0.5 * logDetPrior - 0.5 * dev.dot(priorPrecision * dev);
        const double logProposal = -half - 0.5 * logDetProposal - 0.5 * z.squaredNorm();
        grad.setZero();
        const double logLik =
            documentTerms(eta, words, counts, topicsByWord, grad, nullptr, theta, r);
        lse.add(logLik + logPrior - logProposal);
    }
    return lse.value() - std::log(double(samples));
}

} // namespace svi::ctm
