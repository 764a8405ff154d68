#include "app/cli.h"

#include "app/run_config.h"
#include "core/data/corpus.h"
#include "core/data/image_task.h"
#include "core/data/io/corpus_files.h"
#include "core/data/io/data_error.h"
#include "core/data/io/data_files.h"
#include "core/data/io/fcs_file.h"
#include "core/data/io/image_file.h"
#include "core/data/io/ratings_files.h"
#include "core/data/io/run_files.h"
#include "core/data/ratings.h"
#include "core/data/table.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/run/registry.h"
#include "core/run/runner.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGuiApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>
#include <QString>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <map>
#include <numeric>
#include <omp.h>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <vector>

namespace svi::cli {
namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void onInterrupt(int)
{
    g_interrupted.store(true);
}

const char* kMainHelp = R"(svi — stochastic variational inference, headless

Usage:
  svi list [--json]                 models, algorithms and their parameters
  svi info FILE [--json] [--patch P]
                                    what a data file holds (image, FCS, CSV/TSV, corpus), or
                                    why it cannot be read
  svi run [FILE...] [options]       fit a model and write the results into --out
  svi bench [FILE] [options]        seconds per step, full-pass time and peak memory of each
                                    algorithm (run's options, plus --algorithms a,b and --json)
  svi split CORPUS... --out DIR     a corpus's document-completion split as LDA-C files
                                    (train.ldac, test_observed.ldac, test_heldout.ldac,
                                    vocab.txt), for scoring other tools on the same words;
                                    for ratings, train.tsv, test.tsv and validation.tsv
  svi help run                      all options of 'svi run'

Without FILE, 'svi run' uses the embedded default image (512×512 grey).

Example — inpaint the default image with 80 % of its pixels removed, for one minute:
  svi run --task inpaint --missing 0.8 --algorithm gibbs-ssvi --seconds 60 --out results
Example — CyTOF files, arcsinh(x/5), 5 % of the entries held out and scored:
  svi run a.fcs b.fcs --arcsinh 5 --heldout 0.05 --set K=100 --seconds 120 --out cytof
Example — HPF with 100 factors on MovieLens 100k by SVI, precision@20 against popularity:
  svi run ml-100k/u.data --model hpf --algorithm svi --set K=100 --seconds 60 --out hpf
Example — LDA with 100 topics on the 20 Newsgroups training set, headers stripped:
  svi run 20news-bydate.tar.gz --subset 20news-bydate-train --strip-headers --set K=100 \
      --seconds 60 --out news
)";

const char* kRunHelp = R"(svi run [FILE...] [options]

Data and task
  FILE                      image (PNG, JPEG, TIFF, PGM, BMP), one or more FCS files (rows
                            stacked, channels matched by name), one CSV/TSV table (.gz too),
                            'synthetic' (data drawn from the BPFA prior, paper 000 Sec. 5.1),
                            or a corpus: LDA-C (.ldac, or .dat with a vocabulary beside it),
                            UCI docword.*.txt(.gz), a folder or .tar(.gz) of text files,
                            or ratings: MovieLens u.data, ratings.dat, ratings.csv (or the
                            folder holding one); default: the embedded image
  --task T                  inpaint (images: remove pixels, optionally add noise), heldout
                            (tables: hold out entries or rows and score them) or completion
                            (corpora: score the second half of held-out documents) or
                            recommend (ratings: hold out 20 % of each user's ratings and rank
                            every unrated item); by data

Images (--task inpaint)
  --missing F               fraction of pixels removed, in [0, 1)          (default 0.8)
  --noise S                 σ of Gaussian noise added to kept pixels, 0–255 (default 0)

Tables (--task heldout)
  --channels A,B,…          channels to model, by channel ($PnN) or marker ($PnS) name
                            ("CD3" also finds a marker written "170Yb_CD3")
  --exclude A,B,…           model every channel but these (e.g. --exclude Time)
  --arcsinh C               y ← asinh(y / C) first; 0 = off (default: 5 for mass cytometry
                            FCS files, off otherwise; 150 is usual for flow)
  --no-standardise          keep the scale (default: every channel to mean 0, variance 1)
  --subsample N             keep N rows drawn at random (default: all)
  --heldout F               fraction held out (default 0.05 FCS, 0.1 text, 0.075 synthetic)
  --split entries|rows      hold out entries at random, or whole test rows (half of each
                            scored, the rest conditions its local inference)  (default entries)
  --transpose               swap rows and columns (genes as data points)
  --tile N                  repeat the rows until there are N (benchmarks at full size)
  --rows N --cols D --true-k K
                            size of 'synthetic' data (default 100000, 40, 80)
  --loading-var V           variance of its loadings φ_kd (default 1/D, the prior of eq. 5)

Corpora (--task completion)
  --heldout F               fraction of documents held out (default 0.1): half of each one's
                            words condition its topics, the other half are scored
  --max-documents N         keep N documents drawn at random (default: all)
  --vocab FILE              vocabulary of LDA-C / UCI counts (default: found beside them)
  --subset NAME             raw text: only files below a folder NAME (e.g. 20news-bydate-train)
  --strip-headers           raw text: drop e-mail/Usenet headers (the Subject is kept)
  --min-df N                raw text: words in at least N documents (default 2)
  --max-df F                raw text: words in at most a fraction F of documents (default 1)
  --vocab-cap N             raw text: keep the N words in most documents (default: all)
  --min-length N            raw text: words of at least N letters (default 2)
  --keep-stop-words         raw text: keep English stop words (default: removed)

Ratings (--task recommend)
  --heldout F               fraction of each user's ratings held out as test (default 0.2)
  --validation F            fraction of each user's ratings held out for validation (0.01)
  --binarize T              ratings ≥ T become 1, the rest are dropped (default 0: ratings
                            are counts, a 4-star rating is y = 4)
  --items FILE              item titles: u.item, movies.dat or movies.csv (default: beside)

Model
  --model M                 model key (default bpfa; lda for corpora; hpf for ratings; see
                            'svi list')
  --algorithm A             algorithm key (default: the model's first, e.g. gibbs-ssvi, svi)
  --set KEY=VALUE           any parameter of the algorithm, repeatable (e.g. --set K=256)

Budget and reproducibility
  --seconds S               training seconds (evaluation time is not counted)
  --steps N                 number of steps (minibatch updates)
  --seed N                  seed of the corruption and of the algorithm  (default 1)
  --threads N               OpenMP threads (default: all cores; results do not depend on it)
  --eval-every S            seconds of training between snapshots (default: budget / 40)
  --full-every S            also a full evaluation (PSNR of the whole reconstruction) every S
                            training seconds; otherwise only at the end
  --config run.json         re-run a saved configuration (flags given as well override it)

Output
  --out DIR                 where to write summary.json, trace.csv, run.json and images;
                            recommenders also user_factors.tsv, item_factors.tsv and
                            recommendations.csv (every user's top n)  (default: results)
  --quiet                   no progress line

Exit status: 0 when the run ended normally (budget reached or interrupted), 2 for bad input
(with a one-line reason), 3 when the run failed or diverged.
)";

std::string typeName(ParamType t)
{
    switch (t) {
    case ParamType::Int:
        return "int";
    case ParamType::Real:
        return "real";
    case ParamType::Choice:
        return "choice";
    case ParamType::Bool:
        return "bool";
    }
    return "?";
}

// ---------------------------------------------------------------------------------------------
// svi list

int cmdList(const std::vector<std::string>& args)
{
    bool json = false;
    for (const auto& a : args) {
        if (a == "--json")
            json = true;
        else
            throw UsageError("list: unknown option '" + a + "'");
    }
    const Registry& r = Registry::builtin();
    if (json) {
        QJsonArray entries;
        for (const AlgorithmEntry& e : r.entries()) {
            QJsonArray params;
            for (const ParamSpec& p : e.params) {
                QJsonObject o{{"key", QString::fromStdString(p.key)},
                              {"label", QString::fromStdString(p.label)},
                              {"help", QString::fromStdString(p.help)},
                              {"type", QString::fromStdString(typeName(p.type))},
                              {"default", QString::fromStdString(defaultText(p))}};
                if (p.type == ParamType::Choice) {
                    QJsonArray choices;
                    for (const auto& c : p.choices)
                        choices.append(QString::fromStdString(c));
                    o["choices"] = choices;
                } else if (p.type != ParamType::Bool) {
                    o["min"] = jsonNumber(p.minValue);
                    o["max"] = p.maxValue >= 1e300 ? QJsonValue() : jsonNumber(p.maxValue);
                }
                params.append(o);
            }
            entries.append(QJsonObject{{"model", QString::fromStdString(e.model)},
                                       {"model_label", QString::fromStdString(e.modelLabel)},
                                       {"algorithm", QString::fromStdString(e.algorithm)},
                                       {"label", QString::fromStdString(e.label)},
                                       {"help", QString::fromStdString(e.help)},
                                       {"params", params}});
        }
        std::fputs(QJsonDocument(entries).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::string lastModel;
    for (const AlgorithmEntry& e : r.entries()) {
        if (e.model != lastModel) {
            std::printf("model %s — %s\n\n", e.model.c_str(), e.modelLabel.c_str());
            lastModel = e.model;
        }
        std::printf("  --algorithm %-14s %s: %s\n", e.algorithm.c_str(), e.label.c_str(),
                    e.help.c_str());
        for (const ParamSpec& p : e.params)
            std::printf("      %-13s %-6s default %-8s range %-14s %s\n", p.key.c_str(),
                        typeName(p.type).c_str(), defaultText(p).c_str(), rangeText(p).c_str(),
                        p.help.c_str());
        std::printf("\n");
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// svi info

QJsonArray jsonStrings(const std::vector<std::string>& v)
{
    QJsonArray a;
    for (const auto& s : v)
        a.append(QString::fromStdString(s));
    return a;
}

int infoFcs(const std::string& path, bool json)
{
    const FcsFile f = readFcs(path, true); // the data too, so that a truncated file is reported
    const std::string type(1, f.dataType);
    if (json) {
        QJsonArray bits;
        for (int b : f.bits)
            bits.append(b);
        const QJsonObject o{{"path", QString::fromStdString(path)},
                            {"kind", "fcs"},
                            {"format", QString::fromStdString(f.version)},
                            {"version", QString::fromStdString(f.version)},
                            {"rows", qint64(f.events)},
                            {"cols", f.parameters},
                            {"datatype", QString::fromStdString(type)},
                            {"byte_order", f.bigEndian ? "big-endian" : "little-endian"},
                            {"byteord", QString::fromStdString(f.byteOrder)},
                            {"bits", bits},
                            {"mass_cytometry", isMassCytometry(f)},
                            {"names", jsonStrings(f.names)},
                            {"markers", jsonStrings(f.markers)},
                            {"notes", jsonStrings(f.notes)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf(
        "%s\n  kind     fcs (%s, $DATATYPE %s, %s-endian $BYTEORD %s)\n  rows     %lld events\n"
        "  cols     %d parameters\n",
        path.c_str(), f.version.c_str(), type.c_str(), f.bigEndian ? "big" : "little",
        f.byteOrder.c_str(), (long long)f.events, f.parameters);
    if (isMassCytometry(f))
        std::printf(
            "  mass cytometry: svi run applies asinh(x / 5) unless --arcsinh says otherwise\n");
    for (int p = 0; p < f.parameters; ++p)
        std::printf("  P%-3d %-20s %-24s %d-bit\n", p + 1, f.names[std::size_t(p)].c_str(),
                    f.markers[std::size_t(p)].c_str(), f.bits[std::size_t(p)]);
    for (const auto& n : f.notes)
        std::printf("  note: %s\n", n.c_str());
    return 0;
}

int infoTable(const std::string& path, bool json)
{
    const TableFileInfo t = inspectTableFile(path);
    const std::string delim = t.delimiter == '\t'  ? "tab"
                              : t.delimiter == ',' ? "comma"
                              : t.delimiter == ';' ? "semicolon"
                                                   : std::string(1, t.delimiter);
    if (json) {
        const QJsonObject o{{"path", QString::fromStdString(path)},
                            {"kind", "table"},
                            {"format", t.gzip ? "delimited text, gzip" : "delimited text"},
                            {"rows", qint64(t.rows)},
                            {"cols", t.cols},
                            {"delimiter", QString::fromStdString(delim)},
                            {"row_names", t.hasRowNames},
                            {"gzip", t.gzip},
                            {"names", jsonStrings(t.columns)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf(
        "%s\n  kind     table (delimiter %s%s%s)\n  rows     %lld\n  cols     %d\n  names   ",
        path.c_str(), delim.c_str(), t.hasRowNames ? ", row names in column 1" : "",
        t.gzip ? ", gzip" : "", (long long)t.rows, t.cols);
    for (std::size_t i = 0; i < t.columns.size() && i < 50; ++i)
        std::printf(" %s", t.columns[i].c_str());
    std::printf("%s\n", t.columns.size() > 50 ? " …" : "");
    return 0;
}

int infoCorpus(const std::string& path, bool json)
{
    const Corpus corpus = loadCorpus({path});
    const CorpusStats s = corpus.stats();
    const auto format = corpusFormatOf(path);
    const char* formatName = !format                                ? "text"
                             : *format == CorpusFormat::Ldac        ? "LDA-C"
                             : *format == CorpusFormat::Uci         ? "UCI bag-of-words"
                             : *format == CorpusFormat::TextArchive ? "text files in a tar archive"
                             : *format == CorpusFormat::TextFolder  ? "text files in a folder"
                                                                    : "text files";
    if (json) {
        const QJsonObject o{{"path", QString::fromStdString(path)},
                            {"kind", "corpus"},
                            {"format", formatName},
                            {"rows", qint64(s.documents)},
                            {"cols", qint64(s.vocabulary)},
                            {"documents", qint64(s.documents)},
                            {"vocabulary", qint64(s.vocabulary)},
                            {"tokens", qint64(s.tokens)},
                            {"empty_documents", qint64(s.emptyDocuments)},
                            {"dropped_documents", qint64(s.droppedDocuments)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf("%s\n  kind        corpus (%s)\n  documents   %lld\n  vocabulary  %lld words\n"
                "  tokens      %lld\n",
                path.c_str(), formatName, (long long)s.documents, (long long)s.vocabulary,
                (long long)s.tokens);
    if (s.emptyDocuments > 0)
        std::printf("  empty       %lld documents without any word\n", (long long)s.emptyDocuments);
    if (s.droppedDocuments > 0)
        std::printf("  dropped     %lld documents left without any word by the filters\n",
                    (long long)s.droppedDocuments);
    std::printf("  words      ");
    for (std::size_t i = 0; i < corpus.vocabulary.size() && i < 20; ++i)
        std::printf(" %s", corpus.vocabulary[i].c_str());
    std::printf("%s\n", corpus.vocabulary.size() > 20 ? " …" : "");
    return 0;
}

int infoRatings(const std::string& path, bool json)
{
    const Ratings r = loadRatings(path);
    std::set<float> scale;
    for (const Rating& e : r.entries)
        scale.insert(e.value);
    std::int64_t titled = 0;
    for (std::size_t i = 0; i < r.itemTitles.size(); ++i)
        titled += r.itemTitles[i].empty() ? 0 : 1;
    QJsonArray values;
    for (float v : scale)
        values.append(double(v));
    if (json) {
        const QJsonObject o{{"path", QString::fromStdString(path)}, {"kind", "ratings"},
                            {"users", qint64(r.users())},           {"items", qint64(r.items())},
                            {"ratings", qint64(r.entries.size())},  {"values", values},
                            {"titled_items", qint64(titled)}};
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf(
        "%s\n  kind     ratings (users × items)\n  users    %lld\n  items    %lld\n  ratings  %lld "
        "(%.2f %% of the matrix)\n  values  ",
        path.c_str(), (long long)r.users(), (long long)r.items(), (long long)r.entries.size(),
        100.0 * double(r.entries.size()) / std::max(1.0, double(r.users()) * double(r.items())));
    for (float v : scale)
        std::printf(" %g", double(v));
    std::printf("\n  titles   %lld of %lld items\n", (long long)titled, (long long)r.items());
    return 0;
}

int cmdInfo(const std::vector<std::string>& args)
{
    std::optional<std::string> file;
    bool json = false;
    int patch = 8;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--json")
            json = true;
        else if (a == "--patch" && i + 1 < args.size())
            patch = int(parseInteger("--patch", args[++i]));
        else if (!a.empty() && a[0] == '-')
            throw UsageError("info: unknown option '" + a + "'");
        else if (!file)
            file = a;
        else
            throw UsageError("info: one file at a time ('" + a + "' is extra)");
    }
    if (!file)
        throw UsageError("info: which file? (svi info FILE [--json])");
    if (patch < 2)
        throw UsageError("--patch = " + std::to_string(patch) + ", but must be ≥ 2");
    if (dataFileKind(*file) == DataFileKind::Fcs)
        return infoFcs(*file, json);
    if (dataFileKind(*file) == DataFileKind::Delimited)
        return infoTable(*file, json);
    if (dataFileKind(*file) == DataFileKind::Corpus)
        return infoCorpus(*file, json);
    if (dataFileKind(*file) == DataFileKind::Ratings)
        return infoRatings(*file, json);
    const DataInfo info = inspectFile(*file, patch);
    if (json) {
        QJsonArray names;
        for (const auto& n : info.names)
            names.append(QString::fromStdString(n));
        QJsonObject o{{"path", QString::fromStdString(info.path)},
                      {"kind", QString::fromStdString(info.kind)},
                      {"format", QString::fromStdString(info.format)},
                      {"rows", qint64(info.rows)},
                      {"cols", qint64(info.cols)},
                      {"names", names}};
        if (info.kind == "image") {
            o["width"] = info.width;
            o["height"] = info.height;
            o["patch"] = info.patch;
            o["patches"] = qint64(info.patches);
            o["grayscale"] = info.grayscale;
            o["depth"] = info.depth;
        }
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::printf("%s\n  kind     %s\n  format   %s\n", info.path.c_str(), info.kind.c_str(),
                info.format.c_str());
    if (info.kind == "image") {
        std::printf("  size     %d × %d pixels (%s, %d-bit)\n", info.width, info.height,
                    info.grayscale ? "grey" : "colour, read as grey", info.depth);
        std::printf("  patches  %lld of %d×%d → rows %lld, cols %lld\n", (long long)info.patches,
                    info.patch, info.patch, (long long)info.rows, (long long)info.cols);
    } else {
        std::printf("  rows     %lld\n  cols     %lld\n", (long long)info.rows,
                    (long long)info.cols);
    }
    if (!info.names.empty()) {
        std::printf("  names   ");
        for (const auto& n : info.names)
            std::printf(" %s", n.c_str());
        std::printf("\n");
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// svi run

struct Prepared
{
    const AlgorithmEntry* entry = nullptr;
    ParamValues params;
    InpaintOptions task;            // images
    TableOptions table;             // tables and synthetic data
    DenseDataPtr data;              // images, tables, synthetic data
    CountDataPtr counts;            // corpora, ratings
    RatingsSplitStats ratingsSplit; // ratings
    std::string source;

    DataSet dataSet() const { return counts ? DataSet(counts) : DataSet(data); }
    std::int64_t rows() const { return counts ? counts->rows() : data->rows(); }
    std::int64_t cols() const { return counts ? counts->cols() : data->cols(); }
    std::int64_t trainingRows() const
    {
        return counts ? counts->trainingRowCount() : data->trainingRowCount();
    }
    bool image() const { return data && data->image; }
};

// Resolves the algorithm and its parameters against the registry.
// `skipUndeclared` drops --set keys the algorithm does not declare (bench runs several
// algorithms with one set of flags); otherwise they are an error.
void resolveAlgorithm(const RunConfig& c, const std::string& algorithm, Prepared& p,
                      bool skipUndeclared = false)
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

} // namespace

int main(int argc, char** argv)
{
    // QGuiApplication-free: images are decoded by QImageReader, which needs only QtGui's
    // image plugins, not a display. A QCoreApplication is enough to find them.
    QCoreApplication app(argc, argv);
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" ||
        (args[0] == "help" && args.size() == 1)) {
        std::fputs(kMainHelp, stdout);
        return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    for (const auto& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(command == "run" ? kRunHelp : kMainHelp, stdout);
            return 0;
        }
    try {
        if (command == "help") {
            std::fputs(args.size() == 1 && args[0] == "run" ? kRunHelp : kMainHelp, stdout);
            return 0;
        }
        if (command == "list")
            return cmdList(args);
        if (command == "info")
            return cmdInfo(args);
        if (command == "run")
            return cmdRun(args);
        if (command == "bench")
            return cmdBench(args);
        if (command == "split")
            return cmdSplit(args);
        throw UsageError("unknown command '" + command +
                         "' (commands: list, info, run, bench, split; see svi --help)");
    } catch (const UsageError& e) {
        std::fprintf(stderr, "svi: error: %s\n", e.what());
        return 2;
    } catch (const DataError& e) {
        std::fprintf(stderr, "svi: error: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "svi: error: %s\n", e.what());
        return 3;
    }
}

} // namespace svi::cli
