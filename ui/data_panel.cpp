// DataPanel: opening data of any declared kind, its settings form and names list, reading and
// building the data set off the GUI thread. Nothing here knows a kind: the kind's declaration
// (core/run/data_kinds.h) says what to show.

#include "ui/data_panel.h"

#include "ui/busy_indicator.h"
#include "ui/main_window_parts.h"
#include "ui/shown_messages.h"
#include "ui/whole_combo_box.h"

namespace svi::ui {

using namespace window_parts;

namespace {

// What a pool thread read (read) or built (buildData); `error` set when it failed.
struct ReadResult
{
    const DataKindSpec* kind = nullptr;
    DataDescription data; // kind set, every setting present
    std::shared_ptr<const RawData> raw;
    // The kinds that can read the files ("Read as"), probed off the GUI thread.
    std::vector<const DataKindSpec*> readers;
    QString error;
};

struct BuildResult
{
    BuiltData built;
    QString error;
};

} // namespace

DataPanel::DataPanel(BusyIndicator* busy, QWidget* parent) : QWidget(parent), m_busy(busy)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* dataBox = new QGroupBox(tr("Data"));
    auto* dataLayout = new QVBoxLayout(dataBox);
    m_label = new QLabel(tr("No data"));
    m_label->setWordWrap(true);
    m_label->setObjectName("dataLabel");
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setStyleSheet("color: #c0392b");
    m_error->setVisible(false);
    auto* openButton = new QPushButton(tr("Open…"));
    connect(openButton, &QPushButton::clicked, this, &DataPanel::openRequested);
    dataLayout->addWidget(m_label);
    dataLayout->addWidget(m_error);
    dataLayout->addWidget(openButton);
    layout->addWidget(dataBox);

    // The data kind's task settings: one form generated from the kind's declarations, and a
    // checklist for a setting that picks names (a table's channels).
    m_settingsBox = new QGroupBox(tr("Task"));
    m_settingsBox->setObjectName("settingsBox");
    auto* settingsLayout = new QVBoxLayout(m_settingsBox);
    m_settingsTask = new QLabel;
    m_settingsTask->setWordWrap(true);
    m_settingsTask->setStyleSheet("color: palette(mid)");
    settingsLayout->addWidget(m_settingsTask);
    // Files more than one kind can read (a CSV: a table, or labelled data): which one.
    m_readAsRow = new QWidget;
    auto* readAsLayout = new QHBoxLayout(m_readAsRow);
    readAsLayout->setContentsMargins(0, 0, 0, 0);
    readAsLayout->addWidget(new QLabel(tr("Read as")));
    m_readAs = new WholeComboBox;
    m_readAs->setObjectName("readAsPicker");
    m_readAs->setToolTip(tr("The kind of data to read the files as; the task and the models "
                            "follow it"));
    readAsLayout->addWidget(m_readAs, 1);
    m_readAsRow->setVisible(false);
    settingsLayout->addWidget(m_readAsRow);
    connect(m_readAs, &QComboBox::activated, this, [this](int index) {
        const std::string key = m_readAs->itemData(index).toString().toStdString();
        if (m_kind && key != m_kind->key) {
            DataDescription d;
            d.files = m_read.files;
            d.kind = key;
            read(d, true);
        }
    });
    m_namesArea = new QWidget;
    auto* namesLayout = new QVBoxLayout(m_namesArea);
    namesLayout->setContentsMargins(0, 0, 0, 0);
    m_namesCount = new QLabel;
    m_namesCount->setObjectName("namesCount");
    namesLayout->addWidget(m_namesCount);
    m_names = new QListWidget;
    m_names->setObjectName("namesList");
    m_names->setMinimumHeight(140);
    namesLayout->addWidget(m_names);
    auto* nameButtons = new QHBoxLayout;
    auto addNameButton = [&](const QString& text, const QString& tip, int pick) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, [this, pick] {
            const std::vector<RawData::Name> names =
                m_raw ? m_raw->names(m_namesKey) : std::vector<RawData::Name>{};
            const QSignalBlocker block(m_names);
            for (int i = 0; i < m_names->count() && i < int(names.size()); ++i) {
                const bool on = pick == 2 ? names[std::size_t(i)].ticked : pick == 1;
                m_names->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
            }
            emit m_names->itemChanged(nullptr);
        });
        nameButtons->addWidget(b);
    };
    addNameButton(tr("All"), tr("Select every name"), 1);
    addNameButton(tr("None"), tr("Clear the selection"), 0);
    addNameButton(tr("Default"), tr("The selection the data suggest (for FCS: marker names)"), 2);
    namesLayout->addLayout(nameButtons);
    settingsLayout->addWidget(m_namesArea);
    m_settingsForm = new ParamForm;
    m_settingsForm->setObjectName("settingsForm");
    settingsLayout->addWidget(m_settingsForm);
    layout->addWidget(m_settingsBox);
    m_settingsBox->setVisible(false);

    m_settingsDebounce = new QTimer(this);
    m_settingsDebounce->setSingleShot(true);
    m_settingsDebounce->setInterval(300);
    auto settingsEdited = [this] {
        m_loading = bool(m_raw); // the data shown no longer match the form
        m_settingsDebounce->start();
        emit stateChanged();
    };
    connect(m_settingsForm, &ParamForm::edited, this, settingsEdited);
    connect(m_names, &QListWidget::itemChanged, this, settingsEdited);
    connect(m_settingsDebounce, &QTimer::timeout, this, &DataPanel::onSettingsEdited);
    connect(m_busy, &BusyIndicator::cancelled, this, [this] {
        m_loading = false; // the data already built stay
        emit stateChanged();
    });
}

