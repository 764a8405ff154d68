// 'svi run': the data prepared from the run's description, the trainer built and run, the
// results written. What is written comes from the run (its entry's metrics, its preview), never
// from a branch on its kind or model.

#include "app/cli_parts.h"
#include "app/cli_progress.h"
#include "app/cli_text.h"
#include "core/io/checkpoint_file.h"
#include "core/io/output_folder.h"
#include "core/io/run_resume.h"
#include "core/models/builtin.h"
#include "core/run/async_stream.h"
#include "core/run/run_checkpoint.h"

#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <numeric>
#include <omp.h>

namespace svi::cli::detail {

namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<bool> g_abort{false}; // a second signal: skip the final evaluation
LoadControl g_load;               // the command's data load, which a signal cancels

extern "C" void onInterrupt(int)
{
    g_load.cancel();
    if (g_interrupted.exchange(true))
        g_abort.store(true);
}

void catchInterrupts()
{
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
}

// With ratings read in parts a rank holds only its own users' training rows, which a user's
// recommendations leave out: each rank lists its users' and rank 0 gets them all, in user
// order. Collective on a distributed run whose data are held in parts; std::nullopt otherwise
// and when the run ended without factors.
std::optional<QByteArray> recommendationsOfParts(const PreparedRun& p, const Summary& summary,
                                                 Communicator& world)
{
    const DataSet& data = p.data.built.data;
    if (!world.distributed() || !data.counts || !data.counts->heldRows)
        return std::nullopt;
    const Preview* preview =
        summary.last && summary.last->preview ? summary.last->preview.get() : nullptr;
    const bool factors = preview && preview->factors;
    std::string mine;
    if (factors) {
        const Shard held = *data.counts->heldRows;
        std::vector<std::int64_t> users(std::size_t(held.size()));
        std::iota(users.begin(), users.end(), held.begin);
        mine = recommendationsCsv(*preview->factors, *data.counts, users, preview->factors->topN)
                   .toStdString();
    }
    const std::vector<std::string> parts = world.allGather(mine); // every rank, whatever it has
    if (!factors)
        return std::nullopt;
    QByteArray all;
    for (const std::string& part : parts) // each part starts with the header: keep the first
        all += QByteArray::fromStdString(
            all.isEmpty() ? part : part.substr(std::min(part.find('\n') + 1, part.size())));
    return all;
}

QJsonObject factsJson(const BuiltData& built)
{
    QJsonObject o;
    for (const auto& [k, v] : built.facts)
        o[QString::fromStdString(k)] = jsonNumber(v);
    return o;
}

} // namespace

PreparedRun prepareRun(const RunDescription& given, bool quiet,
                       const std::vector<const AlgorithmEntry*>* runs)
{
    // The files' bytes as they are read, and an interrupt that stops the reader at its next
    // block (core/io/load_control.h); the command's own handlers are back once the data are in.
    const auto previousInt = std::signal(SIGINT, onInterrupt);
    const auto previousTerm = std::signal(SIGTERM, onInterrupt);
    g_load.setTotal(totalBytes(given.data.files));
    std::optional<PreparedRun> p;
    {
        ProgressLine line("load", {}, !quiet, nullptr, nullptr);
        line.setActivity("loading " +
                             (given.data.files.empty() || given.data.files.front() == kDefaultImage
                                  ? std::string("the default image")
                                  : given.data.files.front()),
                         &g_load);
        LoadScope scope(g_load);
        p = usageErrors([&] { return svi::prepareRun(given, runs, &ranks()); });
    }
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    if (g_load.cancelled()) // interrupted after the last byte was read: stop all the same
        throw LoadCancelled();
    if (!quiet)
        std::fprintf(stderr, "%s\n", p->data.built.summary.c_str());
    return std::move(*p);
}

PreparedRun prepareShared(RunDescription given, bool quiet,
                          const std::vector<const AlgorithmEntry*>* runs)
{
    given.params.clear();
    return prepareRun(given, quiet, runs);
}

std::unique_ptr<Trainer> buildTrainer(const PreparedRun& p)
{
    return usageErrors([&] { return buildRun(*p.entry, p.data.built.data, p.run).trainer; });
}

bool interruptedBySignal()
{
    // Under MPI the lead's answer is every rank's, so that all go on or stop together.
    std::string agreed(1, g_interrupted.load() ? '1' : '0');
    ranks().broadcast(agreed);
    return agreed == "1";
}

