#include "core/models/ctm/ctm_mean_field.h"

#include <Eigen/Cholesky>
#include <cmath>

namespace svi::ctm {
namespace {

constexpr int kNewtonIters = 50;

double wordCount(std::span<const float> counts)
{
    double n = 0.0;
    for (float c : counts)
        n += double(c);
    return n;
}

// e_k = exp(λ_k + ν²_k / 2) over the free topics.
Eigen::VectorXd expectedExp(const MeanFieldDocument& doc)
{
    return (doc.lambda + 0.5 * doc.nu2).array().exp().matrix();
}

// The part of L that depends on λ (ζ, ν², φ fixed), with φ̄ the free topics' masses.
double lambdaObjective(const Eigen::VectorXd& lambda, const Eigen::VectorXd& nu2,
                       const Eigen::VectorXd& phiBar, const GaussianPrior& prior, double scale)
{
    const Eigen::VectorXd d = lambda - prior.mean;
    return -0.5 * d.dot(prior.precision * d) + lambda.dot(phiBar) -
           scale * (lambda + 0.5 * nu2).array().exp().sum();
}

} // namespace

double meanFieldBound(const MeanFieldInputs& in, const MeanFieldDocument& doc)
{
    const Eigen::Index k1 = doc.lambda.size();
    const Eigen::VectorXd d = doc.lambda - in.prior.mean;
    double L = -0.5 * in.prior.precision.diagonal().dot(doc.nu2) -
               0.5 * d.dot(in.prior.precision * d) - 0.5 * in.prior.logDetCovariance +
               0.5 * doc.nu2.array().log().sum() + 0.5 * double(k1);
    for (std::size_t n = 0; n < in.words.size(); ++n) {
        double s = 0.0;
        for (Eigen::Index k = 0; k <= k1; ++k) {
            const double p = doc.phi(Eigen::Index(n), k);
            if (p > 0.0)
                s += p * ((k < k1 ? doc.lambda[k] : 0.0) +
                          (in.logTopics ? (*in.logTopics)(Eigen::Index(n), k)
                                        : std::log(in.topicsByWord(in.words[n], k))) -
                          std::log(p));
        }
        L += double(in.counts[n]) * s;
    }
    const double N = wordCount(in.counts);
    return L - N * ((expectedExp(doc).sum() + 1.0) / doc.zeta - 1.0 + std::log(doc.zeta));
}

void updateZeta(MeanFieldDocument& doc)
{
    doc.zeta = expectedExp(doc).sum() + 1.0;
}

void updatePhi(const MeanFieldInputs& in, MeanFieldDocument& doc)
{
    const Eigen::Index k1 = doc.lambda.size();
    doc.phi.resize(Eigen::Index(in.words.size()), k1 + 1);
    // exp λ̃ scaled by its largest entry, which the normalisation cancels.
    Eigen::VectorXd w(k1 + 1);
    w.head(k1) = doc.lambda;
    w[k1] = 0.0;
    w = (w.array() - w.maxCoeff()).exp().matrix();
    for (std::size_t n = 0; n < in.words.size(); ++n) {
        auto row = doc.phi.row(Eigen::Index(n));
        row = in.topicsByWord.row(in.words[n]).cwiseProduct(w.transpose());
        row /= row.sum();
    }
}

void updateLambda(const MeanFieldInputs& in, MeanFieldDocument& doc)
{
    const Eigen::Index k1 = doc.lambda.size();
    Eigen::VectorXd phiBar = Eigen::VectorXd::Zero(k1);
    for (std::size_t n = 0; n < in.words.size(); ++n)
        phiBar += double(in.counts[n]) * doc.phi.row(Eigen::Index(n)).head(k1).transpose();
    const double scale = wordCount(in.counts) / doc.zeta;
    const GaussianPrior& prior = in.prior;
    double f = lambdaObjective(doc.lambda, doc.nu2, phiBar, prior, scale);
    for (int it = 0; it < kNewtonIters; ++it) {
        const Eigen::VectorXd e = scale * expectedExp(doc);
        const Eigen::VectorXd g = -prior.precision * (doc.lambda - prior.mean) + phiBar - e;
        Eigen::MatrixXd negHess = prior.precision;
        negHess.diagonal() += e;
        const Eigen::VectorXd step = negHess.llt().solve(g);
        const double decrease = g.dot(step); // the Newton decrement squared
        if (!(decrease > 1e-12 * (1.0 + std::abs(f))))
            break;
        double t = 1.0; // backtracking until Armijo's condition holds
        Eigen::VectorXd next = doc.lambda + step;
        double fNext = lambdaObjective(next, doc.nu2, phiBar, prior, scale);
        while (!(fNext >= f + 1e-4 * t * decrease) && t > 1e-10) {
            t *= 0.5;
            next = doc.lambda + t * step;
            fNext = lambdaObjective(next, doc.nu2, phiBar, prior, scale);
        }
        if (!(fNext >= f))
            break;
        doc.lambda = next;
        f = fNext;
    }
}

void updateNu(const MeanFieldInputs& in, MeanFieldDocument& doc)
{
    const double b = wordCount(in.counts) / doc.zeta;
    for (Eigen::Index k = 0; k < doc.nu2.size(); ++k) {
        const double a = in.prior.precision(k, k);
        double x = doc.nu2[k];
        for (int it = 0; it < kNewtonIters; ++it) {
            const double e = b * std::exp(doc.lambda[k] + 0.5 * x);
            const double h = 0.5 - 0.5 * a * x - 0.5 * x * e;
            const double slope = -0.5 * a - 0.5 * e * (1.0 + 0.5 * x);
            const double next = x - h / slope;
            const bool done = std::abs(next - x) <= 1e-12 * x;
            x = next > 0.0 ? next : 0.5 * x; // the concavity keeps it positive; rounding might not
            if (done)
                break;
        }
        doc.nu2[k] = x;
    }
}

double fitMeanField(const MeanFieldInputs& given, MeanFieldDocument& doc, int maxIters,
                    double tolerance)
{
    MeanFieldInputs in = given;
    if (!in.logTopics) { // the bound of every round reads them
        doc.logTopics.resize(Eigen::Index(in.words.size()), in.topicsByWord.cols());
        for (std::size_t n = 0; n < in.words.size(); ++n)
            doc.logTopics.row(Eigen::Index(n)) =
                in.topicsByWord.row(in.words[n]).array().log().matrix();
        in.logTopics = &doc.logTopics;
    }
    double last = 0.0;
    for (int it = 0; it < maxIters; ++it) {
        updatePhi(in, doc);
        updateZeta(doc);
        updateLambda(in, doc);
        updateZeta(doc);
        updateNu(in, doc);
        updateZeta(doc);
        const double L = meanFieldBound(in, doc);
        if (it > 0 && std::abs(L - last) <= tolerance * std::abs(last))
            return L;
        last = L;
    }
    return last;
}

} // namespace svi::ctm
