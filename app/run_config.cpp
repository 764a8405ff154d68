#include "app/run_config.h"

#include "core/io/data_files.h"
#include "core/io/run_files.h"
#include "core/run/registry.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>
#include <cmath>
#include <type_traits>

namespace svi::cli {

double parseNumber(const std::string& flag, const std::string& text)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(v))
            throw std::invalid_argument("x");
        return v;
    } catch (const std::exception&) {
        throw UsageError(flag + " = " + text + ", but must be a number");
    }
}

std::int64_t parseInteger(const std::string& flag, const std::string& text)
{
    try {
        std::size_t used = 0;
        const long long v = std::stoll(text, &used);
        if (used != text.size())
            throw std::invalid_argument("x");
        return v;
    } catch (const std::exception&) {
        throw UsageError(flag + " = " + text + ", but must be an integer");
    }
}

namespace {

std::string configValueText(const QString& key, const QJsonValue& v)
{
    if (!v.isString() && !v.isBool() && !v.isDouble())
        throw UsageError("params." + key.toStdString() +
                         ": a parameter value must be a number, a string or a boolean");
    return paramTextFromJson(v);
}

} // namespace

void loadConfig(const std::string& path, RunConfig& c)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        throw UsageError("cannot read '" + path + "': " + f.errorString().toStdString());
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (doc.isNull() || !doc.isObject())
        throw UsageError("'" + path + "' is not a run configuration: " +
                         (doc.isNull() ? err.errorString().toStdString() + " at offset " +
                                             std::to_string(err.offset)
                                       : std::string("expected a JSON object")));
    const QJsonObject o = doc.object();
    // Every field is checked for its type (and integers for their range) before it is used; a
    // field of the wrong type is an error naming it, never silently its default.
    auto fail = [&](const QString& key, const std::string& rule) -> UsageError {
        return UsageError("'" + path + "': field '" + key.toStdString() + "' " + rule);
    };
    auto str = [&](const QJsonObject& obj, const char* key, std::string& dst) {
        if (!obj.contains(key))
            return;
        if (!obj[key].isString())
            throw fail(key, "must be a string");
        dst = obj[key].toString().toStdString();
    };
    auto num = [&](const QJsonObject& obj, const char* key, double& dst) {
        if (!obj.contains(key))
            return;
        if (!obj[key].isDouble())
            throw fail(key, "must be a number");
        dst = obj[key].toDouble();
    };
    auto whole = [&](const QJsonObject& obj, const char* key, auto& dst, std::int64_t lo,
                     std::int64_t hi) {
        if (!obj.contains(key))
            return;
        const auto v = jsonInteger(obj[key], lo, hi);
        if (!v)
            throw fail(key,
                       (obj[key].isDouble() ? "= " + formatNumber(obj[key].toDouble()) + ", but "
                                            : std::string("= a non-number, but ")) +
                           wholeNumberRule(lo, hi));
        dst = static_cast<std::remove_reference_t<decltype(dst)>>(*v);
    };
    auto flag = [&](const QJsonObject& obj, const char* key, bool& dst) {
        if (!obj.contains(key))
            return;
        if (!obj[key].isBool())
            throw fail(key, "must be true or false");
        dst = obj[key].toBool();
    };
    auto object = [&](const QJsonObject& obj, const char* key) {
        if (obj.contains(key) && !obj[key].isObject())
            throw fail(key, "must be an object");
        return obj[key].toObject();
    };
    auto names = [&](const QJsonObject& obj, const char* key, std::string& dst) {
        if (!obj.contains(key))
            return;
        if (!obj[key].isArray())
            throw fail(key, "must be a list of names");
        QStringList list;
        for (const QJsonValue& v : obj[key].toArray()) {
            if (!v.isString())
                throw fail(key, "must be a list of names");
            list << v.toString();
        }
        dst = list.join(',').toStdString();
    };
    constexpr std::int64_t kCount = std::int64_t(1) << 53; // JSON numbers are exact to 2⁵³
    constexpr std::int64_t kInt = 2147483647;

    if (o.contains("version")) {
        int version = 0;
        whole(o, "version", version, 0, kInt);
        if (version != 1)
            throw fail("version",
                       "= " + std::to_string(version) + ", but this svi reads version 1");
    }
    if (o.contains("data")) {
        c.files.clear();
        if (o["data"].isString())
            c.files.push_back(o["data"].toString().toStdString());
        else if (o["data"].isArray())
            for (const QJsonValue& v : o["data"].toArray()) {
                if (!v.isString())
                    throw fail("data", "must be a file name or a list of them");
                c.files.push_back(v.toString().toStdString());
            }
        if (c.files.empty())
            throw fail("data", "must be a file name or a list of them");
    }
    str(o, "model", c.model);
    str(o, "algorithm", c.algorithm);
    const QJsonObject t = object(o, "task");
    str(t, "kind", c.task);
    num(t, "missing", c.missing);
    num(t, "noise", c.noise);
    if (t.contains("arcsinh")) {
        double a = 0.0;
        num(t, "arcsinh", a);
        c.arcsinh = a;
    }
    num(t, "heldout", c.heldout);
    num(t, "test_fraction", c.heldout); // ratings: the test share of each user's ratings
    num(t, "validation_fraction", c.validation);
    num(t, "binarize", c.binarize);
    str(t, "items", c.items);
    whole(t, "subsample", c.subsample, 0, kCount);
    whole(t, "tile", c.tile, 0, kCount);
    flag(t, "standardise", c.standardise);
    flag(t, "transpose", c.transpose);
    str(t, "split", c.split);
    names(t, "channels", c.channels);
    names(t, "exclude", c.exclude);
    str(t, "subset", c.subset);
    str(t, "vocabulary", c.vocabulary);
    whole(t, "max_documents", c.maxDocuments, 0, kCount);
    whole(t, "min_df", c.tokenizer.minDocumentFrequency, 0, kCount);
    num(t, "max_df", c.tokenizer.maxDocumentFraction);
    whole(t, "vocabulary_cap", c.tokenizer.vocabularyCap, 0, kCount);
    whole(t, "min_length", c.tokenizer.minLength, 0, kInt);
    flag(t, "strip_headers", c.tokenizer.stripEmailHeaders);
    flag(t, "stop_words", c.tokenizer.removeStopWords);
    const QJsonObject y = object(t, "synthetic");
    whole(y, "rows", c.synthRows, 0, kCount);
    whole(y, "cols", c.synthCols, 0, kInt);
    whole(y, "true_k", c.synthK, 0, kInt);
    num(y, "loading_var", c.synthLoadingVar);
    if (o.contains("params")) {
        if (!o["params"].isObject())
            throw fail("params", "must be an object");
        const QJsonObject p = o["params"].toObject();
        for (auto it = p.begin(); it != p.end(); ++it)
            c.sets[it.key().toStdString()] = configValueText(it.key(), it.value());
    }
    whole(o, "seed", c.seed, 0, kCount);
    const QJsonObject b = object(o, "budget");
    num(b, "seconds", c.seconds);
    whole(b, "steps", c.steps, 0, kCount);
    whole(o, "threads", c.threads, 0, kInt);
    num(o, "eval_every", c.evalEvery);
    num(o, "full_every", c.fullEvery);
}

