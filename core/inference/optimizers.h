#pragma once
// Gradient-ascent update rules, as small pieces a trainer owns one of per parameter block (the
// shape of ensmallen's update policies). Paper 002 uses AdaGrad with a global rate of 1.0 for
// every update that is not a natural-gradient one; paper 003 adds SGD, momentum, RMSprop and
// AdaDelta to this file.
//
// Thread-safety: values; driven by the trainer's thread. Nothing allocates after the first call.

#include <Eigen/Core>
#include <cstdint>

namespace svi {

// AdaGrad (Duchi, Hazan & Singer 2011), ascent: x ← x + η g / (√(Σ_t g_t²) + ε), elementwise,
// the sum over every gradient seen so far. Coordinates whose gradients have always been zero do
// not move. The first call fixes the size.
class AdaGrad
{
public:
    explicit AdaGrad(double rate = 1.0, double epsilon = 1e-8) : m_rate(rate), m_eps(epsilon) {}
    // Throws std::invalid_argument when g's size differs from x's or from earlier calls'.
    void ascend(Eigen::Ref<Eigen::ArrayXd> x, const Eigen::Ref<const Eigen::ArrayXd>& g);
    // The same for a matrix parameter (its entries in storage order).
    void ascend(Eigen::MatrixXd& x, const Eigen::MatrixXd& g);
    double rate() const { return m_rate; }
    std::int64_t steps() const { return m_steps; }

private:
    double m_rate;
    double m_eps;
    std::int64_t m_steps = 0;
    Eigen::ArrayXd m_sumSq;
};

} // namespace svi
