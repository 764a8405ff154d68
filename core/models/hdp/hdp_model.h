#pragma once
// The mathematics of the hierarchical Dirichlet process topic model (Teh et al. 2006) in the
// two-level stick-breaking form fitted by online variational inference (Wang, Paisley & Blei
// 2011; Hoffman, Blei, Wang & Paisley 2013, Sec. 6.2 and Fig. 9). Indices are 0-based here.
//
// Corpus level (T topics, the truncation):
//   β'_k ~ Beta(1, γ) for k < T−1, β'_{T−1} = 1,   σ_k = β'_k Π_{l<k} (1 − β'_l),
//   β_k ~ Dir(η) over V words.
// Document j (K atoms, the document-level truncation):
//   π'_jt ~ Beta(1, α) for t < K−1, π'_{j,K−1} = 1,   π_jt = π'_jt Π_{s<t} (1 − π'_js),
//   c_jt ~ Mult(σ)   (atom t of document j is topic c_jt),
//   z_jn ~ Mult(π_j),   w_jn ~ Mult(β_{c_{j z_jn}}).
//
// Variational family: q(β'_k) = Beta(u_k, v_k), q(β_k) = Dir(λ_k); per document
// q(π'_jt) = Beta(a_t, b_t), q(c_jt) = Mult(φ_t·) (K×T) and q(z_jn) = Mult(ζ_n·) (K), one ζ per
// distinct word (all n_w copies of a word share it: their updates are identical).
//
// Local coordinate ascent (each step maximises the document's ELBO in one block, the others
// fixed; E_wk = E[log β_kw] for the document's words):
//   ζ_wt ∝ exp(E[log σ_t(π'_j)] + Σ_k φ_tk E_wk)
//   a_t = 1 + Σ_w n_w ζ_wt,   b_t = α + Σ_w n_w Σ_{s>t} ζ_ws
//   φ_tk ∝ exp(E[log σ_k(β')] + Σ_w n_w ζ_wt E_wk)
// Global step (natural gradient with step ρ, minibatch B of D training documents):
//   λ_kw ← (1 − ρ)λ_kw + ρ(η + (D/|B|) Σ_{j∈B} Σ_w n_jw Σ_t ζ_jwt φ_jtk [w])
//   s_k  ← (1 − ρ)s_k  + ρ (D/|B|) Σ_{j∈B} Σ_t φ_jtk,
//   u_k = 1 + s_k,   v_k = γ + Σ_{l>k} s_l,
// which is the same blend applied to (u, v) themselves since they are affine in s.
//
// Layout as in topics/topic_model.h: topic-word arrays are word-major (V×T row-major) so that a
// word's T values are contiguous. Pure functions and plain structs; the trainer drives them.
// Nothing allocates per document once the workspaces are sized.

#include "core/data/count_data.h"
#include "core/models/topics/topic_model.h"

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

namespace svi::hdp {

using lda::MatrixRD;

// ---------------------------------------------------------------------------------------------
// Truncated stick-breaking vectors: n − 1 sticks x_i ~ Beta(a_i, b_i) and a last stick of 1.

// E[log σ_i] = E[log x_i] + Σ_{l<i} E[log(1 − x_l)] for i = 0..n−1, with
// E[log x] = ψ(a) − ψ(a + b), E[log(1 − x)] = ψ(b) − ψ(a + b) and E[log x_{n−1}] = 0.
// a and b have n − 1 entries (n ≥ 1), all > 0; `out` is resized to n.
void expectLogSticks(const Eigen::VectorXd& a, const Eigen::VectorXd& b, Eigen::VectorXd& out);

// E[σ_i] = E[x_i] Π_{l<i} (1 − E[x_l]) (the sticks are independent under q); sums to 1.
Eigen::VectorXd expectSticks(const Eigen::VectorXd& a, const Eigen::VectorXd& b);

// Σ_i { E[log Beta(x_i | 1, c)] − E[log Beta(x_i | a_i, b_i)] } = −Σ_i KL(q(x_i) ‖ Beta(1, c)):
//   Σ_i { log c + (c − 1) E[log(1 − x_i)] − log B(a_i, b_i)⁻¹ − (a_i − 1) E[log x_i]
//         − (b_i − 1) E[log(1 − x_i)] }   with log B(a, b)⁻¹ = log Γ(a+b) − log Γ(a) − log Γ(b).
double stickElbo(const Eigen::VectorXd& a, const Eigen::VectorXd& b, double concentration);

// Corpus sticks from the (blended) stick statistic s (T entries, ≥ 0): u_k = 1 + s_k,
// v_k = γ + Σ_{l>k} s_l for k < T − 1 (Fig. 9). u and v are resized to T − 1.
void corpusSticks(const Eigen::VectorXd& s, double gamma, Eigen::VectorXd& u, Eigen::VectorXd& v);

// E[log β_kw] = ψ(λ_kw) − ψ(Σ_v λ_kv), word-major (V×T), given totals = lda::topicTotals(λ):
// the topics are LDA's.
using lda::elogBetaT;

// ---------------------------------------------------------------------------------------------
// Local step

struct LocalOptions
{
    double alpha = 1.0; // document concentration (π'_t ~ Beta(1, α)), > 0
    int maxIters = 100; // iterations at most (≥ 1), one iteration = ζ, (a, b), φ
    double tol = 1e-4;  // stop once the document ELBO rises by less than tol·|ELBO|
    // The first `warmup` iterations leave E[log σ(π')] out of ζ and E[log σ(β')] out of φ, as
    // Wang et al. do, so that the sticks' preference for the first atoms and topics does not
    // pull every word onto atom 0 and every atom onto topic 0 before the words have spoken.
    // These iterations are not coordinate ascent; the convergence test starts after them.
    int warmup = 3;
    bool trace = false; // keep the ELBO after every iteration in LocalWorkspace::trace
};

// Scratch and local parameters of one document. One per thread; sized once for the longest
// document, after which nothing allocates (except `trace`, when asked for).
struct LocalWorkspace
{
    // Sizes the buffers for T topics, K atoms and documents of up to maxWords distinct words.
    void resize(int T, int K, Eigen::Index maxWords);
    // Copies the document's counts and the rows E[log β_·w] of its words. Throws
    // std::length_error if it has more than maxWords distinct words.
    void gather(const MatrixRD& elogBetaT, std::span<const std::int32_t> words,
                std::span<const float> counts);