RunConfig parseRun(const std::vector<std::string>& args)
{
    // A --config file is read first, so that the other flags override it.
    RunConfig c;
    for (std::size_t i = 0; i + 1 < args.size(); ++i)
        if (args[i] == "--config")
            loadConfig(args[i + 1], c);
    bool haveFile = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size())
                throw UsageError(a + " needs a value (see svi help run)");
            return args[++i];
        };
        if (a == "--config")
            ++i;
        else if (a == "--task")
            c.task = value();
        else if (a == "--missing")
            c.missing = parseNumber("--missing", value());
        else if (a == "--noise")
            c.noise = parseNumber("--noise", value());
        else if (a == "--channels")
            c.channels = value();
        else if (a == "--exclude")
            c.exclude = value();
        else if (a == "--arcsinh")
            c.arcsinh = parseNumber("--arcsinh", value());
        else if (a == "--no-standardise")
            c.standardise = false;
        else if (a == "--subsample")
            c.subsample = parseInteger("--subsample", value());
        else if (a == "--heldout")
            c.heldout = parseNumber("--heldout", value());
        else if (a == "--split")
            c.split = value();
        else if (a == "--transpose")
            c.transpose = true;
        else if (a == "--tile")
            c.tile = parseInteger("--tile", value());
        else if (a == "--subset")
            c.subset = value();
        else if (a == "--vocab")
            c.vocabulary = value();
        else if (a == "--min-df")
            c.tokenizer.minDocumentFrequency = parseInteger("--min-df", value());
        else if (a == "--max-df")
            c.tokenizer.maxDocumentFraction = parseNumber("--max-df", value());
        else if (a == "--vocab-cap")
            c.tokenizer.vocabularyCap = parseInteger("--vocab-cap", value());
        else if (a == "--min-length")
            c.tokenizer.minLength = int(parseInteger("--min-length", value()));
        else if (a == "--strip-headers")
            c.tokenizer.stripEmailHeaders = true;
        else if (a == "--keep-stop-words")
            c.tokenizer.removeStopWords = false;
        else if (a == "--validation")
            c.validation = parseNumber("--validation", value());
        else if (a == "--binarize")
            c.binarize = parseNumber("--binarize", value());
        else if (a == "--items")
            c.items = value();
        else if (a == "--max-documents")
            c.maxDocuments = parseInteger("--max-documents", value());
        else if (a == "--rows")
            c.synthRows = parseInteger("--rows", value());
        else if (a == "--cols")
            c.synthCols = parseInteger("--cols", value());
        else if (a == "--true-k")
            c.synthK = parseInteger("--true-k", value());
        else if (a == "--loading-var")
            c.synthLoadingVar = parseNumber("--loading-var", value());
        else if (a == "--model")
            c.model = value();
        else if (a == "--algorithm")
            c.algorithm = value();
        else if (a == "--set") {
            const std::string kv = value();
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0)
                throw UsageError("--set " + kv + ": expected KEY=VALUE");
            c.sets[kv.substr(0, eq)] = kv.substr(eq + 1);
        } else if (a == "--seconds")
            c.seconds = parseNumber("--seconds", value());
        else if (a == "--steps")
            c.steps = parseInteger("--steps", value());
        else if (a == "--seed") {
            const std::int64_t s = parseInteger("--seed", value());
            if (s < 0)
                throw UsageError("--seed = " + std::to_string(s) + ", but must be ≥ 0");
            c.seed = std::uint64_t(s);
        } else if (a == "--threads")
            c.threads = int(parseInteger("--threads", value()));
        else if (a == "--eval-every")
            c.evalEvery = parseNumber("--eval-every", value());
        else if (a == "--full-every")
            c.fullEvery = parseNumber("--full-every", value());
        else if (a == "--out")
            c.out = value();
        else if (a == "--quiet")
            c.quiet = true;
        else if (!a.empty() && a[0] == '-')
            throw UsageError("run: unknown option '" + a + "' (see svi help run)");
        else {
            if (!haveFile)
                c.files.clear();
            c.files.push_back(a);
            haveFile = true;
        }
    }
    // guessFileKind: a missing or unreadable file is reported when it is read, as every other
    // problem with it; its name chooses the task meanwhile.
    const DataFileKind kind =
        c.files.front() == kSynthetic ? DataFileKind::Delimited : guessFileKind(c.files.front());
    // Content of no kind svi reads goes to the image reader, which says why it is not an image.
    const bool image = kind == DataFileKind::Image || kind == DataFileKind::Unknown;
    const bool corpus = kind == DataFileKind::Corpus;
    const bool ratings = kind == DataFileKind::Ratings;
    const std::string natural = image     ? "inpaint"
                                : corpus  ? "completion"
                                : ratings ? "recommend"
                                          : "heldout";
    if (c.task.empty())
        c.task = natural;
    if (c.task != "inpaint" && c.task != "heldout" && c.task != "completion" &&
        c.task != "recommend")
        throw UsageError("--task = " + c.task +
                         ", but must be one of: inpaint, heldout, completion, recommend");
    if (c.task != natural)
        throw UsageError("--task = " + c.task + ", but '" + c.files.front() + "' is " +
                         (image     ? "an image: its task is inpaint"
                          : corpus  ? "a corpus: its task is completion"
                          : ratings ? "a ratings file: its task is recommend"
                                    : "a table: its task is heldout"));
    if (c.model.empty())
        c.model = image || c.files.front() == kSynthetic || kind == DataFileKind::Delimited ||
                          kind == DataFileKind::Fcs
                      ? "bpfa"
                  : corpus ? "lda"
                           : "hpf";
    if (c.algorithm.empty()) {
        for (const AlgorithmEntry& e : Registry::builtin().entries())
            if (e.model == c.model) {
                c.algorithm = e.algorithm;
                break;
            }
        if (c.algorithm.empty())
            throw UsageError("--model = " + c.model + ", but no such model (see svi list)");
    }
    if (auto problem = c.tokenizer.validate())
        throw UsageError("--" + *problem);
    if (c.maxDocuments < 0)
        throw UsageError("--max-documents = " + std::to_string(c.maxDocuments) +
                         ", but must be ≥ 0");
    if (c.files.size() > 1 && (image || c.files.front() == kSynthetic))
        throw UsageError("run: one image at a time ('" + c.files[1] + "' is extra)");
    if (c.split != "entries" && c.split != "rows")
        throw UsageError("--split = " + c.split + ", but must be one of: entries, rows");
    if (c.tile < 0)
        throw UsageError("--tile = " + std::to_string(c.tile) + ", but must be ≥ 1");
    if (c.heldout < 0) // the papers' fractions: synthetic 7.5 %, CyTOF 5 %, expression 10 %,
                       // ratings 20 % of each user's (Gopalan et al. 2015)
        c.heldout = c.files.front() == kSynthetic               ? 0.075
                    : ratings                                   ? 0.2
                    : kind == DataFileKind::Delimited || corpus ? 0.1
                                                                : 0.05;
    if (c.seconds < 0)
        throw UsageError("--seconds = " + formatParam(c.seconds) + ", but must be ≥ 0");
    if (c.steps < 0)
        throw UsageError("--steps = " + std::to_string(c.steps) + ", but must be ≥ 0");
    if (c.seconds == 0 && c.steps == 0)
        throw UsageError("no budget: give --seconds S or --steps N");
    if (c.threads < 0)
        throw UsageError("--threads = " + std::to_string(c.threads) + ", but must be ≥ 1");
    if (c.evalEvery < 0)
        throw UsageError("--eval-every = " + formatParam(c.evalEvery) + ", but must be ≥ 0");
    if (c.fullEvery < 0)
        throw UsageError("--full-every = " + formatParam(c.fullEvery) + ", but must be ≥ 0");
    return c;
}

