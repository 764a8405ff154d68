#pragma once
// A model's covariance of the data beside the training rows' empirical covariance
// (Preview::covariance, gamma process factor analysis): two heatmaps over the table's channels
// on one colour scale, blue below zero, white at zero and red above, saturating at the largest
// off-diagonal |value| of the two (the diagonal, near 1 on standardised data, would otherwise
// wash out the structure). Hovering a cell names both channels and the value.
//
// Hidden while it holds no covariance (a model that has none) and shown when given one: the
// window never asks which model made it. GUI thread only.

#include "core/run/trainer.h"

#include <QStringList>
#include <QWidget>
#include <memory>

namespace svi::ui {

class MatrixView;

class CovarianceView : public QWidget
{
    Q_OBJECT
public:
    explicit CovarianceView(QWidget* parent = nullptr);

    // Shows `covariance` with `channels` naming its rows and columns (V1, V2, … where short);
    // hides the view when `covariance` is null.
    void setCovariance(std::shared_ptr<const CovarianceSummary> covariance, QStringList channels);
    void clear() { setCovariance(nullptr, {}); }

    bool hasCovariance() const { return bool(m_covariance); }
    // The |value| at which the colours saturate.
    double scale() const { return m_scale; }
    MatrixView* empiricalView() const { return m_empirical; }
    MatrixView* modelView() const { return m_model; }

private:
    std::shared_ptr<const CovarianceSummary> m_covariance;
    double m_scale = 1.0;
    MatrixView* m_empirical = nullptr;
    MatrixView* m_model = nullptr;
};

} // namespace svi::ui
