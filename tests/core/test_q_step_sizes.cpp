// The adaptive learning rate (Ranganath et al. 2013; paper 004 §2.4) of the models that hold one
// Gaussian q per document or per column and step each at its own visits (QStepSizes): the
// correlated topic model's H-MC-SSVI and generalized PMF's MC-SSVI and H-MC-SSVI. A step at the
// adaptive rate is the natural step at that ρ from the same estimate (the warm-up draws move
// nothing and take random numbers of their own), and the rate follows the estimate's noise.

#include "core/models/ctm/ctm_trainer.h"
#include "core/models/gpmf/gpmf.h"
#include "core/models/gpmf/gpmf_trainer.h"
#include "tests/core/topic_testing.h"

#include <QtTest>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

using namespace svi;
using Side = GpmfTrainer::Side;

namespace {

// A 10 × 6 matrix of small counts.
CountDataPtr tinyCounts()
{
    auto d = std::make_shared<CountData>();
    d->kind = "ratings";
    d->values = "counts";
    d->observedZeros = true;
    d->vocabularySize = 6;
    d->source = "test counts";
    Rng rng(21);
    for (int u = 0; u < 10; ++u) {
        std::vector<std::int32_t> cols;
        std::vector<float> y;
        for (int i = 0; i < 6; ++i) {
            cols.push_back(i);
            y.push_back(float(rng.below(std::uint64_t(2 + (u + i) % 3))));
        }
        d->train.appendRow(cols, y);
        d->heldOut.appendRow({}, {});
    }
    d->finalise();
    return d;
}

// What one step left: its ρ and the parameters it moved, flattened.
struct Stepped
{
    double rho = 0.0;
    Eigen::VectorXd state;
};

// The step-size settings: adaptive (kappa unused) or Robbins–Monro at ρ_1 = rho (κ = 1,
// τ0 = 1/ρ − 1).
template <typename Options> void setSchedule(Options& o, bool adaptive, double rho, int samples)
{
    o.schedule = adaptive ? StepSchedule::Adaptive : StepSchedule::RobbinsMonro;
    o.adaptiveInit = 4;
    o.kappa = 1.0;
    o.tau0 = adaptive ? 0.0 : 1.0 / rho - 1.0;
    o.samples = samples;
}

std::unique_ptr<CtmTrainer> makeCtm(bool adaptive, double rho, int samples)
{
    CtmOptions o;
    o.K = 3;
    o.topicsBatch = 1;
    setSchedule(o, adaptive, rho, samples);
    return std::make_unique<CtmTrainer>(topic_testing::smallCorpus(4, 6, 3),
                                        LgmAlgorithm::HybridMcSsvi, o, 5);
}

Stepped ctmStep(bool adaptive, double rho, int samples)
{
    const auto t = makeCtm(adaptive, rho, samples);
    Stepped s;
    s.rho = t->step(1);
    const GaussianQ& q = t->q(0);
    const MatrixRD& beta = t->topicsByWord();
    s.state.resize(q.dim() + q.dim() + beta.size() + t->prior().mean.size());
    s.state << q.mean(), q.variances(), beta.reshaped<Eigen::RowMajor>(), t->prior().mean;
    // The other documents have not moved.
    for (std::int64_t doc = 1; doc < 4; ++doc)
        if (t->q(doc).mean().cwiseAbs().maxCoeff() != 0.0)
            s.state.setConstant(std::nan(""));
    return s;
}

std::unique_ptr<GpmfTrainer> makeGpmf(LgmAlgorithm algorithm, bool adaptive, double rho,
                                      int samples)
{
    GpmfOptions o;
    o.D = 2;
    o.outerSamples = samples > 10 ? 50 : 1; // the quiet estimate: many draws of both
    // q starts at the prior's covariance, so that the first gradient is the likelihood's terms
    // alone (from S = 0.01 I, the default, the prior's pull dominates it and ρ_1 ≈ 1).
    o.initVariance = 1.0;
    o.evalEntries = 1000;
    setSchedule(o, adaptive, rho, samples);
    return std::make_unique<GpmfTrainer>(tinyCounts(), algorithm, o, 7);
}

Stepped gpmfStep(LgmAlgorithm algorithm, bool adaptive, double rho, int samples)
{
    const auto t = makeGpmf(algorithm, adaptive, rho, samples);
    Stepped s;
    s.rho = t->step(1);
    const GaussianQ& q = t->q(Side::Users, 0);
    const Eigen::MatrixXd S = q.covariance();
    s.state.resize(q.dim() + S.size() + 1);
    s.state << q.mean(), S.reshaped(), t->priorVariance(Side::Users);
    return s;
}

// ρ_1 of the adaptive schedule recomputed from the same estimates: the natural gradients (the
// precision's; S⁻¹m's too for MC-SSVI) of `warmUps` estimates with the warm-up keys 2⁶² + 1, …,
// then of the step's own (key t = 1), each at the initial q, through the averages of Ranganath
// et al. (AdaptiveRate).
double expectedRho(const std::function<Eigen::VectorXd(std::uint64_t key)>& gradientAt, int warmUps)
{
    AdaptiveRate rate;
    for (int k = 1; k <= warmUps; ++k)
        rate.warmUp(gradientAt((std::uint64_t(1) << 62) + std::uint64_t(k)));
    return rate.rho(gradientAt(1));
}

// The natural gradient of q at its initial value from an estimate keyed `key`, read off a fresh
// Robbins–Monro trainer's update of the same q with draws keyed so.
Eigen::VectorXd ctmGradient(std::uint64_t key)
{
    const auto t = makeCtm(false, 0.5, 3);
    GaussianQ q = t->q(0);
    const GaussianPrior prior = t->prior();
    t->updateDocument(0, 0.5, std::int64_t(key), false);
    Eigen::VectorXd g;
    q.naturalGradient(t->lastGradients(), prior, false, g); // H-MC-SSVI: the precision's
    return g;
}

Eigen::VectorXd gpmfGradient(LgmAlgorithm algorithm, std::uint64_t key)
{
    const auto t = makeGpmf(algorithm, false, 0.5, 2);
    GaussianQ q = t->q(Side::Users, 0);
    const GaussianPrior prior = GaussianPrior::isotropic(q.dim(), t->priorVariance(Side::Users));
    t->updateColumn(Side::Users, 0, 0.5, std::int64_t(key));
    Eigen::VectorXd g;
    q.naturalGradient(t->lastGradients(), prior, algorithm == LgmAlgorithm::McSsvi, g);
    return g;
}

// The adaptive step against the Robbins–Monro step at the ρ it took; its ρ in (0, 1).
void checkNaturalStepAtItsRate(const std::function<Stepped(bool, double)>& step, const char* name)
{
    const Stepped adaptive = step(true, 0.0);
    QVERIFY2(adaptive.rho > 0.0 && adaptive.rho < 1.0,
             qPrintable(QString("%1: ρ %2").arg(name).arg(adaptive.rho)));
    const Stepped fixed = step(false, adaptive.rho);
    QCOMPARE(fixed.rho, adaptive.rho);
    const double diff = (adaptive.state - fixed.state).cwiseAbs().maxCoeff();
    const double scale = std::max(1.0, fixed.state.cwiseAbs().maxCoeff());
    qInfo("%s: adaptive ρ_1 %.6f; its step against the Robbins–Monro step at that ρ: max "
          "difference %.2e",
          name, adaptive.rho, diff);
    QVERIFY2(diff < 1e-10 * scale, qPrintable(QString("%1: %2").arg(name).arg(diff)));
    // And a step of another size lands elsewhere.
    const Stepped other = step(false, 0.5 * adaptive.rho);
    QVERIFY((other.state - fixed.state).cwiseAbs().maxCoeff() > 1e-6 * scale);
}

// ρ* = ‖E g‖² / E‖g‖²: more draws per estimate, less noise, a larger rate.
void checkRateFollowsTheNoise(const std::function<Stepped(bool, int)>& step, const char* name)
{
    const double noisy = step(true, 1).rho, quiet = step(true, 200).rho;
    qInfo("%s: first adaptive ρ with 1 draw per estimate %.6f, with 200 draws %.6f", name, noisy,
          quiet);
    QVERIFY2(quiet > 0.8 && noisy < quiet,
             qPrintable(QString("%1: %2, %3").arg(name).arg(noisy).arg(quiet)));
}

} // namespace

