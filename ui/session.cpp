#include "ui/session.h"

#include "core/io/data_error.h"
#include "core/io/run_files.h"
#include "core/run/registry.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>

namespace svi::ui {

namespace {

// Bounds of the whole numbers a session holds: JSON numbers are doubles, exact to 2⁵³; task
// seeds are those of seedParam.
constexpr std::int64_t kMaxCount = std::int64_t(1) << 53;
constexpr std::int64_t kMaxSeed = 2147483647;
constexpr std::int64_t kMaxInt = 2147483647;

QJsonValue pathsJson(const DataSource& s)
{
    return s.morePaths.isEmpty() ? QJsonValue(s.path)
                                 : QJsonValue(QJsonArray::fromStringList(s.paths()));
}

QJsonObject taskJson(const DataSource& s)
{
    if (s.isRatings()) {
        QJsonObject task{{"kind", "ratings"}};
        for (const auto& [k, v] : ratingsParamValues(s.ratings))
            task[QString::fromStdString(k)] = paramToJson(v);
        return QJsonObject{{"data", s.path}, {"task", task}};
    }
    if (s.isCorpus()) {
        QJsonObject task{{"kind", "corpus"},
                         {"heldout", s.corpus.heldOut},
                         {"max_documents", qint64(s.corpus.maxDocuments)},
                         {"seed", qint64(s.corpus.seed)}};
        if (isRawTextCorpus(s.path)) {
            QJsonObject tok;
            for (const auto& [k, v] : tokenizerParamValues(s.tokenizer))
                tok[QString::fromStdString(k)] = paramToJson(v);
            task["tokenizer"] = tok;
            task["subset"] = s.subset;
        }
        return QJsonObject{{"data", pathsJson(s)}, {"task", task}};
    }
    if (!s.isTable())
        return QJsonObject{{"data", s.path},
                           {"task", QJsonObject{{"kind", "inpaint"},
                                                {"missing", s.task.missing},
                                                {"noise", s.task.noise},
                                                {"patch", s.task.patch},
                                                {"seed", qint64(s.task.seed)}}}};
    QJsonArray channels;
    for (const std::string& c : s.table.channels)
        channels.append(QString::fromStdString(c));
    QJsonObject task{{"kind", "heldout"},
                     {"channels", channels},
                     {"arcsinh", s.table.arcsinhCofactor},
                     {"standardise", s.table.standardise},
                     {"subsample", qint64(s.table.subsample)},
                     {"heldout", s.table.heldOut},
                     {"split", s.table.split == HeldOutSplit::Rows ? "rows" : "entries"},
                     {"transpose", s.transpose},
                     {"seed", qint64(s.table.seed)}};
    return QJsonObject{{"data", pathsJson(s)}, {"task", task}};
}

struct Reader
{
    QString file;
    [[noreturn]] void fail(const QString& field, const QString& why) const
    {
        throw DataError(
            QString("%1: %2: %3").arg(QFileInfo(file).fileName(), field, why).toStdString());
    }
    QJsonObject object(const QJsonObject& o, const QString& key, const QString& where) const
    {
        if (!o.value(key).isObject())
            fail(where + key, "missing or not an object");
        return o.value(key).toObject();
    }
    double number(const QJsonObject& o, const QString& key, const QString& where, double fallback,
                  bool required = false) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() && !required)
            return fallback;
        if (!v.isDouble())
            fail(where + key, "missing or not a number");
        return v.toDouble();
    }
    // A whole number in [lo, hi], checked before it is converted.
    std::int64_t integer(const QJsonObject& o, const QString& key, const QString& where,
                         std::int64_t fallback, std::int64_t lo, std::int64_t hi,
                         bool required = false) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() && !required)
            return fallback;
        const auto n = jsonInteger(v, lo, hi);
        if (!n)
            fail(where + key, (v.isDouble() ? QString::fromStdString(formatNumber(v.toDouble()))
                                            : QString("not a number")) +
                                  ", but " + QString::fromStdString(wholeNumberRule(lo, hi)));
        return *n;
    }
    QString string(const QJsonObject& o, const QString& key, const QString& where) const
    {
        if (!o.value(key).isString())
            fail(where + key, "missing or not a string");
        return o.value(key).toString();
    }
    // The values of `specs` present in `o`, checked and completed with the defaults; a bad
    // value fails naming its key below `where`.
    ParamValues params(const QJsonObject& o, const std::vector<ParamSpec>& specs,
                       const QString& where) const
    {
        ParamValues given;
        for (const ParamSpec& p : specs) {
            const QJsonValue v = o.value(QString::fromStdString(p.key));
            if (v.isUndefined())
                continue;
            auto parsed = parseParam(p, paramTextFromJson(v));
            if (auto* e = std::get_if<ParamError>(&parsed))
                fail(where + QString::fromStdString(p.key), QString::fromStdString(e->message));
            given[p.key] = std::get<ParamValue>(parsed);
        }
        auto resolved = resolveParams(specs, given);
        if (auto* e = std::get_if<ParamError>(&resolved))
            fail(where.chopped(1), QString::fromStdString(e->message));
        return std::get<ParamValues>(resolved);
    }
    DataSource source(const QJsonObject& o, const QString& where) const
    {
        DataSource s;
        const QJsonValue data = o.value("data");
        if (data.isArray()) {
            const QJsonArray files = data.toArray();
            for (int i = 0; i < files.size(); ++i) {
                if (!files[i].isString())
                    fail(where + QString("data[%1]").arg(i), "not a file name");
                if (i == 0)
                    s.path = files[i].toString();
                else
                    s.morePaths << files[i].toString();
            }
            if (s.path.isEmpty())
                fail(where + "data", "an empty list of files");
        } else {
            s.path = string(o, "data", where);
        }
        const QJsonObject t = object(o, "task", where);
        const QString tw = where + "task.";
        if (s.isRatings()) {
            const QString kind = t.value("kind").toString("ratings");
            if (kind != "ratings")
                fail(tw + "kind", "'" + kind + "' is not the task of " +
                                      QFileInfo(s.path).fileName() + " (ratings)");
            s.ratings = RatingsOptions::fromParams(params(t, RatingsOptions::params(), tw));
            if (auto problem = s.ratings.validate())
                fail(tw.chopped(1), QString::fromStdString(*problem));
            return s;
        }
        if (s.isCorpus()) {
            const QString kind = t.value("kind").toString("corpus");
            if (kind != "corpus")
                fail(tw + "kind", "'" + kind + "' is not the task of " +
                                      QFileInfo(s.path).fileName() + " (corpus)");
            s.corpus = CorpusOptions::fromParams(params(t, CorpusOptions::params(), tw));
            s.tokenizer = TokenizerOptions::fromParams(params(
                t.value("tokenizer").toObject(), TokenizerOptions::params(), tw + "tokenizer."));
            s.subset = t.value("subset").toString();
            if (auto problem = s.corpus.validate())
                fail(tw.chopped(1), QString::fromStdString(*problem));
            if (auto problem = s.tokenizer.validate())
                fail(tw + "tokenizer", QString::fromStdString(*problem));
            return s;
        }
        const QString kind = t.value("kind").toString(s.isTable() ? "heldout" : "inpaint");
        if (kind != (s.isTable() ? "heldout" : "inpaint"))
            fail(tw + "kind", "'" + kind + "' is not the task of " + QFileInfo(s.path).fileName() +
                                  (s.isTable() ? " (heldout)" : " (inpaint)"));
        if (!s.isTable()) {
            if (!s.morePaths.isEmpty())
                fail(where + "data", "several files can only be FCS files");
            s.task.missing = number(t, "missing", tw, s.task.missing);
            s.task.noise = number(t, "noise", tw, s.task.noise);
            s.task.patch = int(integer(t, "patch", tw, s.task.patch, 0, kMaxInt));
            s.task.seed =
                std::uint64_t(integer(t, "seed", tw, std::int64_t(s.task.seed), 0, kMaxSeed));
            if (auto problem = s.task.validate())
                fail(tw.chopped(1), QString::fromStdString(*problem));
            return s;
        }
        TableOptions& to = s.table;
        for (const QJsonValue& c : t.value("channels").toArray())
            to.channels.push_back(c.toString().toStdString());
        to.arcsinhCofactor = number(t, "arcsinh", tw, to.arcsinhCofactor);
        to.standardise = t.value("standardise").toBool(to.standardise);
        to.subsample = integer(t, "subsample", tw, to.subsample, 0, kMaxCount);
        to.heldOut = number(t, "heldout", tw, to.heldOut);
        const QString split = t.value("split").toString("entries");
        if (split != "entries" && split != "rows")
            fail(tw + "split", "'" + split + "' is not one of: entries, rows");
        to.split = split == "rows" ? HeldOutSplit::Rows : HeldOutSplit::Entries;
        to.seed = std::uint64_t(integer(t, "seed", tw, std::int64_t(to.seed), 0, kMaxSeed));
        s.transpose = t.value("transpose").toBool(false);
        if (auto problem = to.validate())
            fail(tw.chopped(1), QString::fromStdString(*problem));
        return s;
    }
};

} // namespace

