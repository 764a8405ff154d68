#pragma once
// Sparse GP regression of paper 002 (Sheth & Khardon, Sec. 3.5, experiment 4.3): f ~ GP(0, k)
// with the RBF kernel, y_i ~ N(f(x_i), σ²), M inducing inputs Z drawn from the training rows
// (1 % of the data set's rows by default, 206 on California housing as in the paper), fitted as
// a linear latent Gaussian model over the whitened inducing values w (sgp_kernel.h): w ~ N(0, I),
// f_i | w ~ N(x̃_iᵀw, k̃_i), q(w) = N(m, S). With r_i = y_i − x̃_iᵀm, v_i = x̃_iᵀS x̃_i and
// c_i = k̃_i + σ², the four objectives (each −KL(q(w) ‖ N(0, I)) + its data term):
//   - standard, (3) (Titsias; the accepted practice): Σ_i E_q(f_i)[log N(y_i | f_i, σ²)]
//     = Σ_i −½ log 2πσ² − (r_i² + v_i + k̃_i) / (2σ²);
//   - optimal, (6): E_q(w)[log N(y | X̃w, K_ff − Q_ff + σ²I)], which does not split over rows:
//     S = (I + A)⁻¹, m = S b with A = X̃ᵀB⁻¹X̃, b = X̃ᵀB⁻¹y, B = K_ff − Q_ff + σ²I (n × n: cubic);
//   - v1: (8) applied as if sGP were in 2L-LVMi, Σ_i E_q(w)[log N(y_i | x̃_iᵀw, c_i)]
//     = Σ_i −½ log 2πc_i − (r_i² + v_i) / (2c_i) (not a bound);
//   - v2: Σ_i log E_q(w)[N(y_i | x̃_iᵀw, c_i)] = Σ_i −½ log 2π(c_i + v_i) − r_i² / (2(c_i + v_i))
//     (not a bound).
// The row terms give α_i = ∂T_i/∂m_i, γ_i = ∂T_i/∂v_i in closed form (standard: r/σ², −1/(2σ²);
// v1: r/c, −1/(2c); v2: r/u, −1/(2u) + r²/(2u²) with u = c + v, the paper's d and −½A), so the
// decomposable three take every step of LinearLgmTrainer — the closed form (the fixed point of
// Sec. 2.3: one step with ρ = 1 solves standard and v1; v2 iterates it, the paper's coordinate
// ascent), and minibatch MC-SSVI, H-MC-SSVI and S-DSVI. The optimal bound is solved in closed
// form by the closed-form algorithm only. Every method predicts y* by
// N(x̃*ᵀm, x̃*ᵀS x̃* + k̃* + σ²).
//
// The hyperparameters (length scale, kernel variance, σ²) are given, or found as the paper did
// (App. A.5): a grid search of the exact GP's marginal likelihood on grid_rows training rows.
// The inducing set and the grid's rows are drawn from the training rows with setup_seed, fixed
// across runs; train_rows of them, drawn with the run's seed, are fitted: the training-set size
// of the paper's Figure 3.

#include "core/models/lgm/linear_lgm.h"
#include "core/models/sgp/sgp_kernel.h"
#include "core/run/registry.h"

#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace svi {

enum class SgpBound { Standard, Optimal, V1, V2 };

// "standard" / "optimal" / "v1" / "v2"; fromName throws std::invalid_argument naming "bound".
std::string sgpBoundName(SgpBound b);
SgpBound sgpBoundFromName(const std::string& name);

struct SgpOptions : DeclaredOptions<SgpOptions>
{
    SgpOptions() { readDefaults(); }

    SgpBound bound{};
    std::int64_t inducing{};     // M; 0: 1 % of the data set's rows
    std::int64_t trainRows{};    // training rows fitted (drawn by the run's seed); 0: all
    std::int64_t setupSeed{};    // the inducing set's and the grid rows' seed
    std::string hyperparameters; // "grid" or "given"
    double lengthScale{}, kernelVariance{}, noiseVariance{}; // given (on the z-scored data)
    int gridRows{}, gridPoints{};
    double tolerance{};       // closed form, v2: the objective's relative rise that ends the run
    std::string sliceFeature; // the window's 1-D slice: a feature name, or "" for the one most
                              // correlated with the label
    LgmOptions lgm{.priorVariance = 1.0}; // prior_variance is not declared: the whitened
                                          // prior is N(0, I)

    // The declarations for `algorithm` (tolerance and damping for the closed form only), each
    // bound to its field.
    static ParamFields<SgpOptions> declare(LgmAlgorithm algorithm);
    // Every key: those of the closed form, then H-MC-SSVI's, then MC-SSVI's.
    static const ParamFields<SgpOptions>& fields();
};

