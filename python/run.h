#pragma once
// A run from Python: the same preparation, trainer, Runner and run folder as `svi run`
// (core/io/run_pipeline.h, core/io/run_resume.h), on a worker thread while the calling thread
// waits with the GIL released, serving the snapshot callback and Ctrl-C between waits.

#include "core/io/run_pipeline.h"
#include "core/io/run_request.h"

#include <pybind11/pybind11.h>
#include <string>
#include <vector>

namespace svi::python {

namespace py = pybind11;

// Runs `p` to its budget. `out` non-empty: the run folder is written there as `svi run --out`
// writes it. `callback` (None or a callable taking the snapshot dict and the outputs dict) is
// called on the calling thread after each snapshot; a False return stops the run. The first
// KeyboardInterrupt stops it at its next step (with its final evaluation), a second skips that
// evaluation; either way the run's result is returned, with "interrupted" True. Returns a dict:
// trace (columns), summary (summary.json's object), run (run.json's object), outputs, folder,
// interrupted. An exception from the callback stops the run and is raised once it has ended.
// `ended`, when given, receives the run's summary.
py::dict runPrepared(const PreparedRun& p, const std::string& out, const py::object& callback,
                     Summary* ended = nullptr);

// `svi compare` from Python: the algorithms `picks` ("a" or "model/a"; empty: the model's
// comparison group, with its baselines when `baselines`) on the data of `request`, `repeats`
// seeds each, each run as runPrepared into out/<model>-<algorithm>[-rK] when `out` is given.
// Returns a dict: results (results.json's object), runs (each run's dict), interrupted.
py::dict compareRuns(const RunRequest& request, const std::vector<std::string>& picks,
                     bool baselines, int repeats, const std::string& out,
                     const py::object& callback);

} // namespace svi::python
