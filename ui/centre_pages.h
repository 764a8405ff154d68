#pragma once
// The window's centre: one page per DataView (core/run/data_kinds.h), in that order. The image
// page holds the original, the corrupted input and each run's reconstruction, with zoom and the
// error view; the others show the selected (or latest) run as its data's kind offers: loadings
// and covariance, topics and their correlations, recommendations, weights or a predictive
// slice, a graph's communities and links. The dictionary atoms of an image run are a page of
// their own (atomsPage) that the window places among the bottom tabs. Which page shows and
// what is drawn follow the kinds' and the runs' declarations: nothing here knows a kind or a
// model. GUI thread only.

#include "core/run/data_kinds.h"

#include <QList>
#include <QStackedWidget>

class QCheckBox;
class QLabel;

namespace svi::ui {

class CovarianceView;
class GraphPage;
class ImagePanel;
class ImageStrip;
class LoadingsView;
class RecommendationsView;
class RunManager;
struct RunRecord;
class TopicCorrelationsView;
class TopicsView;
class WeightsPage;

class CentrePages : public QStackedWidget
{
    Q_OBJECT
public:
    // `runs` outlives the pages.
    explicit CentrePages(RunManager* runs, QWidget* parent = nullptr);

    // The first page the kind offers, the error view only where there are images; that page.
    DataView showKind(const DataKindSpec& kind);
    // The window's data (empty when none fit the settings), as `kind` shows them before a run.
    void showData(const DataKindSpec& kind, const DataSet& data);
    // The reconstruction panels of the runs in `runs`, and the pages of the first of the
    // `selected` runs when any of those is among them.
    void refresh(const QList<int>& runs, const QList<int>& selected);
    // The pages of run `id`, the selected (or latest) one; 0 for none.
    void showRun(int id);
    // Writes into `folder` the window's images and, for each run, what its pages show (CSV,
    // and PNG at the size shown); throws DataError naming the file that cannot be written.
    void exportViews(const QString& folder) const;

    // Placed by the window among the bottom tabs, which then own it.
    QWidget* atomsPage() const { return m_atomsPage; }
    QCheckBox* differenceToggle() const { return m_difference; }
    ImageStrip* images() const { return m_images; }
    ImagePanel* atomsPanel() const { return m_atoms; }
    LoadingsView* loadingsView() const { return m_loadings; }
    CovarianceView* covarianceView() const { return m_covariance; }
    TopicsView* topicsView() const { return m_topics; }
    TopicCorrelationsView* topicCorrelationsView() const { return m_correlations; }
    QLabel* topicsTitle() const { return m_topicsRun; }
    RecommendationsView* recommendationsView() const { return m_recommendations; }
    WeightsPage* weightsPage() const { return m_weightsPage; }
    GraphPage* graphPage() const { return m_graphPage; }

signals:
    // The error view was switched: every run's panel is to be drawn again.
    void differenceToggled();

private:
    void updateRunPanel(int id);
    void showAtoms(const RunRecord* r);

    RunManager* m_runs;
    DataSet m_data; // the window's, for its image panels

    ImageStrip* m_images = nullptr;
    QCheckBox* m_difference = nullptr;
    LoadingsView* m_loadings = nullptr;
    QLabel* m_loadingsRun = nullptr;
    CovarianceView* m_covariance = nullptr;
    TopicsView* m_topics = nullptr;
    TopicCorrelationsView* m_correlations = nullptr;
    QLabel* m_topicsRun = nullptr;
    RecommendationsView* m_recommendations = nullptr;
    WeightsPage* m_weightsPage = nullptr;
    GraphPage* m_graphPage = nullptr;
    QWidget* m_atomsPage = nullptr;
    ImagePanel* m_atoms = nullptr;
    QLabel* m_atomsRun = nullptr;
};

} // namespace svi::ui