DataDescription DataPanel::description() const
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

QString DataPanel::blockedReason() const
{
    if (m_loading)
        return tr("Preparing the data…");
    if (!m_data)
        return !m_error->text().isEmpty() ? m_error->text()
               : m_raw ? tr("The data cannot be prepared with these settings (see Data).")
                       : tr("Open data first.");
    if (auto e = m_settingsForm->firstError())
        return QString::fromStdString(e->message);
    return {};
}

int DataPanel::tickedNames() const
{
    int n = 0;
    for (int i = 0; i < m_names->count(); ++i)
        n += m_names->item(i)->checkState() == Qt::Checked;
    return n;
}

void DataPanel::read(const DataDescription& given, bool fresh)
{
    m_settingsDebounce->stop();
    m_loading = true;
    auto load = std::make_shared<LoadControl>();
    const int gen = m_busy->start(tr("Loading %1…").arg(filesName(given.files)), load);
    emit stateChanged();
    // A file of the kind shown is read with the form's read settings (a tokenizer); the others
    // are taken from the form when the read is done (they may be edited while it runs).
    const std::string shownKind = m_kind ? m_kind->key : std::string();
    ParamValues carried;
    if (fresh && m_kind) {
        const ParamValues form = description().settings;
        for (const std::string& key : m_kind->readSettings)
            carried[key] = form.at(key);
    }
    auto* watcher = new QFutureWatcher<ReadResult>(this);
    connect(watcher, &QFutureWatcher<ReadResult>::finished, this, [this, watcher, gen, fresh] {
        watcher->deleteLater();
        if (!m_busy->isCurrent(gen))
            return; // superseded or cancelled
        const ReadResult r = watcher->result();
        if (!r.error.isEmpty()) {
            m_loading = false;
            m_busy->finish(gen);
            emit stateChanged();
            emit readFailed(tr("Cannot open %1").arg(filesName(r.data.files)), r.error);
            return;
        }
        ParamValues settings = r.data.settings;
        if (fresh && m_kind == r.kind) { // the form as it is now (edited while the files loaded)
            const ParamValues form = description().settings;
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
            emit opened(QString::fromStdString(r.data.files.front()));
        for (const std::string& key : r.kind->readSettings)
            if (!(settings.at(key) == r.data.settings.at(key))) {
                read(m_read, false); // a suggestion changes what is read
                return;
            }
        buildData();
    });
    watcher->setFuture(QtConcurrent::run([given, shownKind, carried, load] {
        ReadResult r;
        r.data = given;
        const DataKindSpec* recognised = nullptr; // whose settings its messages name
        try {
            load->setTotal(totalBytes(given.files));
            LoadScope scope(*load); // bytes read, and Cancel, reach the readers
            DataDescription d = withKind(given);
            const DataKindSpec& kind = kindOf(d);
            recognised = &kind;
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
            r.error = shownMessage(e.what(),
                                   recognised ? recognised->settings : std::vector<ParamSpec>{});
        }
        return r;
    }));
}

void DataPanel::showKind(const DataKindSpec& kind, const RawData& raw, const ParamValues& settings)
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
    m_label->setText(tr("<b>%1</b><br>%2")
                         .arg(filesName(m_read.files).toHtmlEscaped(),
                              QString::fromStdString(raw.summary()).toHtmlEscaped()));
    emit kindShown(kind);
}

