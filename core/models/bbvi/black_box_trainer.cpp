#include "core/models/bbvi/black_box_trainer.h"

#include <algorithm>

namespace svi {

MetricSpec gradientVarianceMetric()
{
    return {.key = "grad_variance",
            .label = "Gradient variance (trace over the global q)",
            .higherIsBetter = false,
            .caveat = "the spread of variance_repeats gradient estimates at the current q; "
                      "compare runs with the same S and minibatch",
            .shortLabel = "Gradient variance"};
}

BlackBoxTrainer::BlackBoxTrainer(std::unique_ptr<BlackBoxModel> model, const BbviOptions& options,
                                 std::uint64_t seed)
    : m_model(std::move(model)), m_engine(*m_model, options, seed)
{
}

std::int64_t BlackBoxTrainer::itemsPerStep() const
{
    return std::min(m_engine.options().minibatch, m_model->itemCount());
}

Evaluation BlackBoxTrainer::evaluate(bool full)
{
    const BbviOptions& o = m_engine.options();
    const std::uint64_t id = ++m_evaluations;
    Evaluation ev;
    const BlackBoxVi::Bound b = m_engine.bound(o.elboSamples, full ? 0 : o.evalItems, id);
    setSubsetElbo(ev, b.global, b.local, b.items, m_model->itemCount());
    if (o.varianceRepeats >= 2)
        ev.metrics["grad_variance"] = m_engine.gradientVariance(o.varianceRepeats, id);
    report(ev, full, id);
    return ev;
}

void BlackBoxTrainer::visitState(StateArchive& a)
{
    a.field("engine", m_engine);
    a.field("evaluations", m_evaluations);
}

} // namespace svi
