// CtmTrainer's evaluation (ctm_trainer.h): the bound, document completion on the test
// documents, the topics in use and their correlations.

#include "core/models/ctm/ctm_math.h"
#include "core/models/ctm/ctm_trainer.h"
#include "core/run/topic_correlations.h"

#include <Eigen/LU> // inverse()
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace svi {
namespace {

constexpr std::uint64_t kStreamBound = 0x7c7a02;
constexpr std::uint64_t kStreamTest = 0x7c7a03;
constexpr int kBoundDraws = 10; // the paper's, for CTM's bound (App. A.5)
constexpr int kWeightDraws = 100;
constexpr std::uint64_t kStreamTestNll = 0x7c7a05;
constexpr int kImportanceSamples = 1000; // per inflation (the paper: 10⁷)

} // namespace

GaussianQ CtmTrainer::fitDocument(std::span<const std::int32_t> words,
                                  std::span<const float> counts, Rng& rng) const
{
    GaussianQ q(m_options.K - 1, CovarianceForm::Diagonal, 1.0);
    q.setMean(m_prior.mean);
    AdaGrad meanOpt(m_options.adagradRate), rootOpt(m_options.adagradRate);
    LgmGradients grads;
    for (int n = 1; n <= m_options.localIters; ++n) {
        estimateInto(q, words, counts, rng, grads, nullptr, nullptr);
        grads.gammaDiag = grads.gammaDiag.cwiseMin(0.0); // eq. 59's projection
        lgmUpdate(LgmAlgorithm::HybridMcSsvi, q, grads, m_prior, 1.0 / n, meanOpt, rootOpt);
    }
    return q;
}

Eigen::VectorXd CtmTrainer::testWeights(std::int64_t row) const
{
    Rng rng = Rng::stream(m_seed, kStreamTest, std::uint64_t(row));
    const GaussianQ q = fitDocument(m_data->train.rowCols(row), m_data->train.rowCounts(row), rng);
    const int k1 = m_options.K - 1;
    Eigen::VectorXd weights = Eigen::VectorXd::Zero(m_options.K), z(k1), eta(k1),
                    theta(m_options.K);
    for (int s = 0; s < kWeightDraws; ++s) {
        for (int k = 0; k < k1; ++k)
            z[k] = rng.normal();
        q.draw(z, eta);
        ctm::logisticNormal(eta, theta);
        weights += theta / kWeightDraws;
    }
    return weights;
}

double CtmTrainer::testLogLikelihood(std::int64_t row) const
{
    // The whole document (both halves, counts of a word added), as App. A.5 scores it: q fitted
    // to it, then importance sampling from q inflated by 0.1 and by 1, the larger estimate kept
    // (each is low by Jensen's gap).
    const CountData& d = *m_data;
    std::vector<std::int32_t> words;
    std::vector<float> counts;
    for (const SparseRows* rows : {&d.train, &d.heldOut}) {
        const auto w = rows->rowCols(row);
        const auto c = rows->rowCounts(row);
        for (std::size_t n = 0; n < w.size(); ++n) {
            const auto at = std::find(words.begin(), words.end(), w[n]);
            if (at == words.end()) {
                words.push_back(w[n]);
                counts.push_back(c[n]);
            } else {
                counts[std::size_t(at - words.begin())] += c[n];
            }
        }
    }
    Rng rng = Rng::stream(m_seed, kStreamTestNll, std::uint64_t(row));
    const GaussianQ q = fitDocument(words, counts, rng);
    const Eigen::MatrixXd S = q.covariance();
    double best = -std::numeric_limits<double>::infinity();
    for (double inflation : {0.1, 1.0})
        best = std::max(best, ctm::importanceLogLikelihood(words, counts, m_beta, m_prior.mean,
                                                           m_prior.precision,
                                                           m_prior.logDetCovariance, q.mean(), S,
                                                           inflation, kImportanceSamples, rng));
    return best;
}

Evaluation CtmTrainer::evaluate(bool full)
{
    refreshTopics(); // before the parallel loops read β
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
    // Each rank its share of the documents (of the scored test documents below too), the
    // partial sums then over the ranks.
    const Shard myDocs = communicator().shardOf(std::int64_t(docs.size()));
    double local = sumChunks(myDocs.size(), [&](std::int64_t begin, std::int64_t end) {
        begin += myDocs.begin;
        end += myDocs.begin;
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
                q.draw(z, eta);
                grad.setZero();
                term += ctm::documentTerms(eta, d.train.rowCols(row), d.train.rowCounts(row),
                                           m_beta, grad, nullptr, theta, r);
            }
            s += term / kBoundDraws - q.kl(m_prior);
        }
        return s;
    });
    communicator().sum({&local, 1});
    setSubsetElbo(ev, 0.0, local, std::int64_t(docs.size()), std::int64_t(m_docs.size()));

    // Document completion: each test document's held-out words under E_q[h(η)] of its observed
    // half (as LDA and HDP score theirs).
    const std::vector<std::int64_t>& allScored = full ? m_evalDocs.scored : m_evalDocs.cheapScored;
    const Shard myScored = communicator().shardOf(std::int64_t(allScored.size()));
    const std::vector<std::int64_t> scored(allScored.begin() + myScored.begin,
                                           allScored.begin() + myScored.end);
    std::vector<Eigen::VectorXd> weights(std::size_t(d.rows()));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t j = 0; j < std::int64_t(scored.size()); ++j)
        weights[std::size_t(scored[std::size_t(j)])] = testWeights(scored[std::size_t(j)]);
    lda::HeldOutScore heldOut = lda::scoreHeldOut(
        m_beta, d.heldOut, scored,
        [&](std::int64_t row) -> const Eigen::VectorXd& { return weights[std::size_t(row)]; },
        [] { return false; });
    double scoreSums[2] = {heldOut.logLik, heldOut.words};
    communicator().sum(scoreSums);
    heldOut = {scoreSums[0], scoreSums[1]};
    lda::addHeldOutMetrics(ev.metrics, heldOut);
    if (full && !allScored.empty()) {
        // The whole test documents by importance sampling; as the paper reports it (Sec. 4.5),
        // each document's NLL over its word count, averaged over the documents.
        std::vector<double> perWord(scored.size());
#pragma omp parallel for schedule(dynamic, 1)
        for (std::int64_t j = 0; j < std::int64_t(scored.size()); ++j) {
            const std::int64_t row = scored[std::size_t(j)];
            perWord[std::size_t(j)] =
                -testLogLikelihood(row) / double(d.train.rowTotal(row) + d.heldOut.rowTotal(row));
        }
        double nll = std::accumulate(perWord.begin(), perWord.end(), 0.0);
        communicator().sum({&nll, 1});
        ev.metrics["test_nll_per_word"] = nll / double(allScored.size());
    }
    // Globals under which the test documents' fits give NaN or infinity (an absurd step size
    // for them) cannot be scored: the run has diverged rather than reached its budget with NaN.
    for (const auto& [key, value] : ev.metrics)
        m_nonFinite = m_nonFinite || !std::isfinite(value);

    // The topics in use, weighted by the training documents' h(m_d).
    Eigen::VectorXd weight = Eigen::VectorXd::Zero(m_options.K), theta(m_options.K);
    const Shard myQs = communicator().shardOf(std::int64_t(m_q.size())); // every document
    for (std::int64_t j = myQs.begin; j < myQs.end; ++j) {
        ctm::logisticNormal(m_q[std::size_t(j)].mean(), theta);
        weight += theta;
    }
    communicator().sum({weight.data(), std::size_t(weight.size())});
    weight /= weight.sum();
    lda::addTopicsInUse(ev, weight, m_beta, Eigen::VectorXd::Ones(m_options.K), d.columnNames,
                        m_options.topWords);
    // The correlations between the free topics 0 … K − 2 under the prior, Σ = precision⁻¹ (the
    // reference topic K − 1 has η ≡ 0, no variance).
    auto preview = std::make_shared<Preview>(*ev.preview);
    std::vector<int> freeTopics(static_cast<std::size_t>(k1));
    std::iota(freeTopics.begin(), freeTopics.end(), 0);
    preview->correlations = topicCorrelations(m_prior.precision.inverse(), std::move(freeTopics));
    ev.preview = std::move(preview);
    return ev;
}

} // namespace svi
