// AlgorithmPanel: the model, algorithm, parameters, budget and Compare choices, from the
// registry's declarations.

#include "ui/algorithm_panel.h"

#include "core/io/run_pipeline.h"
#include "core/models/builtin.h"
#include "ui/main_window_parts.h"
#include "ui/shown_messages.h"
#include "ui/whole_combo_box.h"

namespace svi::ui {

using namespace window_parts;

AlgorithmPanel::AlgorithmPanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* modelBox = new QGroupBox(tr("Model and algorithm"));
    auto* modelLayout = new QVBoxLayout(modelBox);
    auto* pickers = new QFormLayout;
    // Each as wide as its longest item ("Hierarchical Poisson factorization"): the setup
    // column widens to them.
    m_model = new WholeComboBox;
    m_model->setObjectName("modelPicker");
    m_algorithm = new WholeComboBox;
    m_algorithm->setObjectName("algorithmPicker");
    pickers->addRow(tr("Model"), m_model);
    pickers->addRow(tr("Algorithm"), m_algorithm);
    modelLayout->addLayout(pickers);
    m_algorithmHelp = new QLabel;
    m_algorithmHelp->setWordWrap(true);
    m_algorithmHelp->setStyleSheet("color: palette(mid)");
    modelLayout->addWidget(m_algorithmHelp);
    m_algorithmForm = new ParamForm;
    m_algorithmForm->setObjectName("algorithmForm");
    modelLayout->addWidget(m_algorithmForm);
    layout->addWidget(modelBox);
    connect(m_model, &QComboBox::currentIndexChanged, this, &AlgorithmPanel::onModelChanged);
    connect(m_algorithm, &QComboBox::currentIndexChanged, this,
            &AlgorithmPanel::onAlgorithmChanged);
    connect(m_algorithmForm, &ParamForm::edited, this, &AlgorithmPanel::edited);

    auto* budgetBox = new QGroupBox(tr("Budget and cadence"));
    auto* budgetLayout = new QVBoxLayout(budgetBox);
    m_budgetForm = new ParamForm;
    m_budgetForm->setObjectName("budgetForm");
    m_budgetForm->setSpecs(runSettings(), {"threads"}); // runs share the machine's threads
    m_budgetForm->setText("seconds", QString::number(kDefaultBudgetSeconds)); // to start with
    budgetLayout->addWidget(m_budgetForm);
    layout->addWidget(budgetBox);
    connect(m_budgetForm, &ParamForm::edited, this, &AlgorithmPanel::edited);

    m_runButton = new QPushButton(tr("Run"));
    m_runButton->setObjectName("runButton");
    m_runButton->setDefault(true);
    m_compareButton = new QPushButton(tr("Compare"));
    m_compareButton->setObjectName("compareButton");
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_runButton, 1);
    buttons->addWidget(m_compareButton, 1);
    layout->addLayout(buttons);
    connect(m_runButton, &QPushButton::clicked, this, &AlgorithmPanel::runRequested);
    connect(m_compareButton, &QPushButton::clicked, this, &AlgorithmPanel::compareRequested);
    // Compare: the model's comparison group, ticked; its baselines unticked.
    auto* compareBox = new QGroupBox(tr("Compare"));
    auto* compareLayout = new QVBoxLayout(compareBox);
    m_compareList = new QListWidget;
    m_compareList->setObjectName("compareList");
    m_compareList->setToolTip(tr("The algorithms Compare runs one after another on these data, "
                                 "with the same split, seed and budget"));
    m_compareList->setMaximumHeight(130);
    compareLayout->addWidget(m_compareList);
    auto* repeatsRow = new QFormLayout;
    m_repeats = new QSpinBox;
    m_repeats->setObjectName("repeatsBox");
    m_repeats->setRange(1, 100);
    m_repeats->setToolTip(tr("Runs of each algorithm, with seeds seed, seed + 1, …: the results "
                             "show mean ± sd"));
    repeatsRow->addRow(tr("Repeats"), m_repeats);
    compareLayout->addLayout(repeatsRow);
    layout->addWidget(compareBox);
    connect(m_compareList, &QListWidget::itemChanged, this, &AlgorithmPanel::edited);
    m_blocked = new QLabel;
    m_blocked->setObjectName("runBlocked");
    m_blocked->setWordWrap(true);
    m_blocked->setStyleSheet("color: #c0392b");
    layout->addWidget(m_blocked);
}

