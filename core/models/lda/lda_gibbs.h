#pragma once
// Mimno-SVI's local step for LDA (paper 000; Mimno, Hoffman & Blei, "Sparse stochastic inference
// for latent Dirichlet allocation", ICML 2012): each token's topic is Gibbs-sampled from
//
//   p(z_i = k | z_−i) ∝ (α + N_dk^−i) · eβ_wk,   eβ_wk = exp(E_q[log β_kw]),
//
// the document's θ summed out and β replaced by exp E_q[log β] (the optimal local factor of
// paper 000's eq. 10). Burn-in sweeps are dropped; each kept sweep's assignments add 1/kept to
// the statistic S_wk, a sparse count whose rows are the document's words.
//
// The draw costs O(K_d + log K) instead of K: the weight splits into the document bucket
// Σ_{k: N_dk>0} N_dk eβ_wk, walked over the document's K_d topics in use, and the smoothing
// bucket α Σ_k eβ_wk, drawn by bisection of eβ_w·'s running sums (WordBuckets, one row per word
// of the step, built once per step). The bucket decomposition of SparseLDA (Yao, Mimno &
// McCallum 2009), with exp E_q[log β] in place of the word-topic counts.
//
// Threading: WordBuckets is built by one thread (OpenMP over its words) and read by many; a
// GibbsWorkspace belongs to one thread.

#include "core/math/random.h"
#include "core/models/topics/topic_model.h"

#include <cstdint>
#include <span>
#include <vector>

namespace svi::lda {

// The smoothing bucket of every word of a step: the running sums c_wk = Σ_{j≤k} eβ_wj.
class WordBuckets
{
public:
    // Rows for `words` (distinct) from eβ (V×K, word-major; those rows must be current).
    // Parallel over the words; allocates only when the step holds more words than before.
    void build(const MatrixRD& expElogBetaT, std::span<const std::int32_t> words);
    // The row of a built word: its position in the words given to build().
    std::int32_t row(std::int32_t w) const { return m_row[std::size_t(w)]; }
    // Σ_k eβ_wk of a built word.
    double total(std::int32_t w) const { return m_sums(m_row[std::size_t(w)], m_sums.cols() - 1); }
    // The topic k with c_w,k−1 ≤ u < c_wk, for u in [0, total(w)): a draw ∝ eβ_w· given u uniform.
    int draw(std::int32_t w, double u) const;

private:
    MatrixRD m_sums;                 // rows: the words built, K running sums each
    std::vector<std::int32_t> m_row; // V (grown as needed): the row of word w, or −1
};

// One document's chain: its tokens' words and topics and the counts N_dk, with the topics in
// use listed so that the document bucket is walked over them alone.
struct GibbsWorkspace
{
    // Sizes the counts for K topics (nothing else allocates once the token arrays have grown
    // to the longest document's length).
    void resize(int K);
    // Every token unassigned, N_d· = 0, for `tokens` tokens.
    void reset(std::int64_t tokens);
    void add(std::int64_t token, int k); // z_token = k, N_dk += 1
    void remove(std::int64_t token);     // N_d,z_token −= 1, z_token unassigned
    std::vector<std::int32_t> word;      // per token: its word (tokens of a word together)
    std::vector<std::int32_t> topic;     // per token: z, or −1 while unassigned
    std::vector<std::int32_t> count;     // K: N_dk
    std::vector<std::int32_t> inUse;     // topics with N_dk > 0, in no particular order
    std::vector<std::int32_t> slot;      // K: position of topic k in inUse, or −1
};

// A draw of a token's topic from p(k) ∝ (α + N_dk) eβ_wk, the token itself removed from N_d·:
// the document bucket over ws.inUse, else the smoothing bucket.
int drawTopic(const GibbsWorkspace& ws, const double* expElogBetaRow, const WordBuckets& buckets,
              std::int32_t w, double alpha, Rng& rng);

// A word of the document and a topic, as a kept sweep assigned one of its tokens.
struct WordTopic
{
    std::int32_t word;
    std::int32_t topic;
};

// Mimno-SVI's (and Gibbs-SSVI's, with a drawn β as `expElogBetaT`) local step on one document
// (words and whole-number counts, which the caller checks: LdaTrainer refuses other corpora when
// built): `burnin` + `kept` sweeps, the first assigning each token given those before it (the chain
// starts empty), then each token in turn resampled; each of the last `kept` sweeps appends every
// token's (word, topic) to `out`.
void sampleDocument(GibbsWorkspace& ws, std::span<const std::int32_t> words,
                    std::span<const float> counts, const MatrixRD& expElogBetaT,
                    const WordBuckets& buckets, double alpha, int burnin, int kept, Rng& rng,
                    std::vector<WordTopic>& out);

// Gibbs-SSVI (paper 000; Hoffman & Blei 2014): β drawn from q(β) = Π_k Dir(λ_k), at the rows
// `words` (distinct) only, into those rows of `out` (V×K), λ = blend(lambdaT) with topic totals
// `totals`. The marginal of a Dirichlet draw on a subset of its coordinates is exact by the
// gamma construction: β_kw = G_kw / (Σ_{v∈words} G_kv + G_k,rest) with G_kw ~ Gamma(λ_kw) and
// G_k,rest ~ Gamma(T_k − Σ_{v∈words} λ_kv), the sum of the other words' gammas; so a step costs
// its words × K draws, not V × K. Word w draws from the stream (seed, streamId, step, w), the
// rest from (seed, streamId, step, V): the same draws whatever the thread count. Entries are
// floored at 1e-300 (a Gamma draw of a small shape can underflow) so that every word keeps
// mass.
void drawTopicRows(const MatrixRD& lambdaT, Blend blend, const Eigen::VectorXd& totals,
                   std::span<const std::int32_t> words, std::uint64_t seed, std::uint64_t streamId,
                   std::uint64_t step, MatrixRD& out);

} // namespace svi::lda