QJsonObject sessionToJson(const Session& session)
{
    QJsonArray runs;
    for (const SessionRun& r : session.runs) {
        QJsonObject params;
        for (const auto& [k, v] : r.spec.params)
            params[QString::fromStdString(k)] = paramToJson(v);
        QJsonObject o = taskJson(r.source);
        o["model"] = QString::fromStdString(r.spec.model);
        o["algorithm"] = QString::fromStdString(r.spec.algorithm);
        o["params"] = params;
        o["seed"] = qint64(r.spec.seed);
        o["budget"] = QJsonObject{{"seconds", r.spec.seconds}, {"steps", qint64(r.spec.steps)}};
        o["eval_every"] = r.spec.evalEvery;
        o["full_every"] = r.spec.fullEvery;
        if (!r.reason.isEmpty()) {
            QJsonObject metrics;
            for (const auto& [k, v] : r.metrics)
                metrics[QString::fromStdString(k)] = jsonNumber(v);
            o["result"] = QJsonObject{
                {"termination", r.reason}, {"steps", qint64(r.steps)}, {"metrics", metrics}};
        }
        runs.append(o);
    }
    QJsonObject out = taskJson(session.source);
    out["format"] = "svi-workbench-session";
    out["version"] = 1;
    out["runs"] = runs;
    return out;
}

