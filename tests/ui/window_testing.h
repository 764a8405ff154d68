#pragma once
// Driving the workbench window in tests: small settings, and waiting for its data.

#include "tests/data_writers.h"
#include "ui/main_window.h"
#include "ui/param_form.h"

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

} // namespace test_support
