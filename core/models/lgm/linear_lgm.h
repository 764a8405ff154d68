#pragma once
// The trainer shared by the latent Gaussian models of paper 002 whose local value is linear in
// Gaussian weights, f_i = x_iᵀw (+ model-specific noise): the Bayesian GLM and GME. What a
// model adds is a LocalModel — how one row's label depends on q(x_iᵀw) = N(m_i, v_i): the
// estimates α̂_i, γ̂_i the updates of q(w) need, the row's term of the bound, the predictive —
// and any global parameters beyond w (GLM's Gaussian noise, GME's Rayleigh q(w2)).
//
// LinearLgmTrainer: each step draws a minibatch of training rows (all of them for the batch
// variant), computes m_i = x_iᵀm and v_i = x_iᵀSx_i, asks the LocalModel for α̂_i, γ̂_i and its
// extra statistic, gathers g and Γ (scaled by N/|M|), lets the LocalModel update its extra
// globals, and updates q(w) by the algorithm's rule (gaussian_q.h).
//
// On several ranks (StagedTrainer) every rank draws the same minibatch, gathers g, Γ and the
// extra statistic over its rows of it (StepRows::mine), and the sums over the ranks make the
// one update every rank applies to its copy of q(w) and the extra globals.
//
// Evaluation: the bound, −KL(q(w) ‖ p(w)) − the model's extra KL + Σ_i its row terms, over
// eval_rows training rows scaled by N/n (every row when full); on the test rows (eval_rows of
// them unless full) the posterior predictive: test_nll (mean −log p(y | x), on the label's own
// scale), test_error (class labels: predicted class by p(y = 1 | x) > ½) or test_rmse (values:
// the predictive mean, on the label's own scale). The preview carries the weights' posterior.
// On several ranks each rank sums the terms of its share of those rows (Communicator::shardOf
// their count) and the partial sums are summed over the ranks.
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across the rows in fixed
// chunks, each row's draws from the stream (seed, step, row), partial sums added in chunk
// order: results do not depend on the thread count.

#include "core/base/parallel.h"
#include "core/base/param_fields.h"
#include "core/data/labelled_data.h"
#include "core/inference/gaussian_q.h"
#include "core/inference/lgm_update.h"
#include "core/inference/likelihoods.h"
#include "core/inference/optimizers.h"
#include "core/inference/schedule.h"
#include "core/math/random.h"
#include "core/run/trainer.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// One row's part, given q(x_iᵀw) = N(m, v). Immutable during a step (estimate and the
// evaluations run on many threads at once); updateExtra runs on the trainer's thread between.
class LocalModel
{
public:
    virtual ~LocalModel() = default;
    // `i` is the row (of the data the trainer was given), for a model whose rows differ beyond
    // x_i and y_i (the sparse GP's conditional variance); the others ignore it.
    // α̂ ≈ ∂T_i/∂m, γ̂ ≈ ∂T_i/∂v of the row's term T_i of the bound, and the model's extra
    // statistic of the row (what updateExtra needs; 0 when none).
    virtual void estimate(std::int64_t i, double y, double m, double v, Rng& rng, double& alpha,
                          double& gamma, double& extra) const = 0;
    // The row's term of the bound.
    virtual double expectedTerm(std::int64_t i, double y, double m, double v) const = 0;
    // log p(y | x) and E[y | x] under the posterior.
    virtual double logPredictive(std::int64_t i, double y, double m, double v) const = 0;
    virtual double predictiveMean(std::int64_t i, double m, double v) const = 0;
    // Whether the labels are classes (a zero-one error) or values (an RMSE).
    virtual bool classifies() const = 0;
    // Why y cannot be a label, or nullopt.
    virtual std::optional<std::string> outsideSupport(double y) const = 0;
    // "likelihood = logistic", for messages.
    virtual std::string describe() const = 0;
    // The extra globals: their KL to their prior, their update after step t from the minibatch's
    // extra statistics (their mean over the rows, and their sum scaled by N/|M|), with the step
    // size ρ of the algorithm's natural steps (natural) or by the model's own gradient rule.
    virtual double extraKl() const { return 0.0; }
    virtual void updateExtra(std::int64_t t, double rho, bool natural, double meanExtra,
                             double scaledExtra)
    {
        (void)t, (void)rho, (void)natural, (void)meanExtra, (void)scaledExtra;
    }
    virtual bool extraFinite() const { return true; }
    // Checkpoints: the extra globals and their optimizers' state (what updateExtra changes),
    // recomputing what is derived from them; none by default.
    virtual void visitState(StateArchive& archive) { (void)archive; }
};

