// ResultsPanel: the runs table and Compare's results. The ticked algorithms of the model's
// comparison group run one after another on the same data, split, seed and budget, each R times
// (seeds seed, seed + 1, …); the results table aggregates the finished ones as they end.

#include "ui/results_panel.h"

#include "core/models/builtin.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

namespace {

QString cell(const MeanSd& m)
{
    if (m.n == 0)
        return {};
    if (m.n == 1)
        return QString::number(m.mean, 'g', 5);
    return QString("%1 ± %2").arg(QString::number(m.mean, 'g', 5), QString::number(m.sd, 'g', 2));
}

// The Compare runs that finished, as compare_results.h collects them.
std::vector<CompareRun> finishedRuns(const RunManager& runs, const QList<int>& ids)
{
    std::vector<CompareRun> out;
    std::map<std::string, int> repeats; // runs of each algorithm so far
    for (int id : ids) {
        const RunRecord* r = runs.record(id);
        if (!r)
            continue;
        const int repeat = repeats[r->spec.model + "/" + r->spec.algorithm]++;
        const AlgorithmEntry* e = builtinRegistry().find(r->spec.model, r->spec.algorithm);
        if (e && r->summary)
            out.push_back(compareRunOf(*e, r->spec.seed, repeat, *r->summary));
    }
    return out;
}

} // namespace

ResultsPanel::ResultsPanel(RunManager* runs, QWidget* parent) : QTabWidget(parent), m_runs(runs)
{
    setObjectName("bottomTabs");
    auto* runsPage = new QWidget;
    auto* runsLayout = new QVBoxLayout(runsPage);
    runsLayout->setContentsMargins(2, 2, 2, 2);
    m_runsModel = new RunsTableModel(m_runs, this);
    m_runsView = new RunsView;
    m_runsView->setObjectName("runsTable");
    m_runsView->setModel(m_runsModel);
    runsLayout->addWidget(m_runsView);
    addTab(runsPage, tr("Runs"));
    connect(m_runsView->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ResultsPanel::selectionChanged);

    m_results = new QStandardItemModel(this);
    m_resultsView = new QTableView;
    m_resultsView->setObjectName("resultsTable");
    m_resultsView->setModel(m_results);
    m_resultsView->verticalHeader()->hide();
    m_resultsView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_resultsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    addTab(m_resultsView, tr("Compare results"));

    connect(m_runs, &RunManager::runChanged, this, [this](int id) {
        const RunRecord* r = m_runs->record(id);
        if (r && m_compareRuns.contains(id) && !r->summary)
            fillResults(); // "running" in place of "queued"
    });
    connect(m_runs, &RunManager::runFinished, this, [this](int id) {
        if (m_runs->record(id) && m_compareRuns.contains(id))
            fillResults();
    });
}

void ResultsPanel::releaseRuns()
{
    m_runsView->setModel(nullptr);
    delete m_runsModel;
    m_runsModel = nullptr;
}

QList<int> ResultsPanel::selectedRuns() const
{
    QList<int> ids;
    for (const QModelIndex& i : m_runsView->selectionModel()->selectedRows())
        ids << m_runsModel->idAt(i.row());
    if (ids.isEmpty() && m_runsModel->rowCount() > 0)
        ids << m_runsModel->idAt(m_runsModel->rowCount() - 1); // the newest run
    return ids;
}

void ResultsPanel::selectRun(int id)
{
    if (const int row = m_runsModel->rowOf(id); row >= 0)
        m_runsView->selectRow(row);
}

void ResultsPanel::refresh()
{
    m_runsModel->refresh();
}

QByteArray ResultsPanel::runsCsv() const
{
    return tableCsv(*m_runsModel);
}

int ResultsPanel::compare(const std::vector<RunDescription>& specs, const DataSet& data)
{
    m_compareRuns.clear();
    m_compareGroup = m_runs->enqueue(specs, data, &m_compareRuns);
    fillResults();
    setCurrentIndex(1);
    return m_compareGroup;
}