// What a sparse GP fit is built on: the hyperparameters, the inducing basis, the training rows
// fitted and the test rows, transformed into x̃ and k̃ (rows 0 … n − 1 training, then test).
struct SgpSetup
{
    LabelledDataPtr source; // the data as read
    GpHyper hyper;
    std::unique_ptr<InducingBasis> basis;
    std::shared_ptr<LabelledData> features; // x̃ and y (the trainer's data)
    Eigen::VectorXd residualVariance;       // k̃ per row of `features`
    std::vector<std::int64_t> sourceRows;   // per row of `features`: its row in `source`
    // The window's slice, fixed by the data: its feature, grid and test rows (mean and sd
    // left empty), and the grid's x̃ and k̃ (the other features at their training mean).
    PredictionSlice slice;
    MatrixRD sliceFeatures;
    Eigen::VectorXd sliceResidualVariance;

    // Throws std::invalid_argument naming the field on bad options or data.
    static std::shared_ptr<SgpSetup> make(const LabelledDataPtr& data, const SgpOptions& options,
                                          std::uint64_t seed);
};

// The row terms of the decomposable objectives (Gaussian likelihood, noise σ²).
class SgpLocal final : public LocalModel
{
public:
    SgpLocal(std::shared_ptr<const SgpSetup> setup, SgpBound bound);
    void estimate(std::int64_t i, double y, double m, double v, Rng& rng, double& alpha,
                  double& gamma, double& extra) const override;
    double expectedTerm(std::int64_t i, double y, double m, double v) const override;
    double logPredictive(std::int64_t i, double y, double m, double v) const override;
    double predictiveMean(std::int64_t i, double m, double v) const override;
    bool classifies() const override { return false; }
    std::optional<std::string> outsideSupport(double y) const override;
    std::string describe() const override { return "likelihood = gaussian"; }

private:
    std::shared_ptr<const SgpSetup> m_setup;
    SgpBound m_bound;
    double m_noise;
};

class SgpTrainer final : public LinearLgmTrainer
{
public:
    // algorithm: FixedPoint (the closed form), McSsvi, HybridMcSsvi or SDsvi. Throws
    // std::invalid_argument naming the field on bad options: the optimal bound with a
    // stochastic algorithm or on more than kMaxCubicRows training rows, v2 with MC-SSVI (not
    // concave in the mean: its natural-gradient steps diverge).
    SgpTrainer(const LabelledDataPtr& data, LgmAlgorithm algorithm, const SgpOptions& options,
               std::uint64_t seed);

    Evaluation evaluate(bool full) override;
    bool converged() const override;
    // Every algorithm but the closed forms of the optimal and v2 objectives (whole-data solves,
    // run where they are) distributes through LinearLgmTrainer's step.
    bool distributes() const override { return !closedForm(); }

    const SgpSetup& setup() const { return *m_setup; }
    // The objective over every training row: for the optimal bound (6) exactly.
    double objective() const;

    static constexpr std::int64_t kMaxCubicRows = 5000;

protected:
    // The optimal bound's statistics, v2's last step size and flag; v2's objective is
    // recomputed (the kernel, hyperparameters and inducing points are fixed by the setup).
    void visitModelState(StateArchive& archive) override;
    // The closed forms of optimal and v2 are the whole step, taken in the local phase, with
    // nothing to sum; the other objectives step as LinearLgmTrainer does.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override;
    double globalUpdate(std::int64_t t) override;

private:
    // The optimal or v2 objective by its closed form (not row by row).
    bool closedForm() const;
    SgpTrainer(const std::shared_ptr<SgpSetup>& setup, LgmAlgorithm algorithm,
               const SgpOptions& options, std::uint64_t seed);
    void solveOptimal();
    // v2 in closed form: one round of the paper's coordinate ascent — m exactly given S (the
    // objective is quadratic in m), then S by a natural step toward its fixed point
    // S⁻¹ = I − 2Γ, ρ halved from the damping until the objective does not fall.
    double coordinateAscentV2(double damping);
    double optimalBound() const;
    std::shared_ptr<const PredictionSlice> slice() const;

    std::shared_ptr<const SgpSetup> m_setup;
    SgpBound m_bound;
    // The optimal bound's statistics: A = X̃ᵀB⁻¹X̃, b = X̃ᵀB⁻¹y, yᵀB⁻¹y and log |B|.
    bool m_solved = false;
    bool m_v2Converged = false;
    double m_damping = 1.0;
    double m_tolerance = 1e-9;
    double m_v2Rho = 1.0; // the last S step of v2's coordinate ascent that held
    double m_v2Objective = std::numeric_limits<double>::quiet_NaN(); // after the last round
    double m_closedFormRho = 1.0;  // the step size of the last closed-form step
    GlobalStatistic m_noStatistic; // what a closed-form step sums: nothing
    Eigen::MatrixXd m_a;
    Eigen::VectorXd m_b;
    double m_yby = 0.0, m_logDetB = 0.0;
};

// Registers model "sgp" with algorithms "closed-form", "mc-ssvi", "h-mc-ssvi" and "s-dsvi";
// labelled data.
void registerSgp(Registry& registry);

} // namespace svi
