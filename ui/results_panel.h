#pragma once
// The bottom tabs: the runs table (one row per run, the selection the run actions and the
// centre pages follow) and Compare's results (one row per algorithm with the mean ± sd of each
// metric the registry declares for the model and the data kind, as `svi compare` writes them,
// compare_results.h). The window adds its own tabs after these. GUI thread only.

#include "core/run/run_description.h"

#include <QList>
#include <QTabWidget>
#include <vector>

class QStandardItemModel;
class QTableView;

namespace svi::ui {

class RunManager;
class RunsTableModel;

class ResultsPanel : public QTabWidget
{
    Q_OBJECT
public:
    // `runs` outlives the panel, or releaseRuns() is called before it goes.
    explicit ResultsPanel(RunManager* runs, QWidget* parent = nullptr);

    // The runs selected in the table, else the newest run; empty when there is none.
    QList<int> selectedRuns() const;
    void selectRun(int id);
    // Brings the runs table up to date (its rows are marked as the runs report).
    void refresh();
    // Queues `specs` on `data` one after another as Compare's runs, shows the results tab and
    // fills it as they go; the group RunManager gave them.
    int compare(const std::vector<RunDescription>& specs, const DataSet& data);
    int compareGroup() const { return m_compareGroup; }
    // The runs of the last Compare, in the order queued.
    const QList<int>& compareRuns() const { return m_compareRuns; }
    // The runs table as CSV.
    QByteArray runsCsv() const;
    // The Compare results as `svi compare` writes them: LaTeX for "tex", JSON for "json", CSV
    // for anything else.
    QByteArray resultsFile(const QString& suffix) const;
    // Detaches the table from the runs before the RunManager is destroyed.
    void releaseRuns();

    QTableView* runsView() const { return m_runsView; }
    QStandardItemModel* resultsModel() const { return m_results; }

signals:
    void selectionChanged();

private:
    void fillResults();

    RunManager* m_runs;
    RunsTableModel* m_runsModel = nullptr;
    QTableView* m_runsView = nullptr;
    QStandardItemModel* m_results = nullptr;
    QTableView* m_resultsView = nullptr;
    int m_compareGroup = 0;
    QList<int> m_compareRuns;
};

} // namespace svi::ui
