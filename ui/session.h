#pragma once
// The session file: the data the window shows and every run, each a run description in the
// one JSON form of core/io/run_json.h (with, for the record, how it ended):
//
//   { "format": "svi-workbench-session", "version": 2,
//     "data": { "files": [...], "kind": "image", "settings": {...} },
//     "runs": [ { <an svi-run description>, "result": { "termination": "budget",
//                                                       "steps": 30, "metrics": {...} } } ] }
//
// File → Open reads it back and can run the same runs again: with a step budget the results
// are identical (runs do not depend on the thread count); with a time budget the step count
// follows the machine's speed. Sessions of version 1 (earlier versions of the window) still
// open: their data, task and runs are mapped onto this form by upgradeRunJson.

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

// Reads a session file: JSON, then sessionFromJson, with relative data paths made relative to
// the file's folder. Throws DataError naming the file ("cannot read 's.json': …", "s.json:
// not valid JSON at byte 12: …", or sessionFromJson's field message).
Session readSessionFile(const QString& path);

} // namespace svi::ui