void AlgorithmPanel::populateModels(const DataKindSpec& kind)
{
    m_kind = kind.key;
    const QString keep = m_model->currentData().toString();
    {
        const QSignalBlocker block(m_model);
        m_model->clear();
        for (const std::string& m : builtinRegistry().modelsFor(kind.key))
            m_model->addItem(
                QString::fromStdString(builtinRegistry().algorithms(m).front()->modelLabel),
                QString::fromStdString(m));
        int i = m_model->findData(keep);
        if (i < 0) // the model last used, when it fits these data (sgp on labelled data)
            i = m_model->findData(QSettings().value("run/model").toString());
        if (i < 0)
            i = m_model->findData(QString::fromStdString(kind.defaultModel));
        m_model->setCurrentIndex(std::max(i, 0));
    }
    onModelChanged();
}

void AlgorithmPanel::onModelChanged()
{
    const QString model = m_model->currentData().toString();
    // The algorithm picked stays only while the model does: a key two models share (BPFA's and
    // LDA's gibbs-ssvi) names two different algorithms.
    const QString keep = model == m_formModel ? m_algorithm->currentData().toString() : QString();
    // Shared keys keep their values between the algorithms of a model, not across models
    // (BPFA's K = 256 atoms is no number of topics).
    if (model != m_formModel)
        m_algorithmForm->setSpecs({});
    m_formModel = model;
    const QSignalBlocker block(m_algorithm);
    m_algorithm->clear();
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        if (QString::fromStdString(e.model) == model && (m_kind.empty() || e.fits(m_kind)))
            m_algorithm->addItem(QString::fromStdString(e.label),
                                 QString::fromStdString(e.algorithm));
    // The model's default algorithm unless the one picked is this model's (the model stayed and
    // only the data kind changed), or the one last used with this model (remembered at close)
    // fits these data.
    int pick = m_algorithm->findData(keep);
    if (pick < 0 && model == QSettings().value("run/model").toString())
        pick = m_algorithm->findData(QSettings().value("run/algorithm").toString());
    if (pick < 0)
        if (const AlgorithmEntry* d = builtinRegistry().defaultAlgorithm(model.toStdString()))
            pick = m_algorithm->findData(QString::fromStdString(d->algorithm));
    m_algorithm->setCurrentIndex(std::max(pick, 0));
    populateCompare();
    onAlgorithmChanged();
}

void AlgorithmPanel::onAlgorithmChanged()
{
    const AlgorithmEntry* e =
        builtinRegistry().find(m_model->currentData().toString().toStdString(),
                               m_algorithm->currentData().toString().toStdString());
    if (!e) {
        m_algorithmForm->setSpecs({});
        m_algorithmHelp->clear();
        emit edited();
        return;
    }
    m_algorithmHelp->setText(QString::fromStdString(e->help));
    m_algorithmForm->setSpecs(e->params);
    emit edited();
}

void AlgorithmPanel::populateCompare()
{
    const std::string model = m_model->currentData().toString().toStdString();
    const QSignalBlocker block(m_compareList);
    m_compareList->clear();
    for (const AlgorithmEntry* e : builtinRegistry().comparisonGroup(model, true, m_kind)) {
        auto* item = new QListWidgetItem(QString::fromStdString(e->label), m_compareList);
        item->setData(Qt::UserRole, QString::fromStdString(e->algorithm));
        item->setToolTip(QString::fromStdString(e->help));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        // The group ticked; its baselines (compareRank 0) when the user asks.
        item->setCheckState(e->compareRank > 0 ? Qt::Checked : Qt::Unchecked);
    }
}

RunDescription AlgorithmPanel::specFor(const DataDescription& data,
                                       const std::string& algorithm) const
{
    RunDescription spec;
    spec.data = data;
    spec.model = m_model->currentData().toString().toStdString();
    spec.algorithm = algorithm;
    if (const AlgorithmEntry* e = builtinRegistry().find(spec.model, algorithm)) {
        spec.params = defaultValues(e->params);
        // Shared keys (K, minibatch, κ, τ0, …) take the form's values, so that a comparison
        // differs in the algorithm only.
        const ParamValues form = m_algorithmForm->values();
        for (auto& [k, v] : spec.params)
            if (const auto it = form.find(k); it != form.end())
                v = it->second;
    }
    setRunSettings(spec, m_budgetForm->values());
    return spec;
}

