#pragma once
// The status bar's left and right ends: what the window is busy with (with Cancel), its latest
// message, and how fast the runs go. The message is a widget of its own between the two, elided
// to the room they leave (its full text in its tooltip), so that a long one (an error naming a
// long path) never runs into the runs' indicator; the window shows its messages here rather
// than as the status bar's temporary message, which Qt paints over the bar unclipped. The window's
// own background work (reading and building its data, preparing a session's) is shown one piece at
// a time: start() supersedes whatever was going and returns its generation, and a result whose
// generation is no longer current is stale and dropped. With no such work, the indicator shows a
// run's full pass, which Cancel skips. Work that reads files gives its LoadControl: the bar then
// shows the share of the bytes read, and Cancel stops the reader at its next block
// (core/io/load_control.h). GUI thread only.

#include "core/io/load_control.h"

#include <QObject>
#include <memory>

class QLabel;
class QProgressBar;
class QPushButton;
class QStatusBar;
class QTimer;

namespace svi::ui {

class ElidedLabel;
class RunManager;

class BusyIndicator : public QObject
{
    Q_OBJECT
public:
    // Adds its widgets to `bar`; `runs` and `bar` outlive it.
    BusyIndicator(RunManager* runs, QStatusBar* bar, QObject* parent = nullptr);

    // Shows `text` as what the window is busy with; the work's generation. With `load`, a
    // determinate bar follows its bytes and Cancel cancels it.
    int start(const QString& text, std::shared_ptr<LoadControl> load = {});
    // False once newer work started or the work was cancelled: its result is to be dropped.
    bool isCurrent(int generation) const { return generation == m_generation; }
    // Work `generation` is over; the indicator clears unless newer work is shown.
    void finish(int generation);
    // The runs' speed, and a full pass under way when nothing else is shown.
    void refresh();
    // Shows `text` in the status bar for `timeoutMs` milliseconds (0: until the next message).
    void showMessage(const QString& text, int timeoutMs = 0);
    // The message shown; empty when none.
    QString message() const;
    // Cancel: drops the work shown (the pool thread ends on its own, its result unused), or
    // skips the full pass shown.
    void cancel();

signals:
    // The window's work was dropped by Cancel; what it had already is kept.
    void cancelled();

private:
    void show(bool on);

    RunManager* m_runs;
    QLabel* m_label = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    ElidedLabel* m_message = nullptr;
    QTimer* m_messageTimer = nullptr;
    QLabel* m_speed = nullptr;
    QTimer* m_loadTimer = nullptr;
    std::shared_ptr<LoadControl> m_load; // of the work shown
    int m_generation = 0;                // of the newest work started
    int m_shown = -1;                    // the generation shown, −1 when none
    int m_fullPassRun = 0;               // the run whose full pass is shown
};

} // namespace svi::ui