int exitStatus(const Summary& summary)
{
    switch (summary.reason) {
    case TerminationReason::Converged:
    case TerminationReason::EndOfData:
    case TerminationReason::BudgetReached:
    case TerminationReason::Cancelled:
        return 0;
    case TerminationReason::InvalidInput:
        return 2;
    case TerminationReason::Diverged:
    case TerminationReason::Failed:
        return 3;
    }
    return 3;
}

namespace {
Communicator* g_ranks = &localCommunicator();
} // namespace

Communicator& ranks()
{
    return *g_ranks;
}

void setRanks(Communicator& world)
{
    g_ranks = &world;
}

CheckpointIdentity identityOf(const PreparedRun& p)
{
    return checkpointIdentity(p.run);
}

namespace {

Summary runAndWriteImpl(const PreparedRun& p, const QString& dir, bool quiet,
                        const std::string& tag, std::vector<Snapshot>* traceOut, bool resume,
                        OutputFolder* claimed)
{
    // On several ranks every rank runs the same loop on its shard; rank 0 alone speaks and
    // writes.
    Communicator& world = ranks();
    const bool lead = world.rank() == 0;
    quiet = quiet || !lead;
    if (lead && !claimed)
        makeFolder(dir);
    // One signal ends the run at its next step boundary; a second skips the final evaluation
    // too (not on several ranks, whose final evaluation is collective: all or none).
    catchInterrupts();
    const std::vector<MemoryTerm> need = runMemory(*p.entry, p.data.built.data, p.run.params);
    const RunOptions ro = runOptionsFor(*p.entry, p.data.built.data, p.run);
    const std::atomic<bool>* abort = world.distributed() ? nullptr : &g_abort;
    ProgressLine line(tag, ro, !quiet, &g_interrupted, abort);
    line.setActivity("building " + p.entry->label);
    BuiltRun built = usageErrors([&] {
        try {
            return buildRun(*p.entry, p.data.built.data, p.run, resume ? dir : QString());
        } catch (const DataError& e) {
            throw UsageError(e.what());
        }
    });
    Trainer& trainer = *built.trainer;
    if (world.distributed() && !trainer.distributes())
        throw UsageError(p.entry->label + " (" + p.run.model + "/" + p.run.algorithm +
                         ") does not run on several ranks: run it on one");
    // An asynchronous stream (core/run/async_stream.h): the ranks exchange changes with rank 0
    // alone, which keeps the posterior in a second trainer and runs the run itself without a
    // collective; the others only stream.
    const auto* staged = dynamic_cast<const StagedTrainer*>(&trainer);
    const bool async = world.distributed() && staged && staged->asynchronous();
    if (async && resume)
        throw UsageError("an asynchronous stream cannot be resumed: its ranks' positions are "
                         "not in the checkpoint");
    if (!trainer.resumable() && resume)
        throw UsageError("this run reads its data as a stream that cannot be rewound (out of "
                         "core): it cannot be resumed");
    if (async && !lead) {
        const AsyncRankTimes times = AsyncStream::work(trainer, world);
        Summary summary;
        summary.reason = TerminationReason::EndOfData;
        summary.steps = times.minibatches;
        return summary;
    }
    std::unique_ptr<AsyncStream> stream;
    if (async)
        stream = std::make_unique<AsyncStream>(
            world, trainer, buildRun(*p.entry, p.data.built.data, p.run, QString()).trainer);
    else
        trainer.setCommunicator(world);
    Checkpoints checkpoints;
    // A checkpoint would hold rank 0's part of an asynchronous stream only, and could not
    // rewind a stream read out of core.
    checkpoints.atEnd = !async && trainer.resumable();
    if (built.resumed)
        checkpoints.resumeFrom = built.resumed->progress;
    if (!lead) { // the lead's checkpoints are collective-free: nothing to save here
        Summary summary = Runner::runBlocking(trainer, ro, {}, &g_interrupted, checkpoints);
        recommendationsOfParts(p, summary, world);
        return summary;
    }
    // The folder as the run starts (its description, an image task's images, the trace it goes
    // on from), then as it ends: one writer, the window's too (core/io/run_resume.h).
    const QString checkpointPath = dir + "/" + kCheckpointFile;
    RunFolderContents folder;
    folder.run = p.run;
    folder.label = p.entry->label;
    folder.data = &p.data.built.data;
    if (built.resumed) {
        folder.trace = std::move(built.resumed->trace);
        folder.checkpointFile = checkpointPath;
    }
    if (claimed)
        claimed->startWriting();
    writeRunFolder(dir, folder);
    std::vector<Snapshot>& trace = folder.trace;

    // The trace is on disk as the run goes (rewritten whole, atomically, at most every second
    // and at each checkpoint), so that the window can chart a run still being written and a
    // killed run leaves what it had.
    QElapsedTimer sinceTrace;
    sinceTrace.start();
    const auto writeTrace = [&] {
        writeFileAtomically(dir + "/" + kTraceFile, traceCsv(trace, metricKeys(trace)));
        sinceTrace.restart();
    };
    checkpoints.save = [&](const RunProgress& progress, Trainer& t) {
        if (async || !t.resumable())
            return; // rank 0's part of the stream only; a stream that cannot be rewound
        // Without --checkpoint-every, only a run stopped by a signal leaves a checkpoint.
        if (p.run.checkpointEvery <= 0 && !g_interrupted.load())
            return;
        writeTrace();
        writeCheckpointFile(checkpointPath, checkpointState(identityOf(p), progress, t));
        folder.checkpointFile = checkpointPath;
    };
    if (built.resumed && !quiet)
        std::fprintf(stderr, "resuming at step %lld (%.1f training seconds)\n",
                     (long long)built.resumed->progress.step, built.resumed->progress.trainSeconds);
    auto onSnapshot = [&](const Snapshot& s) {
        appendSnapshot(trace, s);
        if (sinceTrace.elapsed() >= 1000)
            writeTrace();
        if (!quiet) {
            // The entry's compared metrics, as declared.
            std::string metrics;
            int shown = 0;
            for (const MetricSpec& m : p.entry->metrics)
                if (const auto it = s.metrics.find(m.key);
                    m.compared && it != s.metrics.end() && shown < 3) {
                    char buf[120];
                    std::snprintf(buf, sizeof buf, "  %s %.4g", m.key.c_str(), it->second);
                    metrics += buf;
                    ++shown;
                }
            line.snapshot(s, metrics);
        }
        return CallbackResult::Continue;
    };
    line.runStarted();
    Summary summary = Runner::runBlocking(
        trainer, ro, onSnapshot, RunControl{&g_interrupted, abort, line.phase()}, checkpoints);
    QJsonArray waitShares;
    if (stream) {
        stream->stop(); // the others stop at their next exchange
        for (const AsyncRankTimes& t : stream->times())
            waitShares.append(QJsonObject{{"wait_share", t.waitShare()},
                                          {"busy_seconds", t.busy},
                                          {"exchange_seconds", t.exchange},
                                          {"wait_seconds", t.wait},
                                          {"minibatches", double(t.minibatches)},
                                          {"items", double(t.items)}});
    }

    // Outputs are written whatever the ending, so that nothing computed is lost: what every
    // front end writes of a run, then what this one measured.
    folder.summary = summary;
    if (summary.last)
        folder.preview = summary.last->preview;
    folder.recommendations =
        recommendationsOfParts(p, summary, async ? localCommunicator() : world);
    folder.measured = {
        {"data_summary", QString::fromStdString(p.data.built.summary)},
        {"facts", factsJson(p.data.built)},
        {"threads", omp_get_max_threads()},
        {"ranks", world.size()},
        {"peak_rss_mb", double(peakResidentBytes()) / 1e6},
        {"memory_estimate_mb", totalBytes(need) / 1e6},
        {"bytes_sent_per_step",
         jsonNumber(summary.steps > 0 ? double(world.bytesSent()) / double(summary.steps)
                                      : std::nan(""))},
    };
    if (async) // each rank's time fitting and waiting on the exchange, rank 0 first
        folder.measured.insert("async_ranks", waitShares);
    writeRunFolder(dir, folder);
    if (traceOut)
        *traceOut = std::move(trace);
    return summary;
}

} // namespace

