// 'svi split' and 'svi bench': a data set's split written for other tools, and timings.

#include "app/cli_parts.h"

namespace svi::cli::detail {

long peakRssKb()
{
    struct rusage ru
    {
    };
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

// ---------------------------------------------------------------------------------------------
// svi split: a corpus's document-completion split as LDA-C files, so that other tools (the
// gensim benchmark) train and score on exactly the documents and words svi does.

void writeLdac(const QString& path, const SparseRows& rows, const std::vector<std::int64_t>& which)
{
    QByteArray out;
    for (std::int64_t r : which) {
        const auto words = rows.rowCols(r);
        const auto counts = rows.rowCounts(r);
        out += QByteArray::number(qint64(words.size()));
        for (std::size_t i = 0; i < words.size(); ++i)
            out += ' ' + QByteArray::number(words[i]) + ':' + QByteArray::number(qint64(counts[i]));
        out += '\n';
    }
    writeFileAtomically(path, out);
}

// Ratings: train.tsv, test.tsv and validation.tsv, each line "user TAB item TAB rating" with
// the file's ids (the layout of hgaprec, Gopalan et al.'s code), sorted by user then item.
void writeRatingsTsv(const QString& path, const CountData& data, const SparseRows& rows)
{
    QByteArray out;
    for (std::int64_t u = 0; u < rows.rows(); ++u) {
        const auto cols = rows.rowCols(u);
        const auto ys = rows.rowCounts(u);
        const QByteArray uid = QByteArray::number(
            std::size_t(u) < data.rowIds.size() ? data.rowIds[std::size_t(u)] : u);
        for (std::size_t n = 0; n < cols.size(); ++n) {
            const qint64 iid = std::size_t(cols[n]) < data.columnIds.size()
                                   ? data.columnIds[std::size_t(cols[n])]
                                   : cols[n];
            out += uid + '\t' + QByteArray::number(iid) + '\t' +
                   QByteArray::number(double(ys[n]), 'g', 6) + '\n';
        }
    }
    writeFileAtomically(path, out);
}

int splitRatings(const RunConfig& c)
{
    Prepared p;
    loadRatingsData(c, p);
    const CountData& data = *p.counts;
    const QString dir = QString::fromStdString(c.out);
    if (!QDir().mkpath(dir))
        throw UsageError("cannot create the output folder '" + c.out + "'");
    writeRatingsTsv(dir + "/train.tsv", data, data.train);
    writeRatingsTsv(dir + "/test.tsv", data, data.heldOut);
    writeRatingsTsv(dir + "/validation.tsv", data, data.validation);
    if (!c.quiet)
        std::fprintf(stderr, "%lld training, %lld test and %lld validation ratings → %s\n",
                     (long long)data.train.nonZeros(), (long long)data.heldOut.nonZeros(),
                     (long long)data.validation.nonZeros(), c.out.c_str());
    return 0;
}

int cmdSplit(std::vector<std::string> args)
{
    if (std::find(args.begin(), args.end(), "--steps") == args.end() &&
        std::find(args.begin(), args.end(), "--seconds") == args.end()) {
        args.push_back("--steps"); // parseRun asks for a budget; a split needs none
        args.push_back("1");
    }
    const RunConfig c = parseRun(args);
    if (c.task == "recommend")
        return splitRatings(c);
    if (c.task != "completion")
        throw UsageError(
            "split: '" + c.files.front() +
            "' is neither a corpus (a folder, a .tar(.gz), LDA-C or UCI files) nor ratings");
    Prepared p;
    loadCorpusData(c, p);
    const CountData& data = *p.counts;
    const QString dir = QString::fromStdString(c.out);
    if (!QDir().mkpath(dir))
        throw UsageError("cannot create the output folder '" + c.out + "'");
    writeLdac(dir + "/train.ldac", data.train, data.trainingRows());
    writeLdac(dir + "/test_observed.ldac", data.train, data.testRows);
    writeLdac(dir + "/test_heldout.ldac", data.heldOut, data.testRows);
    QByteArray vocab;
    for (const std::string& w : data.columnNames)
        vocab += QByteArray::fromStdString(w) + '\n';
    writeFileAtomically(dir + "/vocab.txt", vocab);
    if (!c.quiet)
        std::fprintf(stderr, "%lld training and %lld test documents, %lld words → %s\n",
                     (long long)data.trainingRowCount(), (long long)data.testRows.size(),
                     (long long)data.cols(), c.out.c_str());
    return 0;
}

int cmdBench(std::vector<std::string> args)
{
    std::vector<std::string> algorithms;
    int warmup = 3;
    bool json = false;
    bool haveSteps = false;
    std::vector<std::string> rest;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--algorithms" && i + 1 < args.size()) {
            std::stringstream ss(args[++i]);
            std::string a;
            while (std::getline(ss, a, ','))
                if (!a.empty())
                    algorithms.push_back(a);
        } else if (args[i] == "--warmup" && i + 1 < args.size()) {
            warmup = int(parseInteger("--warmup", args[++i]));
        } else if (args[i] == "--json") {
            json = true;
        } else {
            haveSteps |= args[i] == "--steps";
            rest.push_back(args[i]);
        }
    }
    if (!haveSteps) {
        rest.push_back("--steps");
        rest.push_back("50");
    }
    RunConfig c = parseRun(rest);
    c.quiet = c.quiet || json;
    if (c.steps < 1)
        throw UsageError("bench: --steps = " + std::to_string(c.steps) + ", but must be ≥ 1");
    if (warmup < 0)
        throw UsageError("--warmup = " + std::to_string(warmup) + ", but must be ≥ 0");
    if (algorithms.empty())
        for (const auto& e : Registry::builtin().entries())
            if (e.model == c.model)
                algorithms.push_back(e.algorithm);
    if (c.threads > 0)
        omp_set_num_threads(c.threads);

