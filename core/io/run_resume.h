#pragma once
// A run folder as a run is saved into it and goes on from it: the files a run leaves (run.json,
// trace.csv, checkpoint.bin, summary.json, the task's images and the preview's files), written
// by every front end through writeRunFolder (`svi run --out` as its run starts and ends, the
// window's Save Run and sessions), and what a resumed run starts from, read back by both
// (`svi run --resume DIR`, the window's Resume Run and sessions). The folder read as a finished
// or growing trace is core/io/run_folder.h.
//
// Pure functions of their arguments and the files; safe to call from any thread.

#include "core/data/data_set.h"
#include "core/run/run_checkpoint.h"
#include "core/run/run_description.h"
#include "core/run/runner.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// The files of a run folder.
inline constexpr const char* kRunJsonFile = "run.json";
inline constexpr const char* kTraceFile = "trace.csv";
inline constexpr const char* kSummaryFile = "summary.json";

// What summary.json says of every run, whichever front end ran it: model, algorithm, label,
// data, task (the data's kind and settings), seed, steps, epochs, train_seconds,
// wall_seconds, eval_share (the wall time's share spent evaluating), final_evaluation ("full",
// or "cheap" when it was skipped, cut short or turned off),
// seconds_per_step, termination, message, and the last snapshot's elbo and metrics (NaN as
// null). `svi run` adds what it measured (threads, ranks, bytes sent, the data's facts).
QJsonObject runSummaryJson(const RunDescription& run, const std::string& label,
                           const Summary& summary);

struct RunFolderContents
{
    RunDescription run;
    std::string label;           // the registry entry's label, for summary.json
    std::vector<Snapshot> trace; // the rows of trace.csv
    // A checkpoint file (as core/io/checkpoint_file.h writes them) to copy as checkpoint.bin;
    // empty when the run has none.
    QString checkpointFile;
    std::optional<Summary> summary; // the run's ending; absent while it goes on
    // The data the run ran on (may be null, as for a run read from a folder): an image task's
    // observed.png and mask.png are written from them, and the preview's files with them.
    const DataSet* data = nullptr;
    // The run's latest preview, written as files (writePreviewFiles); none when null.
    std::shared_ptr<const Preview> preview;
    // recommendations.csv as already listed (a distributed run's, gathered from its ranks);
    // unset, the preview's factors list them.
    std::optional<QByteArray> recommendations;
    // What the front end measured of the run, added to summary.json (svi run: threads, ranks,
    // bytes sent per step, the data's facts).
    QJsonObject measured;
};

// The files of a run's preview, written into `dir` with the data the run ran on: an image's
// reconstruction.png and atoms.png; a table's loadings.csv, covariance_model.csv and
// covariance_empirical.csv; topics.csv; weights.csv; slice.csv; a network's communities.csv and
// link_predictions.csv; ratings' user_factors.tsv and item_factors.tsv (a header user_id or
// item_id, factor_1 … factor_K, then one line per user or item: its id, its K expected
// factors) and recommendations.csv (`recommendations` when given). Every table starts with a
// header row. Only what the preview holds. Throws DataError naming the file.
void writePreviewFiles(const QString& dir, const DataSet& data, const Preview& preview,
                       const std::optional<QByteArray>& recommendations = std::nullopt);

// Writes `dir` (made when absent) as `svi run --out` leaves it: run.json, an image task's
// observed.png and mask.png, trace.csv, checkpoint.bin when there is one, the preview's files,
// and summary.json when the run has ended (with the data's source and shape when given), each
// atomically, summary.json last; a checkpoint.bin or summary.json already in `dir` that is not this
// run's is removed, so that the folder never pairs one run's files with another's. Throws DataError
// naming the file or the folder.
void writeRunFolder(const QString& dir, const RunFolderContents& contents);

// Where a resumed run starts: the checkpoint's progress (the trainer's state already read) and
// the trace up to it.
struct ResumePoint
{
    RunProgress progress;
    std::vector<Snapshot> trace; // the first progress.snapshots rows of trace.csv
};

// Reads `dir`'s checkpoint.bin into `trainer` (built from the same run description and data as
// the run that wrote it: `expected` says which run that is) and its trace.csv up to the
// checkpoint; rows written after it (a run killed between two checkpoints) are dropped. Throws
// DataError naming the file: no checkpoint, a damaged one, another run's (naming both runs), a
// checkpoint that does not fit the trainer, a trace shorter than the checkpoint follows. The
// trainer must then be discarded.
ResumePoint readResumePoint(const QString& dir, const CheckpointIdentity& expected,
                            Trainer& trainer);

} // namespace svi
