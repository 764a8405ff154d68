// 'svi compare': several algorithms (a model's comparison group, a ticked subset, or entries of
// several models) on the same data, split, budget and seeds, optionally R repeats with seeds
// seed, seed + 1, …; one folder per run and the results as CSV, JSON and a LaTeX table.

#include "app/cli_parts.h"
#include "app/cli_text.h"
#include "core/io/compare_results.h"
#include "core/models/builtin.h"

#include <algorithm>
#include <cmath>
#include <omp.h>

namespace svi::cli::detail {

namespace {

// "mean ± sd"; the mean alone when there is no spread to show (one run: sd undefined), "—"
// when no run gave a finite value.
std::string meanSdText(const MeanSd& m, const char* format)
{
    if (m.n == 0)
        return "—";
    char mean[32], sd[32];
    std::snprintf(mean, sizeof mean, format, m.mean);
    if (m.n < 2 || !std::isfinite(m.sd))
        return mean;
    std::snprintf(sd, sizeof sd, "%.2g", m.sd);
    return std::string(mean) + " ± " + sd;
}

// `text` after spaces up to `width` columns (printf's %22s counts the bytes of '±').
std::string rightAligned(const std::string& text, std::size_t width)
{
    const std::size_t w = displayWidth(text);
    return std::string(w < width ? width - w : 0, ' ') + text;
}

} // namespace

int cmdCompare(const std::vector<std::string>& args)
{
    RunArgs a = parseRunArgs(
        "compare", args,
        {{"--algorithms", true, "a,b or model/a,model/b (default: the model's group)"},
         {"--repeats", true, "runs of each algorithm, with seeds seed, seed + 1, … (default 1)"},
         {"--baselines", false, "also the model's algorithms outside its group"},
         forceOption()});
    const int repeats =
        a.options.count("--repeats") ? int(parseInteger("--repeats", a.options["--repeats"])) : 1;
    if (repeats < 1 || repeats > 1000)
        throw UsageError("--repeats = " + std::to_string(repeats) + ", but must be in [1, 1000]");
    if (a.run.threads > 0)
        omp_set_num_threads(a.run.threads);
    // Under MPI every rank runs every run on its shard; the lead alone speaks and writes.
    const bool lead = ranks().rank() == 0;
    const bool quiet = a.quiet || !lead;
    const QString dir = QString::fromStdString(a.out);
    giveDefaultBudget(a.run, quiet, "svi compare", " a run");
    std::optional<OutputFolder> out; // claimed before any work (core/io/output_folder.h)
    if (lead)
        out.emplace(dir, outputRules(a));
    const auto picksFor = [&](const std::string& model, const std::string& kind) {
        std::vector<Pick> picks = picksOf(a.options["--algorithms"], model);
        if (picks.empty())
            for (const AlgorithmEntry* e :
                 builtinRegistry().comparisonGroup(model, a.options.count("--baselines"), kind))
                picks.push_back({e->model, e->algorithm});
        return picks;
    };
    // The data are shared by every run, so they are read in parts on several ranks only when
    // every run's trainer keeps to its rows; with the model left to the data, they are read
    // whole.
    std::vector<const AlgorithmEntry*> runs;
    if (!a.run.model.empty())
        for (const Pick& p : picksFor(a.run.model, a.run.data.kind))
            runs.push_back(builtinRegistry().find(p.model, p.algorithm));
    if (std::find(runs.begin(), runs.end(), nullptr) != runs.end())
        runs.clear(); // a bad pick: withAlgorithm says so once the data are read
    const PreparedRun base = prepareShared(a.run, quiet, &runs);

    std::vector<Pick> picks = picksFor(base.run.model, base.run.data.kind);
    if (picks.empty())
        throw UsageError("compare: model " + base.run.model + " has no algorithm to compare");
    std::vector<std::string> models;
    for (const Pick& p : picks)
        if (std::find(models.begin(), models.end(), p.model) == models.end())
            models.push_back(p.model);
    const std::vector<MetricSpec> metrics = builtinRegistry().metricsOf(models);
    // Every run is checked before the first starts: a bad pick fails at once, not after hours.
    std::vector<PreparedRun> prepared;
    prepared.reserve(picks.size());
    for (const Pick& p : picks)
        prepared.push_back(
            usageErrors([&] { return withAlgorithm(base, p.model, p.algorithm, a.run.params); }));

    if (out)
        out->startWriting();
    std::vector<CompareRun> results;
    bool anyFailed = false;
    const std::size_t planned = std::size_t(repeats) * picks.size();
    for (int r = 0; r < repeats && !interruptedBySignal(); ++r)
        for (std::size_t i = 0; i < picks.size() && !interruptedBySignal(); ++i) {
            PreparedRun p = prepared[i];
            p.run.seed = base.run.seed + std::uint64_t(r);
            const std::string tag = picks[i].model + "/" + picks[i].algorithm +
                                    (repeats > 1 ? " #" + std::to_string(r + 1) : "");
            const Summary s = runAndWrite(p,
                                          dir + "/" +
                                              QString::fromStdString(compareRunFolder(
                                                  picks[i].model, picks[i].algorithm, r, repeats)),
                                          quiet, tag);
            results.push_back(compareRunOf(*p.entry, p.run.seed, r, s));
            anyFailed = anyFailed || exitStatus(s) != 0;
            if (!quiet && exitStatus(s) != 0)
                std::fprintf(stderr, "%s: %s\n", tag.c_str(), cliMessage(s.message).c_str());
        }
    // Interrupted: the runs done so far (the last one cancelled) are tabulated, the rest not run.
    const bool interrupted = interruptedBySignal();
    if (interrupted && lead)
        std::fprintf(stderr, "svi compare: interrupted after %zu of %zu runs\n", results.size(),
                     planned);
    if (!lead)
        return interrupted ? 130 : anyFailed ? 3 : 0;

    const CompareTable table = aggregate(results, metrics);
    writeFileAtomically(dir + "/results.csv", compareCsv(table));
    writeFileAtomically(dir + "/results.json", compareJson(table));
    writeFileAtomically(dir + "/results.tex", compareTex(table));
    if (!quiet) {
        std::fprintf(stderr, "\n%-34s", "algorithm");
        // A column as wide as its key, and at least 22.
        std::vector<std::size_t> widths;
        for (const CompareColumn& c : table.columns) {
            widths.push_back(std::max<std::size_t>(22, displayWidth(c.metric.key)));
            std::fprintf(stderr, " %s", rightAligned(c.metric.key, widths.back()).c_str());
        }
        std::fprintf(stderr, " %18s\n", "s/step");
        Notes notes; // the caveats the rows' entries declare of their figures, once below
        for (const CompareRow& row : table.rows) {
            std::fprintf(stderr, "%-34s", (row.model + "/" + row.algorithm).c_str());
            const AlgorithmEntry* entry = builtinRegistry().find(row.model, row.algorithm);
            for (std::size_t c = 0; c < row.metrics.size(); ++c) {
                std::string caveat;
                for (const MetricSpec& m : entry ? entry->metrics : std::vector<MetricSpec>{})
                    if (m.key == table.columns[c].metric.key)
                        caveat = m.caveat;
                const MeanSd& m = row.metrics[c];
                std::fprintf(
                    stderr, " %s",
                    rightAligned(meanSdText(m, "%.4g") + (m.n > 0 ? notes.mark(caveat) : ""),
                                 widths[c])
                        .c_str());
            }
            std::fprintf(stderr, " %s\n",
                         rightAligned(meanSdText(row.secondsPerStep, "%.4g"), 18).c_str());
        }
        std::fputs(notes.lines("  ").c_str(), stderr);
        std::fprintf(stderr, "results in %s (results.csv, results.json, results.tex)\n",
                     a.out.c_str());
    }
    // 0 only when every planned run ended normally; the tables are written in every case.
    if (interrupted)
        return 130;
    return anyFailed ? 3 : 0;
}

} // namespace svi::cli::detail
