// 'svi run': the data prepared from a RunConfig, the trainer built and run, the results written.

#include "app/cli_parts.h"

namespace svi::cli::detail {

std::atomic<bool> g_interrupted{false};

extern "C" void onInterrupt(int)
{
    g_interrupted.store(true);
}

// Resolves the algorithm and its parameters against the registry.
// `skipUndeclared` drops --set keys the algorithm does not declare (bench runs several
// algorithms with one set of flags); otherwise they are an error.
void resolveAlgorithm(const RunConfig& c, const std::string& algorithm, Prepared& p,
                      bool skipUndeclared)
{
    const Registry& registry = Registry::builtin();
    p.entry = registry.find(c.model, algorithm);
    if (!p.entry) {
        std::string known;
        for (const auto& e : registry.entries())
            if (e.model == c.model)
                known += (known.empty() ? "" : ", ") + e.algorithm;
        if (known.empty())
            throw UsageError("--model = " + c.model + ", but no such model (see svi list)");
        throw UsageError("--algorithm = " + algorithm + ", but model " + c.model +
                         " has: " + known);
    }
    ParamValues given;
    for (const auto& [key, text] : c.sets) {
        const ParamSpec* spec = nullptr;
        for (const ParamSpec& ps : p.entry->params)
            if (ps.key == key)
                spec = &ps;
        if (!spec && skipUndeclared)
            continue;
        if (!spec) {
            std::string known;
            for (const ParamSpec& ps : p.entry->params)
                known += (known.empty() ? "" : ", ") + ps.key;
            throw UsageError("unknown parameter '" + key + "' for " + algorithm +
                             " (known: " + known + ")");
        }
        auto parsed = parseParam(*spec, text);
        if (auto* e = std::get_if<ParamError>(&parsed))
            throw UsageError(e->message);
        given[key] = std::get<ParamValue>(parsed);
    }
    auto resolved = resolveParams(p.entry->params, given);
    if (auto* e = std::get_if<ParamError>(&resolved))
        throw UsageError(e->message);
    p.params = std::get<ParamValues>(resolved);
}

// Reads the table(s) or draws synthetic data, then selects, transforms and splits.
void loadTableData(const RunConfig& c, Prepared& p)
{
    TableOptions& t = p.table;
    for (const QString& n : QString::fromStdString(c.channels).split(',', Qt::SkipEmptyParts))
        t.channels.push_back(n.trimmed().toStdString());
    t.arcsinhCofactor = c.arcsinh.value_or(0.0);
    t.standardise = c.standardise;
    t.subsample = c.subsample;
    t.heldOut = c.heldout;
    t.split = c.split == "rows" ? HeldOutSplit::Rows : HeldOutSplit::Entries;
    t.seed = c.seed;
    if (auto problem = t.validate())
        throw UsageError("--" + *problem);
    if (c.files.front() == kSynthetic) {
        BpfaSyntheticOptions so;
        so.N = c.synthRows;
        so.D = int(c.synthCols);
        so.K = int(c.synthK);
        so.loadingVariance = c.synthLoadingVar;
        so.heldOut = 0.0; // split below, like any table, so that rows can be held out too
        so.seed = c.seed;
        Table table;
        try {
            const DenseDataPtr drawn = makeBpfaSynthetic(so).data; // standardised as a whole
            table.values = drawn->values;
            for (int d = 0; d < drawn->cols(); ++d)
                table.columns.push_back(std::string("y").append(std::to_string(d + 1)));
            table.markers.assign(table.columns.size(), std::string());
            table.source = drawn->source;
            TableOptions split = t;
            split.standardise = false;
            split.arcsinhCofactor = 0.0;
            p.data = makeTableData(table, split);
        } catch (const std::invalid_argument& e) {
            throw UsageError(e.what());
        }
        p.source = table.source;
        return;
    }
    TableReadOptions ro;
    ro.transpose = c.transpose;
    Table table = loadTable(c.files, ro);
    if (c.tile > 0)
        table = tiledRows(table, c.tile);
    if (!c.exclude.empty()) {
        std::vector<std::string> drop;
        for (const QString& n : QString::fromStdString(c.exclude).split(',', Qt::SkipEmptyParts))
            drop.push_back(n.trimmed().toStdString());
        std::string unknown;
        const auto dropped = selectColumns(table, drop, &unknown);
        if (!dropped)
            throw UsageError("--exclude: no channel or marker named '" + unknown + "' in '" +
                             table.source + "'");
        const std::vector<std::string> kept = t.channels;
        std::vector<int> from;
        if (!kept.empty()) {
            const auto picked = selectColumns(table, kept, &unknown);
            if (!picked)
                throw UsageError("--channels: no channel or marker named '" + unknown + "' in '" +
                                 table.source + "'");
            from = *picked;
        } else {
            for (int col = 0; col < table.cols(); ++col)
                from.push_back(col);
        }
        t.channels.clear();
        for (int col : from)
            if (std::find(dropped->begin(), dropped->end(), col) == dropped->end())
                t.channels.push_back(table.columns[std::size_t(col)]);
    }
    p.source = table.source;
    if (!c.arcsinh)
        t.arcsinhCofactor = table.suggestedArcsinh;
    try {
        p.data = makeTableData(table, t);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

// Reads the corpus and splits it for document completion.
Corpus readCorpus(const RunConfig& c)
{
    CorpusReadOptions ro;
    ro.tokenizer = c.tokenizer;
    ro.subset = c.subset;
    ro.vocabulary = c.vocabulary;
    if (auto problem = ro.validate())
        throw UsageError("--" + *problem);
    return loadCorpus(c.files, ro);
}

CorpusOptions corpusOptions(const RunConfig& c)
{
    CorpusOptions o;
    o.heldOut = c.heldout;
    o.seed = c.seed;
    o.maxDocuments = c.maxDocuments;
    if (auto problem = o.validate())
        throw UsageError("--" + *problem);
    return o;
}

void loadCorpusData(const RunConfig& c, Prepared& p)
{
    const Corpus corpus = readCorpus(c);
    const CorpusOptions o = corpusOptions(c);
    if (!c.quiet) {
        const CorpusStats s = corpus.stats();
        std::fprintf(stderr, "%lld documents, %lld words in the vocabulary, %lld tokens\n",
                     (long long)s.documents, (long long)s.vocabulary, (long long)s.tokens);
    }
    p.source = corpus.source;
    try {
        p.counts = makeCorpusData(corpus, o);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

RatingsOptions ratingsOptions(const RunConfig& c)
{
    RatingsOptions o;
    o.testFraction = c.heldout;
    o.validationFraction = c.validation;
    o.binarize = c.binarize;
    o.seed = c.seed;
    if (auto problem = o.validate())
        throw UsageError("--" + *problem);
    return o;
}

void loadRatingsData(const RunConfig& c, Prepared& p)
{
    const RatingsOptions o = ratingsOptions(c);
    const Ratings ratings = loadRatings(c.files.front(), c.items);
    p.source = ratings.source;
    try {
        p.counts = makeRatingsData(ratings, o, &p.ratingsSplit);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    if (!c.quiet) {
        const RatingsSplitStats& s = p.ratingsSplit;
        std::fprintf(
            stderr,
            "%lld users, %lld items; %lld training, %lld test and %lld validation ratings\n",
            (long long)s.users, (long long)s.items, (long long)s.train, (long long)s.test,
            (long long)s.validation);
    }
}

QJsonObject ratingsSplitJson(const RatingsSplitStats& s)
{
    return {{"users", qint64(s.users)},
            {"items", qint64(s.items)},
            {"train", qint64(s.train)},
            {"test", qint64(s.test)},
            {"validation", qint64(s.validation)},
            {"dropped_below_threshold", qint64(s.droppedBelowThreshold)},
            {"users_without_test", qint64(s.usersWithoutTest)},
            {"returned_to_training", qint64(s.returnedToTraining)}};
}

// user_factors.tsv / item_factors.tsv: the file's id, then the K expected factors; and
// recommendations.csv: every user's top n items not rated in training.
void writeRecommenderOutputs(const QString& dir, const CountData& data, const RatingFactors& f,
                             int n)
{
    auto factorsTsv = [](const Eigen::MatrixXf& m, const std::vector<std::int64_t>& ids) {
        QByteArray out;
        for (Eigen::Index r = 0; r < m.rows(); ++r) {
            out +=
                QByteArray::number(std::size_t(r) < ids.size() ? ids[std::size_t(r)] : qint64(r));
            for (Eigen::Index k = 0; k < m.cols(); ++k)
                out += '\t' + QByteArray::number(m(r, k), 'g', 7);
            out += '\n';
        }
        return out;
    };
    writeFileAtomically(dir + "/user_factors.tsv", factorsTsv(f.users, data.rowIds));
    writeFileAtomically(dir + "/item_factors.tsv", factorsTsv(f.items, data.columnIds));
    std::vector<std::int64_t> users(std::size_t(data.rows()));
    std::iota(users.begin(), users.end(), std::int64_t(0));
    writeFileAtomically(dir + "/recommendations.csv", recommendationsCsv(f, data, users, n));
}

// Loads the data and prepares the task's data set (held once, shared by every trainer):
// an image cut into patches, or a table split for held-out scoring.
void loadTaskData(const RunConfig& c, Prepared& p)
{
    if (!c.quiet)
        std::fprintf(stderr, "loading %s …\n",
                     c.files.front() == kDefaultImage ? "the default image"
                                                      : c.files.front().c_str());
    if (c.task == "heldout")
        return loadTableData(c, p);
    if (c.task == "completion")
        return loadCorpusData(c, p);
    if (c.task == "recommend")
        return loadRatingsData(c, p);
    p.task.missing = c.missing;
    p.task.noise = c.noise;
    p.task.patch = p.params.count("patch") ? int(getInt(p.params, "patch")) : 8;
    p.task.seed = c.seed;
    if (auto problem = p.task.validate())
        throw UsageError("--" + *problem);
    const std::string& file = c.files.front();
    const Eigen::ArrayXXf image = loadGrayImage(file);
    p.source = file == kDefaultImage ? "default image" : file;
    try {
        p.data = makeInpaintingData(image, p.task, p.source);
    } catch (const std::invalid_argument& e) {
        throw UsageError(file + ": " + e.what());
    }
}

std::unique_ptr<Trainer> buildTrainer(const RunConfig& c, const Prepared& p)
{
    try {
        if (!c.quiet && p.image())
            std::fprintf(stderr, "%lld patches of %d×%d; building %s…\n", (long long)p.rows(),
                         p.task.patch, p.task.patch, p.entry->label.c_str());
        else if (!c.quiet)
            std::fprintf(stderr, "%lld rows × %lld columns (%lld training rows); building %s…\n",
                         (long long)p.rows(), (long long)p.cols(), (long long)p.trainingRows(),
                         p.entry->label.c_str());
        return p.entry->make(p.dataSet(), p.params, c.seed);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
}

int cmdRun(const std::vector<std::string>& args)
{
    RunConfig c = parseRun(args);
    Prepared prep;
    resolveAlgorithm(c, c.algorithm, prep);
    if (c.threads > 0)
        omp_set_num_threads(c.threads);
    const QString outDir = QString::fromStdString(c.out);
    if (!QDir().mkpath(outDir))
        throw UsageError("cannot create the output folder '" + c.out + "'");
    loadTaskData(c, prep);
    if (c.task == "heldout")
        c.arcsinh = prep.table.arcsinhCofactor; // as applied, for summary.json and run.json
    const std::unique_ptr<Trainer> trainer = buildTrainer(c, prep);
    const ParamValues& params = prep.params;
    const InpaintOptions& task = prep.task;
    const std::string& source = prep.source;

    writeFileAtomically(outDir + "/run.json",
                        QJsonDocument(configJson(c, params)).toJson(QJsonDocument::Indented));
    if (prep.image())
        saveGrayImage((outDir + "/observed.png").toStdString(), prep.data->image->corrupted);

    RunOptions ro;
    ro.maxSeconds = c.seconds;
    ro.maxSteps = c.steps;
    ro.evalEverySeconds = c.evalEvery;
    ro.fullEvalEverySeconds = c.fullEvery;
    ro.finalFullEvaluation = true;

    std::vector<Snapshot> trace;
    const bool tty = !c.quiet;
    auto onSnapshot = [&](const Snapshot& s) {
        trace.push_back(s);
        if (tty) {
            std::string line = "\r[" + c.algorithm + "] step " + std::to_string(s.step);
            char buf[160];
            std::snprintf(buf, sizeof buf, "  epoch %.2f  %.1f s  elbo %.4g", s.epochs,
                          s.trainSeconds, s.elbo);
            line += buf;
            for (const char* k : {"heldout_loglik", "mse", "psnr", "perplexity"}) {
                const auto it = s.metrics.find(k);
                if (it != s.metrics.end()) {
                    std::snprintf(buf, sizeof buf, "  %s %.4g", k, it->second);
                    line += buf;
                }
            }
            std::fprintf(stderr, "%s   ", line.c_str());
            std::fflush(stderr);
        }
        return CallbackResult::Continue;
    };
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
    const Summary summary = Runner::runBlocking(*trainer, ro, onSnapshot, &g_interrupted);
    if (tty)
        std::fprintf(stderr, "\n");

    // Outputs are written whatever the ending, so that nothing computed is lost.
    writeFileAtomically(outDir + "/trace.csv", traceCsv(trace, metricKeys(trace)));
    QJsonObject metrics;
    double elbo = std::nan("");
    if (summary.last) {
        for (const auto& [k, v] : summary.last->metrics)
            metrics[QString::fromStdString(k)] = jsonNumber(v);
        elbo = summary.last->elbo;
        if (const auto& p = summary.last->preview) {
            if (p->reconstruction)
                saveGrayImage((outDir + "/reconstruction.png").toStdString(), *p->reconstruction);
            if (p->atomWidth > 0 && p->atoms.rows() > 0)
                saveGrayImage((outDir + "/atoms.png").toStdString(),
                              tileAtoms(p->atoms, p->atomWidth));
            if (prep.data && !prep.image() && p->atoms.rows() > 0)
                writeFileAtomically(outDir + "/loadings.csv",
                                    loadingsCsv(*p, prep.data->columnNames));
            if (!p->topics.empty())
                writeFileAtomically(outDir + "/topics.csv", topicsCsv(p->topics));
            if (p->factors && prep.counts)
                writeRecommenderOutputs(
                    outDir, *prep.counts, *p->factors,
                    prep.params.count("top_n") ? int(getInt(prep.params, "top_n")) : 20);
        }
    }
    QJsonObject summaryTask = taskJson(c);
    summaryTask["seed"] = qint64(c.seed);
    if (prep.image())
        summaryTask["patch"] = task.patch;
    if (c.task == "recommend")
        summaryTask["split"] = ratingsSplitJson(prep.ratingsSplit);
    const QJsonObject summaryJson{
        {"model", QString::fromStdString(c.model)},
        {"algorithm", QString::fromStdString(c.algorithm)},
        {"data", QString::fromStdString(source)},
        {"task", summaryTask},
        {"rows", qint64(prep.rows())},
        {"cols", qint64(prep.cols())},
        {"training_rows", qint64(prep.trainingRows())},
        {"seed", qint64(c.seed)},
        {"threads", omp_get_max_threads()},
        {"steps", qint64(summary.steps)},
        {"epochs", jsonNumber(summary.epochs)},
        {"train_seconds", jsonNumber(summary.trainSeconds)},
        {"seconds_per_step",
         jsonNumber(summary.steps > 0 ? summary.trainSeconds / summary.steps : std::nan(""))},
        {"termination", terminationName(summary.reason)},
        {"message", QString::fromStdString(summary.message)},
        {"elbo", jsonNumber(elbo)},
        {"metrics", metrics},
    };
    writeFileAtomically(outDir + "/summary.json",
                        QJsonDocument(summaryJson).toJson(QJsonDocument::Indented));

    if (!c.quiet) {
        std::fprintf(stderr, "%s — %s\n", terminationName(summary.reason), summary.message.c_str());
        for (const char* k :
             {"psnr", "psnr_missing", "heldout_loglik", "heldout_loglik_total", "mse",
              "heldout_loglik_per_word", "perplexity", "rmse", "accuracy", "precision_at_20",
              "recall_at_20", "popularity_precision_at_20", "popularity_recall_at_20"})
            if (metrics.contains(k))
                std::fprintf(stderr, "  %-15s %.4f\n", k, metrics[k].toDouble());
        std::fprintf(stderr, "results in %s\n", c.out.c_str());
    }
    switch (summary.reason) {
    case TerminationReason::Converged:
    case TerminationReason::BudgetReached:
    case TerminationReason::Cancelled:
        return 0;
    case TerminationReason::InvalidInput:
        std::fprintf(stderr, "svi: error: %s\n", summary.message.c_str());
        return 2;
    case TerminationReason::Diverged:
    case TerminationReason::Failed:
        std::fprintf(stderr, "svi: error: %s\n", summary.message.c_str());
        return 3;
    }
    return 3;
}

// ---------------------------------------------------------------------------------------------
// svi bench: seconds per step, the full evaluation pass and peak memory, per algorithm.

} // namespace svi::cli::detail
