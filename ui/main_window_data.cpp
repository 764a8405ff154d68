// MainWindow: opening data of any declared kind, its settings form and names list, reading and
// building the data set off the UI thread. Nothing here knows a kind: the kind's declaration
// (core/run/data_kinds.h) says what to show.

#include "core/io/run_folder.h"
#include "core/models/builtin.h"
#include "ui/main_window_parts.h"

namespace svi::ui {

using namespace window_parts;

QString MainWindow::dataKind() const
{
    return m_kind ? QString::fromStdString(m_kind->key) : QString();
}

DataDescription MainWindow::dataDescription() const
{
    DataDescription d = m_read; // hidden and ignored settings keep the values read
    if (!m_kind)
        return d;
    const ParamValues form = m_settingsForm->values();
    for (const ParamSpec& p : m_kind->settings)
        if (m_settingsForm->editor(p.key))
            if (const auto it = form.find(p.key); it != form.end())
                d.settings[p.key] = it->second;
    if (!m_namesKey.empty() && m_raw) {
        // Every name ticked is the empty list: every one, also those of another file read later.
        std::string ticked;
        bool all = true;
        for (int i = 0; i < m_names->count(); ++i) {
            const bool on = m_names->item(i)->checkState() == Qt::Checked;
            all = all && on;
            if (on)
                ticked += (ticked.empty() ? "" : ",") +
                          m_names->item(i)->data(Qt::UserRole).toString().toStdString();
        }
        d.settings[m_namesKey] = ParamValue(all ? std::string() : ticked);
    }
    return d;
}

int MainWindow::tickedNames() const
{
    int n = 0;
    for (int i = 0; i < m_names->count(); ++i)
        n += m_names->item(i)->checkState() == Qt::Checked;
    return n;
}

void MainWindow::openPath(const QString& path)
{
    openPaths({path});
}

void MainWindow::openPaths(const QStringList& paths)
{
    if (paths.isEmpty())
        return;
    if (paths.size() == 1 && paths.front().endsWith(".json", Qt::CaseInsensitive)) {
        openSession(paths.front());
        return;
    }
    // Folders that `svi run --out` or `svi compare --out` wrote: their runs, not data.
    const auto holdsRuns = [](const QString& p) {
        if (!QFileInfo(p).isDir())
            return false;
        if (isRunFolder(p))
            return true;
        for (const QString& sub : QDir(p).entryList(QDir::Dirs | QDir::NoDotAndDotDot))
            if (isRunFolder(QDir(p).filePath(sub)))
                return true;
        return false;
    };
    if (std::all_of(paths.begin(), paths.end(), holdsRuns)) {
        for (const QString& p : paths)
            openRunFolder(p);
        return;
    }
    DataDescription d;
    for (const QString& p : paths)
        d.files.push_back(p.toStdString());
    readData(d, true);
}

void MainWindow::readData(const DataDescription& given, bool fresh)
{
    m_settingsDebounce->stop();
    const int gen = ++m_loadGeneration;
    m_loading = true;
    updateActions();
    setBusy(tr("Loading %1…").arg(filesName(given.files)), gen);
    // A file of the kind shown is read with the form's read settings (a tokenizer); the others
    // are taken from the form when the read is done (they may be edited while it runs).
    const std::string shownKind = m_kind ? m_kind->key : std::string();
    ParamValues carried;
    if (fresh && m_kind) {
        const ParamValues form = dataDescription().settings;
        for (const std::string& key : m_kind->readSettings)
            carried[key] = form.at(key);
    }
    auto* watcher = new QFutureWatcher<ReadResult>(this);
    connect(watcher, &QFutureWatcher<ReadResult>::finished, this, [this, watcher, gen, fresh] {
        watcher->deleteLater();
        if (gen != m_loadGeneration)
            return; // superseded or cancelled
        const ReadResult r = watcher->result();
        if (!r.error.isEmpty()) {
            m_pendingSpec.reset();
            m_loading = false;
            clearBusy(gen);
            updateActions();
            showError(tr("Cannot open %1").arg(filesName(r.data.files)), r.error);
            return;
        }
        ParamValues settings = r.data.settings;
        if (fresh && m_kind == r.kind) { // the form as it is now (edited while the files loaded)
            const ParamValues form = dataDescription().settings;
            const std::vector<std::string>& read = r.kind->readSettings;
            for (const auto& [k, v] : form)
                if (k != m_namesKey && std::find(read.begin(), read.end(), k) == read.end())
                    settings[k] = v;
        }
        if (fresh) // what the files suggest (a CyTOF file's cofactor) replaces the form's
            for (const auto& [k, v] : r.raw->suggestedSettings())
                settings[k] = v;
        m_kind = r.kind;
        m_raw = r.raw;
        m_read = r.data;
        m_read.settings = settings;
        m_readers = r.readers;
        showKind(*r.kind, *r.raw, settings);
        if (fresh && r.data.files.size() == 1)
            addRecent(QString::fromStdString(r.data.files.front()));
        for (const std::string& key : r.kind->readSettings)
            if (!(settings.at(key) == r.data.settings.at(key))) {
                readData(m_read, false); // a suggestion changes what is read
                return;
            }
        buildData();
    });
    watcher->setFuture(QtConcurrent::run([given, shownKind, carried] {
        ReadResult r;
        r.data = given;
        try {
            DataDescription d = withKind(given);
            const DataKindSpec& kind = kindOf(d);
            if (kind.key == shownKind)
                for (const auto& [k, v] : carried)
                    d.settings.emplace(k, v);
            auto resolved = resolveParams(kind.settings, d.settings);
            if (auto* e = std::get_if<ParamError>(&resolved))
                throw std::invalid_argument(e->message);
            d.settings = std::get<ParamValues>(resolved);
            r.raw = kind.read(d);
            r.kind = &kind;
            r.readers = kindsThatRead(d.files);
            r.data = d;
        } catch (const std::exception& e) {
            r.error = QString::fromStdString(e.what());
        }
        return r;
    }));
}

void MainWindow::showKind(const DataKindSpec& kind, const RawData& raw, const ParamValues& settings)
{
    m_settingsBox->setTitle(tr("%1 task").arg(QString::fromStdString(kind.label)));
    {
        const QSignalBlocker block(m_readAs);
        m_readAs->clear();
        for (const DataKindSpec* k : m_readers)
            m_readAs->addItem(QString::fromStdString(k->label), QString::fromStdString(k->key));
        m_readAs->setCurrentIndex(m_readAs->findData(QString::fromStdString(kind.key)));
        m_readAsRow->setVisible(m_readAs->count() > 1);
    }
    m_settingsTask->setText(QString::fromStdString(kind.task));
    m_settingsBox->setVisible(true);

    // A Names setting whose names the data list is a checklist; the rest is the form.
    m_namesKey.clear();
    for (const ParamSpec& p : kind.settings)
        if (p.type == ParamType::Names && !raw.names(p.key).empty()) {
            m_namesKey = p.key;
            break;
        }
    std::set<std::string> hidden;
    for (const std::string& k : raw.ignoredSettings())
        hidden.insert(k);
    if (!m_namesKey.empty())
        hidden.insert(m_namesKey);
    {
        const QSignalBlocker block(m_settingsForm);
        m_settingsForm->setSpecs({}); // values of another kind's keys do not carry over
        m_settingsForm->setSpecs(kind.settings, hidden);
        m_settingsForm->setValues(settings);
    }
    m_namesArea->setVisible(!m_namesKey.empty());
    {
        const QSignalBlocker block(m_names);
        m_names->clear();
        if (!m_namesKey.empty()) {
            const std::string value = getChoice(settings, m_namesKey);
            const std::vector<std::string> picked = splitNames(value);
            m_names->setToolTip(QString::fromStdString(paramNamed(kind.settings, m_namesKey).help));
            for (const RawData::Name& n : raw.names(m_namesKey)) {
                auto* item = new QListWidgetItem(QString::fromStdString(n.label), m_names);
                item->setData(Qt::UserRole, QString::fromStdString(n.name));
                item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
                const bool on = value.empty() ||
                                std::find(picked.begin(), picked.end(), n.name) != picked.end();
                item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
            }
        }
    }

    // The views the kind offers: the first one in the centre.
    const DataView view = kind.views.empty() ? DataView::Image : kind.views.front();
    m_centreTop->setCurrentIndex(int(view));
    m_difference->setEnabled(view == DataView::Image);
    if (auto* centre = findChild<QSplitter*>("centreSplitter"); centre && view != DataView::Image) {
        const int h = centre->height(); // lists need less height than images
        if (h > 0)
            centre->setSizes({h / 2, h - h / 2});
    }
    m_dataLabel->setText(tr("<b>%1</b><br>%2")
                             .arg(filesName(m_read.files).toHtmlEscaped(),
                                  QString::fromStdString(raw.summary()).toHtmlEscaped()));
    populateModels();
    populateMetrics();
    if (m_pendingSpec) {
        applySpec(*m_pendingSpec);
        m_pendingSpec.reset();
    }
}

void MainWindow::onSettingsEdited()
{
    m_settingsDebounce->stop();
    if (!m_kind || !m_raw)
        return;
    if (!m_settingsForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    const DataDescription d = dataDescription();
    for (const std::string& key : m_kind->readSettings)
        if (!(d.settings.at(key) == m_read.settings.at(key))) {
            readData(d, false);
            return;
        }
    buildData();
}

void MainWindow::buildData()
{
    m_settingsDebounce->stop();
    if (!m_kind || !m_raw)
        return;
    auto refuse = [this](const QString& why) {
        m_loading = false;
        m_data = {};
        m_dataError->setText(why);
        m_dataError->setVisible(!why.isEmpty());
        updateActions();
        emit dataReadyChanged(false);
    };
    if (!m_settingsForm->isValid()) {
        m_loading = false;
        updateActions();
        return;
    }
    if (!m_namesKey.empty() && m_names->count() > 0) {
        m_namesCount->setText(tr("%1 of %2 selected").arg(tickedNames()).arg(m_names->count()));
        if (tickedNames() == 0) {
            refuse(tr("Select at least one of the %1.")
                       .arg(QString::fromStdString(paramNamed(m_kind->settings, m_namesKey).label)
                                .toLower()));
            return;
        }
    }
    const DataDescription d = dataDescription();
    const int gen = ++m_loadGeneration;
    m_loading = true;
    updateActions();
    setBusy(tr("Preparing %1…").arg(filesName(d.files)), gen);
    auto* watcher = new QFutureWatcher<BuildResult>(this);
    connect(watcher, &QFutureWatcher<BuildResult>::finished, this, [this, watcher, gen, d, refuse] {
        watcher->deleteLater();
        if (gen != m_loadGeneration)
            return;
        clearBusy(gen);
        const BuildResult r = watcher->result();
        if (!r.built.data) {
            // The settings do not fit the data (e.g. a patch larger than the image): say so
            // beside the data; the runs already made keep their own data and results.
            refuse(r.error);
            return;
        }
        m_loading = false;
        m_dataError->setVisible(false);
        m_dataError->clear();
        m_read.settings = d.settings;
        m_data = r.built.data;
        m_dataSummary = QString::fromStdString(r.built.summary);
        showBuilt();
        updateActions();
        emit dataReadyChanged(true);
    });
    watcher->setFuture(
        QtConcurrent::run([kind = m_kind, raw = m_raw, d, name = filesName(d.files)] {
            BuildResult r;
            try {
                r.built = kind->build(*raw, d);
            } catch (const std::exception& e) {
                r.error = QString("%1: %2").arg(name, QString::fromStdString(e.what()));
            }
            return r;
        }));
}

void MainWindow::showBuilt()
{
    if (!m_namesKey.empty())
        m_namesCount->setText(tr("%1 of %2 selected").arg(tickedNames()).arg(m_names->count()));
    m_dataLabel->setText(
        tr("<b>%1</b><br>%2").arg(filesName(m_read.files).toHtmlEscaped(), m_dataSummary));
    QStringList files;
    for (const std::string& f : m_read.files)
        files << QString::fromStdString(f);
    m_dataLabel->setToolTip(files.join("\n"));
    const std::vector<DataView>& views = m_kind->views;
    auto offers = [&](DataView v) {
        return std::find(views.begin(), views.end(), v) != views.end();
    };
    if (offers(DataView::Recommendations) && m_data.counts)
        m_recommendations->setData(m_data.counts);
    if (offers(DataView::Graph) && m_data.graph)
        m_graphPage->setGraph(m_data.graph);
    if (offers(DataView::Image) && m_data.dense && m_data.dense->image) {
        const ImageLayout& img = *m_data.dense->image;
        ImagePanel* original = m_images->panel("original", tr("Original"));
        original->setImage(toGrayImage(img.original));
        original->setCaption(tr("%1×%2").arg(img.width).arg(img.height));
        ImagePanel* corrupted = m_images->panel("corrupted", tr("Corrupted input"));
        corrupted->setImage(m_difference->isChecked() ? differenceImage(img.corrupted, img.original)
                                                      : toGrayImage(img.corrupted));
        corrupted->setCaption(tr("PSNR %1 dB").arg(fixed(psnr(img.original, img.corrupted), 2)));
        m_images->zoomToFit();
    }
}

void MainWindow::populateModels()
{
    const std::string kind = m_kind ? m_kind->key : std::string();
    const QString keep = m_model->currentData().toString();
    {
        const QSignalBlocker block(m_model);
        m_model->clear();
        for (const std::string& m : builtinRegistry().modelsFor(kind))
            m_model->addItem(
                QString::fromStdString(builtinRegistry().algorithms(m).front()->modelLabel),
                QString::fromStdString(m));
        int i = m_model->findData(keep);
        if (i < 0) // the model last used, when it fits these data (sgp on labelled data)
            i = m_model->findData(QSettings().value("run/model").toString());
        if (i < 0 && m_kind)
            i = m_model->findData(QString::fromStdString(m_kind->defaultModel));
        m_model->setCurrentIndex(std::max(i, 0));
    }
    onModelChanged();
}

void MainWindow::populateMetrics()
{
    const std::string kind = m_kind ? m_kind->key : std::string();
    const QString keep = m_metric->currentData().toString();
    // The loaded data's metrics, then those of every run shown that the data's models lack (a
    // run folder opened over other data, a session's runs), so that each run's can be charted.
    std::vector<MetricSpec> metrics =
        builtinRegistry().metricsOf(builtinRegistry().modelsFor(kind), kind);
    for (int id : m_runs->ids()) {
        const RunDescription& spec = m_runs->record(id)->spec;
        for (const MetricSpec& m : builtinRegistry().metricsOf({spec.model}, spec.data.kind))
            if (std::none_of(metrics.begin(), metrics.end(),
                             [&](const MetricSpec& o) { return o.key == m.key; }))
                metrics.push_back(m);
    }
    bool same = int(metrics.size()) == m_metric->count();
    for (int i = 0; same && i < m_metric->count(); ++i)
        same = m_metric->itemData(i).toString().toStdString() == metrics[std::size_t(i)].key;
    if (same)
        return;
    {
        const QSignalBlocker block(m_metric);
        m_metric->clear();
        for (const MetricSpec& m : metrics)
            m_metric->addItem(QString::fromStdString(metricTitle(m)),
                              QString::fromStdString(m.key));
        // The kind's first metric (the one its models lead with live) unless the choice applies.
        m_metric->setCurrentIndex(std::max(m_metric->findData(keep), 0));
    }
    updateChartAxes();
}

} // namespace svi::ui