class TestQStepSizes : public QObject
{
    Q_OBJECT

private slots:
    void ctmAdaptiveStepIsTheNaturalStepAtItsRate()
    {
        checkNaturalStepAtItsRate([](bool a, double rho) { return ctmStep(a, rho, 3); }, "ctm");
    }
    void ctmAdaptiveRateIsTheRateOfItsEstimates()
    {
        const double rho = makeCtm(true, 0.5, 3)->step(1);
        const double expected = expectedRho(ctmGradient, 4);
        qInfo("ctm: ρ_1 %.12f, recomputed %.12f", rho, expected);
        QVERIFY2(std::abs(rho - expected) < 1e-12, qPrintable(QString::number(rho - expected)));
    }
    void ctmAdaptiveRateFollowsTheNoise()
    {
        checkRateFollowsTheNoise([](bool a, int n) { return ctmStep(a, 0.5, n); }, "ctm");
    }
    void gpmfAdaptiveStepIsTheNaturalStepAtItsRate()
    {
        for (LgmAlgorithm a : {LgmAlgorithm::McSsvi, LgmAlgorithm::HybridMcSsvi})
            checkNaturalStepAtItsRate(
                [a](bool adaptive, double rho) { return gpmfStep(a, adaptive, rho, 2); },
                a == LgmAlgorithm::McSsvi ? "gpmf mc-ssvi" : "gpmf h-mc-ssvi");
    }
    void gpmfAdaptiveRateIsTheRateOfItsEstimates()
    {
        for (LgmAlgorithm a : {LgmAlgorithm::McSsvi, LgmAlgorithm::HybridMcSsvi}) {
            const double rho = makeGpmf(a, true, 0.5, 2)->step(1);
            const double expected =
                expectedRho([a](std::uint64_t key) { return gpmfGradient(a, key); }, 4);
            qInfo("gpmf %s: ρ_1 %.12f, recomputed %.12f",
                  a == LgmAlgorithm::McSsvi ? "mc-ssvi" : "h-mc-ssvi", rho, expected);
            QVERIFY2(std::abs(rho - expected) < 1e-12, qPrintable(QString::number(rho - expected)));
        }
    }
    void gpmfAdaptiveRateFollowsTheNoise()
    {
        checkRateFollowsTheNoise(
            [](bool a, int n) { return gpmfStep(LgmAlgorithm::McSsvi, a, 0.5, n); },
            "gpmf mc-ssvi");
    }
};

QTEST_GUILESS_MAIN(TestQStepSizes)
#include "test_q_step_sizes.moc"
