#pragma once
// The run part of the setup dock: the model and algorithm pickers with the algorithm's help and
// parameter form, the budget, Run and Compare, the algorithms Compare runs and how often, and
// why Run is disabled. Generated from the registry's declarations (the models that accept a data
// kind, their algorithms and parameters): nothing here knows a model. It makes the
// RunDescription the window starts. GUI thread only.

#include "core/run/run_description.h"

#include <QWidget>
#include <string>
#include <vector>

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;
class QSettings;
class QSpinBox;

namespace svi::ui {

class ParamForm;

class AlgorithmPanel : public QWidget
{
    Q_OBJECT
public:
    explicit AlgorithmPanel(QWidget* parent = nullptr);

    // The models that accept data of `kind`; keeps the current one when it fits.
    void populateModels(const DataKindSpec& kind);
    // The run of `algorithm` of the model picked on `data`, with the forms' values: the
    // parameters the algorithm shares with the one picked (K, minibatch, κ, …) as in the form.
    RunDescription specFor(const DataDescription& data, const std::string& algorithm) const;
    // The run Run starts on `data`.
    RunDescription runDescription(const DataDescription& data) const;
    // The runs Compare queues on `data`: the ticked algorithms, each `repeats` times (seeds
    // seed, seed + 1, …).
    std::vector<RunDescription> compareSpecs(const DataDescription& data) const;
    // Model, algorithm, parameters and budget of `spec`, where the pickers offer them.
    void applySpec(const RunDescription& spec);
    // Why a run on `data` (built: `built`) cannot start (the forms, the pickers, the budget, the
    // memory it would take); empty when it can.
    QString blockedReason(const DataDescription& data, const DataSet& built) const;
    // Shows `blocked` (the first reason Run is disabled; empty when it is not) and enables Run
    // and Compare to match; true when Compare may go (also some algorithm is ticked).
    bool showBlocked(const QString& blocked);

    void restoreSettings(const QSettings& s);
    void saveSettings(QSettings& s) const;

    QComboBox* modelPicker() const { return m_model; }
    QComboBox* algorithmPicker() const { return m_algorithm; }
    ParamForm* algorithmForm() const { return m_algorithmForm; }
    ParamForm* budgetForm() const { return m_budgetForm; }
    QPushButton* compareButton() const { return m_compareButton; }
    QListWidget* compareList() const { return m_compareList; }
    QSpinBox* repeatsBox() const { return m_repeats; }
    QLabel* blockedLabel() const { return m_blocked; }

signals:
    void runRequested();
    void compareRequested();
    // A picker, a form or the compare list changed: whether Run may go changed.
    void edited();

private:
    void onModelChanged();
    void onAlgorithmChanged();
    void populateCompare();

    QString m_formModel; // the model whose parameters the algorithm form shows
    std::string m_kind;  // the data kind the models were listed for; "" before any

    QComboBox* m_model = nullptr;
    QComboBox* m_algorithm = nullptr;
    QLabel* m_algorithmHelp = nullptr;
    ParamForm* m_algorithmForm = nullptr;
    ParamForm* m_budgetForm = nullptr;
    QPushButton* m_runButton = nullptr;
    QPushButton* m_compareButton = nullptr;
    QListWidget* m_compareList = nullptr;
    QSpinBox* m_repeats = nullptr;
    QLabel* m_blocked = nullptr;
};

} // namespace svi::ui
