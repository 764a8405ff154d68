#pragma once
// The mathematics of latent Dirichlet allocation fitted by (stochastic) variational inference,
// after Hoffman, Blei, Wang & Paisley (2013), Sec. 6 and Fig. 6:
//
//   β_k ~ Dir(η)  (k = 1..K, over V words),   θ_d ~ Dir(α),
//   z_dn ~ Mult(θ_d),   w_dn ~ Mult(β_{z_dn}).
//
// Variational family: q(β_k) = Dir(λ_k), q(θ_d) = Dir(γ_d), q(z_dn) = Mult(φ_dn). The local
// step (Fig. 6, lines 5–9) alternates
//
//   φ_dwk ∝ exp(E[log θ_dk] + E[log β_kw]),     γ_dk = α + Σ_w n_dw φ_dwk,
//
// and the global step forms λ̂_kw = η + (D/|B|) Σ_{d∈B} n_dw φ_dwk (line 10) and blends
// λ ← (1 − ρ)λ + ρλ̂ (line 11); batch variational Bayes is the same step with B = all
// documents and ρ = 1.
//
// φ is never stored per token or per (document, word): with
//   eθ_dk = exp(E[log θ_dk]),   eβ_wk = exp(E[log β_kw]),   Z_dw = Σ_k eθ_dk eβ_wk,
// φ_dwk = eθ_dk eβ_wk / Z_dw, so γ_d = α + eθ_d ∘ Σ_w (n_dw / Z_dw) eβ_w and the sufficient
// statistics Σ_d n_dw φ_dwk = eβ_wk Σ_d (n_dw / Z_dw) eθ_dk need only one number per
// (document, word), n_dw / Z_dw, and one K-vector per document, eθ_d.
//
// Layout: topic-word arrays (λ, eβ, statistics) are stored word-major, V×K row-major, so that
// a word's K values are contiguous: the local step reads one contiguous K-vector per word of
// its document, and every global update is row-wise.
//
// Pure functions and plain structs; the trainer drives them. Nothing allocates per document
// once the workspaces are sized.