    int T = 0, K = 0;
    Eigen::Index n = 0;         // distinct words of the gathered document
    MatrixRD elogBeta;          // maxWords×T; rows 0..n−1: E[log β_·w] of the document's words
    Eigen::VectorXd counts;     // maxWords; n_w
    MatrixRD zeta, logZeta;     // maxWords×K; ζ_wt and log ζ_wt
    MatrixRD weightedZeta;      // maxWords×K; n_w ζ_wt
    MatrixRD phi, logPhi;       // K×T; φ_tk and log φ_tk
    MatrixRD atomTopic;         // K×T; Σ_w n_w ζ_wt E_wk (for the φ update and the ELBO)
    Eigen::VectorXd a, b;       // K−1; q(π'_t) = Beta(a_t, b_t)
    Eigen::VectorXd atomCounts; // K; N_t = Σ_w n_w ζ_wt
    Eigen::VectorXd elogSticks; // K; E[log σ_t(π')] under (a, b)
    Eigen::VectorXd elogX, elog1mX; // K−1; E[log π'_t], E[log(1 − π'_t)]
    Eigen::VectorXd massT;          // T; scratch of the initialisation
    Eigen::VectorXd rowT;           // T; scratch
    Eigen::VectorXd wordScratch;    // maxWords; scratch
    Eigen::VectorXd atomScratch;    // K; scratch
    std::vector<int> order;         // T; scratch of the initialisation

    int iterations = 0;        // iterations made by the last localStep
    double elbo = 0.0;         // the document ELBO after the last iteration
    std::vector<double> trace; // ELBO after each iteration (LocalOptions::trace)
};

// Deterministic start of the local step: each word's topic responsibilities
// r_wk ∝ exp(E[log σ_k(β')] + E_wk) are summed into the document's expected topic counts, and
// atom t starts on the t-th most used topic (φ_t one-hot; ties by topic index; K > T wraps).
// A uniform start would be a fixed point of the updates: every atom would see the same ζ
// column, get the same φ, and the document could use only one topic mixture. a, b start at
// the prior (1, α).
void initialise(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, double alpha);

// The three block updates (see the top of the file). `withSticks` false leaves the stick
// expectations out (the warm-up). updateZeta reads φ and elogSticks; updateDocumentSticks reads
// ζ and refreshes a, b, atomCounts, elogSticks, elogX, elog1mX; updatePhi reads ζ and refreshes
// atomTopic, φ and log φ.
void updateZeta(LocalWorkspace& ws, bool withSticks);
void updateDocumentSticks(LocalWorkspace& ws, double alpha);
void updatePhi(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, bool withSticks);

// Coordinate ascent for the gathered document with the globals fixed: initialise, then
// iterations of updateZeta, updateDocumentSticks, updatePhi until the ELBO rises by less than
// tol·|ELBO| (after the warm-up) or maxIters. On return φ, ζ, a, b and the derived members are
// consistent and ws.elbo is the document's ELBO.
void localStep(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks,
               const LocalOptions& options);

// The document's part of the ELBO at the current (a, b, φ, ζ) — taken as given, not assumed
// optimal; recomputes atomCounts, atomTopic and the document stick expectations from them:
//   Σ_t { E[log p(π'_t | α)] − E[log q(π'_t)] }                     (stickElbo(a, b, α))
//   + Σ_t Σ_k φ_tk (E[log σ_k(β')] − log φ_tk)                       (c_jt)
//   + Σ_w n_w Σ_t ζ_wt (E[log σ_t(π')] − log ζ_wt)                   (z_jn)
//   + Σ_w n_w Σ_t ζ_wt Σ_k φ_tk E_wk                                 (w_jn)
// φ and ζ must be consistent with log φ and log ζ (rows summing to 1).
double documentElbo(LocalWorkspace& ws, const Eigen::VectorXd& elogCorpusSticks, double alpha);

// ---------------------------------------------------------------------------------------------
// Global step

// The local results of a minibatch, kept compactly: φ_j (K×T) and the stick statistic
// Σ_t φ_jt of each document, and n_jw ζ_jw (K) of each (document, word) entry, regrouped by
// word so that a word's topic statistic Σ_j Σ_t n_jw ζ_jwt φ_jt is summed in minibatch order
// (deterministic whatever the thread count) without a V×T buffer per thread.
class MinibatchStats
{
public:
    // Lays out the documents `docs` (rows of `rows`) for T topics and K atoms.
    void layout(const SparseRows& rows, std::span<const std::int64_t> docs, int T, int K);
    // Records document j's result (its words and the workspace after localStep). Distinct j
    // may be recorded from different threads.
    void record(std::int64_t j, std::span<const std::int32_t> words, const LocalWorkspace& ws);
    // Regroups the recorded entries by word (V words); call once, after every record().
    void groupByWord(std::int64_t V);

