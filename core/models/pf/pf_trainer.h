#pragma once
// PfTrainer: hierarchical Poisson factorization or Poisson matrix factorization on CountData
// (users × items), fitted by SVI (minibatches of users; each user's local parameters iterated
// to convergence, then λ ← (1 − ρ)λ + ρλ̂ with scale N/|B|) or by batch coordinate-ascent VB
// (every step one sweep: φ, all users, all items), or by streaming VB (one pass over the users
// in a seeded order, minibatch by minibatch: each user's local step with the items fixed, then
// the items' posterior plus the minibatch's statistic, pf::addItemStatistic; the run ends with
// the users). The mathematics is in pf_model.h.
//
// Users are local but their parameters are kept (each SVI minibatch warm-starts its users from
// their last values), because recommending needs every user's preferences: between visits a
// user's γ is the one fitted against the items of their last minibatch.
//
// Evaluation on the held-out split of the ratings (core/data/ratings.h) with the measures of
// core/metrics/ranking_metrics.h; the popularity baseline is scored on the same users. A corpus
// (documents as users, words as items, counts as ratings: Poisson factorization of text, paper
// 004 Tables 2–3) holds test documents out whole: each evaluation fits a scored test
// document's factors from its observed half (from the same start every time, the items fixed),
// then scores its other half, also as document completion (perplexity, as LDA's). Every
// factor's top items (a corpus's words) are the preview's topics.
//
// On several ranks each fits and evaluates the users of its rows (ownedRows): with ratings
// read in parts (CountData::heldRows), the only rows it holds. What the evaluation needs of
// every user (the rating scale, the users with test ratings, the items' popularity) is then
// gathered over the ranks at the first evaluation (RatingsEvaluation), and the users' new
// parameters are summed each step as before, so every rank holds every user's.
//
// Threading: driven by one thread; step() and evaluate() use OpenMP across users and items.
// Every user's local step is deterministic, results are stored by position and every sum runs
// in a fixed order, so results do not depend on the thread count.

#include "core/base/parallel.h"
#include "core/inference/schedule.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/pf/pf.h"
#include "core/models/pf/pf_model.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// The settings of HPF and PMF. The defaults and ranges are those declared in declare()
// (pf_registry.cpp and pf::Priors), the only place that states them.
struct PfOptions : DeclaredOptions<PfOptions>
{
    // HPF, with the declared defaults.
    PfOptions() { readDefaults(); }

    int K{};
    pf::Priors priors;        // priors.hierarchical: HPF or PMF
    std::int64_t minibatch{}; // SVI: users per step
    StepSizeOptions stepSize;
    int localIters{};  // SVI: φ → γ → κ rounds per user at most (batch: always 1)
    double localTol{}; // SVI: stop a user's rounds once mean |Δγshp| < tol
    int evalUsers{};   // users a cheap evaluation scores
    int topN{};        // n of precision@n and recall@n
    int topWords{};    // words (items) listed per factor

    // The declarations of HPF's (`hierarchical`) or PMF's parameters for `algorithm` (the
    // registry's entry), each bound to its field; batch VB declares neither the minibatch, the
    // step size nor the local iterations.
    static ParamFields<PfOptions> declare(bool hierarchical, PfAlgorithm algorithm);
    // Both models' declarations, each key once: one for every field.
    static const ParamFields<PfOptions>& fields();
    // Reads resolved values for HPF (`hierarchical`) or PMF; absent keys keep the defaults.
    static PfOptions fromParams(const ParamValues& values, bool hierarchical);
};

class PfTrainer final : public StagedTrainer
{
public:
    // Throws std::invalid_argument naming the field ("K = 0, but must be ≥ 1") on bad options
    // or data (no training ratings, an item index out of range, a non-finite count).
    PfTrainer(CountDataPtr data, PfAlgorithm algorithm, const PfOptions& options,
              std::uint64_t seed);
    ~PfTrainer() override;

    std::int64_t itemsPerStep() const override;
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    // Streaming VB: its minibatches.
    std::int64_t plannedSteps() const override
    {
        return m_algorithm == PfAlgorithm::Streaming ? m_rows.minibatches() : 0;
    }
    // ELBO (over a seeded subset of eval_users users scaled by N/|S| plus the items' terms;
    // every user when `full`), and on the test ratings of eval_users users with held-out
    // ratings (all when `full`): heldout_loglik (mean Poisson log-likelihood per held-out
    // rating, at the mean prediction E[θ_u]ᵀE[β_i]), rmse, accuracy, precision_at_n,
    // recall_at_n and the popularity baseline's popularity_precision_at_n and
    // popularity_recall_at_n; validation_loglik on the validation ratings. For documents,
    // heldout_loglik_per_word and perplexity: each held-out count n_ui scored by
    // log p(i | u) = log(E[θ_u]ᵀE[β_i] / E[θ_u]ᵀΣ_j E[β_j]). The preview carries the factors and
    // the factors' top items (topics).
    Evaluation evaluate(bool full) override;
    bool diverged() const override;
    // Both sides' factors (the users' are kept across steps), the step sizer and the minibatch
    // sampler; the expectations and the items' column sums are recomputed.
    void visitState(StateArchive& archive) override;

