#include "ui/quit_guard.h"

#include <QCoreApplication>
#include <QMessageBox>
#include <QPushButton>

namespace svi::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("QuitGuard", text);
}

// "1 run" / "3 runs" (no translation files are loaded, so %n plurals would read "run(s)").
QString runs(int n)
{
    return n == 1 ? tr("1 run") : tr("%1 runs").arg(n);
}

} // namespace

QuitChoice askBeforeQuitting(QWidget* parent, const QuitState& state)
{
    if (!state.needsAsking())
        return QuitChoice::Quit;
    const int active = int(state.activeRuns.size());
    QMessageBox box(QMessageBox::Question, tr("Quit SVI Workbench"), QString(),
                    QMessageBox::NoButton, parent);
    box.setObjectName("quitQuestion");
    QString text;
    if (active > 0)
        text = tr("%1 still going: %2.").arg(runs(active), state.activeRuns.join(", "));
    if (state.unsavedRuns > 0)
        text += (text.isEmpty() ? QString() : QString(" ")) +
                (state.unsavedRuns == 1
                     ? tr("1 run of this session is not saved.")
                     : tr("%1 of this session are not saved.").arg(runs(state.unsavedRuns)));
    box.setText(text);
    QString info;
    if (active > 0)
        info = tr("Quitting stops the runs now, without their final full pass. ");
    if (state.unsavedRuns > 0)
        info += tr("A saved session opens again with every run's data, settings, seed and budget, "
                   "and the results it had; Re-run Session runs them again.");
    box.setInformativeText(info.trimmed());

    QPushButton* save = nullptr;
    if (state.unsavedRuns > 0) {
        save = box.addButton(tr("Save Session and Quit…"), QMessageBox::AcceptRole);
        save->setObjectName("quitSave");
    }
    QPushButton* quit =
        box.addButton(active > 0 ? tr("Stop Runs and Quit") : tr("Quit Without Saving"),
                      QMessageBox::DestructiveRole);
    quit->setObjectName(active > 0 ? "quitStop" : "quitDiscard");
    QPushButton* stay =
        box.addButton(active > 0 ? tr("Continue") : tr("Cancel"), QMessageBox::RejectRole);
    stay->setObjectName("quitContinue");
    box.setDefaultButton(stay);
    box.setEscapeButton(stay);
    box.exec();
    if (save && box.clickedButton() == save)
        return QuitChoice::SaveAndQuit;
    if (box.clickedButton() == quit)
        return QuitChoice::Quit;
    return QuitChoice::Stay;
}

} // namespace svi::ui