// A LocalModel whose rows carry a likelihood p(y | f): the labels' support, whether they are
// classes, and the messages' name come from it.
class LikelihoodLocal : public LocalModel
{
public:
    bool classifies() const override { return m_lik->classifies(); }
    std::optional<std::string> outsideSupport(double y) const override
    {
        return m_lik->outsideSupport(y);
    }
    std::string describe() const override
    {
        return "likelihood = " + likelihoodName(m_lik->kind());
    }
    const Likelihood& likelihood() const { return *m_lik; }

protected:
    explicit LikelihoodLocal(std::unique_ptr<Likelihood> lik) : m_lik(std::move(lik)) {}
    std::unique_ptr<Likelihood> m_lik;
};

// The settings every linear latent Gaussian model declares (addLgmHead, addLgmTail,
// addLgmEvalRows); their defaults and ranges are those declarations'.
struct LgmOptions
{
    CovarianceForm covariance{};
    std::int64_t minibatch{}; // stochastic algorithms: rows per step
    double kappa{};           // natural-gradient steps: ρ_t = (t + τ0)^(−κ)
    double tau0{};
    StepSchedule schedule{}; // natural-gradient steps: Robbins–Monro or adaptive
    int adaptiveInit{};
    double damping{};       // FixedPoint: the constant ρ
    double adagradRate{};   // gradient steps: AdaGrad's global rate
    double priorVariance{}; // w ~ N(0, σ_p² I)
    double initVariance{};  // q(w) starts at N(0, init_variance · I)
    int evalRows{};         // rows a cheap evaluation uses
};

// The declarations of LgmOptions' keys for `algorithm`, bound to the `lgm` member of an options
// struct, in parts so that a model puts its own between them: the head (covariance; minibatch
// unless batch), the tail (damping for the closed form, kappa and tau0 for the
// natural-gradient algorithms, adagrad_rate for those with gradient steps, prior_variance
// unless the model's prior is fixed, init_variance) and
// eval_rows.
ParamSpec lgmCovarianceParam();
ParamSpec lgmMinibatchParam();
ParamSpec lgmDampingParam();
ParamSpec lgmAdagradRateParam();
ParamSpec lgmPriorVarianceParam();
ParamSpec lgmInitVarianceParam(bool whitened = false);
// Its default is each model's: a snapshot of about 0.3 s on a data set like a9a or cadata.
ParamSpec lgmEvalRowsParam(int defaultRows);
// The likelihood choice: "auto" and every likelihoodName.
ParamSpec likelihoodParam();
// The likelihood `name` names, or for "auto" the one the labels suggest: two classes → logistic,
// counts → poisson, values → gaussian. Throws std::invalid_argument naming "likelihood".
LikelihoodKind likelihoodFor(const std::string& name, const LabelledDataPtr& data);
// Whether `algorithm` takes AdaGrad steps (and declares adagrad_rate).
bool adagradSteps(LgmAlgorithm algorithm);

template <typename Options> void addLgmHead(ParamFields<Options>& f, LgmAlgorithm algorithm)
{
    f.add(
        lgmCovarianceParam(), [](auto& o) -> auto& { return o.lgm.covariance; }, covarianceName,
        covarianceFromName);
    if (!batchSteps(algorithm))
        f.add(
            lgmMinibatchParam(), [](auto& o) -> auto& { return o.lgm.minibatch; });
}

// `whitened`: a model whose prior is fixed at N(0, I) (the sparse GP's whitened inducing values)
// declares no prior_variance, and q(w) starts at that prior (init_variance 1).
template <typename Options>
void addLgmTail(ParamFields<Options>& f, LgmAlgorithm algorithm, bool whitened = false)
{
    if (algorithm == LgmAlgorithm::FixedPoint)
        f.add(
            lgmDampingParam(), [](auto& o) -> auto& { return o.lgm.damping; });
    else if (naturalSteps(algorithm)) { // 1/t, the paper's schedule, or adaptive
        const bool stochastic = !batchSteps(algorithm);
        if (stochastic)
            f.add(
                scheduleParam(), [](auto& o) -> auto& { return o.lgm.schedule; }, scheduleName,
                scheduleFromName);
        addRobbinsMonroFields(
            f, 1.0, 0.0, [](auto& o) -> auto& { return o.lgm.kappa; },
            [](auto& o) -> auto& { return o.lgm.tau0; });
        if (stochastic)
            f.add(
                adaptiveInitParam(), [](auto& o) -> auto& { return o.lgm.adaptiveInit; });
    }
    if (adagradSteps(algorithm))
        f.add(
            lgmAdagradRateParam(), [](auto& o) -> auto& { return o.lgm.adagradRate; });
    if (!whitened)
        f.add(
            lgmPriorVarianceParam(), [](auto& o) -> auto& { return o.lgm.priorVariance; });
    f.add(
        lgmInitVarianceParam(whitened), [](auto& o) -> auto& { return o.lgm.initVariance; });
}