    std::int64_t documents() const { return std::int64_t(m_stick.rows()); }
    int topics() const { return m_T; }
    // V, as given to groupByWord.
    std::int64_t vocabulary() const { return std::int64_t(m_wordStart.size()) - 1; }
    // Σ_j Σ_t φ_jtk (T), summed in minibatch order.
    Eigen::VectorXd stickStatistic() const;
    // Σ_j Σ_t n_jw ζ_jwt φ_jt (T) for word w into `out`; zero when w is not in the minibatch.
    // Valid after groupByWord.
    void wordStatistic(std::int64_t w, Eigen::Ref<Eigen::VectorXd> out) const;
    bool hasWord(std::int64_t w) const
    {
        return m_wordStart[std::size_t(w) + 1] > m_wordStart[std::size_t(w)];
    }

private:
    int m_T = 0, m_K = 0;
    MatrixRD m_phi;                        // B×(K·T): φ_j row-major
    MatrixRD m_stick;                      // B×T: Σ_t φ_jt
    std::vector<std::int64_t> m_docStart;  // B+1: entries of document j
    std::vector<std::int32_t> m_word;      // per entry (document order)
    MatrixRD m_zeta;                       // entries×K (document order): n_w ζ_w
    std::vector<std::int64_t> m_wordStart; // V+1: entries of word w in m_byWord
    std::vector<std::int64_t> m_byWord;    // entries grouped by word, documents ascending
    std::vector<std::int32_t> m_entryDoc;  // per entry: its document
    std::vector<std::int64_t> m_cursor;    // scratch of groupByWord
};

// The minibatch's topic-word statistic, one row per word it holds (S.index ascending, rows
// S_w· over the T topics): the global statistic the trainer sums over the ranks, and updates λ
// from by lda::updateTopics (the same blend as LDA's).
void wordStatistics(const MinibatchStats& stats, SparseRowSum& S);

// λ ← (1 − ρ)λ + ρ(η + scale · S) with S_kw the minibatch's topic-word statistic; all
// word-major, scale = D/|B|. Parallel over words; deterministic.
void updateTopics(MatrixRD& lambdaT, const MinibatchStats& stats, double eta, double scale,
                  double rho);

// s ← (1 − ρ)s + ρ · scale · S with S the minibatch's stick statistic (stats.stickStatistic()).
void updateStickStatistic(Eigen::VectorXd& s, const Eigen::VectorXd& S, double scale, double rho);
void updateStickStatistic(Eigen::VectorXd& s, const MinibatchStats& stats, double scale,
                          double rho);

// Wang et al.'s reordering: topics sorted by decreasing stick statistic (stable, so equal
// statistics keep their order), permuting the columns of λ and the entries of s together.
// Relabels the topics; the largest statistics get the first sticks, where the stick-breaking
// prior puts the most mass. Returns the permutation: new topic i is old topic order[i].
std::vector<int> sortTopics(MatrixRD& lambdaT, Eigen::VectorXd& s);
// The same relabelling of a vector laid out as λ word-major (V×T) followed by s (T) — the
// adaptive schedule's averaged gradient: entry i of each block becomes the old entry order[i].
// Throws std::invalid_argument when g has not V×T + T entries.
void reorderTopics(Eigen::VectorXd& g, Eigen::Index V, const std::vector<int>& order);

// ---------------------------------------------------------------------------------------------
// Evaluation as an LDA model (Wang et al. 2011, Sec. 4): α_k = α·E[σ_k], topics β̄_k = E[β_k].

// Fits γ of an LDA document with Dirichlet parameter vector alpha (K entries, > 0) to the
// document gathered in `ws` (lda::LocalWorkspace::gather with β̄ in place of exp(E[log β])):
// γ ← α + eθ ∘ βᵀ(n / Z) from γ = α + N/K until mean |Δγ| < tol or maxIters updates. The
// same fixed-point iteration as lda::localStep with a per-topic α; on return ws.gamma and the
// derived members agree.
void fitProportions(lda::LocalWorkspace& ws, const Eigen::VectorXd& alpha, int maxIters,
                    double tol);

} // namespace svi::hdp
