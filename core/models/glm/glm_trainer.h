#pragma once
// GlmTrainer: a Bayesian GLM on LabelledData, q(w) = N(m, S) full or diagonal (GaussianQ),
// fitted by one of the algorithms of paper 002 for latent Gaussian models (glm.h). Each step
// draws a minibatch of training rows (all of them for the batch variant), computes for every row
// q(f_i) = N(x_iᵀm, x_iᵀSx_i) and the estimates α̂_i, γ̂_i (LocalEstimator), gathers them into
// the scaled derivatives g and Γ, and updates q.
//
// With the Gaussian likelihood and learn_noise, the noise variance follows the stochastic
// M-step of the bound after each update of q: σ² ← (1 − ρ)σ² + ρ · mean_i E_q[(y_i − f_i)²]
// over the minibatch (at the q the step started from), with ρ_t = t^−0.6 so that the first
// steps' estimates (under the broad initial q) are forgotten, not averaged in as 1/t would.
//
// Evaluation: the bound (3), −KL(q ‖ p) + Σ_i E_q[log p(y_i | f_i)] with the expectations by
// Gauss–Hermite quadrature, over eval_rows training rows scaled by N/n (every row when full);
// on the test rows (eval_rows of them unless full) the posterior predictive
// p(y | x) = E_{q(f)}[p(y | f)]: test_nll (mean −log p(y | x), on the label's own scale),
// test_error (class labels: predicted class by p(y = 1 | x) > ½) or test_rmse (values, the
// predictive mean, on the label's own scale). The preview carries the weights' posterior.
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across the rows in fixed
// chunks, each row's draws from the stream (seed, step, row), partial sums added in chunk
// order: results do not depend on the thread count.

#include "core/base/parallel.h"
#include "core/base/params.h"
#include "core/data/labelled_data.h"
#include "core/inference/gaussian_q.h"
#include "core/inference/lgm_estimates.h"
#include "core/inference/optimizers.h"
#include "core/inference/schedule.h"
#include "core/models/glm/glm.h"
#include "core/run/trainer.h"

#include <array>
#include <memory>
#include <optional>
#include <vector>

namespace svi {

// The GLM's settings; defaults and ranges are those declared by params() (glm_registry.cpp),
// the paper's where it states them (minibatch 2,000, 10 samples, S = 10 I, prior N(0, I), 1/t
// for the natural-gradient steps, AdaGrad with rate 1.0 for the others).
struct GlmOptions : DeclaredOptions<GlmOptions>
{
    GlmOptions() { readDefaults(); }

    std::string likelihood; // "auto" (from the labels: binary → logistic, counts → poisson,
                            // values → gaussian) or a likelihoodName
    CovarianceForm covariance{};
    std::int64_t minibatch{}; // stochastic algorithms: rows per step
    int samples{};            // Monte Carlo draws (or quadrature nodes) per row
    ExpectationEstimator estimator{};
    double kappa{}; // natural-gradient steps: ρ_t = (t + τ0)^(−κ)
    double tau0{};
    double adagradRate{};   // gradient steps: AdaGrad's global rate
    double priorVariance{}; // σ_p²: w ~ N(0, σ_p² I)
    double initVariance{};  // q(w) starts at N(0, init_variance · I)
    double noiseSd{};       // σ of the Gaussian likelihood, on the standardised label's scale
    bool learnNoise{};      // Gaussian: σ² follows its stochastic M-step (see GlmTrainer)
    int evalRows{};         // rows a cheap evaluation uses (training rows for the bound, test rows)

    // The declarations for `algorithm` (batch: no minibatch; S-DSVI: no κ, τ0; MC-SSVI: no
    // AdaGrad rate).
    static std::vector<ParamSpec> params(GlmAlgorithm algorithm);
    static std::vector<ParamSpec> allParams();
    static const ParamFields<GlmOptions>& fields();
};

class GlmTrainer final : public Trainer
{
public:
    // Throws std::invalid_argument naming the field on bad options, and naming the file, line
    // and label for a label outside the likelihood's support ("cannot fit 'a.csv' line 7,
    // label: 2 is not a class label 0 or 1 (likelihood = logistic)"), or when there is no
    // training row.
    GlmTrainer(LabelledDataPtr data, GlmAlgorithm algorithm, const GlmOptions& options,
               std::uint64_t seed);
    ~GlmTrainer() override;

    double step(std::int64_t t) override;
    std::int64_t itemsPerStep() const override { return m_rows.perStep(); }
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    Evaluation evaluate(bool full) override;
    bool diverged() const override;

    const GaussianQ& posterior() const { return m_q; }
    GaussianQ& posterior() { return m_q; } // tests
    const GaussianPrior& prior() const { return m_prior; }
    const Likelihood& likelihood() const { return *m_lik; }
    double noiseSd() const { return m_noiseSd; }
    // The scaled derivatives g, Γ of the last step (tests).
    const LgmGradients& lastGradients() const { return m_grads; }
    // The bound (3) over every training row, expectations by quadrature (tests).
    double bound() const;

private:
    struct Chunk
    {
        MatrixRD x, work;
        Eigen::VectorXd y, m, v, alpha, gamma;
        LgmGradients grads;
    };
    // Fills chunk c with rows[begin, end): features, labels, m_i, v_i.
    void gather(Chunk& c, const std::vector<std::int64_t>& rows, std::int64_t begin,
                std::int64_t end) const;
    // Σ_i E_q[log p(y_i | f_i)] over `rows`.
    double expectedLogLik(const std::vector<std::int64_t>& rows) const;

    LabelledDataPtr m_data;
    GlmAlgorithm m_algorithm;
    GlmOptions m_options;
    std::uint64_t m_seed;
    std::unique_ptr<Likelihood> m_lik;
    double m_noiseSd;
    LocalEstimator m_estimator;
    GaussHermite m_gh; // the bound and the predictive
    GaussianPrior m_prior;
    GaussianQ m_q;
    RobbinsMonro m_schedule;
    AdaGrad m_meanOpt, m_rootOpt;
    StepRows m_rows;
    mutable std::array<Chunk, kChunks> m_chunks;
    LgmGradients m_grads;
    std::vector<std::int64_t> m_evalTrain, m_evalTest; // the cheap evaluation's rows
};

} // namespace svi