template <typename Options> void addLgmEvalRows(ParamFields<Options>& f, int defaultRows)
{
    f.add(
        lgmEvalRowsParam(defaultRows), [](auto& o) -> auto& { return o.lgm.evalRows; });
}

class LinearLgmTrainer : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the file, line and label for a label outside the
    // local model's support, or when there is no training row or a feature is not finite.
    LinearLgmTrainer(LabelledDataPtr data, LgmAlgorithm algorithm, const LgmOptions& options,
                     std::unique_ptr<LocalModel> local, std::uint64_t seed);
    ~LinearLgmTrainer() override;

    std::int64_t itemsPerStep() const override { return m_rows.perStep(); }
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // FixedPoint: the last step moved no mean or covariance entry by more than 1e-10 relative.
    bool converged() const override { return m_converged; }
    // q(w), its AdaGrads, the sampler and the fixed point's flag, then the local model's and
    // the subclass's extras (LocalModel::visitState, visitModelState); nothing is recomputed.
    void visitState(StateArchive& archive) final;

    LgmAlgorithm algorithm() const { return m_algorithm; }
    const GaussianQ& posterior() const { return m_q; }
    GaussianQ& posterior() { return m_q; } // tests
    const GaussianPrior& prior() const { return m_prior; }
    const LocalModel& local() const { return *m_local; }
    LocalModel& local() { return *m_local; }
    // Whether q's mean and Cholesky factor are within 1e-10 (relative) of m, root: a step that
    // left them there has reached its fixed point.
    bool unmoved(const Eigen::VectorXd& m, const Eigen::MatrixXd& root) const;
    // The scaled derivatives g, Γ of the last step (tests).
    const LgmGradients& lastGradients() const { return m_grads; }
    // The bound over every training row (tests). On several ranks a collective (each rank
    // sums its share of the rows).
    double bound() const;

protected:
    // The minibatch (every rank draws the same) and the unscaled sums of this rank's rows of
    // it: g, Γ and the extra statistic, the step's statistic.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // From the sums over the ranks: the extra globals' update, then q(w)'s by the algorithm
    // (ρ_t, or the adaptive rate on q's natural gradient).
    double globalUpdate(std::int64_t t) override;
    // The adaptive schedule's averages start from natural gradients at the initial q.
    void warmUp() override;

    // Checkpoints: a subclass's state beyond q(w) and the local model's (visitState calls it
    // last); none by default.
    virtual void visitModelState(StateArchive& archive) { (void)archive; }

private:
    struct Chunk
    {
        MatrixRD x, work;
        Eigen::VectorXd y, m, v, alpha, gamma, extra;
        std::vector<std::int64_t> rows; // the data rows gathered
        LgmGradients grads;
    };
    // Fills chunk c with rows[begin, end): features, labels, m_i, v_i.
    void gather(Chunk& c, const std::vector<std::int64_t>& rows, std::int64_t begin,
                std::int64_t end) const;
    // Σ_i of the rows' terms of the bound over `rows`.
    double expectedTerms(const std::vector<std::int64_t>& rows) const;

    LabelledDataPtr m_data;
    LgmAlgorithm m_algorithm;
    LgmOptions m_options;
    std::uint64_t m_seed;
    std::unique_ptr<LocalModel> m_local;
    GaussianPrior m_prior;
    GaussianQ m_q;
    QStepSizes m_steps; // the natural steps' ρ: Robbins–Monro, or the adaptive rate of the one q
    AdaGrad m_meanOpt, m_rootOpt;
    StepRows m_rows;
    bool m_sharded = false; // the communicator's shard is set on m_rows
    mutable std::array<Chunk, kChunks> m_chunks;
    LgmGradients m_grads;
    double m_extra = 0.0; // Σ of the extra statistic over the minibatch (this rank's, then all)
    GlobalStatistic m_statistic;
    std::vector<std::int64_t> m_evalTrain, m_evalTest; // the cheap evaluation's rows
    bool m_converged = false;
};

} // namespace svi
