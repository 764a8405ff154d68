#include "ui/weights_page.h"

#include "ui/slice_view.h"
#include "ui/weights_view.h"

#include <QLabel>
#include <QLocale>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace svi::ui {

WeightsPage::WeightsPage(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_caption = new QLabel(tr("The weights of the selected run (or its predictive, for a model "
                              "without weights) appear here once it has started."));
    m_caption->setObjectName("weightsTitle");
    m_weights = new WeightsView;
    m_weights->setObjectName("weightsView");
    m_slice = new SliceView;
    m_slice->setObjectName("sliceView");
    m_stack = new QStackedWidget;
    m_stack->addWidget(m_weights);
    m_stack->addWidget(m_slice);
    layout->addWidget(m_caption);
    layout->addWidget(m_stack, 1);
}

QWidget* WeightsPage::shown() const
{
    return m_stack->currentWidget();
}

QString WeightsPage::weightsTitle(const QString& runLabel)
{
    return tr("Posterior over the weights of %1 (mean ± 2 sd)").arg(runLabel);
}

QString WeightsPage::sliceTitle(const QString& runLabel, const PredictionSlice& slice)
{
    return tr("Predictive of %1 along %2 (mean ± 2 sd; the other features at their mean)")
        .arg(runLabel, QString::fromStdString(slice.feature));
}

bool WeightsPage::showPreview(const QString& runLabel, std::int64_t step, const Preview& preview)
{
    const QString at = QLocale().toString(qlonglong(step));
    if (preview.weights) {
        m_weights->setWeights(preview.weights);
        m_weights->setTitle(weightsTitle(runLabel));
        m_stack->setCurrentWidget(m_weights);
        m_caption->setText(
            tr("Run %1 · step %2: the %3 largest of %4 weights by |mean|; grey where ± 2 sd "
               "crosses zero. Hover a row for its values.")
                .arg(runLabel, at)
                .arg(m_weights->visibleRows())
                .arg(preview.weights->mean.size()));
        return true;
    }
    if (preview.slice) {
        m_slice->setSlice(preview.slice);
        m_slice->setTitle(sliceTitle(runLabel, *preview.slice));
        m_stack->setCurrentWidget(m_slice);
        m_caption->setText(
            m_slice->problem().isEmpty()
                ? tr("Run %1 · step %2: %n test row(s) shown against %3; hover for values.", "",
                     m_slice->shownPoints())
                      .arg(runLabel, at, QString::fromStdString(preview.slice->feature))
                : tr("Run %1 · step %2: its predictive cannot be drawn.").arg(runLabel, at));
        return true;
    }
    return false;
}

} // namespace svi::ui