void ResultsPanel::fillResults()
{
    if (m_compareRuns.isEmpty())
        return;
    const RunRecord* first = m_runs->record(m_compareRuns.front());
    if (!first)
        return;
    // Columns: the compared metrics the model declares for the data's kind.
    std::vector<MetricSpec> metrics;
    for (const MetricSpec& m :
         builtinRegistry().metricsOf({first->spec.model}, first->spec.data.kind))
        if (m.compared)
            metrics.push_back(m);
    const CompareTable table = aggregate(finishedRuns(*m_runs, m_compareRuns), metrics);
    QStringList headers = {tr("Algorithm"), tr("Runs")};
    for (const MetricSpec& m : metrics)
        headers << QString::fromStdString(metricTitle(m));
    headers << tr("s/step") << tr("Steps") << tr("Termination");
    m_results->clear();
    m_results->setHorizontalHeaderLabels(headers);
    // A metric's caveat (a Poisson mean's RMSE against stars) is its column's tooltip.
    for (std::size_t i = 0; i < metrics.size(); ++i)
        if (!metrics[i].caveat.empty())
            m_results->horizontalHeaderItem(2 + int(i))
                ->setToolTip(QString::fromStdString(metrics[i].caveat));

    // One row per algorithm in the order queued; the runs not finished say how far they are.
    QStringList order;
    for (int id : m_compareRuns) {
        const RunRecord* r = m_runs->record(id);
        if (!r)
            continue;
        const QString key = QString::fromStdString(r->spec.model + "/" + r->spec.algorithm);
        if (order.contains(key))
            continue;
        order << key;
        const CompareRow* row = nullptr;
        for (const CompareRow& c : table.rows)
            if (c.model == r->spec.model && c.algorithm == r->spec.algorithm)
                row = &c;
        int total = 0;
        QString status;
        for (int other : m_compareRuns) {
            const RunRecord* o = m_runs->record(other);
            if (o && o->spec.model == r->spec.model && o->spec.algorithm == r->spec.algorithm) {
                ++total;
                if (!o->summary && status.isEmpty())
                    status = statusText(o->status);
            }
        }
        QList<QStandardItem*> items;
        auto add = [&](const QString& text, bool number) {
            auto* item = new QStandardItem(text);
            item->setTextAlignment(number ? Qt::AlignRight | Qt::AlignVCenter
                                          : Qt::AlignLeft | Qt::AlignVCenter);
            items << item;
        };
        const AlgorithmEntry* entry = builtinRegistry().find(r->spec.model, r->spec.algorithm);
        add(entry ? QString::fromStdString(entry->label) : r->label.section(' ', 1, -1), false);
        items.back()->setData(r->color, Qt::DecorationRole);
        items.back()->setData(id, Qt::UserRole);
        add(QString("%1/%2").arg(row ? int(row->runs.size()) : 0).arg(total), true);
        for (const MetricSpec& m : metrics) {
            QString text;
            if (row)
                for (std::size_t c = 0; c < table.columns.size(); ++c)
                    if (table.columns[c].metric.key == m.key)
                        text = cell(row->metrics[c]);
            add(text, true);
            // and each figure's, as the row's entry declares it
            if (entry)
                for (const MetricSpec& own : entry->metrics)
                    if (own.key == m.key && !own.caveat.empty() && !text.isEmpty())
                        items.back()->setToolTip(QString::fromStdString(own.caveat));
        }
        add(row ? cell(row->secondsPerStep) : QString(), true);
        add(row ? cell(row->steps) : QString(), true);
        QStringList ends;
        if (row)
            for (const auto& [name, n] : row->terminations)
                ends << (n > 1 ? QString("%1 ×%2").arg(QString::fromStdString(name)).arg(n)
                               : QString::fromStdString(name));
        if (!status.isEmpty())
            ends << status;
        add(ends.join(", "), false);
        m_results->appendRow(items);
    }
    // A metric no finished run reports (e.g. before the first ends) keeps its column empty.
    for (int c = 0; c < m_results->columnCount(); ++c) {
        bool any = false;
        for (int r = 0; r < m_results->rowCount() && !any; ++r)
            any = !m_results->item(r, c)->text().isEmpty();
        m_resultsView->setColumnHidden(c, !any && c >= 2 && c < 2 + int(metrics.size()) &&
                                              table.rows.size() > 0);
    }
}

QByteArray ResultsPanel::resultsFile(const QString& suffix) const
{
    std::vector<std::string> models;
    for (int id : m_compareRuns)
        if (const RunRecord* r = m_runs->record(id);
            r && std::find(models.begin(), models.end(), r->spec.model) == models.end())
            models.push_back(r->spec.model);
    const RunRecord* first = m_compareRuns.isEmpty() ? nullptr : m_runs->record(m_compareRuns[0]);
    const CompareTable table =
        aggregate(finishedRuns(*m_runs, m_compareRuns),
                  builtinRegistry().metricsOf(models, first ? first->spec.data.kind : ""));
    return suffix == "tex"    ? compareTex(table)
           : suffix == "json" ? compareJson(table)
                              : compareCsv(table);
}

} // namespace svi::ui