#include "core/base/communicator.h"
#include "core/data/count_data.h"
#include "core/math/digamma.h"

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace svi::lda {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// ψ: svi::digamma (core/math/digamma.h), vectorised.
using svi::digamma;

// λ held as λ_kw = scale · L_kw + offset, L the stored matrix: SVI's blend λ ← (1 − ρ)λ + ρη
// + ρ(D/|B|)S then moves two numbers for every word and adds to the rows of S's words only
// (scale ← (1 − ρ) scale, offset ← (1 − ρ) offset + ρη, L_w += ρ(D/|B|) S_w / scale), so a
// step costs the minibatch's words, not V × K (Mimno, Hoffman & Blei 2012, §3.2). The
// identity (scale 1, offset 0) for every other use of λ.
struct Blend
{
    double scale = 1.0;
    double offset = 0.0;
    bool identity() const { return scale == 1.0 && offset == 0.0; }
};

// Words per block of the word-parallel loops over a topic-word array. The blocks are fixed by V
// alone, and reductions add the blocks' partial results in block order, so sums do not depend
// on the thread count.
constexpr Eigen::Index kWordBlock = 256;

// Calls fn(block, begin, end) for the fixed blocks of kWordBlock words of [0, V), in parallel.
template <typename Fn> void forWordBlocks(Eigen::Index V, Fn&& fn)
{
    const Eigen::Index blocks = (V + kWordBlock - 1) / kWordBlock;
#pragma omp parallel for schedule(dynamic, 1)
    for (Eigen::Index b = 0; b < blocks; ++b)
        fn(b, b * kWordBlock, std::min(V, (b + 1) * kWordBlock));
}

// E[log θ_k] = ψ(γ_k) − ψ(Σ_j γ_j) for θ ~ Dir(γ); `out` has γ's size and may not alias it.
void dirichletExpectation(const Eigen::Ref<const Eigen::VectorXd>& gamma,
                          Eigen::Ref<Eigen::VectorXd> out);

// Σ_w λ_kw for each topic (K), from λ word-major (V×K). Summed over fixed blocks of words in
// a fixed order, so the result does not depend on the thread count.
Eigen::VectorXd topicTotals(const MatrixRD& lambdaT);

// E[log β_kw] = ψ(λ_kw) − ψ(Σ_v λ_kv), word-major (V×K), given `totals` = topicTotals(lambdaT).
// Parallel over words (OpenMP), elementwise, so it does not depend on the thread count; `out`
// is resized if needed.
void elogBetaT(const MatrixRD& lambdaT, const Eigen::VectorXd& totals, MatrixRD& out);

// eβ(w, k) = exp(E[log β_kw]) = exp(ψ(λ_kw) − ψ(Σ_v λ_kv)), word-major (V×K), given
// `totals` = topicTotals(lambdaT). Parallel over words (OpenMP); `out` is resized if needed.
// Each word's row is computed on its own, so a row has the same bits whichever of these
// functions computed it.
// With a blend, λ is blend(lambdaT) and `totals` are λ's (not lambdaT's).
void expElogBetaT(const MatrixRD& lambdaT, const Eigen::VectorXd& totals, MatrixRD& out,
                  Blend blend = {});
// The same for the rows `words` of `out` only (V×K already), the others left as they are: a
// step needs eβ only at the words of its documents.
void expElogBetaRows(const MatrixRD& lambdaT, const Eigen::VectorXd& totals,
                     const std::vector<std::int32_t>& words, MatrixRD& out, Blend blend = {});
// λ = blend(lambdaT) written out, and its totals.
void applyBlend(MatrixRD& lambdaT, Blend blend);

// E_q[log p(β | η)] − E_q[log q(β | λ)] = −KL(q(β) ‖ p(β)), summed over the K topics:
//   Σ_k { log Γ(Vη) − V log Γ(η) + Σ_w (η − λ_kw) E[log β_kw]
//         + Σ_w log Γ(λ_kw) − log Γ(Σ_w λ_kw) }.
// Deterministic (fixed blocked reduction). λ is blend(lambdaT).
double globalElbo(const MatrixRD& lambdaT, double eta, Blend blend = {});

// Settings of the local step. `alpha` is the Dirichlet parameter itself (not 0 for 1/K).
struct LocalOptions
{
    double alpha = 0.01;
    int maxIters = 100;     // γ updates at most (≥ 1)
    double tol = 1e-3;      // stop once mean_k |Δγ_k| < tol (Hoffman's convergence test)
    bool warmStart = false; // start from the γ in the workspace instead of γ = 1
};

// Scratch for one document: its distinct words, their counts and their rows of eβ gathered
// into contiguous arrays, and the local variational parameters. One per thread; sized once for
// the longest document, after which nothing allocates.
struct LocalWorkspace
{
    // Sizes the buffers for K topics and documents of up to maxWords distinct words.
    void resize(int K, Eigen::Index maxWords);
    // Copies the document's counts and the rows eβ(w, ·) of its words. Throws
    // std::length_error if it has more than maxWords distinct words.
    void gather(const MatrixRD& expElogBetaT, std::span<const std::int32_t> words,
                std::span<const float> counts);

    int K = 0;
    Eigen::Index n = 0;      // distinct words of the gathered document
    MatrixRD beta;           // maxWords×K; rows 0..n−1: eβ of the document's words
    Eigen::VectorXd counts;  // maxWords; n_w
    Eigen::VectorXd phiNorm; // maxWords; Z_w = Σ_k eθ_k eβ_wk under the current γ
    Eigen::VectorXd ratio;   // maxWords; n_w / Z_w under the current γ
    Eigen::VectorXd rowSum;  // maxWords; Σ_k eβ_wk
    Eigen::VectorXd gamma;   // K; γ
    Eigen::VectorXd elogTheta, expElogTheta; // K; E[log θ], exp(E[log θ]) under γ
    Eigen::VectorXd next;                    // K; scratch
    int iterations = 0;                      // γ updates made by the last localStep
    int denseIterations = 0; // exact updates (double, every topic) computed, taken or not
    int activeTopics = 0;    // topics in play when the single phase ended
    double meanChange = 0.0; // mean |Δγ| of its last update

    // The sparse single-precision updates (localStep): the topics in play, their columns of
    // eβ (n×|A|, float), their γ, eθ and E[log θ], and per-word scratch.
    std::vector<int> active, activeFrom;
    Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> activeBeta;
    Eigen::VectorXd activeGamma, activeElog;
    Eigen::VectorXf thetaF, normF, ratioF, sumF, countsF;
};

// Coordinate ascent on (γ, φ) for the gathered document with eβ fixed (Fig. 6, lines 5–9):
// γ starts at 1 (line 5) unless warmStart; each iteration sets γ ← α + eθ ∘ βᵀ(n / Z) (φ from
// the current γ, then γ from φ), until mean |Δγ| < tol or maxIters updates.
//
// The updates run in two phases. First, in single precision over the topics in play: a topic
// whose eθ_k = exp(ψ(γ_k) − ψ(Σγ)) has fallen below kActiveShare of the largest carries no
// word's φ that matters (with α < 1, ψ(α) is far below: e^ψ(0.01) ≈ 1e-44), so it is held at
// γ_k = α, and each update costs n|A| instead of nK (|A| the topics in play, a few dozen in a
// long document however large K is); from an even γ the first update is one pass in double
// (eθ is the same for every topic, so Z_w is eθ times the row sum of eβ). Once that phase has
// converged, one exact update in double: every topic out of play has the same eθ, so Z and the
// update's mean change over all K topics follow from the row sums Σ_k eβ_wk in O(n|A|). If
// that change is below tol, the update is taken (the topics out of play keep α) and Z, n / Z
// and eθ are set for the new γ; otherwise the updates go on over every topic in double
// precision until the tolerance holds. Either way the last update is an exact one whose mean
// change is below tol, as in the plain iteration, and φ, Z and the statistic are those of the
// final γ in double precision. Each
// iteration maximises the document ELBO over φ and then over γ exactly, so documentElbo never
// decreases along the iterations; the problem is not concave, so different starts may end in
// different local optima. On return elogTheta, expElogTheta, phiNorm and ratio are those of the
// final γ, so φ_wk = eθ_k eβ_wk / Z_w is the optimal φ given γ, and ratio_w · eθ ∘ eβ_w = n_w φ_w
// is the document's statistic.
void localStep(LocalWorkspace& ws, const LocalOptions& options);

// A topic is in play in localStep's single-precision phase while its eθ_k is at least this
// share of the document's largest.
inline constexpr double kActiveShare = 1e-10;
// That phase hands over to the double-precision one once mean |Δγ| < max(tol, this): float
// rounding leaves γ with noise of about 1e-7 of its size, so a finer tolerance is met there.
inline constexpr double kSinglePrecisionTol = 1e-5;

// Recomputes elogTheta, expElogTheta, phiNorm and ratio from ws.gamma.
void refreshTheta(LocalWorkspace& ws);

// φ of the gathered document (n×K, rows sum to 1) under the current state; for tests.
MatrixRD phi(const LocalWorkspace& ws);

// The document's part of the ELBO at its current γ with φ optimal given γ (φ maximised out):
//   Σ_w n_w log Z_w + Σ_k (α − γ_k) E[log θ_k] + Σ_k log Γ(γ_k) − log Γ(Σ γ)
//     + log Γ(Kα) − K log Γ(α),
// which is E[log p(w, z | θ, β)] + E[log p(θ | α)] − E[log q(z)] − E[log q(θ)] at that
// (γ, φ). Refreshes the derived members from ws.gamma first.
double documentElbo(LocalWorkspace& ws, double alpha);

// statsT.row(w) += n_w φ_w for each word of the gathered document (statsT is V×K): the dense
// sufficient statistics, written out term by term (the trainer uses MinibatchStats).
void addStatistics(const LocalWorkspace& ws, std::span<const std::int32_t> words, MatrixRD& statsT);

// λ ← (1 − ρ)λ + ρ(η + scale · stats), all word-major; scale = D/|B| (Fig. 6, lines 10–11).
void blendTopics(MatrixRD& lambdaT, const MatrixRD& statsT, double eta, double scale, double rho);

// The local results of a minibatch, kept compactly for the global step: eθ of each document
// and n_dw / Z_dw of each of its (document, word) entries, then regrouped by word so that the
// update of one word's λ row reads its entries in minibatch order (a deterministic sum,
// whatever the thread count) and needs no V×K buffer per thread.
class MinibatchStats
{
public:
    // Lays out the documents `docs` (rows of `rows`) for K topics: entry offsets by document.
    void layout(const SparseRows& rows, std::span<const std::int64_t> docs, int K);
    // Records document j's result (its words and the workspace after localStep). Distinct j
    // may be recorded from different threads.
    void record(std::int64_t j, std::span<const std::int32_t> words, const LocalWorkspace& ws);
    // Regroups the recorded entries by word (V words); call once, after every record().
    void groupByWord(std::int64_t V);

    std::int64_t documents() const { return m_theta.rows(); }
    // V, as given to groupByWord.
    std::int64_t vocabulary() const { return std::int64_t(m_wordStart.size()) - 1; }
    std::int64_t entries() const { return std::int64_t(m_ratio.size()); }
    // Σ_{d∈B} n_dw φ_dwk for word w (K values) into `out`, given eβ(w, ·); zero when w is not
    // in the minibatch. Valid after groupByWord.
    void wordStatistic(std::int64_t w, const double* expElogBetaRow,
                       Eigen::Ref<Eigen::VectorXd> out) const;
    bool hasWord(std::int64_t w) const
    {
        return m_wordStart[std::size_t(w) + 1] > m_wordStart[std::size_t(w)];
    }

private:
    MatrixRD m_theta;                      // B×K: eθ_d
    std::vector<std::int64_t> m_docStart;  // B+1: entries of document j
    std::vector<std::int32_t> m_word;      // per entry (document order)
    std::vector<double> m_ratio;           // per entry (document order): n_dw / Z_dw
    std::vector<std::int64_t> m_wordStart; // V+1: entries of word w in m_byWord*
    std::vector<std::int32_t> m_byWordDoc; // per entry, grouped by word, documents ascending
    std::vector<double> m_byWordRatio;
    std::vector<std::int64_t> m_cursor; // scratch of groupByWord
};

// The minibatch's sufficient statistics, one row per word it holds: out.index the words
// (ascending), out.rows their S_w· = Σ_{d∈B} n_dw φ_dw· under the eβ given (that of the λ
// before the update). The global statistic of a step: on several ranks, each rank's rows
// over its own documents, summed over the ranks. Parallel over words; deterministic.
void wordStatistics(const MinibatchStats& stats, const MatrixRD& expElogBetaT, SparseRowSum& out);

// λ ← (1 − ρ)λ + ρ(η + scale · S), S's words from `S` (zero elsewhere); scale = D/|B|.
// Parallel over words; deterministic.
void updateTopics(MatrixRD& lambdaT, const SparseRowSum& S, double eta, double scale, double rho);
// The same step on λ = blend(lambdaT) held lazily (Blend): updates `blend`, S's rows of
// lambdaT and `rawTotals` (Σ_w lambdaT_kw, kept by adding what was added); rho < 1.
void blendTopics(MatrixRD& lambdaT, Blend& blend, Eigen::VectorXd& rawTotals, const SparseRowSum& S,
                 double eta, double scale, double rho);

// Streaming VB (Broderick et al. 2013) on a minibatch: its batch posterior with the posterior
// so far as prior is λ* = prior + S (no D: the minibatch is the data). eβ at S's words under
// λ* into those rows of `out` (V×K), given the prior's topic totals: the prior is `lambdaT`, or
// η at every word when lambdaT is null (no data seen yet). `scratch` is resized as needed.
// Parallel over words; deterministic.
void expElogBetaPosterior(const MatrixRD* lambdaT, double eta, const Eigen::VectorXd& priorTotals,
                          const SparseRowSum& S, MatrixRD& scratch, MatrixRD& out);
// λ ← λ + S at S's words: the streaming update λ_b = λ_{b−1} + (λ*_b − λ_{b−1}).
void addTopicStatistic(MatrixRD& lambdaT, const SparseRowSum& S);

// The natural gradient of the same step, g = λ̂ − λ (word-major, V·K), for the adaptive
// learning rate; updateTopics with ρ is λ ← λ + ρ g. `g` must hold V·K entries (a trainer
// whose gradient has further blocks passes the head of its vector).
void topicGradient(const MatrixRD& lambdaT, const SparseRowSum& S, double eta, double scale,
                   Eigen::Ref<Eigen::VectorXd> g);

} // namespace svi::lda
