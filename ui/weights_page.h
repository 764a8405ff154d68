#pragma once
// Labelled data's centre page (DataView::Weights): a line naming the run over what its preview
// holds of the fit, the posterior over its weights (WeightsView) or, for a regression model
// that publishes one instead, its predictive along a feature (SliceView). The page branches
// on which member of the preview is present, never on the model. GUI thread only.

#include "core/run/trainer.h"

#include <QString>
#include <QWidget>
#include <cstdint>

class QLabel;
class QStackedWidget;

namespace svi::ui {

class SliceView;
class WeightsView;

class WeightsPage : public QWidget
{
    Q_OBJECT
public:
    explicit WeightsPage(QWidget* parent = nullptr);

    // Shows the weights of `preview` when it has them, else its slice, with their titles and
    // the line above naming run `runLabel` at `step`. False, and nothing changes, when the
    // preview holds neither (a run whose first preview has not come).
    bool showPreview(const QString& runLabel, std::int64_t step, const Preview& preview);

    WeightsView* weightsView() const { return m_weights; }
    SliceView* sliceView() const { return m_slice; }
    // The line above the plot.
    QLabel* caption() const { return m_caption; }
    // The view on show: weightsView() (also before any run) or sliceView().
    QWidget* shown() const;

    // The plots' titles, on screen and in the export.
    static QString weightsTitle(const QString& runLabel);
    static QString sliceTitle(const QString& runLabel, const PredictionSlice& slice);

private:
    QLabel* m_caption = nullptr;
    QStackedWidget* m_stack = nullptr;
    WeightsView* m_weights = nullptr;
    SliceView* m_slice = nullptr;
};

} // namespace svi::ui
