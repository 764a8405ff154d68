#include "core/models/bbvi/positive_black_box.h"

#include <stdexcept>

namespace svi {

PositiveBlackBoxModel::PositiveBlackBoxModel(std::shared_ptr<const PositiveModel> model,
                                             Eigen::ArrayXd mean, Eigen::ArrayXd variance)
    : m_model(std::move(model)), m_mean(std::move(mean)), m_variance(std::move(variance))
{
    if (!m_model || m_mean.size() != m_model->size() || m_variance.size() != m_model->size())
        throw std::invalid_argument("black-box VI: the start's sizes differ from the model's");
    if (!(m_mean > 0.0).all() || !(m_variance > 0.0).all())
        throw std::invalid_argument("black-box VI: the start's moments must be positive");
    m_layout = QLayout({{"x", QFamily::Gamma, m_model->size()}});
}

void PositiveBlackBoxModel::factors(std::span<const std::int64_t> items,
                                    const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                                    const Eigen::Ref<const Eigen::ArrayXd>& zLocal,
                                    FactorSums& out) const
{
    (void)items, (void)zLocal;
    m_x = zGlobal;
    // The one item holds no factor of its own: everything is a global factor.
    if (out.wantGradient)
        out.global += m_model->logJoint(m_x, out.globalGradient);
    else if (out.wantGlobal)
        out.global += m_model->blankets(m_x, out.globalBlanket);
}

void PositiveBlackBoxModel::start(Eigen::ArrayXd& global, Eigen::MatrixXd& local,
                                  std::uint64_t seed) const
{
    (void)local, (void)seed;
    for (Eigen::Index v = 0; v < m_mean.size(); ++v)
        m_layout.setMoments(global, v, m_mean[v], m_variance[v]);
}

} // namespace svi