Summary runAndWrite(const PreparedRun& p, const QString& dir, bool quiet, const std::string& tag,
                    std::vector<Snapshot>* traceOut, OutputFolder* claimed)
{
    return runAndWriteImpl(p, dir, quiet, tag, traceOut, false, claimed);
}

Summary resumeAndWrite(const PreparedRun& p, const QString& dir, bool quiet, const std::string& tag,
                       OutputFolder* claimed)
{
    return runAndWriteImpl(p, dir, quiet, tag, nullptr, true, claimed);
}

void giveDefaultBudget(RunDescription& run, bool quiet, const char* command, const char* each)
{
    if (run.hasBudget())
        return;
    run.seconds = kDefaultBudgetSeconds;
    if (!quiet)
        std::fprintf(stderr,
                     "%s: %g training seconds%s, the default budget (--seconds, --wall-seconds or "
                     "--steps set another)\n",
                     command, kDefaultBudgetSeconds, each);
}

CommandOption forceOption()
{
    return {"--force", false,
            "replace what an earlier run or comparison left in --out (a folder svi did not "
            "write is never cleared)"};
}

OutputFolder::Rules outputRules(const RunArgs& a, const QString* resumed)
{
    OutputFolder::Rules rules;
    rules.force = a.options.count("--force") > 0;
    if (resumed) {
        rules.sameRun = readRunFile((*resumed + "/" + kRunJsonFile).toStdString());
        rules.hint = "resume it where it was written";
    } else {
        rules.hint = "choose another --out, or give --force to replace it";
    }
    return rules;
}

