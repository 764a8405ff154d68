#pragma once
// Linear models on labelled data as black-box VI fits them (core/inference/black_box.h): the
// Bayesian GLM of paper 002, η_i = x_iᵀw, y_i ~ p(y | η_i), w ~ N(0, σ_p² I), and its
// mixed-effects extension for grouped rows, the hierarchical models of paper 004's medical
// experiments (Ranganath et al. 2014, §5) on clinical counts:
//
//   normal effects ("Gamma-Normal"): η_i = x_iᵀw + b_g(i),  b_g ~ N(0, 1/τ),  τ ~ Gamma(a₀, b₀)
//   gamma effects  ("Gamma-Gamma"):  y_i ~ Poisson(u_g(i) exp(x_iᵀw)),  u_g ~ Gamma(α, α)
//                                    (mean 1),  α ~ Gamma(a₀, b₀)
//
// q is fully factorised: normal q(w_d), gamma q(τ) or q(α), and per group a normal q(b_g) or
// a gamma q(u_g) — the local variables, one set per group, so that a minibatch is a set of
// groups (subjects) with all their training rows; without effects a minibatch is a set of rows.
// Every factor is written out for the Markov blankets: w_d's prior holds w_d alone; a row's
// likelihood holds every w_d and its group's effect; a group's effect prior holds the effect
// and the hyperparameter.
//
// Thread-safety: immutable after construction; factors() is called from several threads.

#include "core/data/labelled_data.h"
#include "core/inference/black_box.h"
#include "core/inference/likelihoods.h"
#include "core/models/bbvi/black_box_trainer.h"
#include "core/run/registry.h"

#include <memory>
#include <string>
#include <vector>

namespace svi {

enum class RandomEffects { None, Normal, Gamma };

// "normal" / "gamma"; fromName throws std::invalid_argument naming the field "random_effects".
std::string randomEffectsName(RandomEffects e);
RandomEffects randomEffectsFromName(const std::string& name);

struct LinearBlackBoxSettings
{
    LikelihoodKind likelihood = LikelihoodKind::Logistic;
    double noiseSd = 1.0;       // gaussian likelihood's σ
    double priorVariance = 1.0; // w ~ N(0, σ_p² I)
    double initVariance = 0.01; // q(w_d) starts at N(0, init_variance)
    RandomEffects effects = RandomEffects::None;
    double hyperShape = 1.0, hyperRate = 1.0; // τ or α ~ Gamma(a₀, b₀)
};

// The declared settings of a linear model fitted by BBVI: the likelihood, the prior, the start,
// the random effects (GLMM only) and BBVI's own.
struct LinearBbviOptions : DeclaredOptions<LinearBbviOptions>
{
    LinearBbviOptions() { readDefaults(); }

    std::string likelihood; // "auto" or a likelihoodName (likelihoodFor, linear_lgm.h)
    double noiseSd{};
    double priorVariance{};
    double initVariance{};
    RandomEffects effects{};
    double hyperShape{}, hyperRate{};
    BbviOptions bbvi;

    // With random effects (the GLMM: prior variance 100, minibatches of 16 groups) or without
    // (the GLM: the GLM's prior, minibatches of 100 rows).
    static ParamFields<LinearBbviOptions> declare(bool effects);
    static const ParamFields<LinearBbviOptions>& fields();
    // The model's settings for `data` (likelihood "auto" resolved from its labels).
    LinearBlackBoxSettings settings(const LabelledDataPtr& data) const;
};

// Adds the entry of algorithm "bbvi" to `model` on labelled data (with random effects for the
// GLMM), reporting supervisedMetrics() and the gradient variance; `compareRank` its place in
// Compare.
void addLinearBbviEntry(Registry& r, const std::string& model, const std::string& modelLabel,
                        bool effects, int compareRank);

class LinearBlackBoxModel final : public BlackBoxModel
{
public:
    // Throws std::invalid_argument naming the file and line of a label outside the
    // likelihood's support, when there is no training row, when effects are asked of data
    // without groups ("groups"), or gamma effects of a likelihood other than poisson.
    LinearBlackBoxModel(LabelledDataPtr data, const LinearBlackBoxSettings& settings);

    const QLayout& globals() const override { return m_globals; }
    const QLayout& locals() const override { return m_locals; }
    std::int64_t itemCount() const override;
    void factors(std::span<const std::int64_t> items,
                 const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                 const Eigen::Ref<const Eigen::ArrayXd>& zLocal, FactorSums& out) const override;
    void start(Eigen::ArrayXd& global, Eigen::MatrixXd& local, std::uint64_t seed) const override;
    bool hasGradient() const override { return true; }

    const LabelledData& data() const { return *m_data; }
    const Likelihood& likelihood() const { return *m_lik; }
    RandomEffects effects() const { return m_settings.effects; }
    // The item (group) whose local q holds row i's effect; −1 without effects.
    std::int64_t itemOfRow(std::int64_t i) const;
    // η of row i at a draw of w (and of its group's effect, when there are effects).
    double linearPredictor(std::int64_t i, const Eigen::Ref<const Eigen::ArrayXd>& w,
                           double effect) const;

private:
    // log p(y_i | η) of row i, and its derivative in η.
    double rowLogLik(std::int64_t i, double eta) const;
    double rowSlope(std::int64_t i, double eta) const;

    LabelledDataPtr m_data;
    LinearBlackBoxSettings m_settings;
    std::unique_ptr<Likelihood> m_lik;
    QLayout m_globals, m_locals;
    // Per group, its training rows (effects); the training rows themselves otherwise.
    std::vector<std::vector<std::int64_t>> m_groupRows;
    std::int64_t m_groups = 0;
    std::vector<double> m_logFactorial; // Poisson: log y_i! per row
};

// The GLM and the GLMM fitted by BBVI: the bound and the gradient variance (BlackBoxTrainer),
// then test_nll, test_error or test_rmse on the test rows (the predictive by `eval_draws`
// draws of q) and the weights' posterior (q(w), then the hyperparameter) as the preview.
class LinearBlackBoxTrainer final : public BlackBoxTrainer
{
public:
    LinearBlackBoxTrainer(const LabelledDataPtr& data, const LinearBlackBoxSettings& settings,
                          const BbviOptions& options, std::uint64_t seed);

private:
    void report(Evaluation& ev, bool full, std::uint64_t id) const override;
    const LinearBlackBoxModel& linear() const
    {
        return static_cast<const LinearBlackBoxModel&>(model());
    }
    std::vector<std::int64_t> m_evalTest; // a cheap evaluation's test rows
    std::uint64_t m_seed;
};

} // namespace svi
