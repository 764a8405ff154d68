#pragma once
// Driving the workbench window in tests: small settings, and waiting for its data.

#include "tests/data_writers.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/run_manager.h"

#include <QSignalSpy>

namespace test_support {

// Small settings so that every run takes a fraction of a second, also under sanitizers.
inline void useSmallSettings(svi::ui::MainWindow& w)
{
    svi::ui::ParamForm* f = w.algorithmForm();
    f->setText("K", "12");
    f->setText("minibatch", "40");
    f->setText("init_items", "100");
    f->setText("init_sweeps", "3");
    f->setText("eval_items", "100");
    f->setText("eval_burnin", "2");
    f->setText("eval_kept", "2");
    w.settingsForm()->setText("patch", "6");
}

// Waits for the data being prepared; true when they are ready.
inline bool waitForData(svi::ui::MainWindow& w, int timeoutMs = 20000)
{
    QSignalSpy ready(&w, &svi::ui::MainWindow::dataReadyChanged);
    return ready.wait(timeoutMs) && ready.last().at(0).toBool();
}

// Sets a budget of `steps` steps with a snapshot every `evalEvery` seconds, starts a run and
// waits for it to finish (a minute at most); its id, or 0 when it did not start or finish.
inline int runSteps(svi::ui::MainWindow& w, int steps, const QString& evalEvery = "0.05")
{
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", QString::number(steps));
    w.budgetForm()->setText("eval_every", evalEvery);
    QSignalSpy finished(w.runs(), &svi::ui::RunManager::runFinished);
    const int id = w.startRun();
    if (id <= 0 || !finished.wait(60000))
        return 0;
    w.refreshNow();
    return id;
}

} // namespace test_support
