#pragma once
// The edge partition model fitted by black-box VI (core/inference/black_box.h, paper 004 §2.5)
// beside gamma SGVB, NormSGVB and Zhou's Gibbs sampler: a gamma q over every variable of eq.
// 11–14 (PositiveBlackBoxModel, the q of gamma SGVB), S draws per step on the whole training
// graph, the score-function gradient Rao-Blackwellised over each variable's Markov blanket
// (LogJoint::blankets: a membership's blanket is its node's pairs, not the graph's) with
// control variates — or, with estimator = reparam, the reparameterised gradient of the same q
// at S draws (gamma SGVB's estimator with S draws and the entropy in closed form). q starts as
// gamma SGVB's init = moments.
//
// Evaluation: the bound's Monte Carlo estimate, the gradient variance, and the held-out link
// figures from eval_draws draws of (W, r) as the SGVB trainer reports them.

#include "core/data/graph_data.h"
#include "core/models/bbvi/black_box_trainer.h"
#include "core/models/epm/epm_model.h"
#include "core/run/registry.h"

#include <memory>

namespace svi {

struct EpmBbviOptions : DeclaredOptions<EpmBbviOptions>
{
    EpmBbviOptions() { readDefaults(); }

    int K{};
    epm::Priors priors;
    BbviOptions bbvi;
    int evalDraws{};

    static ParamFields<EpmBbviOptions> declare();
    static const ParamFields<EpmBbviOptions>& fields();
};

class EpmBlackBoxTrainer final : public BlackBoxTrainer
{
public:
    // Throws std::invalid_argument naming the field on bad options or bad data.
    EpmBlackBoxTrainer(GraphDataPtr data, const EpmBbviOptions& options, std::uint64_t seed);

private:
    struct Parts; // the graph and its log joint, shared with the engine's model
    EpmBlackBoxTrainer(std::shared_ptr<Parts> parts, const EpmBbviOptions& options,
                       std::uint64_t seed);
    void report(Evaluation& ev, bool full, std::uint64_t id) const override;

    std::shared_ptr<Parts> m_parts; // the graph is copied from the data: nothing else is kept
    EpmBbviOptions m_options;
    std::uint64_t m_seed;
};

// Adds the EPM's "bbvi" entry; `entry` is a gamma-SGVB entry whose metrics, memory estimate and
// small settings it shares.
void addEpmBbviEntry(Registry& r, const AlgorithmEntry& sgvb);

} // namespace svi
