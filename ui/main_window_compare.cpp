// MainWindow: Compare. The ticked algorithms of the model's comparison group run one after
// another on the same data, split, seed and budget, each R times (seeds seed, seed + 1, …);
// the results table is one row per algorithm with the mean ± sd of each metric the registry
// declares for the model and the data kind, as `svi compare` writes them (compare_results.h).

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

void MainWindow::populateCompare()
{
    const std::string model = m_model->currentData().toString().toStdString();
    const QSignalBlocker block(m_compareList);
    m_compareList->clear();
    for (const AlgorithmEntry* e : builtinRegistry().comparisonGroup(model, true)) {
        auto* item = new QListWidgetItem(QString::fromStdString(e->label), m_compareList);
        item->setData(Qt::UserRole, QString::fromStdString(e->algorithm));
        item->setToolTip(QString::fromStdString(e->help));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        // The group ticked; its baselines (compareRank 0) when the user asks.
        item->setCheckState(e->compareRank > 0 ? Qt::Checked : Qt::Unchecked);
    }
}

int MainWindow::compare()
{
    if (!m_actCompare->isEnabled())
        return 0;
    std::vector<RunDescription> specs;
    const int repeats = m_repeats->value();
    for (int r = 0; r < repeats; ++r)
        for (int i = 0; i < m_compareList->count(); ++i) {
            const QListWidgetItem* item = m_compareList->item(i);
            if (item->checkState() != Qt::Checked)
                continue;
            RunDescription spec = specFor(item->data(Qt::UserRole).toString().toStdString());
            spec.seed += std::uint64_t(r);
            specs.push_back(std::move(spec));
        }
    m_compareRuns.clear();
    m_compareGroup = m_runs->enqueue(specs, m_data, &m_compareRuns);
    fillResults();
    m_tabs->setCurrentIndex(1);
    statusBar()->showMessage(
        tr("Compare: %n run(s) queued, one after another", "", int(m_compareRuns.size())), 5000);
    return m_compareGroup;
}

void MainWindow::fillResults()
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

bool MainWindow::exportResults(const QString& path)
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
    // The files `svi compare` writes: CSV, JSON or a booktabs table, by the suffix.
    const QString suffix = QFileInfo(path).suffix().toLower();
    const QByteArray bytes = suffix == "tex"    ? compareTex(table)
                             : suffix == "json" ? compareJson(table)
                                                : compareCsv(table);
    return writeOrReport(path, bytes, tr("Cannot export the results"));
}

} // namespace svi::ui
