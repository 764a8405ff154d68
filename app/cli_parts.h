#pragma once
// What the commands of 'svi' (one file each: cli_<command>.cpp) share: their includes, the
// data and trainer prepared for a run, and the files a run leaves behind.

#include "app/cli_flags.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"
#include "core/run/registry.h"
#include "core/run/run_checkpoint.h"
#include "core/run/runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace svi::cli::detail {

// A run ready to go: its description resolved (every setting and parameter present), its data
// built, its registry entry.
struct PreparedRun
{
    RunDescription run;
    PreparedData data;
    const AlgorithmEntry* entry = nullptr;
};

// Prepares the data of `given` (read, completed with what the data suggest, built) and resolves
// the run against the registry. On several ranks the data are read in parts only when every
// entry of `runs` reads parts (AlgorithmEntry::readsParts); unset, the entries `given` names
// (its model's, or its one algorithm). Throws UsageError with a one-line reason.
PreparedRun prepareRun(const RunDescription& given, bool quiet,
                       const std::vector<const AlgorithmEntry*>* runs = nullptr);
// The data and task shared by several algorithms (svi compare, svi bench): `given` resolved
// without its parameters; each algorithm then takes the keys it declares (withAlgorithm).
PreparedRun prepareShared(RunDescription given, bool quiet,
                          const std::vector<const AlgorithmEntry*>* runs = nullptr);
// `prepared` for another algorithm (and its parameters, from `params` where declared), on the
// same data. Throws UsageError.
PreparedRun withAlgorithm(const PreparedRun& prepared, const std::string& model,
                          const std::string& algorithm, const ParamValues& params);
std::unique_ptr<Trainer> buildTrainer(const PreparedRun& p);

// Runs `p` to its budget (SIGINT/SIGTERM end it as cancelled, with a last checkpoint), with a
// progress line on stderr unless quiet; writes run.json first, trace.csv as the run goes,
// checkpoint.bin every p.run.checkpointEvery steps and at the end (when set), and whatever the
// ending, trace.csv, summary.json and the previews into `dir`. Returns the summary and fills
// `trace`.
Summary runAndWrite(const PreparedRun& p, const QString& dir, bool quiet, const std::string& tag,
                    std::vector<Snapshot>* trace = nullptr);
// Reads the run folder `dir`'s checkpoint (checkpoint.bin) and trace into a run of `p` and goes
// on from there, as runAndWrite does, to p's budget: the trace's rows after the checkpoint are
// replaced by the resumed run's. Throws UsageError when the checkpoint is missing, damaged, of
// another format version or of another run.
Summary resumeAndWrite(const PreparedRun& p, const QString& dir, bool quiet,
                       const std::string& tag);
// The ranks the process's runs are spread over (the local communicator unless main set the
// MPI world's).
Communicator& ranks();
void setRanks(Communicator& world);
// Which run a checkpoint of `p` belongs to.
CheckpointIdentity identityOf(const PreparedRun& p);
// True once SIGINT or SIGTERM arrived during a run of runAndWrite (the run then ends as
// cancelled): a caller with more runs to go stops too. Under MPI the lead rank's answer, on
// every rank (a collective: every rank calls it at the same point).
bool interruptedBySignal();
// The exit status for a run's ending: 0 normal, 2 bad input, 3 failed or diverged.
int exitStatus(const Summary& summary);
// Creates `dir` (and its parents); throws UsageError naming it.
void makeFolder(const QString& dir);

int cmdList(const std::vector<std::string>& args);
int cmdInfo(const std::vector<std::string>& args);
int cmdRun(const std::vector<std::string>& args);
int cmdSplit(const std::vector<std::string>& args);
int cmdBench(const std::vector<std::string>& args);
int cmdCompare(const std::vector<std::string>& args);
// Runs svi-plot (app/plot_command.h).
int cmdPlot(const std::vector<std::string>& args);

} // namespace svi::cli::detail
