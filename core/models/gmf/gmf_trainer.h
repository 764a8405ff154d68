#pragma once
// GmfTrainer: Gaussian matrix factorization on CountData (users × items, the values the
// ratings), fitted by batch coordinate-ascent variational Bayes: every step is one sweep, all
// users, then all items, then q(β). The mathematics is in gmf_model.h.
//
// Only the training ratings are modelled (the unrated entries are missing, not zero), centred
// at their mean μ, which is fixed and reported as the factors' offset: a predicted rating is
// μ + m_uᵀn_i.
//
// Evaluation on the held-out split of the ratings (core/data/ratings.h) with the measures of
// core/metrics/ranking_metrics.h, the same keys as PfTrainer; the popularity baseline is
// scored on the same users.
//
// On several ranks (StagedTrainer) each rank updates its share of the training users
// (Communicator::shardOf their count), their new q(u_u) are summed over the ranks as rows keyed by
// user (each user held by one rank: the sum is the rank's value), so that every rank holds every
// user, as one rank does; then every rank takes the same item block and q(β) from them. An
// evaluation sums each rank's share of its users over the ranks.
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across users and items.
// Each row's update is sequential code on its own workspace, results are stored by position and
// every sum runs in a fixed order, so results do not depend on the thread count.

#include "core/base/parallel.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/gmf/gmf.h"
#include "core/models/gmf/gmf_model.h"

#include <memory>
#include <vector>

namespace svi {

// The settings of GMF. The defaults and ranges are those declared in declare()
// (gmf_registry.cpp and gmf::Priors), the only place that states them.
struct GmfOptions : DeclaredOptions<GmfOptions>
{
    // The declared defaults.
    GmfOptions() { readDefaults(); }

    int K{};
    gmf::Priors priors;
    int evalUsers{}; // users a cheap evaluation scores
    int topN{};      // n of precision@n and recall@n

    // The declarations (the registry's entry) bound to the fields.
    static ParamFields<GmfOptions> declare();
    static const ParamFields<GmfOptions>& fields();
};

class GmfTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field on bad options, or on bad data (no
    // training ratings, an item index out of range, a non-finite rating).
    GmfTrainer(CountDataPtr data, const GmfOptions& options, std::uint64_t seed);
    ~GmfTrainer() override;

    std::int64_t itemsPerStep() const override { return m_data->trainingRowCount(); }
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    // ELBO (the users' terms over a seeded subset of eval_users users scaled by N/|S|, plus the
    // items' and β's; exact, every user, when `full`), and on the test ratings of eval_users
    // users with held-out ratings (all when `full`), at the posterior mean prediction
    // x̂ = μ + m_uᵀn_i: heldout_loglik, the mean per held-out rating of log N(x | x̂, 1/E[β]) (the
    // plug-in density: β at its posterior mean and the factors' uncertainty left out, as PF
    // scores its Poisson at E[θ]ᵀE[β]), rmse, accuracy, precision_at_n and recall_at_n (every
    // item not rated in training or validation ranked by x̂), popularity_precision_at_n,
    // popularity_recall_at_n; validation_loglik likewise on the validation ratings. The
    // preview carries the factors (the means, and μ as the offset).
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // Both sides' means and covariances and q(β); nothing is derived.
    void visitState(StateArchive& archive) override;

    // The exact ELBO over every training user (for tests).
    double elbo() const;
    const gmf::Side& users() const { return m_users; }
    const gmf::Side& items() const { return m_items; }
    const gmf::Noise& noise() const { return m_noise; }
    const gmf::Residuals& residuals() const { return m_residuals; }
    double offset() const { return m_residuals.mu; }

protected:
    // One sweep (returns 1: batch, no step size). Local: this rank's users given the items and
    // q(β); on several ranks their new q as the statistic.
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // Every user's q in place, then the items given the users, then q(β).
    double globalUpdate(std::int64_t t) override;

private:
    void prepareWorkspaces();
    // The users this rank updated, as rows [m_u, S_u] for the sum over ranks; and the summed
    // rows (every rank's users) back into m_users.
    void packUsers();
    void unpackUsers();
    // Σ of the users' ELBO terms.
    double usersElbo(const std::vector<std::int64_t>& users) const;
    Evaluation evaluateOn(const std::vector<std::int64_t>& elboUsers,
                          const std::vector<std::int64_t>& scoredUsers, bool full);

    CountDataPtr m_data;
    GmfOptions m_options;
    std::uint64_t m_seed;
    int m_K;
    gmf::Residuals m_residuals;
    gmf::Side m_users, m_items;
    gmf::Noise m_noise;
    std::vector<double> m_itemSquares; // per item: (5) of gmf_model.h, last sweep
    PerThread<gmf::Workspace> m_workspaces;
    std::vector<std::int64_t> m_myUsers; // this rank's training users (all of them on one)
    SparseRowSum m_userRows;             // several ranks: the users updated this step
    GlobalStatistic m_statistic;
    bool m_sharded = false;
    RatingsEvaluation m_eval; // users scored, the rating scale, the popularity baseline
};

} // namespace svi
