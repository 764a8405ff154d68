#include "ui/runs_table.h"

#include "core/io/run_files.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "ui/run_manager.h"
#include "ui/shown_messages.h"

#include <QApplication>
#include <QBrush>
#include <QDir>
#include <QHeaderView>
#include <QStyle>
#include <QStyleOptionProgressBar>
#include <QTimer>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

namespace svi::ui {

RunsTableModel::RunsTableModel(RunManager* runs, QObject* parent)
    : QAbstractTableModel(parent), m_runs(runs)
{
    // The compared metrics the run's model declares for its data that have no column yet.
    auto metricsOf = [this](int id) {
        std::vector<MetricSpec> added;
        if (const RunRecord* r = m_runs->record(id))
            for (const MetricSpec& m :
                 builtinRegistry().metricsOf({r->spec.model}, r->spec.data.kind))
                if (m.compared && metricColumn(m.key) < 0)
                    added.push_back(m);
        return added;
    };
    for (int id : runs->ids()) {
        m_ids << id;
        for (const MetricSpec& m : metricsOf(id))
            m_metrics.push_back(m);
    }
    connect(runs, &RunManager::runAdded, this, [this, metricsOf](int id) {
        const std::vector<MetricSpec> added = metricsOf(id);
        if (added.empty()) {
            beginInsertRows({}, int(m_ids.size()), int(m_ids.size()));
            m_ids << id;
            endInsertRows();
            return;
        }
        beginResetModel(); // new columns
        m_metrics.insert(m_metrics.end(), added.begin(), added.end());
        m_ids << id;
        endResetModel();
    });
    connect(runs, &RunManager::runChanged, this, &RunsTableModel::touch);
    connect(runs, &RunManager::snapshotArrived, this, &RunsTableModel::touch);
}

int RunsTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : int(m_ids.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : terminationColumn() + 1;
}

int RunsTableModel::metricColumn(const std::string& key) const
{
    for (std::size_t i = 0; i < m_metrics.size(); ++i)
        if (m_metrics[i].key == key)
            return FirstMetric + int(i);
    return -1;
}

namespace {

// `title` broken at spaces into lines of at most 12 characters, or as few more as keep it to three
// lines (a word longer than a line keeps its own): a column not much wider than its numbers.
QString inLines(const QString& title)
{
    const QStringList words = title.split(' ', Qt::SkipEmptyParts);
    for (qsizetype width = 12;; ++width) {
        QStringList lines;
        QString line;
        for (const QString& w : words) {
            if (!line.isEmpty() && line.size() + 1 + w.size() > width) {
                lines << line;
                line = w;
            } else {
                line += (line.isEmpty() ? "" : " ") + w;
            }
        }
        lines << line;
        if (lines.size() <= 3)
            return lines.join('\n');
    }
}

} // namespace

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    const bool metric = section >= FirstMetric && section < terminationColumn();
    if (role == Qt::ToolTipRole && metric) {
        const MetricSpec& m = m_metrics[std::size_t(section - FirstMetric)];
        return tr("%1 (%2 is better)")
            .arg(QString::fromStdString(metricTitle(m)),
                 m.higherIsBetter ? tr("higher") : tr("lower"));
    }
    if (role != Qt::DisplayRole)
        return {};
    if (metric)
        return inLines(
            QString::fromStdString(metricTitle(m_metrics[std::size_t(section - FirstMetric)])));
    if (section == terminationColumn())
        return tr("Termination");
    switch (section) {
    case Run:
        return tr("Run");
    case Algorithm:
        return tr("Algorithm");
    case Parameters:
        return tr("Parameters");
    case Status:
        return tr("Status");
    case Progress:
        return tr("Progress");
    case Time:
        return tr("Time");
    case Steps:
        return tr("Steps");
    case Epochs:
        return tr("Epochs");
    case StepsPerSecond:
        return tr("Steps/s");
    case Elbo:
        return tr("ELBO");
    }
    return {};
}

namespace {

// `digits` significant digits, but a whole number past them in full ("3000" epochs, not
// "3e+03"; an ELBO of "-1022830", not "-1.02283e+06").
QString num(double v, int digits = 4)
{
    if (!std::isfinite(v))
        return {};
    if (std::abs(v) >= std::pow(10.0, digits) && std::abs(v) < 1e15)
        return QString::number(std::round(v), 'f', 0);
    return QString::number(v, 'g', digits);
}

// The values that differ from the declared defaults, then seed and budget.
QString parameterText(const RunRecord& r)
{
    QStringList parts;
    if (const AlgorithmEntry* e = builtinRegistry().find(r.spec.model, r.spec.algorithm)) {
        const ParamValues defaults = defaultValues(e->params);
        for (const auto& [k, v] : r.spec.params) {
            const auto d = defaults.find(k);
            if (d == defaults.end() || !(d->second == v))
                parts << QString::fromStdString(k + "=" + formatParam(v));
        }
    }
    parts << QString("seed=%1").arg(r.spec.seed);
    if (r.spec.seconds > 0)
        parts << QString("%1 s").arg(r.spec.seconds);
    if (r.spec.steps > 0)
        parts << QString("%1 steps").arg(r.spec.steps);
    return parts.join(", ");
}

} // namespace

