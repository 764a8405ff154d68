#pragma once
// The variational families of black-box variational inference (paper 004, §2.5; Ranganath,
// Gerrish & Blei 2014): for each, a draw z ~ q(z | λ), log q(z | λ) and the score
// ∇_λ log q(z | λ), with λ unconstrained (positive parameters through the floored softplus r of
// core/inference/positive_sgvb.h, as the SGVB engine keeps them):
//
//   normal       λ = (m, σ),  s = r(σ):        score (z − m)/s²,  (−1/s + (z − m)²/s³) r′(σ)
//   log-normal   z = eⁿ, n ~ N(m, s²):         the normal's score at n = log z
//   gamma        λ = (α, β),  a = r(α), b = r(β), density bᵃ z^(a−1) e^(−bz)/Γ(a):
//                score (log b − ψ(a) + log z) r′(α),  (a/b − z) r′(β)
//   bernoulli    λ = ℓ, p = σ(ℓ):              score z − p
//   categorical  λ = η₁…η_K, p = softmax(η):  score [z = k] − p_k
//   poisson      λ = η, rate e^η:              score z − e^η
//
// A QLayout lays out blocks of variables of one family each (a model's "beta", "tau",
// "effects"), one value per variable (a category as its index 0 … K − 1) and `width` entries of
// λ per variable, in block order. Thread-safety: a QLayout is immutable after construction; its
// functions may be called from several threads at once.

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace svi {

class Rng;

enum class QFamily { Normal, LogNormal, Gamma, Bernoulli, Categorical, Poisson };

// "normal", "log-normal", "gamma", "bernoulli", "categorical", "poisson".
std::string qFamilyName(QFamily family);

struct QBlock
{
    std::string name; // what the model calls it ("beta", "effects"): metrics and messages
    QFamily family = QFamily::Normal;
    Eigen::Index count = 0; // variables
    int categories = 2;     // categorical only: K ≥ 2
};

class QLayout
{
public:
    QLayout() = default;
    // Throws std::invalid_argument naming the block of a count < 0 or categories < 2.
    explicit QLayout(std::vector<QBlock> blocks);

    const std::vector<QBlock>& blocks() const { return m_blocks; }
    Eigen::Index variables() const { return m_variables; }
    Eigen::Index parameters() const { return m_parameters; }
    bool empty() const { return m_variables == 0; }
    // Block b's first variable, and its first entry of λ.
    Eigen::Index firstVariable(int b) const { return m_firstVariable[std::size_t(b)]; }
    Eigen::Index firstParameter(int b) const { return m_firstParameter[std::size_t(b)]; }
    // λ's entries per variable of block b.
    int width(int b) const;

    // One draw of every variable from q(· | lambda) (lambda of size parameters()): z, log q of
    // each variable at its draw, and the score ∇_λ log q (size parameters()). A λ that is not
    // finite gives NaN draws (the caller's bound turns NaN, and the run ends as diverged).
    void draw(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Rng& rng,
              Eigen::Ref<Eigen::ArrayXd> z, Eigen::Ref<Eigen::ArrayXd> logQ,
              Eigen::Ref<Eigen::ArrayXd> score) const;
    // S = rngs.size() draws of the variables [begin, end), draw s from rngs[s], into column s
    // of z and logQ (rows: variables) and of score (rows: λ's entries); what a variable's
    // draws share (its parameters, their logs, ψ) is computed once for all S.
    void drawMany(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Index begin,
                  Eigen::Index end, std::span<Rng> rngs, Eigen::Ref<Eigen::MatrixXd> z,
                  Eigen::Ref<Eigen::MatrixXd> logQ, Eigen::Ref<Eigen::MatrixXd> score) const;
    // Whether every block can be drawn by reparameterisation (normal, log-normal, gamma): the
    // families of pathMany.
    bool reparameterisable() const;
    // drawMany by reparameterisation, z = T(ε; λ) with ε from a fixed distribution: writes the
    // path derivative ∂z/∂λ into `path` where drawMany writes the score (normal: n = m + s ε,
    // ∂n/∂m = 1, ∂n/∂σ = ε r′(σ); log-normal: z = eⁿ, the normal's times z; gamma: z = F⁻¹(u; a,
    // 1)/b through gammaQuantileDraw, ∂z/∂α = z ∂log z/∂a r′(α), ∂z/∂β = −z/b r′(β)). Other
    // families: NaN.
    void pathMany(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Index begin,
                  Eigen::Index end, std::span<Rng> rngs, Eigen::Ref<Eigen::MatrixXd> z,
                  Eigen::Ref<Eigen::MatrixXd> logQ, Eigen::Ref<Eigen::MatrixXd> path) const;
    // ∇_λ H[q] in closed form (parameters()): normal (0, r′(σ)/s); log-normal (1, r′(σ)/s), its
    // entropy being the normal's plus m; gamma ((1 + (1 − a) ψ′(a)) r′(α), −r′(β)/b). Other
    // families: NaN.
    void entropyGradient(const Eigen::Ref<const Eigen::ArrayXd>& lambda,
                         Eigen::Ref<Eigen::ArrayXd> gradient) const;
    // E_q[z] and Var_q[z] of every variable (a category's as its index).
    void moments(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Ref<Eigen::ArrayXd> mean,
                 Eigen::Ref<Eigen::ArrayXd> variance) const;
    // Sets λ of block b's variables to the member of the family with this mean and variance
    // (normal: m, s; log-normal: moment-matched on z; gamma: a = mean²/var, b = mean/var;
    // bernoulli: p = mean; poisson: rate = mean; categorical: uniform). Throws
    // std::invalid_argument naming the block when the moments are outside the family's.
    void setBlockMoments(Eigen::Ref<Eigen::ArrayXd> lambda, int b, double mean,
                         double variance) const;
    // The same for one variable v (a variable of any block).
    void setMoments(Eigen::Ref<Eigen::ArrayXd> lambda, Eigen::Index v, double mean,
                    double variance) const;
    // The block of variable v, and the first entry of λ of variable v.
    int blockOf(Eigen::Index v) const;
    Eigen::Index parameterOf(Eigen::Index v) const;

private:
    // drawMany (score into `out`) or pathMany (∂z/∂λ into `out`, when `path`); the views are
    // the callers'.
    void drawEach(const Eigen::Ref<const Eigen::ArrayXd>& lambda, Eigen::Index begin,
                  Eigen::Index end, std::span<Rng> rngs, Eigen::Ref<Eigen::MatrixXd>& z,
                  Eigen::Ref<Eigen::MatrixXd>& logQ, Eigen::Ref<Eigen::MatrixXd>& out,
                  bool path) const;

    std::vector<QBlock> m_blocks;
    std::vector<Eigen::Index> m_firstVariable, m_firstParameter;
    Eigen::Index m_variables = 0, m_parameters = 0;
};

} // namespace svi
