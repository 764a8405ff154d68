#include "ui/covariance_view.h"

#include "ui/loadings_view.h" // divergingColor
#include "ui/matrix_view.h"

#include <QHBoxLayout>
#include <algorithm>
#include <cmath>

namespace svi::ui {

namespace {

double offDiagonalMax(const Eigen::MatrixXd& m)
{
    double top = 0.0;
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            if (i != j && std::isfinite(m(i, j)))
                top = std::max(top, std::abs(m(i, j)));
    return top;
}

QImage cells(const Eigen::MatrixXd& m, double scale)
{
    QImage img(int(m.cols()), int(m.rows()), QImage::Format_RGB32);
    for (Eigen::Index i = 0; i < m.rows(); ++i)
        for (Eigen::Index j = 0; j < m.cols(); ++j)
            img.setPixelColor(int(j), int(i),
                              std::isfinite(m(i, j)) ? divergingColor(m(i, j) / scale)
                                                     : QColor(200, 200, 200));
    return img;
}

} // namespace

CovarianceView::CovarianceView(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_empirical = new MatrixView;
    m_empirical->setObjectName("empiricalCovariance");
    m_model = new MatrixView;
    m_model->setObjectName("modelCovariance");
    layout->addWidget(m_empirical, 1);
    layout->addWidget(m_model, 1);
    setVisible(false);
}

void CovarianceView::setCovariance(std::shared_ptr<const CovarianceSummary> covariance,
                                   QStringList channels)
{
    m_covariance = std::move(covariance);
    if (!m_covariance) {
        m_empirical->clear();
        m_model->clear();
        setVisible(false);
        return;
    }
    const CovarianceSummary& c = *m_covariance;
    const Eigen::Index d = c.model.rows();
    while (channels.size() < d)
        channels << QString("V%1").arg(channels.size() + 1);
    const double top = std::max(offDiagonalMax(c.model), offDiagonalMax(c.empirical));
    m_scale = top > 0 ? top : 1.0;
    const auto colour = [](double t) { return divergingColor(2.0 * t - 1.0); };
    const QString low = QString::number(-m_scale, 'g', 2), high = QString::number(m_scale, 'g', 2);
    const QString legend =
        tr("colours saturate at ±%1, the largest off-diagonal value").arg(m_scale, 0, 'g', 2);
    for (auto [view, m, title] :
         {std::tuple{m_empirical, &c.empirical, tr("Empirical covariance (training rows)")},
          std::tuple{m_model, &c.model, tr("Covariance under the fit")}}) {
        const Eigen::MatrixXd& matrix = *m;
        view->setCells(cells(matrix, m_scale), [matrix, channels](int r, int col) {
            return QString("%1 · %2: %3")
                .arg(channels.value(r), channels.value(col))
                .arg(matrix(r, col), 0, 'g', 4);
        });
        view->setLabels(channels);
        view->setTitle(title);
        view->setColourBar(colour, low, high);
        view->setLegend(legend);
    }
    setVisible(true);
}

} // namespace svi::ui
