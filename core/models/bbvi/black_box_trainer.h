#pragma once
// BlackBoxTrainer: a model fitted by black-box variational inference (core/inference/
// black_box.h), as a Trainer: each step is the engine's; each evaluation reports the bound's
// Monte Carlo estimate, the variance of the global gradient estimate (the metric that shows
// what Rao-Blackwellisation and the control variate buy) and what the model adds (report()).
// Thread-safety: driven by one thread (the Runner's worker); OpenMP inside the engine.

#include "core/base/metric_spec.h"
#include "core/inference/black_box.h"
#include "core/run/trainer.h"

#include <memory>

namespace svi {

// "grad_variance": the trace of the covariance of the global gradient estimate at the
// current q, from `variance_repeats` independent estimates (lower is better; a diagnostic).
MetricSpec gradientVarianceMetric();

class BlackBoxTrainer : public Trainer
{
public:
    // Takes the model; throws std::invalid_argument naming the field of bad options.
    BlackBoxTrainer(std::unique_ptr<BlackBoxModel> model, const BbviOptions& options,
                    std::uint64_t seed);

    double step(std::int64_t t) final { return m_engine.step(t); }
    std::int64_t itemsPerStep() const final;
    std::int64_t itemCount() const final { return m_model->itemCount(); }
    Evaluation evaluate(bool full) final;
    bool diverged() const final { return m_engine.diverged(); }
    void visitState(StateArchive& a) final;

    const BlackBoxVi& engine() const { return m_engine; }

protected:
    // The model's own figures (held-out metrics, preview) at an evaluation; `id` numbers it
    // (for draws of q that differ between evaluations and are the same in a resumed run).
    virtual void report(Evaluation& ev, bool full, std::uint64_t id) const = 0;
    const BlackBoxModel& model() const { return *m_model; }

private:
    std::unique_ptr<BlackBoxModel> m_model;
    BlackBoxVi m_engine;
    std::uint64_t m_evaluations = 0;
};

} // namespace svi