QVariant RunsTableModel::data(const QModelIndex& index, int role) const
{
    const RunRecord* r = m_runs->record(idAt(index.row()));
    if (!r)
        return {};
    if (role == Qt::DecorationRole && index.column() == Run)
        return r->color;
    const int termination = terminationColumn();
    if (role == Qt::ToolTipRole && index.column() == termination && r->summary)
        return shownMessage(r->summary->message, r->spec);
    if (role == Qt::ToolTipRole && index.column() == Parameters)
        return parameterText(*r);
    if (role == Qt::ToolTipRole && (index.column() == Run || index.column() == Status)) {
        if (!r->readFrom.isEmpty())
            return tr("Read from %1").arg(QDir::toNativeSeparators(r->readFrom));
        if (!r->resumeFrom.isEmpty())
            return tr("Resumed from %1").arg(QDir::toNativeSeparators(r->resumeFrom));
    }
    if (role == Qt::ToolTipRole && index.column() == Elbo)
        if (const AlgorithmEntry* e = builtinRegistry().find(r->spec.model, r->spec.algorithm))
            return QString::fromStdString(e->boundText());
    if (role == Qt::TextAlignmentRole && index.column() >= Steps && index.column() < termination)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole && index.column() == termination && r->summary &&
        (r->summary->reason == TerminationReason::Diverged ||
         r->summary->reason == TerminationReason::Failed ||
         r->summary->reason == TerminationReason::InvalidInput))
        return QBrush(QColor(192, 57, 43));
    const Snapshot* last = r->trace.empty() ? nullptr : &r->trace.back();
    const bool live = r->readFrom.isEmpty() && r->status != RunStatus::Queued;
    // A running run's clocks between its snapshots.
    const Snapshot* now = !r->summary && r->live.step > (last ? last->step : 0) ? &r->live : last;
    if (role == ProgressRole && index.column() == Progress)
        return !live || !now ? QVariant()
               : r->summary  ? QVariant(1.0)
                             : QVariant(budgetProgress(r->spec.runOptions(), *now).fraction);
    if (role == Qt::ToolTipRole && index.column() == Time)
        return data(index, Qt::DisplayRole).toString() + "\n" +
               tr("Wall-clock time, training time (evaluation excluded, as in the papers' "
                  "plots) and the share of the wall time spent evaluating, at the latest "
                  "snapshot");
    if (role == Qt::ToolTipRole && index.column() == Algorithm)
        if (const AlgorithmEntry* e = builtinRegistry().find(r->spec.model, r->spec.algorithm))
            return QString::fromStdString(e->modelLabel + ", " + e->label + ": " + e->help);
    if (role != Qt::DisplayRole)
        return {};
    if (index.column() == termination)
        return r->summary ? QString(terminationName(r->summary->reason)) : QString();
    if (index.column() >= FirstMetric) // the latest value the run reported
        return num(r->metric(m_metrics[std::size_t(index.column() - FirstMetric)].key), 5);
    switch (index.column()) {
    case Run:
        return QString("#%1").arg(r->id);
    case Algorithm: {
        const AlgorithmEntry* e = builtinRegistry().find(r->spec.model, r->spec.algorithm);
        return e ? QString::fromStdString(e->label) : QString::fromStdString(r->spec.algorithm);
    }
    case Parameters:
        return parameterText(*r);
    case Status: {
        if (!r->readFrom.isEmpty()) // another process's run
            return r->status == RunStatus::Watching ? tr("watching folder") : tr("from folder");
        QString s = statusText(r->status);
        if ((r->status == RunStatus::Running || r->status == RunStatus::Stopping) &&
            (r->phase == RunPhase::FullEvaluation || r->phase == RunPhase::Evaluating))
            s += " · " + QString(phaseName(r->phase));
        return s;
    }
    case Progress: {
        if (!live || !now)
            return QString();
        if (r->summary)
            return tr("done");
        const BudgetProgress p = budgetProgress(r->spec.runOptions(), *now);
        QString text = QString("%1 %").arg(int(std::floor(100 * p.fraction)));
        if (std::isfinite(p.secondsLeft))
            text += tr(" · ~%1 s left").arg(std::lround(p.secondsLeft));
        return text;
    }
    case Time: {
        if (!now || !std::isfinite(now->wallSeconds))
            return QString();
        const double share = evalShare(*now);
        return tr("wall %1 s · train %2 s · eval %3 %")
            .arg(now->wallSeconds, 0, 'f', 1)
            .arg(now->trainSeconds, 0, 'f', 1)
            .arg(std::lround(100 * share));
    }
    case Steps:
        return now ? QVariant(qlonglong(now->step)) : QVariant();
    case Epochs:
        return last ? num(last->epochs, 3) : QString();
    case StepsPerSecond:
        return num(r->stepsPerSecond(), 4);
    case Elbo:
        return last ? num(last->elbo, 6) : QString();
    }
    return {};
}

void ProgressDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                             const QModelIndex& index) const
{
    const QVariant fraction = index.data(RunsTableModel::ProgressRole);
    if (!fraction.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionProgressBar bar;
    bar.rect = option.rect.adjusted(2, 2, -2, -2);
    bar.minimum = 0;
    bar.maximum = 1000;
    bar.progress = int(std::lround(1000 * std::clamp(fraction.toDouble(), 0.0, 1.0)));
    bar.text = index.data().toString();
    bar.textVisible = true;
    bar.state = option.state | QStyle::State_Horizontal;
    const QWidget* widget = option.widget;
    (widget ? widget->style() : QApplication::style())
        ->drawControl(QStyle::CE_ProgressBar, &bar, painter, widget);
}

namespace {

// The columns whose text may be elided to leave the others their room, in the order they give
// way.
// (The algorithm's label is in the charts' legends too; the clocks are only here.)
constexpr int kElastic[] = {RunsTableModel::Parameters, RunsTableModel::Algorithm,
                            RunsTableModel::Time};

bool isElastic(int column)
{
    return std::find(std::begin(kElastic), std::end(kElastic), column) != std::end(kElastic);
}

} // namespace

RunsView::RunsView(QWidget* parent) : QTableView(parent)
{
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setWordWrap(false);
    setTextElideMode(Qt::ElideRight);
    verticalHeader()->hide();
    // The other columns follow their text (a run's counts, a new metric's column).
    connect(horizontalHeader(), &QHeaderView::sectionResized, this, [this](int section) {
        if (!isElastic(section))
            scheduleFit();
    });
}

void RunsView::setModel(QAbstractItemModel* model)
{
    QTableView::setModel(model);
    if (!model)
        return;
    setItemDelegateForColumn(RunsTableModel::Progress, new ProgressDelegate(this));
    connect(model, &QAbstractItemModel::modelReset, this, &RunsView::scheduleFit);
    connect(model, &QAbstractItemModel::layoutChanged, this, &RunsView::scheduleFit);
    connect(model, &QAbstractItemModel::rowsInserted, this, &RunsView::scheduleFit);
    connect(model, &QAbstractItemModel::dataChanged, this, &RunsView::scheduleFit);
    scheduleFit();
}

void RunsView::resizeEvent(QResizeEvent* event)
{
    QTableView::resizeEvent(event);
    scheduleFit();
}

void RunsView::scheduleFit()
{
    if (m_fitPending)
        return;
    m_fitPending = true;
    QTimer::singleShot(0, this, [this] {
        m_fitPending = false;
        fitColumns();
    });
}

void RunsView::fitColumns()
{
    QHeaderView* header = horizontalHeader();
    if (!model() || header->count() <= RunsTableModel::Elbo)
        return;
    // A reset (a new metric's column) makes every section anew.
    for (int c = 0; c < header->count(); ++c) {
        const auto mode = isElastic(c) ? QHeaderView::Fixed : QHeaderView::ResizeToContents;
        if (header->sectionResizeMode(c) != mode)
            header->setSectionResizeMode(c, mode);
    }
    auto natural = [&](int c) {
        return std::max(header->sectionSizeHint(c), sizeHintForColumn(c));
    };
    int others = 0;
    for (int c = 0; c < header->count(); ++c)
        if (!isElastic(c) && !header->isSectionHidden(c))
            others += header->sectionSize(c);
    const int few = fontMetrics().horizontalAdvance(QStringLiteral("xxxxxxxx…"));
    std::map<int, int> width;
    int excess = -(viewport()->width() - others);
    for (int c : kElastic) {
        width[c] = natural(c);
        excess += width[c];
    }
    for (int c : kElastic) {
        const int floor = std::min(width[c], std::max(header->sectionSizeHint(c), few));
        const int cut = std::clamp(excess, 0, width[c] - floor);
        width[c] -= cut;
        excess -= cut;
    }
    for (const auto& [c, w] : width)
        if (header->sectionSize(c) != w)
            header->resizeSection(c, w);
}

void RunsTableModel::touch(int id)
{
    if (!m_dirty.contains(id))
        m_dirty << id;
}

void RunsTableModel::refresh()
{
    for (int id : m_dirty) {
        const int row = rowOf(id);
        if (row >= 0)
            emit dataChanged(index(row, 0), index(row, terminationColumn()));
    }
    m_dirty.clear();
}

QByteArray tableCsv(const QAbstractItemModel& model)
{
    QByteArray out;
    QStringList cells;
    for (int c = 0; c < model.columnCount(); ++c)
        cells << csvField(model.headerData(c, Qt::Horizontal).toString().simplified());
    out += cells.join(',').toUtf8() + "\n";
    for (int r = 0; r < model.rowCount(); ++r) {
        cells.clear();
        for (int c = 0; c < model.columnCount(); ++c)
            cells << csvField(model.data(model.index(r, c)).toString());
        out += cells.join(',').toUtf8() + "\n";
    }
    return out;
}

} // namespace svi::ui
