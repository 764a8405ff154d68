// 'svi bench': seconds per step, the full evaluation pass and peak memory, per algorithm, on
// one prepared data set.

#include "app/cli_parts.h"
#include "core/models/builtin.h"

#include <chrono>
#include <omp.h>
#include <sstream>

namespace svi::cli::detail {

namespace {

std::vector<std::string> splitList(const std::string& text)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string a;
    while (std::getline(ss, a, ','))
        if (!a.empty())
            out.push_back(a);
    return out;
}

} // namespace

int cmdBench(const std::vector<std::string>& args)
{
    RunArgs a = parseRunArgs("bench", args,
                             {{"--algorithms", true, "the algorithms timed (default: all)"},
                              {"--warmup", true, "steps before timing (default 3)"},
                              {"--json", false, "the figures as JSON"}});
    const bool json = a.options.count("--json") > 0;
    a.quiet = a.quiet || json;
    const int warmup =
        a.options.count("--warmup") ? int(parseInteger("--warmup", a.options["--warmup"])) : 3;
    if (warmup < 0)
        throw UsageError("--warmup = " + std::to_string(warmup) + ", but must be ≥ 0");
    if (a.run.steps == 0)
        a.run.steps = 50;
    if (a.run.threads > 0)
        omp_set_num_threads(a.run.threads);
    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point t) {
        return std::chrono::duration<double>(Clock::now() - t).count();
    };
    const auto tLoad = Clock::now();
    const PreparedRun base = prepareShared(a.run, a.quiet);
    const double loadSeconds = seconds(tLoad);
    std::vector<std::string> algorithms = splitList(a.options["--algorithms"]);
    if (algorithms.empty())
        for (const AlgorithmEntry* e : builtinRegistry().algorithms(base.run.model))
            algorithms.push_back(e->algorithm);
    const std::string source = base.data.built.data.source();
    QJsonArray rows;
    if (!json)
        std::printf("%s: %s, %d threads, %lld timed steps after %d warm-up\n"
                    "load + preparation %.3f s\n\n"
                    "%-13s %9s %11s %10s %10s %10s %9s %10s\n",
                    source.c_str(), base.data.built.summary.c_str(), omp_get_max_threads(),
                    (long long)base.run.steps, warmup, loadSeconds, "algorithm", "init s", "s/step",
                    "s/epoch", "items/s", "eval s", "full s", "peak MB");
    for (const std::string& algorithm : algorithms) {
        const PreparedRun p = usageErrors(
            [&] { return withAlgorithm(base, base.run.model, algorithm, a.run.params); });
        const auto t0 = Clock::now();
        const std::unique_ptr<Trainer> trainer = buildTrainer(p);
        const double initSeconds = seconds(t0);
        for (int i = 1; i <= warmup; ++i)
            trainer->step(i);
        const auto t1 = Clock::now();
        for (std::int64_t i = warmup + 1; i <= warmup + p.run.steps; ++i)
            trainer->step(i);
        const double perStep = seconds(t1) / double(p.run.steps);
        const auto t2 = Clock::now();
        trainer->evaluate(false);
        const double evalSeconds = seconds(t2);
        const auto t3 = Clock::now();
        trainer->evaluate(true);
        const double fullSeconds = seconds(t3);
        const double peakMb = double(peakResidentBytes()) / (1024.0 * 1024.0);
        const double itemsPerSecond = double(trainer->itemsPerStep()) / perStep;
        const double epochSeconds = double(trainer->itemCount()) / itemsPerSecond;
        if (json)
            rows.append(QJsonObject{{"algorithm", QString::fromStdString(algorithm)},
                                    {"init_seconds", initSeconds},
                                    {"seconds_per_step", perStep},
                                    {"items_per_second", itemsPerSecond},
                                    {"seconds_per_epoch", epochSeconds},
                                    {"eval_seconds", evalSeconds},
                                    {"full_eval_seconds", fullSeconds},
                                    {"peak_rss_mb", peakMb}});
        else
            std::printf("%-13s %9.3f %11.5f %10.2f %10.0f %10.3f %9.3f %10.1f\n", algorithm.c_str(),
                        initSeconds, perStep, epochSeconds, itemsPerSecond, evalSeconds,
                        fullSeconds, peakMb);
        std::fflush(stdout);
    }
    if (json)
        std::fputs(QJsonDocument(QJsonObject{{"data", QString::fromStdString(source)},
                                             {"rows", qint64(base.data.built.data.rows())},
                                             {"threads", omp_get_max_threads()},
                                             {"load_seconds", loadSeconds},
                                             {"algorithms", rows}})
                       .toJson(QJsonDocument::Indented)
                       .constData(),
                   stdout);
    else
        std::printf(
            "\neval s: one snapshot's scoring (held-out likelihood, ELBO) on eval_items;\n"
            "full s: a final evaluation (for an image, with the reconstruction of every patch);\n"
            "s/epoch: seconds of training per pass over the training rows.\n"
            "peak MB: the process's peak resident memory so far.\n");
    return 0;
}

} // namespace svi::cli::detail
