#pragma once
// The edge partition model's options (one struct for its four algorithms) and its SGVB
// trainer: gamma SGVB, NormSGVB or MAP over every variable of eq. 11–14 (W, r, a, c, γ0, c0)
// through PositiveSgvb (core/inference/positive_sgvb.h). One step is one draw of q on the
// whole training graph, as the paper's Algorithm 1 runs it.
//
// Starting points. The paper's code (network/epm*.m) starts gamma SGVB at shape = m, rate 1
// (mean m, variance m) with m = 1/K for W and a, and 1 for r, c, γ0 and c0 (its q(γ0/K) starts
// at mean 1/K): init = paper. A gamma of shape 1/K has most of its draws near 0 and the rest
// far out, so the first gradients are very noisy; init = moments (the default) keeps those
// means with the variance m² (gammas of shape 1), which on NIPS-234 (K = 10, 1,000 steps)
// lifts the test AUC from about 0.78 to about 0.88. NormSGVB starts as its code does
// (epmNormalSGVB.m): pre-images drawn N(0, 1) with sd 1 (matching its q to the moments above
// did worse there, 0.67 against 0.71). MAP starts W uniform on (0, 1/K) (its code's start) and
// the rest at the means.
//
// Evaluation: the bound (gamma, normal: a Monte Carlo estimate from elbo_samples draws; MAP:
// the log joint at its point), and on the held-out pairs the link probability
// E_q[1 − exp(−Σ_k r_k w_ik w_jk)] from eval_draws draws of (W, r) from q (MAP: at its point):
// auc_roc, auc_pr, heldout_loglik. The draws are taken from q's law directly (Rng::gamma; the
// normal's softplus), not through the inverse CDF, which would cost a quantile inversion per
// variable and draw. The preview's N×N matrix averages the first 20 of those draws.
//
// On several ranks (StagedTrainer) every rank draws the same q sample, sums the edge terms of its
// share of the nodes (LogJoint::itemTerms), and from the sums over the ranks every rank takes the
// same optimizer step. An evaluation splits the bound's node terms and the held-out pairs over
// the ranks likewise.
//
// Threading: driven by one thread; OpenMP inside the engine's draw and the log joint.

#include "core/data/graph_data.h"
#include "core/inference/positive_sgvb.h"
#include "core/models/epm/epm_model.h"
#include "core/run/trainer.h"

#include <functional>
#include <memory>
#include <optional>

namespace svi {

// How q starts (see above).
enum class EpmInit { Moments, Paper };
std::string epmInitName(EpmInit init);
EpmInit epmInitFromName(const std::string& name);

// The settings of every EPM algorithm; the defaults and ranges are those declared in declare()
// (epm_registry.cpp), the only place that states them.
struct EpmOptions : DeclaredOptions<EpmOptions>
{
    EpmOptions() { readDefaults(); }

    int K{}; // truncation
    epm::Priors priors;
    SgvbOptions sgvb; // gamma-sgvb, norm-sgvb, map
    EpmInit init{};   // gamma-sgvb
    int evalDraws{};  // draws of q for the held-out link probabilities (SGVB)
    int burnin{};     // Gibbs: sweeps before samples are kept
    int thin{};       // Gibbs: a sample kept every thin sweeps after burn-in
    int samples{};    // Gibbs: samples kept, after which the run has converged

    // The declarations of one algorithm ("gamma-sgvb", "norm-sgvb", "map", "gibbs") bound to
    // the fields.
    static ParamFields<EpmOptions> declare(const std::string& algorithm);
    // Every algorithm's declarations, each key once: those of gamma-sgvb, then Gibbs'.
    static const ParamFields<EpmOptions>& fields();
};

namespace epm {

// One draw s of (W, r).
using LinkDraw = std::function<void(int s, MatrixRD& W, Eigen::VectorXd& r)>;

// E[1 − exp(−p_ij)] for each held-out pair (the graph's order) from `draws` draws; this rank's
// share of the pairs, summed over `ranks` (a collective). With `links`, the first `linkDraws`
// (≤ draws) of the same draws also give every pair's probability, averaged into that N × N
// matrix (the preview's).
std::vector<double> heldOutProbability(const Graph& graph, int draws, const LinkDraw& draw,
                                       Communicator& ranks, Eigen::MatrixXd* links = nullptr,
                                       int linkDraws = 0);

// An evaluation's link figures (auc_roc, auc_pr, heldout_loglik, communities_used) and its
// preview, for a trainer whose q gives draws of (W, r): the held-out probabilities from
// `evalDraws` draws (a snapshot's at most 10; a point estimate's one), the preview's N × N
// matrix from the first of them (at most 20, none above kPreviewMaxNodes nodes), the
// communities from the posterior means. On several ranks a collective.
void evaluateLinks(Evaluation& ev, const Graph& graph, int evalDraws, bool full, bool point,
                   const LinkDraw& draw, Communicator& ranks, const MatrixRD& meanW,
                   const Eigen::VectorXd& meanR);

// The paper's means of q at the start (its code's): w and a 1/K, the rest 1.
Eigen::ArrayXd startingMeans(const Layout& layout);

// The declarations every EPM algorithm that fits a q shares: K, and the predictive draws.
ParamSpec communitiesParam();
ParamSpec evalDrawsParam();

} // namespace epm

class EpmSgvbTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field on bad options or bad data.
    EpmSgvbTrainer(GraphDataPtr data, SgvbMethod method, const EpmOptions& options,
                   std::uint64_t seed);

    // A step sees the whole graph: one epoch.
    std::int64_t itemsPerStep() const override { return m_graph.nodes; }
    std::int64_t itemCount() const override { return m_graph.nodes; }
    Evaluation evaluate(bool full) override;
    bool diverged() const override { return m_sgvb->diverged(); }
    // q, its optimizer and the evaluations' count (it keys their draws); nothing is derived.
    void visitState(StateArchive& archive) override;

    // E_q[1 − exp(−p_ij)] for each held-out pair (GraphData's order), from `draws` draws. On
    // several ranks a collective (each rank its share of the pairs). With `links`, the first
    // `linkDraws` (≤ draws) of the same draws also give every pair's probability, averaged into
    // that N × N matrix (the preview's), so a snapshot draws q once for both.
    std::vector<double> heldOutProbability(int draws, Eigen::MatrixXd* links = nullptr,
                                           int linkDraws = 0) const;
    // One draw of (W, r) from q (the point for MAP), from the stream (seed, id, draw).
    void drawLinkParameters(std::uint64_t id, std::uint64_t draw, epm::MatrixRD& W,
                            Eigen::VectorXd& r) const;
    const PositiveSgvb& sgvb() const { return *m_sgvb; }
    const epm::LogJoint& model() const { return *m_model; }

protected:
    // One draw of q (every rank the same) and this rank's nodes' terms of the log joint.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // The gradient from the summed terms and one optimizer step; returns the step's rate γ_t.
    double globalUpdate(std::int64_t t) override;

private:
    GraphDataPtr m_data;
    epm::Graph m_graph;
    EpmOptions m_options;
    SgvbMethod m_method;
    std::uint64_t m_seed;
    std::unique_ptr<epm::LogJoint> m_model;
    std::optional<PositiveSgvb> m_sgvb;
    std::uint64_t m_evaluations = 0;
    double m_rate = 0.0; // the optimizer's rate of the step under way
    GlobalStatistic m_statistic;
};

} // namespace svi