RunDescription AlgorithmPanel::runDescription(const DataDescription& data) const
{
    return specFor(data, m_algorithm->currentData().toString().toStdString());
}

std::vector<RunDescription> AlgorithmPanel::compareSpecs(const DataDescription& data) const
{
    std::vector<RunDescription> specs;
    const int repeats = m_repeats->value();
    for (int r = 0; r < repeats; ++r)
        for (int i = 0; i < m_compareList->count(); ++i) {
            const QListWidgetItem* item = m_compareList->item(i);
            if (item->checkState() != Qt::Checked)
                continue;
            RunDescription spec = specFor(data, item->data(Qt::UserRole).toString().toStdString());
            spec.seed += std::uint64_t(r);
            specs.push_back(std::move(spec));
        }
    return specs;
}

void AlgorithmPanel::applySpec(const RunDescription& spec)
{
    const int m = m_model->findData(QString::fromStdString(spec.model));
    if (m >= 0)
        m_model->setCurrentIndex(m);
    const int a = m_algorithm->findData(QString::fromStdString(spec.algorithm));
    if (a >= 0)
        m_algorithm->setCurrentIndex(a);
    m_algorithmForm->setValues(spec.params);
    m_budgetForm->setValues(runSettingValues(spec));
}

QString AlgorithmPanel::blockedReason(const DataDescription& data, const DataSet& built) const
{
    if (auto e = m_algorithmForm->firstError())
        return QString::fromStdString(e->message);
    if (auto e = m_budgetForm->firstError())
        return QString::fromStdString(e->message);
    if (!m_algorithm->currentData().isValid())
        return tr("Pick an algorithm.");
    const RunDescription run = runDescription(data);
    if (auto problem = run.runOptions().validate())
        return tr("Set a budget: seconds, steps or wall seconds.");
    // A run that would not fit in the memory the machine has now is refused before it starts.
    if (const AlgorithmEntry* entry = builtinRegistry().find(run.model, run.algorithm))
        if (const std::string why = runMemoryRefusal(*entry, built, run.params); !why.empty())
            return shownMessage(why, run); // "lower Features K"
    return {};
}

bool AlgorithmPanel::showBlocked(const QString& blocked)
{
    m_blocked->setText(blocked.isEmpty() ? QString() : tr("Run is disabled: %1").arg(blocked));
    const bool ok = blocked.isEmpty();
    m_runButton->setEnabled(ok);
    bool ticked = false;
    for (int i = 0; i < m_compareList->count() && !ticked; ++i)
        ticked = m_compareList->item(i)->checkState() == Qt::Checked;
    m_compareButton->setEnabled(ok && ticked);
    m_compareButton->setToolTip(
        ticked ? tr("Run the ticked algorithms of %1 one after another on these data with the "
                    "same split, seed and budget")
                     .arg(m_model->currentText())
               : tr("Tick at least one algorithm to compare."));
    return ok && ticked;
}

void AlgorithmPanel::restoreSettings(const QSettings& s)
{
    auto restoreForm = [&s](ParamForm* form, const QString& group) {
        for (const ParamSpec& p : form->specs()) {
            const QVariant v = s.value(group + "/" + QString::fromStdString(p.key));
            if (v.isValid())
                form->setText(p.key, v.toString());
        }
    };
    restoreForm(m_budgetForm, "budget");
    const int model = m_model->findData(s.value("run/model").toString());
    if (model >= 0)
        m_model->setCurrentIndex(model);
    const int algorithm = m_algorithm->findData(s.value("run/algorithm").toString());
    if (algorithm >= 0)
        m_algorithm->setCurrentIndex(algorithm);
    if (s.value("run/model").toString() == m_model->currentData().toString())
        restoreForm(m_algorithmForm, "params");
    m_repeats->setValue(s.value("compare/repeats", 1).toInt());
}

void AlgorithmPanel::saveSettings(QSettings& s) const
{
    auto saveForm = [&s](const ParamForm* form, const QString& group) {
        s.remove(group);
        for (const ParamSpec& p : form->specs())
            if (form->editor(p.key))
                s.setValue(group + "/" + QString::fromStdString(p.key), form->text(p.key));
    };
    saveForm(m_budgetForm, "budget");
    saveForm(m_algorithmForm, "params");
    s.setValue("run/model", m_model->currentData());
    s.setValue("run/algorithm", m_algorithm->currentData());
    s.setValue("compare/repeats", m_repeats->value());
}

} // namespace svi::ui