QJsonObject taskJson(const RunConfig& c)
{
    if (c.task == "inpaint")
        return {{"kind", "inpaint"}, {"missing", c.missing}, {"noise", c.noise}};
    if (c.task == "recommend")
        return {{"kind", "recommend"},
                {"test_fraction", c.heldout},
                {"validation_fraction", c.validation},
                {"binarize", c.binarize},
                {"items", QString::fromStdString(c.items)}};
    if (c.task == "completion")
        return {{"kind", "completion"},
                {"heldout", c.heldout},
                {"max_documents", qint64(c.maxDocuments)},
                {"subset", QString::fromStdString(c.subset)},
                {"vocabulary", QString::fromStdString(c.vocabulary)},
                {"min_df", qint64(c.tokenizer.minDocumentFrequency)},
                {"max_df", c.tokenizer.maxDocumentFraction},
                {"vocabulary_cap", qint64(c.tokenizer.vocabularyCap)},
                {"min_length", c.tokenizer.minLength},
                {"strip_headers", c.tokenizer.stripEmailHeaders},
                {"stop_words", c.tokenizer.removeStopWords}};
    QJsonArray channels;
    for (const QString& n : QString::fromStdString(c.channels).split(',', Qt::SkipEmptyParts))
        channels.append(n.trimmed());
    QJsonArray excluded;
    for (const QString& n : QString::fromStdString(c.exclude).split(',', Qt::SkipEmptyParts))
        excluded.append(n.trimmed());
    QJsonObject t{{"kind", "heldout"},
                  {"channels", channels},
                  {"exclude", excluded},
                  {"arcsinh", c.arcsinh.value_or(0.0)},
                  {"standardise", c.standardise},
                  {"subsample", qint64(c.subsample)},
                  {"heldout", c.heldout},
                  {"split", QString::fromStdString(c.split)},
                  {"transpose", c.transpose},
                  {"tile", qint64(c.tile)}};
    if (c.files.front() == kSynthetic)
        t["synthetic"] = QJsonObject{{"rows", qint64(c.synthRows)},
                                     {"cols", qint64(c.synthCols)},
                                     {"true_k", qint64(c.synthK)},
                                     {"loading_var", c.synthLoadingVar}};
    return t;
}

QJsonObject configJson(const RunConfig& c, const ParamValues& params)
{
    QJsonObject p;
    for (const auto& [k, v] : params)
        p[QString::fromStdString(k)] = paramToJson(v);
    QJsonArray files;
    for (const auto& f : c.files)
        files.append(QString::fromStdString(f));
    return QJsonObject{
        {"version", 1},
        {"data", files.size() == 1 ? files.first() : QJsonValue(files)},
        {"task", taskJson(c)},
        {"model", QString::fromStdString(c.model)},
        {"algorithm", QString::fromStdString(c.algorithm)},
        {"params", p},
        {"seed", qint64(c.seed)},
        {"budget", QJsonObject{{"seconds", c.seconds}, {"steps", qint64(c.steps)}}},
        {"eval_every", c.evalEvery},
        {"full_every", c.fullEvery},
        {"threads", c.threads},
    };
}
} // namespace svi::cli