bool DataPanel::readyToBuild()
{
    m_settingsDebounce->stop();
    if (!m_kind || !m_raw)
        return false;
    if (!m_settingsForm->isValid()) {
        m_loading = false;
        emit stateChanged();
        return false;
    }
    return true;
}

void DataPanel::onSettingsEdited()
{
    if (!readyToBuild())
        return;
    const DataDescription d = description();
    for (const std::string& key : m_kind->readSettings)
        if (!(d.settings.at(key) == m_read.settings.at(key))) {
            read(d, false);
            return;
        }
    buildData();
}

void DataPanel::refuse(const QString& why)
{
    m_loading = false;
    m_data = {};
    m_error->setText(why);
    m_error->setVisible(!why.isEmpty());
    emit readyChanged(false);
}

void DataPanel::buildData()
{
    if (!readyToBuild())
        return;
    if (!m_namesKey.empty() && m_names->count() > 0) {
        m_namesCount->setText(tr("%1 of %2 selected").arg(tickedNames()).arg(m_names->count()));
        if (tickedNames() == 0) {
            refuse(tr("Select at least one of the %1.")
                       .arg(QString::fromStdString(paramNamed(m_kind->settings, m_namesKey).label)
                                .toLower()));
            return;
        }
    }
    const DataDescription d = description();
    m_loading = true;
    const int gen = m_busy->start(tr("Preparing %1…").arg(filesName(d.files)));
    emit stateChanged();
    auto* watcher = new QFutureWatcher<BuildResult>(this);
    connect(watcher, &QFutureWatcher<BuildResult>::finished, this, [this, watcher, gen, d] {
        watcher->deleteLater();
        if (!m_busy->isCurrent(gen))
            return;
        m_busy->finish(gen);
        const BuildResult r = watcher->result();
        if (!r.built.data) {
            // The settings do not fit the data (e.g. a patch larger than the image): say so
            // beside the data; the runs already made keep their own data and results.
            refuse(r.error);
            return;
        }
        m_loading = false;
        m_error->setVisible(false);
        m_error->clear();
        m_read.settings = d.settings;
        m_data = r.built.data;
        m_summary = QString::fromStdString(r.built.summary);
        showBuilt();
        emit readyChanged(true);
    });
    watcher->setFuture(
        QtConcurrent::run([kind = m_kind, raw = m_raw, d, name = filesName(d.files)] {
            BuildResult r;
            try {
                r.built = kind->build(*raw, d);
            } catch (const std::exception& e) {
                r.error = QString("%1: %2").arg(name, shownMessage(e.what(), kind->settings));
            }
            return r;
        }));
}

void DataPanel::showBuilt()
{
    if (!m_namesKey.empty())
        m_namesCount->setText(tr("%1 of %2 selected").arg(tickedNames()).arg(m_names->count()));
    m_label->setText(tr("<b>%1</b><br>%2").arg(filesName(m_read.files).toHtmlEscaped(), m_summary));
    QStringList files;
    for (const std::string& f : m_read.files)
        files << QString::fromStdString(f);
    m_label->setToolTip(files.join("\n"));
}

} // namespace svi::ui
