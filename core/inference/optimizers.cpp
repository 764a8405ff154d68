#include "core/inference/optimizers.h"

#include <stdexcept>
#include <string>

namespace svi {

void AdaGrad::ascend(Eigen::Ref<Eigen::ArrayXd> x, const Eigen::Ref<const Eigen::ArrayXd>& g)
{
    if (g.size() != x.size() || (m_sumSq.size() != 0 && m_sumSq.size() != g.size()))
        throw std::invalid_argument("AdaGrad: a gradient of " + std::to_string(g.size()) +
                                    " entries for a parameter of " + std::to_string(x.size()) +
                                    (m_sumSq.size()
                                         ? " (earlier: " + std::to_string(m_sumSq.size()) + ")"
                                         : std::string()));
    if (m_sumSq.size() == 0)
        m_sumSq = Eigen::ArrayXd::Zero(g.size());
    m_sumSq += g.square();
    x += m_rate * g / (m_sumSq.sqrt() + m_eps);
    ++m_steps;
}

void AdaGrad::ascend(Eigen::MatrixXd& x, const Eigen::MatrixXd& g)
{
    if (g.rows() != x.rows() || g.cols() != x.cols())
        throw std::invalid_argument("AdaGrad: a " + std::to_string(g.rows()) + "×" +
                                    std::to_string(g.cols()) + " gradient for a " +
                                    std::to_string(x.rows()) + "×" + std::to_string(x.cols()) +
                                    " parameter");
    Eigen::Map<Eigen::ArrayXd> xv(x.data(), x.size());
    const Eigen::Map<const Eigen::ArrayXd> gv(g.data(), g.size());
    ascend(xv, gv);
}

} // namespace svi
