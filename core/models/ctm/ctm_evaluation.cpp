// CtmTrainer's evaluation (ctm_trainer.h): the bound, document completion on the test
// documents, the topics in use.

#include "core/models/ctm/ctm_math.h"
#include "core/models/ctm/ctm_trainer.h"

#include <algorithm>
#include <cmath>

namespace svi {
namespace {

constexpr std::uint64_t kStreamBound = 0x7c7a02;
constexpr std::uint64_t kStreamTest = 0x7c7a03;
constexpr int kBoundDraws = 10; // the paper's, for CTM's bound (App. A.5)
constexpr int kWeightDraws = 100;

} // namespace

Eigen::VectorXd CtmTrainer::testWeights(std::int64_t row) const
{
    const int k1 = m_options.K - 1;
    const auto words = m_data->train.rowCols(row);
    const auto counts = m_data->train.rowCounts(row);
    GaussianQ q(k1, CovarianceForm::Diagonal, 1.0);
    q.setMean(m_prior.mean);
    AdaGrad meanOpt(m_options.adagradRate), rootOpt(m_options.adagradRate);
    LgmGradients grads;
    Rng rng = Rng::stream(m_seed, kStreamTest, std::uint64_t(row));
    for (int n = 1; n <= m_options.localIters; ++n) {
        estimateInto(q, words, counts, rng, grads, nullptr, nullptr);
        grads.gammaDiag = grads.gammaDiag.cwiseMin(0.0); // eq. 59's projection
        lgmUpdate(LgmAlgorithm::HybridMcSsvi, q, grads, m_prior, 1.0 / n, meanOpt, rootOpt);
    }
    Eigen::VectorXd weights = Eigen::VectorXd::Zero(m_options.K), z(k1), eta(k1),
                    theta(m_options.K);
    for (int s = 0; s < kWeightDraws; ++s) {
        for (int k = 0; k < k1; ++k)
            z[k] = rng.normal();
        drawEta(q, z, eta);
        ctm::logisticNormal(eta, theta);
        weights += theta / kWeightDraws;
    }
    return weights;
}

Evaluation CtmTrainer::evaluate(bool full)
{
    Evaluation ev;
    const CountData& d = *m_data;
    const int k1 = m_options.K - 1;
    // The bound over the training documents (all when full): −KL(q(η_d) ‖ p) + E_q Σ_w c_w ξ_w,
    // by 10 fixed draws per document.
    std::vector<std::int64_t> docs;
    if (full) {
        docs.resize(m_docs.size());
        for (std::size_t j = 0; j < docs.size(); ++j)
            docs[j] = std::int64_t(j);
    } else {
        for (std::int64_t row : m_evalDocs.cheapElbo)
            docs.push_back(std::lower_bound(m_docs.begin(), m_docs.end(), row) - m_docs.begin());
    }
    const double local =
        sumChunks(std::int64_t(docs.size()), [&](std::int64_t begin, std::int64_t end) {
            double s = 0.0;
            Eigen::VectorXd grad(k1), z(k1), eta(k1), theta, r;
            for (std::int64_t j = begin; j < end; ++j) {
                const GaussianQ& q = m_q[std::size_t(docs[std::size_t(j)])];
                const std::int64_t row = m_docs[std::size_t(docs[std::size_t(j)])];
                Rng rng = Rng::stream(m_seed, kStreamBound, std::uint64_t(row));
                double term = 0.0;
                for (int a = 0; a < kBoundDraws; ++a) {
                    for (int k = 0; k < k1; ++k)
                        z[k] = rng.normal();
                    drawEta(q, z, eta);
                    grad.setZero();
                    term += ctm::documentTerms(eta, d.train.rowCols(row), d.train.rowCounts(row),
                                               m_beta, grad, nullptr, theta, r);
                }
                s += term / kBoundDraws - q.kl(m_prior);
            }
            return s;
        });
    setSubsetElbo(ev, 0.0, local, std::int64_t(docs.size()), std::int64_t(m_docs.size()));

    // Document completion: each test document's held-out words under E_q[h(η)] of its observed
    // half (as LDA and HDP score theirs).
    const std::vector<std::int64_t>& scored = full ? m_evalDocs.scored : m_evalDocs.cheapScored;
    std::vector<Eigen::VectorXd> weights(std::size_t(d.rows()));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t j = 0; j < std::int64_t(scored.size()); ++j)
        weights[std::size_t(scored[std::size_t(j)])] = testWeights(scored[std::size_t(j)]);
    const lda::HeldOutScore heldOut = lda::scoreHeldOut(
        m_beta, d.heldOut, scored,
        [&](std::int64_t row) -> const Eigen::VectorXd& { return weights[std::size_t(row)]; },
        [] { return false; });
    lda::addHeldOutMetrics(ev.metrics, heldOut);

    // The topics in use, weighted by the training documents' h(m_d).
    Eigen::VectorXd weight = Eigen::VectorXd::Zero(m_options.K), theta(m_options.K);
    for (const GaussianQ& q : m_q) {
        ctm::logisticNormal(q.mean(), theta);
        weight += theta;
    }
    weight /= weight.sum();
    lda::addTopicsInUse(ev, weight, m_beta, Eigen::VectorXd::Ones(m_options.K), d.columnNames,
                        m_options.topWords);
    return ev;
}

} // namespace svi
