#pragma once
// What closing the window would lose, and the one question asked about it. Closing (Ctrl+Q,
// the window's close button) while runs are going, or with runs no session file holds yet,
// asks once; nothing is exported or saved without the user's word. GUI thread only.

#include <QString>
#include <QStringList>

class QWidget;

namespace svi::ui {

struct QuitState
{
    QStringList activeRuns; // labels of the runs preparing, training, paused or stopping
    int unsavedRuns = 0;    // runs in the window since the session was last saved or opened
    bool needsAsking() const { return !activeRuns.isEmpty() || unsavedRuns > 0; }
};

enum class QuitChoice {
    Stay,       // Continue / Cancel: the window stays open, the runs go on
    Quit,       // stop the runs (if any) and quit without saving
    SaveAndQuit // save the session, then stop the runs and quit (stay if the save does not happen)
};

// Asks the question `state` calls for, in a modal message box whose buttons have the object
// names "quitSave", "quitStop" (or "quitDiscard" when no run is going) and "quitContinue";
// Escape is Stay. Returns Quit at once, without asking, when there is nothing to lose.
QuitChoice askBeforeQuitting(QWidget* parent, const QuitState& state);

} // namespace svi::ui
