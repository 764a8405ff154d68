#include "core/models/ctm/ctm_trainer.h"

#include "core/models/ctm/ctm_math.h"
#include "core/models/lda/topic_parts.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <stdexcept>

namespace svi {
namespace {

constexpr std::uint64_t kStreamInit = 0x7c7a01;

// Γ's negative semi-definite part: −2Γ projected onto the PSD cone, halved back (eq. 59).
void projectCurvature(LgmGradients& g, CovarianceForm form)
{
    if (form == CovarianceForm::Diagonal) {
        g.gammaDiag = g.gammaDiag.cwiseMin(0.0);
        return;
    }
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(g.gammaFull);
    g.gammaFull = eig.eigenvectors() * eig.eigenvalues().cwiseMin(0.0).asDiagonal() *
                  eig.eigenvectors().transpose();
}

} // namespace

CtmTrainer::CtmTrainer(CountDataPtr corpus, LgmAlgorithm algorithm, const CtmOptions& options,
                       std::uint64_t seed)
    : m_data(std::move(corpus)), m_algorithm(algorithm), m_options(options), m_seed(seed),
      m_topicsOpt(options.topicsRate), m_schedule{options.kappa, options.tau0}
{
    m_options.check();
    lda::checkCorpus(m_data);
    if (algorithm != LgmAlgorithm::HybridMcSsvi && algorithm != LgmAlgorithm::SDsvi)
        throw std::invalid_argument("ctm: H-MC-SSVI or S-DSVI");
    const CountData& d = *m_data;
    m_docs = d.trainingRows();
    const int K = options.K, k1 = K - 1;
    const std::int64_t V = d.cols();
    m_q.assign(m_docs.size(), GaussianQ(k1, options.covariance, 1.0));
    m_meanOpt.assign(m_docs.size(), AdaGrad(options.adagradRate));
    m_rootOpt = m_meanOpt;
    m_prior = GaussianPrior::isotropic(k1, 1.0); // μ = 0, Σ = I (App. A.5)
    m_sumMean = Eigen::VectorXd::Zero(k1);
    m_sumOuter = Eigen::MatrixXd::Zero(k1, k1);
    for (const GaussianQ& q : m_q) {
        m_sumMean += q.mean();
        m_sumOuter += q.covariance() + q.mean() * q.mean().transpose();
    }
    // Each topic ∝ a random training document's counts plus U(1, 2) per word (App. A.5).
    m_alpha.resize(K, V);
    for (int k = 0; k < K; ++k) {
        Rng rng = Rng::stream(seed, kStreamInit, std::uint64_t(k));
        const std::int64_t row = m_docs[std::size_t(rng.below(m_docs.size()))];
        Eigen::VectorXd w(V);
        for (std::int64_t v = 0; v < V; ++v)
            w[v] = 1.0 + rng.uniform();
        const auto cols = d.train.rowCols(row);
        const auto counts = d.train.rowCounts(row);
        for (std::size_t n = 0; n < cols.size(); ++n)
            w[cols[n]] += counts[n];
        m_alpha.row(k) = (w / w.sum()).array().log().transpose();
    }
    m_beta = m_alpha.transpose().array().exp(); // rows of α are normalised logs
}

CtmTrainer::~CtmTrainer() = default;

void CtmTrainer::estimate(const GaussianQ& q, std::int64_t row, std::int64_t t)
{
    const CountData& d = *m_data;
    const auto words = d.train.rowCols(row);
    const auto counts = d.train.rowCounts(row);
    const int k1 = m_options.K - 1, S = m_options.samples;
    const bool full = q.form() == CovarianceForm::Full;
    m_grads.reset(k1, q.form());
    Eigen::MatrixXd hess = Eigen::MatrixXd::Zero(k1, k1);
    Eigen::VectorXd grad = Eigen::VectorXd::Zero(k1), z(k1), eta(k1), theta, r;
    m_topicMass = Eigen::VectorXd::Zero(m_options.K);
    m_wordTopic = MatrixRD::Zero(Eigen::Index(words.size()), m_options.K);
    Rng rng = Rng::stream(m_seed, std::uint64_t(t), std::uint64_t(row));
    for (int s = 0; s < S; ++s) {
        for (int k = 0; k < k1; ++k)
            z[k] = rng.normal();
        eta = q.mean() +
              (full ? Eigen::VectorXd(q.root().triangularView<Eigen::Upper>().transpose() * z)
                    : Eigen::VectorXd(q.root().col(0).cwiseProduct(z)));
        ctm::documentTerms(eta, words, counts, m_beta, grad, &hess, theta, r);
        for (std::size_t n = 0; n < words.size(); ++n) { // c_w r_wk at this draw
            r = theta.cwiseProduct(m_beta.row(words[n]).transpose());
            r *= double(counts[n]) / r.sum();
            m_wordTopic.row(Eigen::Index(n)) += r.transpose() / S;
            m_topicMass += r / S;
        }
    }
    m_grads.g = grad / S;
    if (full)
        m_grads.gammaFull = 0.5 * hess / S;
    else
        m_grads.gammaDiag = 0.5 * hess.diagonal() / S;
}

double CtmTrainer::updateDocument(std::int64_t doc, double rho, std::int64_t t, bool globalsToo)
{
    GaussianQ& q = m_q[std::size_t(doc)];
    const std::int64_t row = m_docs[std::size_t(doc)];
    estimate(q, row, t);
    if (m_algorithm == LgmAlgorithm::HybridMcSsvi)
        projectCurvature(m_grads, q.form());
    const GaussianQ before = q;
    const double used = lgmUpdate(m_algorithm, q, m_grads, m_prior, rho,
                                  m_meanOpt[std::size_t(doc)], m_rootOpt[std::size_t(doc)]);
    q.releasePrecision();
    if (globalsToo) {
        if (m_options.learnPrior)
            updatePrior(before, q);
        stepTopics(row);
    }
    return used;
}

double CtmTrainer::step(std::int64_t t)
{
    const std::int64_t D = std::int64_t(m_docs.size());
    return updateDocument((t - 1) % D, m_schedule.rho((t - 1) / D + 1), t);
}

void CtmTrainer::updatePrior(const GaussianQ& before, const GaussianQ& after)
{
    m_sumMean += after.mean() - before.mean();
    m_sumOuter += after.covariance() + after.mean() * after.mean().transpose() -
                  before.covariance() - before.mean() * before.mean().transpose();
    const double D = double(m_docs.size());
    const int k1 = m_options.K - 1;
    m_prior.mean = m_sumMean / D;
    Eigen::MatrixXd sigma = m_sumOuter / D - m_prior.mean * m_prior.mean.transpose();
    sigma.diagonal().array() += 1e-8; // rounding in the running sums must not break Σ
    const Eigen::LLT<Eigen::MatrixXd> llt(sigma);
    if (llt.info() != Eigen::Success)
        return; // keep the last Σ; the next documents' updates restore it
    m_prior.precision = llt.solve(Eigen::MatrixXd::Identity(k1, k1));
    m_prior.logDetCovariance = 2.0 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
}

Eigen::MatrixXd CtmTrainer::topicsGradient(std::int64_t row) const
{
    // ∂/∂α_ku = D (Σ_w c_w r_wk δ_wu − β_ku Σ_w c_w r_wk) (eq. 62), this document alone.
    const auto words = m_data->train.rowCols(row);
    const double D = double(m_docs.size());
    Eigen::MatrixXd grad =
        -D * (m_beta.transpose().array().colwise() * m_topicMass.array()).matrix();
    for (std::size_t n = 0; n < words.size(); ++n)
        grad.col(words[n]) += D * m_wordTopic.row(Eigen::Index(n)).transpose();
    return grad;
}

void CtmTrainer::stepTopics(std::int64_t row)
{
    Eigen::MatrixXd alpha = m_alpha;
    m_topicsOpt.ascend(alpha, topicsGradient(row));
    // Renormalise each topic's logits (log-sum-exp), so that β_k = exp α_k sums to 1.
    for (Eigen::Index k = 0; k < alpha.rows(); ++k) {
        const double top = alpha.row(k).maxCoeff();
        alpha.row(k).array() -= top + std::log((alpha.row(k).array() - top).exp().sum());
    }
    m_alpha = alpha;
    m_beta = m_alpha.transpose().array().exp();
}

bool CtmTrainer::diverged() const
{
    return !m_prior.mean.allFinite() || !m_prior.precision.allFinite() || !m_alpha.allFinite();
}

Evaluation CtmTrainer::evaluate(bool full)
{
    // The bound over the training documents (all when full): −KL(q(η_d) ‖ p) + E_q Σ_w c_w ξ_w
    // by the documents' own 10-draw estimates. Perplexity, the preview: still to come.
    Evaluation ev;
    const CountData& d = *m_data;
    const std::int64_t n =
        full ? std::int64_t(m_docs.size())
             : std::min<std::int64_t>(m_options.evalDocs, std::int64_t(m_docs.size()));
    const int k1 = m_options.K - 1;
    const double local = sumChunks(n, [&](std::int64_t begin, std::int64_t end) {
        double s = 0.0;
        Eigen::VectorXd grad(k1), z(k1), eta(k1), theta, r;
        for (std::int64_t j = begin; j < end; ++j) {
            const GaussianQ& q = m_q[std::size_t(j)];
            const std::int64_t row = m_docs[std::size_t(j)];
            Rng rng = Rng::stream(m_seed, 0x7c7a02, std::uint64_t(row));
            double term = 0.0;
            for (int a = 0; a < 10; ++a) {
                for (int k = 0; k < k1; ++k)
                    z[k] = rng.normal();
                eta =
                    q.mean() +
                    (q.form() == CovarianceForm::Full
                         ? Eigen::VectorXd(q.root().triangularView<Eigen::Upper>().transpose() * z)
                         : Eigen::VectorXd(q.root().col(0).cwiseProduct(z)));
                grad.setZero();
                term += ctm::documentTerms(eta, d.train.rowCols(row), d.train.rowCounts(row),
                                           m_beta, grad, nullptr, theta, r);
            }
            s += term / 10.0 - q.kl(m_prior);
        }
        return s;
    });
    setSubsetElbo(ev, 0.0, local, n, std::int64_t(m_docs.size()));
    return ev;
}

} // namespace svi
