#pragma once
// Run folders read back: what `svi run --out DIR` leaves in DIR (trace.csv, summary.json,
// run.json) and what `svi compare --out DIR` leaves (one such folder per run, named
// <model>-<algorithm>[-rK], beside results.json). For `svi plot` and anything else that draws
// or summarises finished runs.
//
// Pure functions of the files; safe to call from any thread.

#include "core/run/runner.h"

#include <QString>
#include <cstdint>
#include <string>
#include <vector>

namespace svi {

struct RunFolder
{
    QString path; // the folder
    // From summary.json, else from run.json (a run that was killed before it could write its
    // summary); empty when neither says.
    std::string model, algorithm;
    std::string label; // the registry entry's label ("MF-SSVI"); else the file's, else algorithm
    std::uint64_t seed = 0;
    bool hasSeed = false;
    // terminationName() of the run's ending and its message, from summary.json; empty when the
    // run wrote no summary.
    std::string termination, message;
    std::vector<Snapshot> trace; // trace.csv
    // Within a compare folder: this run's repeat (1-based, by seed among the runs of the same
    // model and algorithm) and how many runs that algorithm has there. 1 and 1 otherwise.
    int repeat = 1;
    int repeats = 1;
};

// True when `dir` holds a trace.csv.
bool isRunFolder(const QString& dir);

// Reads the run folder `dir`. Throws DataError naming the folder (no such folder, no trace.csv)
// or the file that cannot be read.
RunFolder readRunFolder(const QString& dir);

// The runs of the compare folder `dir`: its sub-folders that hold a trace, in the order of the
// rows of its results.json (the order Compare ran them), then by seed; sub-folders that
// results.json does not name (an interrupted compare) follow, by name. Empty when `dir` has no
// such sub-folder. Throws DataError as readRunFolder does.
std::vector<RunFolder> readCompareFolder(const QString& dir);

} // namespace svi
