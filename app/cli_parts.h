#pragma once
// What the commands of 'svi' (one file each: cli_<command>.cpp) share: their includes, the
// data and trainer prepared for a run, and the files a run leaves behind.

#include "app/cli_flags.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/output_folder.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"
#include "core/io/run_pipeline.h"
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
#include <stdexcept>
#include <string>
#include <vector>

namespace svi::cli::detail {

// svi::prepareRun (core/io/run_pipeline.h) on ranks(), saying what it loads unless quiet.
// Throws UsageError with a one-line reason.
PreparedRun prepareRun(const RunDescription& given, bool quiet,
                       const std::vector<const AlgorithmEntry*>* runs = nullptr);
// The data and task shared by several algorithms (svi compare, svi bench): `given` resolved
// without its parameters; each algorithm then takes the keys it declares (withAlgorithm).
PreparedRun prepareShared(RunDescription given, bool quiet,
                          const std::vector<const AlgorithmEntry*>* runs = nullptr);
// What f returns; core's std::invalid_argument (a setting, a parameter, an unknown model) as a
// UsageError, which the command line reports as bad usage. For svi::withAlgorithm and the like.
template <typename F> auto usageErrors(F&& f)
{
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

std::unique_ptr<Trainer> buildTrainer(const PreparedRun& p);

// Runs `p` to its budget (SIGINT/SIGTERM end it as cancelled, with a last checkpoint and the
// final evaluation; a second signal skips the evaluation), with a progress line on stderr
// unless quiet; writes run.json first, trace.csv as the run goes, checkpoint.bin every
// p.run.checkpointEvery steps and at the end (when set), and whatever the ending, trace.csv,
// summary.json and the previews into `dir`: `claimed` when the caller claimed it (its
// startWriting is called once the trainer is built), else made when absent. Returns the
// summary and fills `trace`.
Summary runAndWrite(const PreparedRun& p, const QString& dir, bool quiet, const std::string& tag,
                    std::vector<Snapshot>* trace = nullptr, OutputFolder* claimed = nullptr);
// Reads the run folder `dir`'s checkpoint (checkpoint.bin) and trace into a run of `p` and goes
// on from there, as runAndWrite does, to p's budget: the trace's rows after the checkpoint are
// replaced by the resumed run's. Throws UsageError when the checkpoint is missing, damaged, of
// another format version or of another run.
Summary resumeAndWrite(const PreparedRun& p, const QString& dir, bool quiet, const std::string& tag,
                       OutputFolder* claimed = nullptr);
// Without a budget, `run` gets the default one (kDefaultBudgetSeconds), and unless quiet the
// first line says so: "<command>: 60 training seconds<each>, the default budget (…)".
void giveDefaultBudget(RunDescription& run, bool quiet, const char* command, const char* each);
// --force of the commands that write a run or a comparison into --out.
CommandOption forceOption();
// How `a`'s --out is claimed (core/io/output_folder.h): --force, and for a run resumed in the
// folder `resumed`, its own run.json.
OutputFolder::Rules outputRules(const RunArgs& a, const QString* resumed = nullptr);
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