namespace {

// `svi run --resume DIR [flags]`: the run of DIR/run.json, with the run settings the flags
// give (a longer budget, other threads); the rest of the run cannot change. Returns the
// arguments of the run with DIR as its output folder.
RunArgs resumeArgs(const std::vector<std::string>& args, std::string& dir)
{
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--resume") {
            if (i + 1 >= args.size())
                throw UsageError("--resume needs the folder of the run to resume");
            dir = args[++i];
        } else if (args[i] == "--out" || args[i] == "--config") {
            throw UsageError(args[i] + " cannot be given with --resume: the run is that of " +
                             "the folder's run.json, and it goes on writing there");
        } else {
            rest.push_back(args[i]);
        }
    }
    const std::string config = dir + "/" + kRunJsonFile;
    if (!QFileInfo(QString::fromStdString(config)).isFile())
        throw UsageError("cannot resume: '" + config + "' does not exist (was '" + dir +
                         "' written by svi run?)");
    std::vector<std::string> all = {"--config", config, "--out", dir};
    all.insert(all.end(), rest.begin(), rest.end());
    RunArgs a = parseRunArgs("run", all);
    RunDescription saved = readRunFile(config);
    // Only the run's own settings may change; the data, model, parameters and seed are those
    // the checkpoint was written by.
    RunDescription given = a.run;
    setRunSettings(given, runSettingValues(saved));
    if (!(given == saved))
        throw UsageError("--resume goes on with the run of '" + config +
                         "': only its run settings (" + "--steps, --seconds, --threads, …) " +
                         "may be given, not its data, model, algorithm or parameters");
    return a;
}

} // namespace

int cmdRun(const std::vector<std::string>& args)
{
    std::string resumeDir;
    const bool resume = std::find(args.begin(), args.end(), "--resume") != args.end();
    RunArgs a = resume ? resumeArgs(args, resumeDir) : parseRunArgs("run", args, {forceOption()});
    if (a.run.threads > 0)
        omp_set_num_threads(a.run.threads);
    const QString dir = QString::fromStdString(a.out);
    const bool lead = ranks().rank() == 0;
    const bool quiet = a.quiet || !lead;
    giveDefaultBudget(a.run, quiet, "svi run", "");
    // The output folder is claimed before any work: a folder that cannot be written, holds
    // another run or is being written by another process is refused now, not after the load.
    std::optional<OutputFolder> out;
    if (lead)
        out.emplace(dir, outputRules(a, resume ? &dir : nullptr));
    const PreparedRun p = prepareRun(a.run, quiet);
    if (!quiet && ranks().distributed())
        std::fprintf(stderr, "on %d ranks\n", ranks().size());
    OutputFolder* claimed = out ? &*out : nullptr;
    const Summary summary = resume ? resumeAndWrite(p, dir, quiet, p.run.algorithm, claimed)
                                   : runAndWrite(p, dir, quiet, p.run.algorithm, nullptr, claimed);
    if (!quiet) {
        std::fprintf(stderr, "%s — %s (%.1f s of wall time, %.0f %% evaluating)\n",
                     terminationName(summary.reason), cliMessage(summary.message).c_str(),
                     summary.wallSeconds, 100 * summary.evalShare());
        // The entry's metrics as declared, each caveat once below the figures it marks.
        Notes notes;
        if (summary.last)
            for (const MetricSpec& m : p.entry->metrics)
                if (const auto it = summary.last->metrics.find(m.key);
                    it != summary.last->metrics.end())
                    std::fprintf(stderr, "  %s%.4f%s%s\n", padded(m.key, 29, 1).c_str(), it->second,
                                 m.unit.empty() ? "" : (" " + m.unit).c_str(),
                                 notes.mark(m.caveat).c_str());
        std::fputs(notes.lines("  ").c_str(), stderr);
        std::fprintf(stderr, "results in %s\n", a.out.c_str());
    }
    if (exitStatus(summary) != 0 && lead)
        std::fprintf(stderr, "svi: error: %s\n", cliMessage(summary.message).c_str());
    return exitStatus(summary);
}

} // namespace svi::cli::detail
