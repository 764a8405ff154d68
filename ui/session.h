#pragma once
// The session file: the data source, the task, and every run with its parameters, seed and
// budget (and, for the record, how it ended), as JSON. File → Open reads it back and can run
// the same runs again: with a step budget the results are identical (runs do not depend on the
// thread count); with a time budget the step count follows the machine's speed.

#include "ui/run_manager.h"

#include <QJsonObject>
#include <QString>
#include <vector>

namespace svi::ui {

struct SessionRun
{
    RunSpec spec;
    DataSource source;
    // How the saved run ended (absent for a run not finished when saved).
    QString reason;
    std::int64_t steps = 0;
    std::map<std::string, double> metrics;
};

struct Session
{
    DataSource source; // what the window showed
    std::vector<SessionRun> runs;
};

QJsonObject sessionToJson(const Session& session);
// Checks every field against the registry and the task's rules. Throws DataError naming the
// file and the field ("session.json: runs[2].params: K = 0, but must be in [1, 4096]").
Session sessionFromJson(const QJsonObject& json, const QString& file);

// Reads a session file: JSON, then sessionFromJson, with relative data paths made relative to
// the file's folder. Throws DataError naming the file ("cannot read 's.json': …", "s.json:
// not valid JSON at byte 12: …", or sessionFromJson's field message).
Session readSessionFile(const QString& path);

} // namespace svi::ui
