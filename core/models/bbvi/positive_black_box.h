#pragma once
// A model over positive variables (core/inference/positive_sgvb.h: the edge partition model's
// and GPFA's log joints) as black-box VI fits it: a gamma q over every variable — the q of
// gamma SGVB, so that the score-function gradient, its Rao-Blackwellised and control-variated
// forms and the reparameterised gradient are compared on one family — all of them global,
// with no items (a step sees the whole data, as gamma SGVB's does). The Markov blankets come
// from PositiveModel::blankets, the reparameterised estimator's ∂ log p/∂x from logJoint.
//
// Thread-safety: a positive model keeps scratch, so factors() is called from the engine's
// thread only (concurrentFactors() is false); the model parallelises inside.

#include "core/inference/black_box.h"
#include "core/inference/positive_sgvb.h"

#include <Eigen/Core>
#include <memory>

namespace svi {

class PositiveBlackBoxModel final : public BlackBoxModel
{
public:
    // `model` is shared with the trainer (which reads its layout). q starts at the gammas of
    // these means and variances. Throws std::invalid_argument on sizes that differ from the
    // model's or moments that are not positive.
    PositiveBlackBoxModel(std::shared_ptr<const PositiveModel> model, Eigen::ArrayXd mean,
                          Eigen::ArrayXd variance);

    const QLayout& globals() const override { return m_layout; }
    std::int64_t itemCount() const override { return 1; }
    // The log joint into `global`, and either its gradient (wantGradient) or each variable's
    // blanket; nothing is local.
    void factors(std::span<const std::int64_t> items,
                 const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                 const Eigen::Ref<const Eigen::ArrayXd>& zLocal, FactorSums& out) const override;
    void start(Eigen::ArrayXd& global, Eigen::MatrixXd& local, std::uint64_t seed) const override;
    bool hasGradient() const override { return true; }
    bool concurrentFactors() const override { return false; }

private:
    std::shared_ptr<const PositiveModel> m_model;
    Eigen::ArrayXd m_mean, m_variance;
    QLayout m_layout;
    mutable Eigen::ArrayXd m_x; // the draw, as the model takes it
};

} // namespace svi