Session sessionFromJson(const QJsonObject& json, const QString& file)
{
    Reader rd{file};
    if (json.value("format").toString() != "svi-workbench-session")
        rd.fail("format", "not a workbench session (expected \"svi-workbench-session\")");
    if (json.value("version").toInt() != 1)
        rd.fail("version", "version " + QString::number(json.value("version").toInt()) +
                               " is not supported (this version reads 1)");
    Session s;
    s.source = rd.source(json, "");
    if (!json.value("runs").isArray())
        rd.fail("runs", "missing or not an array");
    const QJsonArray runs = json.value("runs").toArray();
    for (int i = 0; i < runs.size(); ++i) {
        const QString where = QString("runs[%1].").arg(i);
        if (!runs[i].isObject())
            rd.fail(where.chopped(1), "not an object");
        const QJsonObject o = runs[i].toObject();
        SessionRun r;
        r.source = o.contains("data") ? rd.source(o, where) : s.source;
        r.spec.model = rd.string(o, "model", where).toStdString();
        r.spec.algorithm = rd.string(o, "algorithm", where).toStdString();
        const AlgorithmEntry* entry = Registry::builtin().find(r.spec.model, r.spec.algorithm);
        if (!entry)
            rd.fail(where + "algorithm", QString("no algorithm '%1' for model '%2'")
                                             .arg(QString::fromStdString(r.spec.algorithm),
                                                  QString::fromStdString(r.spec.model)));
        ParamValues given;
        const QJsonObject params = o.value("params").toObject();
        for (auto it = params.begin(); it != params.end(); ++it) {
            const ParamSpec* spec = nullptr;
            for (const ParamSpec& p : entry->params)
                if (p.key == it.key().toStdString())
                    spec = &p;
            if (!spec)
                rd.fail(where + "params." + it.key(),
                        "not a parameter of " + QString::fromStdString(entry->label));
            auto parsed = parseParam(*spec, paramTextFromJson(it.value()));
            if (auto* e = std::get_if<ParamError>(&parsed))
                rd.fail(where + "params", QString::fromStdString(e->message));
            given[spec->key] = std::get<ParamValue>(parsed);
        }
        auto resolved = resolveParams(entry->params, given);
        if (auto* e = std::get_if<ParamError>(&resolved))
            rd.fail(where + "params", QString::fromStdString(e->message));
        r.spec.params = std::get<ParamValues>(resolved);
        r.spec.seed = std::uint64_t(rd.integer(o, "seed", where, 1, 0, kMaxCount, true));
        const QJsonObject budget = rd.object(o, "budget", where);
        r.spec.seconds = rd.number(budget, "seconds", where + "budget.", 0.0);
        r.spec.steps = rd.integer(budget, "steps", where + "budget.", 0, 0, kMaxCount);
        r.spec.evalEvery = rd.number(o, "eval_every", where, r.spec.evalEvery);
        r.spec.fullEvery = rd.number(o, "full_every", where, r.spec.fullEvery);
        if (auto problem = r.spec.runOptions().validate())
            rd.fail(where + "budget", QString::fromStdString(*problem));
        if (o.value("result").isObject()) {
            const QJsonObject res = o.value("result").toObject();
            r.reason = res.value("termination").toString();
            r.steps = res.value("steps").toInteger();
            const QJsonObject m = res.value("metrics").toObject();
            for (auto it = m.begin(); it != m.end(); ++it)
                r.metrics[it.key().toStdString()] =
                    it.value().isDouble() ? it.value().toDouble() : std::nan("");
        }
        s.runs.push_back(std::move(r));
    }
    return s;
}

Session readSessionFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw DataError(QString("cannot read '%1': %2").arg(path, f.errorString()).toStdString());
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw DataError(
            QString("%1: not valid JSON at byte %2: %3")
                .arg(QFileInfo(path).fileName())
                .arg(err.offset)
                .arg(err.error != QJsonParseError::NoError ? err.errorString() : "not an object")
                .toStdString());
    Session s = sessionFromJson(doc.object(), path);
    // Relative data paths are relative to the session file.
    auto resolve = [&](QString& p) {
        if (!p.startsWith(":/") && QFileInfo(p).isRelative())
            p = QFileInfo(path).dir().absoluteFilePath(p);
    };
    auto resolveAll = [&](DataSource& src) {
        resolve(src.path);
        for (QString& p : src.morePaths)
            resolve(p);
    };
    resolveAll(s.source);
    for (SessionRun& r : s.runs)
        resolveAll(r.source);
    return s;
}

} // namespace svi::ui
