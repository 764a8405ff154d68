#include "core/models/glm/glm_trainer.h"

#include <cmath>
#include <stdexcept>

namespace svi {
namespace {

constexpr int kQuadratureNodes = 32;

} // namespace

GlmLocal::GlmLocal(LikelihoodKind kind, const GlmOptions& o)
    : LikelihoodLocal(makeLikelihood(kind, o.noiseSd)), m_noiseSd(o.noiseSd),
      m_learnNoise(o.learnNoise), m_estimator(o.estimator, o.samples), m_gh(kQuadratureNodes)
{
}

bool GlmLocal::learning() const
{
    return m_learnNoise && m_lik->kind() == LikelihoodKind::Gaussian;
}

void GlmLocal::estimate(std::int64_t, double y, double m, double v, Rng& rng, double& alpha,
                        double& gamma, double& extra) const
{
    m_estimator.estimate(*m_lik, y, m, v, rng, alpha, gamma);
    extra = learning() ? (y - m) * (y - m) + v : 0.0; // E_q[(y − f)²]
}

double GlmLocal::expectedTerm(std::int64_t, double y, double m, double v) const
{
    return m_lik->expectedLogLik(y, m, v, m_gh);
}

double GlmLocal::logPredictive(std::int64_t, double y, double m, double v) const
{
    return m_lik->logPredictive(y, m, v, m_gh);
}

double GlmLocal::predictiveMean(std::int64_t, double m, double v) const
{
    return m_lik->predictiveMean(m, v, m_gh);
}

void GlmLocal::updateExtra(std::int64_t t, double, bool, double meanExtra, double)
{
    if (!learning())
        return;
    const double r = std::pow(double(t), -0.6);
    m_noiseSd = std::sqrt((1.0 - r) * m_noiseSd * m_noiseSd + r * meanExtra);
    m_lik = makeLikelihood(LikelihoodKind::Gaussian, m_noiseSd);
}

void GlmLocal::visitState(StateArchive& a)
{
    if (!learning())
        return;
    a.field("noise_sd", m_noiseSd);
    if (a.loading()) // as updateExtra builds it (the constructor's too, from the given sd)
        m_lik = makeLikelihood(LikelihoodKind::Gaussian, m_noiseSd);
}

GlmTrainer::GlmTrainer(const LabelledDataPtr& data, LgmAlgorithm algorithm,
                       const GlmOptions& options, std::uint64_t seed)
    : LinearLgmTrainer(data, algorithm, options.checked().lgm,
                       std::make_unique<GlmLocal>(likelihoodFor(options.likelihood, data), options),
                       seed)
{
}

} // namespace svi
