#pragma once
// Compare's results: several algorithms (of one or several models) run on the same data, split,
// seed and budget, each possibly repeated R times with different seeds, summarised as one row
// per algorithm, and written as CSV (for scripts), JSON (everything, per run too) and a LaTeX
// booktabs fragment (for a paper's \input).
//
// Non-finite values. A diverged run may report NaN (or ±inf) for a metric. Such a value is left
// out of that metric's mean and sd, and counted in its MeanSd::excluded; the run still counts
// in the row's runs and in its terminations, and the JSON keeps it (as null) among the per-run
// values. The same holds for seconds per step and steps. So n + excluded = the runs that
// reported the metric, and runs − n − excluded = those that did not report it at all.
//
// Pure functions of their arguments, no shared state: safe to call from any thread.

#include "core/base/metric_spec.h"
#include "core/run/registry.h"
#include "core/run/runner.h"

#include <QByteArray>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace svi {

// An algorithm picked for a comparison: "a" (of the comparison's model) or "m/a" (any model).
struct Pick
{
    std::string model, algorithm;
};
// The pick `item` names ("a" of `model`, or "m/a").
Pick pickOf(const std::string& item, const std::string& model);
// The picks of "a,b" or "m/a,m2/b", in order (empty items skipped).
std::vector<Pick> picksOf(const std::string& text, const std::string& model);

// The folder of one run in a compare folder: <model>-<algorithm>, and -r<repeat + 1> when the
// comparison has several repeats (what readCompareFolder reads back).
std::string compareRunFolder(const std::string& model, const std::string& algorithm, int repeat,
                             int repeats);

// One finished run, as Compare collected it.
struct CompareRun
{
    std::string model;     // "bpfa"
    std::string algorithm; // "gibbs-ssvi"
    std::string label;     // "Gibbs-SSVI"
    int repeat = 0;        // 0 … R−1
    std::uint64_t seed = 0;
    std::map<std::string, double> metrics; // final values, by MetricSpec::key
    double secondsPerStep = std::numeric_limits<double>::quiet_NaN(); // training seconds only
    std::int64_t steps = 0;
    double epochs = 0.0;
    std::string termination; // terminationName(): "budget", "diverged", …
};

// A finished run of `entry` (repeat `repeat`, seed `seed`) as Compare collects it: the last
// snapshot's metrics, training seconds per step, steps, epochs and how it ended.
CompareRun compareRunOf(const AlgorithmEntry& entry, std::uint64_t seed, int repeat,
                        const Summary& summary);

// Mean and sample standard deviation of the finite values of one quantity in one row.
struct MeanSd
{
    int n = 0;        // finite values used
    int excluded = 0; // non-finite values left out (see the header comment)
    double mean = std::numeric_limits<double>::quiet_NaN(); // NaN when n = 0
    double sd = std::numeric_limits<double>::quiet_NaN();   // divisor n − 1; NaN when n < 2
};

// One compared metric: a column of every file.
struct CompareColumn
{
    MetricSpec metric;
    // The row with the best mean by metric.higherIsBetter (the first one on a tie); −1 when no
    // row has a finite mean.
    int bestRow = -1;
};

struct CompareRow
{
    std::string model;
    std::string algorithm;
    std::string label;
    std::vector<CompareRun> runs; // this row's runs, in input order
    std::vector<MeanSd> metrics;  // parallel to CompareTable::columns
    MeanSd secondsPerStep;
    MeanSd steps;
    std::map<std::string, int> terminations; // runs per termination name
};

struct CompareTable
{
    std::vector<CompareColumn> columns; // in declaration order
    std::vector<CompareRow> rows;       // one per (model, algorithm), in first-seen order
    // The fastest row by mean seconds per step; −1 when none has one.
    int fastestRow = -1;
};

// Mean and sample sd of `values`, non-finite ones excluded and counted.
MeanSd summarize(const std::vector<double>& values);

// Groups `runs` by (model, algorithm) and summarises them. The columns are the declared
// metrics with compared == true that at least one run reports (a key declared twice counts
// once, the first declaration wins).
CompareTable aggregate(const std::vector<CompareRun>& runs, const std::vector<MetricSpec>& metrics);

// "model,algorithm,label,runs,<key>_mean,<key>_sd,…,seconds_per_step_mean,seconds_per_step_sd,
// steps_mean,terminations", one line per row; an empty cell where a value is undefined;
// terminations as "budget:2;diverged:1" (names sorted).
QByteArray compareCsv(const CompareTable& table);

// {"metrics": [{key, label, unit, direction: "higher"|"lower"}],
//  "rows": [{model, algorithm, label, runs, terminations: {name: count},
//            summary: {<key>|seconds_per_step|steps: {n, excluded, mean, sd, best}},
//            per_run: [{repeat, seed, termination, steps, epochs, seconds_per_step,
//                       metrics: {key: value}}]}]}
// Non-finite numbers are null. A seed above 2⁵³ (which a JSON number cannot hold exactly) is
// written as a decimal string.
QByteArray compareJson(const CompareTable& table);

// A booktabs tabular to \input into a paper (needs \usepackage{booktabs}): one row per
// algorithm (and a model column when the rows span several models), one column per metric and
// one for seconds per step, "mean $\pm$ sd" (the mean alone when n = 1, "--" when undefined,
// "($n=k$)" after it when fewer than the row's runs gave a finite value), the best mean of a
// column in \textbf.
// Decimals are chosen per column (4 significant digits of its largest mean); a column whose
// means are all below 10⁻³ or at least 10⁵ in magnitude is scaled by a power of ten, shown in
// its header.
QByteArray compareTex(const CompareTable& table);

// Text escaped for LaTeX's text mode: & % $ # _ { } ~ ^ \ and the Greek letters and math
// symbols that the registry's labels use (σ, λ, ′, −, …) as math.
std::string latexEscape(const std::string& text);

} // namespace svi
