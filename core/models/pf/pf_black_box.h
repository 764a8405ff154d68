#pragma once
// Poisson factorization (HPF and PMF, pf_model.h) fitted by black-box VI (core/inference/
// black_box.h): the same model and the same fully factorised gamma q as coordinate ascent, but
// every q steps along score-function gradients of its log joint alone, with no conjugate update
// and no auxiliary z_ui — the check a researcher makes first: on a conjugate model BBVI must
// reach the optimum coordinate ascent reaches.
//
// Users are local (θ_u, and ξ_u for HPF: a minibatch of users takes its local steps), items
// global (β_i, and η_i for HPF). The factors and their Markov blankets:
//   η_i ~ Gamma(c′, c′/d′)            holds η_i
//   β_ik ~ Gamma(c, η_i) (PMF: d)     holds β_ik and η_i
//   ξ_u ~ Gamma(a′, a′/b′)            holds ξ_u
//   θ_uk ~ Gamma(a, ξ_u) (PMF: b)     holds θ_uk and ξ_u
//   y_ui ~ Poisson(θ_uᵀβ_i), every item i (an unrated one as 0): holds θ_u· and β_i·
// so that θ_uk's blanket is its prior and user u's whole likelihood,
// Σ_{i rated} (y_ui log θ_uᵀβ_i − log y_ui!) − θ_uᵀ Σ_i β_i, and β_ik's is its prior and item
// i's likelihood over the minibatch, Σ_{u rated i} (…) − β_iᵀ Σ_{u∈B} θ_u (scaled by N/|B|).
//
// Evaluated as PfTrainer is (the same scored users, the same measures at the mean prediction
// E[θ_u]ᵀE[β_i]), so that the two sit in one Compare table.

#include "core/data/count_data.h"
#include "core/inference/black_box.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/bbvi/black_box_trainer.h"
#include "core/models/pf/pf_model.h"
#include "core/run/registry.h"

#include <optional>

namespace svi {

struct PfBbviOptions : DeclaredOptions<PfBbviOptions>
{
    PfBbviOptions() { readDefaults(); }

    int K{};
    pf::Priors priors; // priors.hierarchical: HPF or PMF
    BbviOptions bbvi;
    int evalUsers{};
    int topN{};

    static ParamFields<PfBbviOptions> declare(bool hierarchical);
    static const ParamFields<PfBbviOptions>& fields();
    static PfBbviOptions fromParams(const ParamValues& values, bool hierarchical);
};

class PfBlackBoxModel final : public BlackBoxModel
{
public:
    // Throws std::invalid_argument when there is no training user or K < 1.
    PfBlackBoxModel(CountDataPtr data, int K, const pf::Priors& priors);

    const QLayout& globals() const override { return m_globals; }
    const QLayout& locals() const override { return m_locals; }
    std::int64_t itemCount() const override { return m_data->trainingRowCount(); }
    void factors(std::span<const std::int64_t> items,
                 const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                 const Eigen::Ref<const Eigen::ArrayXd>& zLocal, FactorSums& out) const override;
    // θ and β at the prior's shape plus 0.1·u and its mean rate plus 0.1·u (u uniform, per
    // row from its own stream), as coordinate ascent starts; the levels at their prior.
    void start(Eigen::ArrayXd& global, Eigen::MatrixXd& local, std::uint64_t seed) const override;
    bool hasGradient() const override { return true; }

    int K() const { return m_K; }
    bool hierarchical() const { return m_priors.hierarchical; }
    const CountData& data() const { return *m_data; }

private:
    CountDataPtr m_data;
    int m_K;
    pf::Priors m_priors;
    QLayout m_globals, m_locals;
    std::vector<double> m_logFactorial; // log y! of every training count, in train's order
};

class PfBlackBoxTrainer final : public BlackBoxTrainer
{
public:
    PfBlackBoxTrainer(const CountDataPtr& data, const PfBbviOptions& options, std::uint64_t seed);

private:
    void report(Evaluation& ev, bool full, std::uint64_t id) const override;
    const PfBlackBoxModel& pf() const { return static_cast<const PfBlackBoxModel&>(model()); }

    PfBbviOptions m_options;
    RatingsEvaluation m_eval;
};

// Adds the "bbvi" entry of HPF (`hierarchical`) or PMF, reporting `metrics`.
void addPfBbviEntry(Registry& r, bool hierarchical, const std::vector<MetricSpec>& metrics);

} // namespace svi
