#pragma once
// RunsTableModel: one row per run of a RunManager (algorithm, parameters, status, progress
// through its budget with the time left, its clocks — wall time, training time and the share
// spent evaluating — steps, epochs, steps/s, ELBO, the current value of every metric the runs'
// registry entries declare for their data kind (compared ones; a column appears with the first run
// that declares it), termination reason). GUI thread only.

#include "core/base/metric_spec.h"

#include <QAbstractTableModel>
#include <QList>
#include <QStyledItemDelegate>
#include <QTableView>
#include <vector>

namespace svi::ui {

class RunManager;

class RunsTableModel : public QAbstractTableModel
{
    Q_OBJECT
public:
    enum Column {
        Run,
        Algorithm,
        Parameters,
        Status,
        Progress, // display: "42 % · ~35 s left"; ProgressRole: the fraction done, 0–1
        Time,     // "wall 45 s · train 38 s · eval 16 %"
        Steps,
        Epochs,
        StepsPerSecond,
        Elbo,
        FirstMetric // then one column per metric, then the termination
    };

    // The fraction of the budget a run has used (Progress column), for a progress bar.
    static constexpr int ProgressRole = Qt::UserRole + 1;

    explicit RunsTableModel(RunManager* runs, QObject* parent = nullptr);
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

    // The metric columns, in order from FirstMetric. Their titles (the header's display text)
    // are broken into up to three lines; the tooltip holds each on one line.
    const std::vector<MetricSpec>& metrics() const { return m_metrics; }
    // The column of a metric's key, −1 when none.
    int metricColumn(const std::string& key) const;
    int terminationColumn() const { return FirstMetric + int(m_metrics.size()); }

    int idAt(int row) const { return m_ids.value(row, 0); }
    int rowOf(int id) const { return int(m_ids.indexOf(id)); }
    // Marks a run's row for the next refresh() (snapshots arrive faster than a table needs).
    void touch(int id);
    void refresh();

private:
    RunManager* m_runs;
    QList<int> m_ids;
    QList<int> m_dirty;
    std::vector<MetricSpec> m_metrics;
};

// Draws the Progress column as a progress bar with its text.
class ProgressDelegate : public QStyledItemDelegate
{
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

// The view of a RunsTableModel, sized so that the progress, the counts and every metric stay in
// view at the window's default size: each column takes its contents' width, long metric titles
// on up to three lines, except the three whose text can be long — the parameters ("K=64,
// kappa=0.7, seed=3, 60 s", longer with each parameter changed), the algorithm's label and the
// clocks — which share the room the others leave: each its text's width when they fit, else
// narrowed in that order down to a few characters, their text elided and whole in its tooltip.
class RunsView : public QTableView
{
public:
    explicit RunsView(QWidget* parent = nullptr);
    void setModel(QAbstractItemModel* model) override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    // Soon (once per pass of the event loop): fitColumns().
    void scheduleFit();
    void fitColumns();
    bool m_fitPending = false;
};

// Any table model as CSV (header row from the horizontal header, each title on one line; the
// display text of every cell).
QByteArray tableCsv(const QAbstractItemModel& model);

} // namespace svi::ui
