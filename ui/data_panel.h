#pragma once
// The data part of the setup dock: the files open and what they hold, the "Read as" choice, the
// data kind's settings form and the names list of a setting that picks names. Reads the files
// and builds the data set off the GUI thread from copies, with the kind's declarations
// (core/run/data_kinds.h): nothing here knows a kind. A read or build superseded by a newer one
// or cancelled (BusyIndicator) is dropped; data already built stay until new ones are. GUI
// thread only.

#include "core/run/data_kinds.h"

#include <QWidget>
#include <memory>
#include <string>
#include <vector>

class QComboBox;
class QGroupBox;
class QLabel;
class QListWidget;
class QTimer;

namespace svi::ui {

class BusyIndicator;
class ParamForm;

class DataPanel : public QWidget
{
    Q_OBJECT
public:
    // `busy` outlives the panel.
    explicit DataPanel(BusyIndicator* busy, QWidget* parent = nullptr);

    // Reads `data` (its kind recognised when empty) off the GUI thread, then builds it; with
    // `fresh`, the settings the files suggest replace the form's (a file opened anew), else the
    // given settings stand (a session, a setting that changes what is read).
    void read(const DataDescription& data, bool fresh);

    // The kind read; null before any data were.
    const DataKindSpec* kind() const { return m_kind; }
    // The data as the form describes them: files, kind and every setting.
    DataDescription description() const;
    // The data set built with the settings; empty while none fits them.
    const DataSet& data() const { return m_data; }
    // Reading or building, or the settings were edited since the data were built.
    bool loading() const { return m_loading; }
    // Why there is nothing to run on (data being prepared, none open, settings that do not fit
    // the data or are invalid); empty when the data are ready.
    QString blockedReason() const;

    QLabel* label() const { return m_label; }
    QGroupBox* settingsBox() const { return m_settingsBox; }
    ParamForm* settingsForm() const { return m_settingsForm; }
    QComboBox* readAsPicker() const { return m_readAs; }
    QListWidget* namesList() const { return m_names; }

signals:
    // The Open… button.
    void openRequested();
    // A file read anew (a single file: the recent files list takes it).
    void opened(const QString& file);
    // The form and the names list now show `kind`, before the data are built.
    void kindShown(const DataKindSpec& kind);
    // The data set was built (true), or the settings cannot build one (false, said inline).
    void readyChanged(bool ready);
    // Loading started or ended, or the settings were edited: what Run needs changed.
    void stateChanged();
    // The files cannot be read; the data shown before stay.
    void readFailed(const QString& title, const QString& message);

private:
    // Stops a pending debounce; false (and no longer loading) when nothing was read or the
    // form holds a value it refuses.
    bool readyToBuild();
    void buildData();
    // After an edit of the settings: reads again when a setting that changes what is read
    // moved, else builds again.
    void onSettingsEdited();
    // The form, the names list and the label for the kind and what was read.
    void showKind(const DataKindSpec& kind, const RawData& raw, const ParamValues& settings);
    void showBuilt();
    // The settings cannot build data: says why beside the data, and that there are none.
    void refuse(const QString& why);
    int tickedNames() const;

    BusyIndicator* m_busy;

    // What was read (files, kind, the settings it was read with) and built.
    const DataKindSpec* m_kind = nullptr;
    DataDescription m_read; // settings as read and last built
    std::shared_ptr<const RawData> m_raw;
    DataSet m_data;
    QString m_summary; // what the kind says of the built data
    bool m_loading = false;
    std::vector<const DataKindSpec*> m_readers; // what "Read as" offers
    std::string m_namesKey;                     // the Names setting the list shows; empty when none

    QLabel* m_label = nullptr;
    QLabel* m_error = nullptr;
    QGroupBox* m_settingsBox = nullptr;
    QLabel* m_settingsTask = nullptr;
    QWidget* m_readAsRow = nullptr;
    QComboBox* m_readAs = nullptr;
    ParamForm* m_settingsForm = nullptr;
    QWidget* m_namesArea = nullptr;
    QLabel* m_namesCount = nullptr;
    QListWidget* m_names = nullptr;
    QTimer* m_settingsDebounce = nullptr;
};

} // namespace svi::ui
