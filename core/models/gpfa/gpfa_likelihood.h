#pragma once
// The collapsed likelihood of gamma process factor analysis (paper 003, Sec. 3.2): with the
// factors x_n ~ N(0, I) integrated out of y_n | x_n ~ N(W x_n, σ² I) (eq. 15), the rows are
// independent y_n ~ N(0, C), C = W Wᵀ + σ² I (eq. 16). The data are assumed to have zero mean:
// the tables kind standardises every column over the training entries, and the synthetic
// generators draw zero-mean rows; nothing is centred here.
//
// Complete rows (every entry Observed) enter through their scatter S = Σ_n y_n y_nᵀ, computed
// once, so that an evaluation costs O(D³ + D²K) whatever their number:
//
//   L = −N/2 (D log 2π + log |C|) − ½ tr(S C⁻¹).
//
// Eq. 17 prints +N/2 log |K|, and eq. 18 +N K⁻¹W, both sign errors: from dL = −½ tr(C⁻¹ dC) +
// ½ tr(C⁻¹ S C⁻¹ dC) the gradient with respect to C is G = ½ (C⁻¹ S C⁻¹ − N C⁻¹), and with
// dC = dW Wᵀ + W dWᵀ + dσ² I,
//
//   ∂L/∂W = 2 G W = −N C⁻¹ W + C⁻¹ S C⁻¹ W,      ∂L/∂σ² = tr G.
//
// Incomplete rows (an entry split holds single entries out of training rows; NaN cells are
// Missing) enter through the marginal of their observed entries o, y_o ~ N(0, C_oo). With the
// precision Λ = C⁻¹ and m the row's other entries, the Schur complement gives both without
// factorising C_oo:  C_oo⁻¹ = Λ_oo − Λ_om Λ_mm⁻¹ Λ_mo  and  log |C_oo| = log |C| + log |Λ_mm|,
// so a row costs O(D² (|m| + 1)) — a few entries held out of each row cost little more than a
// complete row. Its gradient with respect to C (zero outside o × o) is ½ (α αᵀ − C_oo⁻¹), α =
// C_oo⁻¹ y_o. Each evaluation takes a minibatch of B incomplete rows drawn with replacement from
// the stream (seed, key) and scales their sum by N_inc / B, an unbiased estimate of the sum over
// all of them; B = 0 (or B ≥ N_inc) takes every incomplete row exactly.
//
// Thread-safety: evaluate() is const but uses scratch held by the object: one thread at a time
// per object (it runs OpenMP inside). Results do not depend on the thread count.

#include "core/base/communicator.h"
#include "core/data/dense_data.h"

#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <vector>

namespace svi::gpfa {

class CollapsedLikelihood
{
public:
    // `rows`: the training rows (indices into data, any order); rows with no observed entry
    // carry no information and are dropped. `minibatch`: incomplete rows per evaluation, 0 =
    // every one. Throws std::invalid_argument when no row has an observed entry or a row index
    // is out of range.
    CollapsedLikelihood(DenseDataPtr data, const std::vector<std::int64_t>& rows,
                        std::int64_t minibatch, std::uint64_t seed);

    int dims() const { return m_D; }
    std::int64_t completeCount() const { return m_completeCount; }
    std::int64_t incompleteCount() const { return std::int64_t(m_incomplete.size()); }
    // Rows an evaluation reads: the complete ones (through S) and the minibatch.
    std::int64_t rowsPerEvaluation() const;
    // S = Σ y yᵀ over the complete rows (D × D; zero when there is none).
    const Eigen::MatrixXd& completeScatter() const { return m_scatter; }
    // The complete rows' indices into the data, ascending.
    const std::vector<std::int64_t>& completeRows() const { return m_completeRows; }

    // log p(Y | W, σ²) (the estimate described above when a minibatch is drawn, with `key`
    // choosing it), and into gradW (resized to D × K) and gradNoiseVariance its gradient with
    // respect to W and σ². W is D × K; σ² > 0. NaN (and NaN gradients) when C is not
    // numerically positive definite.
    double evaluate(const Eigen::Ref<const Eigen::MatrixXd>& W, double noiseVariance,
                    std::uint64_t key, Eigen::MatrixXd& gradW, double& gradNoiseVariance) const;

    // evaluate() in two parts, for a run on several ranks: batchTerms forms C and Λ, draws the
    // minibatch of `key` (every rank the same) and sums the terms of its rows at the positions
    // `part` of the batchSize() (Σ log p(y_o) and Σ (α αᵀ + V Vᵀ)), into the buffers it lists in
    // `statistic`; after their sums over the ranks, fromBatchTerms adds the complete rows and
    // returns evaluate()'s value and gradients. The same W and σ² both times.
    std::int64_t batchSize() const;
    void batchTerms(const Eigen::Ref<const Eigen::MatrixXd>& W, double noiseVariance,
                    std::uint64_t key, Shard part, GlobalStatistic& statistic) const;
    double fromBatchTerms(const Eigen::Ref<const Eigen::MatrixXd>& W, double noiseVariance,
                          Eigen::MatrixXd& gradW, double& gradNoiseVariance) const;

private:
    // The minibatch's part: returns Σ log p(y_o) over `batch` (indices into m_incomplete) and
    // adds Σ (α αᵀ + V Vᵀ) into m_acc's lower triangle, where V Vᵀ = Λ_·m Λ_mm⁻¹ Λ_m· (so that
    // C_oo⁻¹ padded with zeros is Λ − V Vᵀ).
    double incompletePart(std::span<const std::int64_t> batch, double logDetC) const;

    DenseDataPtr m_data;
    int m_D = 0;
    std::int64_t m_minibatch = 0;
    std::uint64_t m_seed = 0;
    std::int64_t m_completeCount = 0;
    std::vector<std::int64_t> m_completeRows;
    Eigen::MatrixXd m_scatter;
    // Incomplete rows: their index and, in CSR form, the entries not observed.
    std::vector<std::int64_t> m_incomplete;
    std::vector<std::int64_t> m_missStart; // size |incomplete| + 1
    std::vector<int> m_missing;

    // One row's scratch, per chunk of a block.
    struct RowScratch
    {
        Eigen::VectorXd y, u;
        Eigen::MatrixXd a, bt; // Λ_mm (then its Cholesky factor), Λ_m· (then L⁻¹ Λ_m·)
    };

    // Scratch, sized once.
    mutable Eigen::MatrixXd m_C, m_lambda, m_t, m_g, m_acc;
    mutable Eigen::LLT<Eigen::MatrixXd> m_llt;
    mutable Eigen::MatrixXd m_p, m_q; // a block's α columns and V columns
    mutable std::vector<std::int64_t> m_batch, m_offset;
    // Between batchTerms and fromBatchTerms: whether C factorised, log |C|, and the batch's
    // Σ log p(y_o) (with Σ (α αᵀ + V Vᵀ) in m_acc).
    mutable bool m_factored = false;
    mutable double m_logDetC = 0.0, m_batchSum = 0.0;
    mutable std::vector<double> m_partial;
    mutable std::vector<RowScratch> m_rows;
};

} // namespace svi::gpfa
