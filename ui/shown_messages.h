#pragma once
// Messages made in core as the window shows them: each setting a message names (a reference to
// it, core/base/params.h) by the label of the form field that sets it — "Evaluation documents =
// 0, but must be ≥ 1" — never by its key or its command-line flag. Any thread.

#include "core/base/params.h"
#include "core/run/run_description.h"

#include <QString>
#include <string>
#include <vector>

namespace svi::ui {

// `message` with each setting named by its label in `specs` (by its key when not there).
QString shownMessage(const std::string& message, const std::vector<ParamSpec>& specs);
// With the settings of `run`: its data kind's, its algorithm's parameters and the run's own.
QString shownMessage(const std::string& message, const RunDescription& run);

} // namespace svi::ui
