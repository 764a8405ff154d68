#pragma once
// The session file: the data the window shows and every run, each a run description in the
// one JSON form of core/io/run_json.h (with, for the record, how it ended) and the run folder
// it was saved into:
//
//   { "format": "svi-workbench-session", "version": 3,
//     "data": { "files": [...], "kind": "image", "settings": {...} },
//     "runs": [ { <an svi-run description>, "result": { "termination": "budget",
//                                                       "steps": 30, "metrics": {...} },
//                 "folder": "s.runs/1" } ] }
//
// Saving a session writes each of the window's runs as a run folder beside the file
// (<session name>.runs/<n>/, the layout `svi run --out` writes: run.json, trace.csv,
// checkpoint.bin, and summary.json for a run that had ended; a run still going is checkpointed
// at its next step boundary first), referred to by a path relative to the session file. Runs
// the window read from other folders are not part of it. Opening it shows each run's saved
// trace at once: runs that had ended stay so, runs that had not go on from their checkpoints
// (queued one after another); a run whose folder is missing or damaged runs again from the
// start, with a message. Run ▸ Re-run Session runs them all again from the start: with a step
// budget the results are identical (runs do not depend on the thread count); with a time budget
// the step count follows the machine's speed. Sessions of version 2 (no run folders) and 1
// (earlier versions of the window; their data, task and runs are mapped onto this form by
// upgradeRunJson) still open, their runs ready to Re-run.

#include "core/run/run_description.h"

#include <QJsonObject>
#include <QString>
#include <map>
#include <vector>

namespace svi::ui {

struct SessionRun
{
    RunDescription run;
    // How the saved run ended (absent for a run not finished when saved).
    QString reason;
    std::int64_t steps = 0;
    std::map<std::string, double> metrics;
    // The run folder it was saved into: relative to the session file when written, absolute
    // once read from a file (readSessionFile); empty in sessions of version 1 and 2.
    QString folder;
};

struct Session
{
    DataDescription data; // what the window showed (kind set, every setting present)
    std::vector<SessionRun> runs;
};

QJsonObject sessionToJson(const Session& session);
// Checks every field against the data kinds and the registry. Throws DataError naming the file
// and the field ("session.json: runs[2].params.K: K = 0, but must be in [1, 4096]").
Session sessionFromJson(const QJsonObject& json, const QString& file);

// Reads a session file: JSON, then sessionFromJson, with relative data paths and run folders
// made relative to the file's folder. Throws DataError naming the file ("cannot read 's.json': …",
// "s.json: not valid JSON at byte 12: …", or sessionFromJson's field message).
Session readSessionFile(const QString& path);

// Where a session file `path` keeps its runs' folders: "<folder>/<name>.runs" for
// "<folder>/<name>.json".
QString sessionRunsFolder(const QString& path);

} // namespace svi::ui
