#pragma once
// Gamma process factor analysis (paper 003, Sec. 3.2) as the positive model that SGVB fits:
// the collapsed likelihood of gpfa_likelihood.h and the hierarchical gamma process prior of
// eq. 19 on the non-negative loadings,
//
//   W_dk | r_k, γ ~ G(γ r_k, γ),   γ ~ G(1, 1),
//   r_k | γ0, c0 ~ G(γ0/K, c0),    γ0 ~ G(1, 1),   c0 ~ G(1, 1),
//
// (G(shape, rate); E[W_dk | r_k] = r_k, so a factor whose r_k shrinks to 0 is switched off) and
// the noise precision τ = 1/σ² ~ G(a_τ, b_τ), G(0.1, 0.1) in Sec. 4.2. Every variable is
// positive, so q is a product of gammas (gamma SGVB) or of softplus-normals (NormSGVB).

#include "core/base/param_fields.h"
#include "core/inference/positive_sgvb.h"
#include "core/models/gpfa/gpfa_likelihood.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace svi::gpfa {

// The noise prior's settings (the hyperpriors of eq. 19 are the paper's G(1, 1), not settings).
struct Prior : DeclaredOptions<Prior>
{
    Prior() { readDefaults(); }

    double noiseShape{}; // a_τ
    double noiseRate{};  // b_τ

    // The declarations (keys noise_a, noise_b, each > 0) bound to the fields.
    static ParamFields<Prior> declare();
    static const ParamFields<Prior>& fields();
};

// Where each variable sits in x: W column-major (W_dk at k D + d), then r_1 … r_K, γ, γ0, c0, τ.
struct Layout
{
    int D = 0;
    int K = 0;

    Eigen::Index size() const { return Eigen::Index(D) * K + K + 4; }
    Eigen::Index w(int d, int k) const { return Eigen::Index(k) * D + d; }
    Eigen::Index r(int k) const { return Eigen::Index(D) * K + k; }
    Eigen::Index gamma() const { return Eigen::Index(D) * K + K; }
    Eigen::Index gamma0() const { return gamma() + 1; }
    Eigen::Index c0() const { return gamma() + 2; }
    Eigen::Index tau() const { return gamma() + 3; }
    // W as a D × K matrix view of x.
    Eigen::Map<const Eigen::MatrixXd> loadings(const Eigen::ArrayXd& x) const
    {
        return {x.data(), D, K};
    }
};

// log p(W, r, γ, γ0, c0, τ) (eq. 19 and the noise prior, every normalising constant kept) and
// its gradient, written (not added) into grad (sized layout.size()). x > 0 elementwise.
double logPrior(const Layout& layout, const Prior& prior, const Eigen::ArrayXd& x,
                Eigen::ArrayXd& grad);

// The log joint log p(Y, W, r, γ, γ0, c0, τ) with the factors integrated out, for PositiveSgvb.
// Holds a reference to the likelihood, which must outlive it. setKey chooses the minibatch of
// incomplete rows the next logJoint estimates with (see CollapsedLikelihood). Driven by one
// thread; logJoint uses scratch of its own (and OpenMP inside the likelihood).
class Model : public PositiveModel
{
public:
    Model(const CollapsedLikelihood& likelihood, int K, const Prior& prior);

    Eigen::Index size() const override { return m_layout.size(); }
    double logJoint(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const override;
    // The items are the minibatch's incomplete rows (CollapsedLikelihood::batchTerms); the
    // complete rows (through their scatter) and the prior follow from x alone.
    std::int64_t itemCount() const override { return m_likelihood.batchSize(); }
    void itemTerms(const Eigen::ArrayXd& x, Shard part, GlobalStatistic& statistic) const override;
    double fromItemTerms(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const override;
    // Each variable's Markov blanket (black-box VI): W_dk's is the likelihood and G(W_dk; γ r_k,
    // γ); r_k's its column's loadings' priors and G(r_k; γ0/K, c0); γ's every loading's prior
    // and its own; γ0's and c0's the r_k's priors and their own; τ's the likelihood and its
    // prior. The likelihood at the minibatch of the key set.
    double blankets(const Eigen::ArrayXd& x, Eigen::ArrayXd& blanket) const override;

    void setKey(std::uint64_t key) { m_key = key; }
    const Layout& layout() const { return m_layout; }
    const Prior& prior() const { return m_prior; }

private:
    const CollapsedLikelihood& m_likelihood;
    Layout m_layout;
    Prior m_prior;
    std::uint64_t m_key = 0;
    mutable Eigen::MatrixXd m_gradW;
};

} // namespace svi::gpfa
