#include "python/run.h"

#include "core/io/compare_results.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"
#include "core/models/builtin.h"
#include "core/run/memory_need.h"
#include "python/convert.h"

#include <QElapsedTimer>
#include <QJsonDocument>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <omp.h>
#include <pybind11/stl.h>
#include <thread>

namespace svi::python {

namespace {

// What the worker hands to the calling thread.
struct Mailbox
{
    std::mutex mutex;
    std::condition_variable changed;
    std::deque<Snapshot> pending; // snapshots not yet given to the callback
    std::int64_t posted = 0, served = 0;
    bool done = false;
};

// Runs `run` on a worker thread; on the calling thread, with the GIL released between waits,
// gives each snapshot to `serve` and checks for Ctrl-C. Returns whether it was interrupted.
template <typename Run, typename Serve>
bool runOnWorker(Run&& run, Serve&& serve, std::atomic<bool>& stop, std::atomic<bool>& abort)
{
    Mailbox box;
    std::exception_ptr failed;
    std::thread worker([&] {
        try {
            // The run waits while its snapshot is served, as `svi run`'s does while it prints:
            // a callback that stops the run stops it at that snapshot, and a live plot shows
            // the fit as it is.
            run([&](const Snapshot& s) {
                std::unique_lock lock(box.mutex);
                box.pending.push_back(s);
                const std::int64_t mine = ++box.posted;
                box.changed.notify_all();
                box.changed.wait(lock, [&] { return box.served >= mine; });
            });
        } catch (...) {
            failed = std::current_exception();
        }
        const std::lock_guard lock(box.mutex);
        box.done = true;
        box.changed.notify_all();
    });
    bool interrupted = false;
    std::exception_ptr pythonError;
    // Ctrl-C: the first stops the run at its next step with its final evaluation, a second
    // skips that evaluation; the run's result is returned.
    const auto interrupt = [&] {
        (interrupted ? abort : stop).store(true);
        interrupted = true;
    };
    // Any other exception (from the callback or a signal handler) ends the run at once and is
    // raised once it has ended; the first one wins.
    const auto fail = [&](std::exception_ptr e) {
        if (!pythonError)
            pythonError = std::move(e);
        stop.store(true);
        abort.store(true);
    };
    const auto handle = [&](py::error_already_set& e) {
        if (e.matches(PyExc_KeyboardInterrupt))
            interrupt();
        else
            fail(std::make_exception_ptr(std::move(e)));
    };
    for (;;) {
        std::deque<Snapshot> ready;
        bool done = false;
        {
            const py::gil_scoped_release released;
            std::unique_lock lock(box.mutex);
            box.changed.wait_for(lock, std::chrono::milliseconds(100),
                                 [&] { return box.done || !box.pending.empty(); });
            ready.swap(box.pending);
            done = box.done;
        }
        // Each snapshot is released once served, whatever happens in between.
        struct Release
        {
            Mailbox& box;
            std::int64_t n;
            ~Release()
            {
                const std::lock_guard lock(box.mutex);
                box.served += n;
                box.changed.notify_all();
            }
        } release{box, std::int64_t(ready.size())};
        for (const Snapshot& s : ready) {
            if (pythonError)
                break;
            try {
                if (!serve(s))
                    stop.store(true);
            } catch (py::error_already_set& e) {
                handle(e);
            } catch (...) {
                fail(std::current_exception());
            }
        }
        if (done)
            break;
        if (PyErr_CheckSignals() != 0) {
            py::error_already_set e; // takes the exception the handler raised
            handle(e);
        }
    }
    {
        const py::gil_scoped_release released;
        worker.join();
    }
    if (pythonError)
        std::rethrow_exception(pythonError);
    if (failed)
        std::rethrow_exception(failed);
    return interrupted;
}

py::object jsonObject(const QJsonObject& o)
{
    return pythonOf(QJsonDocument(o));
}

} // namespace

py::dict runPrepared(const PreparedRun& p, const std::string& out, const py::object& callback,
                     Summary* ended)
{
    const QString dir = QString::fromStdString(out);
    const std::vector<MemoryTerm> need = runMemory(*p.entry, p.data.built.data, p.run.params);
    const RunOptions ro = runOptionsFor(*p.entry, p.data.built.data, p.run);
    BuiltRun built;
    {
        const py::gil_scoped_release released;
        built = buildRun(*p.entry, p.data.built.data, p.run);
    }
    Trainer& trainer = *built.trainer;
    RunFolderContents folder;
    folder.run = p.run;
    folder.label = p.entry->label;
    folder.data = &p.data.built.data;
    if (!out.empty())
        writeRunFolder(dir, folder);

    std::atomic<bool> stop{false}, abort{false};
    Summary summary;
    std::vector<Snapshot>& trace = folder.trace;
    QElapsedTimer sinceTrace;
    sinceTrace.start();
    const bool interrupted = runOnWorker(
        [&](const auto& post) {
            // OpenMP's thread count is per thread: the worker's is set here.
            if (p.run.threads > 0)
                omp_set_num_threads(p.run.threads);
            summary = Runner::runBlocking(
                trainer, ro,
                [&](const Snapshot& s) {
                    post(s);
                    return CallbackResult::Continue;
                },
                RunControl{&stop, &abort, nullptr});
        },
        [&](const Snapshot& s) {
            appendSnapshot(trace, s);
            if (!out.empty() && sinceTrace.elapsed() >= 1000) {
                writeFileAtomically(dir + "/" + kTraceFile, traceCsv(trace, metricKeys(trace)));
                sinceTrace.restart();
            }
            if (callback.is_none())
                return true;
            const py::object r =
                callback(snapshotDict(s), outputsOf(s.preview.get(), &p.data.built.data));
            return r.is_none() || r.cast<bool>();
        },
        stop, abort);

    folder.summary = summary;
    if (summary.last)
        folder.preview = summary.last->preview;
    folder.measured = {{"threads", p.run.threads > 0 ? p.run.threads : omp_get_max_threads()},
                       {"peak_rss_mb", double(peakResidentBytes()) / 1e6},
                       {"memory_estimate_mb", totalBytes(need) / 1e6},
                       {"front_end", "python"}};
    if (!out.empty())
        writeRunFolder(dir, folder);

    py::dict result;
    result["trace"] = traceColumns(trace);
    QJsonObject summaryJson = runSummaryJson(p.run, p.entry->label, summary);
    for (auto it = folder.measured.begin(); it != folder.measured.end(); ++it)
        summaryJson.insert(it.key(), it.value());
    result["summary"] = jsonObject(summaryJson);
    result["run"] = jsonObject(runToJson(p.run));
    result["outputs"] =
        outputsOf(summary.last ? summary.last->preview.get() : nullptr, &p.data.built.data);
    result["data_summary"] = p.data.built.summary;
    result["folder"] = out.empty() ? py::object(py::none()) : py::object(py::str(out));
    result["interrupted"] = interrupted;
    if (ended)
        *ended = summary;
    return result;
}

py::dict compareRuns(const RunRequest& request, const std::vector<std::string>& picks,
                     bool baselines, int repeats, const std::string& out,
                     const py::object& callback)
{
    if (repeats < 1 || repeats > 1000)
        throw std::invalid_argument("repeats = " + std::to_string(repeats) +
                                    ", but must be in [1, 1000]");
    const Registry& registry = builtinRegistry();
    // The runs: the picks named, else the model's comparison group (of the kind's default model
    // when none is named), each typed against the registry before any runs.
    RunDescription probe = describeRun(RunRequest{
        request.files, request.kind, request.model, request.algorithm, request.preset, {}});
    auto found = resolveEntry(probe, builtinDataKinds(), registry);
    if (const auto* e = std::get_if<ParamError>(&found))
        throw std::invalid_argument(plainSettingRefs(e->message));
    std::vector<const AlgorithmEntry*> entries;
    for (const std::string& item : picks) {
        const Pick pick = pickOf(item, probe.model);
        const AlgorithmEntry* e = registry.find(pick.model, pick.algorithm);
        if (!e)
            throw std::invalid_argument("algorithms: " + pick.model + "/" + pick.algorithm +
                                        " is not in the registry (svi.algorithms('" + pick.model +
                                        "'))");
        entries.push_back(e);
    }
    if (entries.empty())
        entries = registry.comparisonGroup(probe.model, baselines, probe.data.kind);
    if (entries.empty())
        throw std::invalid_argument("compare: model " + probe.model +
                                    " has no algorithm to compare");
    const RunDescription described = describeRun(request, entries);
    RunDescription given = described;
    given.params.clear();
    PreparedRun base;
    {
        const py::gil_scoped_release released;
        base = prepareRun(given, &entries);
    }
    std::vector<PreparedRun> prepared;
    std::vector<std::string> models;
    for (const AlgorithmEntry* e : entries) {
        prepared.push_back(withAlgorithm(base, e->model, e->algorithm, described.params));
        if (std::find(models.begin(), models.end(), e->model) == models.end())
            models.push_back(e->model);
    }
    std::vector<CompareRun> results;
    py::list runs;
    bool interrupted = false;
    for (int r = 0; r < repeats && !interrupted; ++r)
        for (std::size_t i = 0; i < prepared.size() && !interrupted; ++i) {
            PreparedRun p = prepared[i];
            p.run.seed = base.run.seed + std::uint64_t(r);
            const std::string folder =
                out.empty()
                    ? std::string()
                    : out + "/" + compareRunFolder(p.run.model, p.run.algorithm, r, repeats);
            Summary s;
            py::dict one = runPrepared(p, folder, callback, &s);
            interrupted = one["interrupted"].cast<bool>();
            results.push_back(compareRunOf(*p.entry, p.run.seed, r, s));
            runs.append(one);
        }
    const CompareTable t = aggregate(results, registry.metricsOf(models));
    const QByteArray table = compareJson(t);
    if (!out.empty()) {
        writeFileAtomically(QString::fromStdString(out) + "/results.csv", compareCsv(t));
        writeFileAtomically(QString::fromStdString(out) + "/results.json", table);
        writeFileAtomically(QString::fromStdString(out) + "/results.tex", compareTex(t));
    }
    py::dict result;
    result["results"] = pythonOf(QJsonDocument::fromJson(table));
    result["runs"] = runs;
    result["interrupted"] = interrupted;
    return result;
}

} // namespace svi::python