    // The exact ELBO over every user (for tests, on data holding every row).
    double elbo() const;
    const pf::Side& users() const { return m_users; }
    const pf::Side& items() const { return m_items; }
    // Replaces the items' parameters (tests); τ follows at its optimum.
    void setItems(const pf::MatrixRD& shp, const pf::MatrixRD& rte);
    const std::vector<std::int64_t>& lastBatch() const { return m_rows.rows(); }

protected:
    // The minibatch (every rank draws the same), the local steps of this rank's users of it,
    // the items' statistic (T over the rated items, Σ E[θ_u]) and, on several ranks, the
    // users' new parameters (so that every rank holds every user, as one rank does).
    Round localStep(std::int64_t t) override;
    GlobalStatistic& statistic() override { return m_statistic; }
    // The items from the summed statistic (ρ_t, or the adaptive rate).
    double globalUpdate(std::int64_t t) override;
    void warmUp() override;
    // Streaming VB: its users are all used; those used so far.
    bool streamEnded() const override { return m_rows.exhausted(); }
    std::int64_t streamGiven(std::int64_t steps) const noexcept override;

private:
    // The rows this rank trains on and evaluates (Communicator::ownedRows).
    Shard ownedRows() const { return communicator().ownedRows(m_data->rows(), m_data->heldRows); }
    // Fits this rank's users of the current step and fills m_stats.
    void localPhase(int maxIters);
    void prepareWorkspaces();
    // The test rows among `users`: their factors from their observed half, restarted from
    // their initial draw, the items fixed.
    void foldIn(const std::vector<std::int64_t>& users);
    // perplexity and heldout_loglik_per_word of `users`' held-out counts (this rank's share,
    // summed over the ranks).
    void addWordMetrics(std::map<std::string, double>& metrics,
                        const std::vector<std::int64_t>& users);
    // The preview's topics: each factor's weight (its share of the expected counts,
    // Σ_u E[θ_uk] · Σ_i E[β_ik]) and top items by E[β_ik].
    std::vector<TopicSummary> factorTopics() const;
    // The users this rank fitted, as rows [shape, rate, level rate] for the sum over ranks; and
    // the summed rows (every rank's users) back into m_users.
    void packUsers();
    void unpackUsers();
    double scale() const;
    // Σ of the users' ELBO terms.
    double usersElbo(const std::vector<std::int64_t>& users) const;
    // What the evaluation holds fixed, made at the first evaluation (collective: on several
    // ranks it sums over them, and the communicator is set after construction).
    const RatingsEvaluation& evaluation();
    Evaluation evaluateOn(const std::vector<std::int64_t>& elboUsers,
                          const std::vector<std::int64_t>& scoredUsers, bool full);

    CountDataPtr m_data;
    PfAlgorithm m_algorithm;
    PfOptions m_options;
    std::uint64_t m_seed;
    int m_K;
    pf::SidePrior m_userPrior, m_itemPrior;
    pf::Side m_users, m_items;
    Eigen::VectorXd m_itemSums; // Σ_i E[β_ik]
    StepSizer m_stepSizer;
    StepRows m_rows; // the users of each step
    pf::MinibatchStats m_stats;
    Eigen::VectorXd m_gradient;
    SparseRowSum m_itemStats;   // T_i· of the rated items (this rank's users', then summed)
    Eigen::VectorXd m_thetaSum; // Σ_{u∈B} E[θ_u]
    // Streaming: Σ E[θ_u] over every user seen so far, and whether none has been (the items'
    // posterior is then their prior; they hold the random start the first users are fitted to).
    Eigen::VectorXd m_rateSum;
    bool m_atPrior = true;
    SparseRowSum m_userRows; // several ranks: the users fitted this step
    GlobalStatistic m_statistic;
    bool m_sharded = false;
    PerThread<pf::UserWorkspace> m_workspaces;
    Eigen::Index m_maxRatings = 0;
    // Users scored, the rating scale, the popularity baseline (evaluation()).
    std::optional<RatingsEvaluation> m_eval;
};

} // namespace svi