    using Clock = std::chrono::steady_clock;
    auto seconds = [](Clock::time_point a) {
        return std::chrono::duration<double>(Clock::now() - a).count();
    };
    Prepared base;
    resolveAlgorithm(c, algorithms.front(), base, true);
    const auto tLoad = Clock::now();
    loadTaskData(c, base);
    const double loadSeconds = seconds(tLoad);
    QJsonArray rows;
    if (!json)
        std::printf("%s: %lld items × %d, %d threads, %lld timed steps after %d warm-up\n"
                    "load + preparation %.3f s\n\n"
                    "%-13s %9s %11s %10s %10s %10s %9s %10s\n",
                    base.source.c_str(), (long long)base.rows(), int(base.cols()),
                    omp_get_max_threads(), (long long)c.steps, warmup, loadSeconds, "algorithm",
                    "init s", "s/step", "s/epoch", "items/s", "eval s", "full s", "peak MB");
    for (const std::string& algorithm : algorithms) {
        Prepared p = base;
        resolveAlgorithm(c, algorithm, p, true);
        const auto t0 = Clock::now();
        const std::unique_ptr<Trainer> trainer = buildTrainer(c, p);
        const double initSeconds = seconds(t0);
        for (int i = 1; i <= warmup; ++i)
            trainer->step(i);
        const auto t1 = Clock::now();
        for (std::int64_t i = warmup + 1; i <= warmup + c.steps; ++i)
            trainer->step(i);
        const double perStep = seconds(t1) / double(c.steps);
        const auto t2 = Clock::now();
        trainer->evaluate(false);
        const double evalSeconds = seconds(t2);
        const auto t3 = Clock::now();
        trainer->evaluate(true);
        const double fullSeconds = seconds(t3);
        const double peakMb = double(peakRssKb()) / 1024.0;
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
        std::fputs(QJsonDocument(QJsonObject{{"data", QString::fromStdString(base.source)},
                                             {"rows", qint64(base.rows())},
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
