#include "core/io/run_json.h"

#include "core/io/data_error.h"
#include "core/io/run_files.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>

namespace svi {

namespace {

constexpr const char* kFormat = "svi-run";
constexpr int kVersion = 2;

[[noreturn]] void fail(const std::string& file, const std::string& field, const std::string& why)
{
    // The file's own names for its settings: their keys.
    throw DataError(QFileInfo(QString::fromStdString(file)).fileName().toStdString() + ": " +
                    field + ": " + plainSettingRefs(why));
}

// A Names value may be written as a list of names (version 1 did): joined with commas.
std::string valueText(const QJsonValue& v, const ParamSpec& spec, const std::string& file,
                      const std::string& field)
{
    if (v.isArray() && spec.type == ParamType::Names) {
        QStringList names;
        for (const auto& n : v.toArray()) {
            if (!n.isString())
                fail(file, field, "must be a list of names");
            names << n.toString();
        }
        return names.join(',').toStdString();
    }
    if (!v.isString() && !v.isBool() && !v.isDouble())
        fail(file, field, "must be a number, a string or true/false");
    return paramTextFromJson(v);
}

} // namespace

ParamValues paramsFromJson(const QJsonObject& json, const std::vector<ParamSpec>& specs,
                           const std::string& file, const std::string& where)
{
    ParamValues out;
    for (auto it = json.begin(); it != json.end(); ++it) {
        const std::string key = it.key().toStdString();
        const ParamSpec* spec = nullptr;
        for (const ParamSpec& p : specs)
            if (p.key == key)
                spec = &p;
        if (!spec) {
            std::string known;
            for (const ParamSpec& p : specs)
                known += (known.empty() ? "" : ", ") + p.key;
            fail(file, where + key, "not a known setting (known: " + known + ")");
        }
        auto parsed = parseParam(*spec, valueText(it.value(), *spec, file, where + key));
        if (auto* e = std::get_if<ParamError>(&parsed))
            fail(file, where + key, e->message);
        out[key] = std::get<ParamValue>(parsed);
    }
    return out;
}

QJsonObject paramsToJson(const ParamValues& values)
{
    QJsonObject o;
    for (const auto& [k, v] : values)
        o[QString::fromStdString(k)] = paramToJson(v);
    return o;
}

QJsonObject dataToJson(const DataDescription& data)
{
    QJsonArray files;
    for (const std::string& f : data.files)
        files.append(QString::fromStdString(f));
    return {{"files", files},
            {"kind", QString::fromStdString(data.kind)},
            {"settings", paramsToJson(data.settings)}};
}

QJsonObject runToJson(const RunDescription& run)
{
    return {{"format", kFormat},
            {"version", kVersion},
            {"data", dataToJson(run.data)},
            {"model", QString::fromStdString(run.model)},
            {"algorithm", QString::fromStdString(run.algorithm)},
            {"preset", QString::fromStdString(run.preset)},
            {"params", paramsToJson(run.params)},
            {"seed", qint64(run.seed)},
            {"budget", QJsonObject{{"seconds", run.seconds},
                                   {"steps", qint64(run.steps)},
                                   {"wall_seconds", run.wallSeconds}}},
            {"eval_every", run.evalEvery},
            {"eval_every_steps", qint64(run.evalEverySteps)},
            {"full_every", run.fullEvery},
            {"threads", run.threads},
            {"checkpoint_every", qint64(run.checkpointEvery)}};
}

DataDescription dataFromJson(const QJsonObject& json, const std::string& file,
                             const std::string& where, const DataKinds& kinds,
                             const std::string& model, const std::string& algorithm,
                             const Registry& registry)
{
    DataDescription d;
    const QJsonValue files = json.value("files");
    if (files.isString())
        d.files.push_back(files.toString().toStdString());
    else if (files.isArray())
        for (const auto& f : files.toArray()) {
            if (!f.isString() || f.toString().isEmpty())
                fail(file, where + "files", "must be a file name or a list of them");
            d.files.push_back(f.toString().toStdString());
        }
    if (d.files.empty())
        fail(file, where + "files", "missing: a file name or a list of them");
    const QJsonValue kind = json.value("kind");
    if (!kind.isUndefined() && !kind.isString())
        fail(file, where + "kind", "must be one of: " + kinds.keys());
    d.kind = kind.toString().toStdString();
    try {
        d = withKindFor(d, model, algorithm, kinds, registry);
    } catch (const DataError& e) {
        fail(file, where + "files", e.what());
    }
    const DataKindSpec* spec = kinds.find(d.kind);
    if (!spec)
        fail(file, where + "kind", fieldError("kind", d.kind, "must be one of: " + kinds.keys()));
    const QJsonValue settings = json.value("settings");
    if (!settings.isUndefined() && !settings.isObject())
        fail(file, where + "settings", "must be an object");
    d.settings = paramsFromJson(settings.toObject(), spec->settings, file, where + "settings.");
    return d;
}

RunDescription runFromJson(const QJsonObject& given, const std::string& file,
                           const std::string& where, const DataKinds& kinds,
                           const Registry& registry)
{
    if (given.contains("task") && !given.value("task").isObject())
        fail(file, where + "task", "must be an object");
    const QJsonObject json = upgradeRunJson(given);
    if (json.value("version").toInt() != kVersion)
        fail(file, where + "version",
             "= " + QString::number(json.value("version").toDouble()).toStdString() +
                 ", but this version reads 1 and 2");
    RunDescription r;
    if (!json.value("data").isObject())
        fail(file, where + "data", "missing or not an object");
    auto text = [&](const char* key) {
        const QJsonValue v = json.value(key);
        if (!v.isUndefined() && !v.isString())
            fail(file, where + key, "must be a string");
        return v.toString().toStdString();
    };
    r.model = text("model");
    r.algorithm = text("algorithm");
    r.preset = text("preset");
    // The model first: data without a kind are read as one it takes, when they can be.
    r.data = dataFromJson(json.value("data").toObject(), file, where + "data.", kinds, r.model,
                          r.algorithm, registry);
    // Model and algorithm first (their defaults come from the kind), so that the parameters
    // can be typed by the entry's declarations.
    auto found = resolveEntry(r, kinds, registry);
    if (auto* e = std::get_if<ParamError>(&found))
        fail(file, where + e->key, e->message);
    const AlgorithmEntry* entry = std::get<const AlgorithmEntry*>(found);
    const QJsonValue params = json.value("params");
    if (!params.isUndefined() && !params.isObject())
        fail(file, where + "params", "must be an object");
    r.params = paramsFromJson(params.toObject(), entry->params, file, where + "params.");

    QJsonObject settings;
    // The run's settings other than the budget sit at the top level.
    for (const ParamSpec& p : runSettings())
        if (!isBudgetSetting(p.key) && json.contains(QString::fromStdString(p.key)))
            settings[QString::fromStdString(p.key)] = json.value(QString::fromStdString(p.key));
    const QJsonValue budget = json.value("budget");
    if (!budget.isUndefined() && !budget.isObject())
        fail(file, where + "budget", "must be an object");
    ParamValues run = paramsFromJson(settings, runSettings(), file, where);
    std::vector<ParamSpec> budgetSpecs;
    for (const ParamSpec& p : runSettings())
        if (isBudgetSetting(p.key))
            budgetSpecs.push_back(p);
    for (auto& [k, v] : paramsFromJson(budget.toObject(), budgetSpecs, file, where + "budget."))
        run[k] = v;
    setRunSettings(r, run);

    auto resolved = resolveRun(r, kinds, registry);
    if (auto* e = std::get_if<ParamError>(&resolved))
        fail(file, where + e->key, e->message);
    return std::get<RunDescription>(resolved);
}

RunDescription readRunFile(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    if (!f.open(QIODevice::ReadOnly))
        throw DataError("cannot read '" + path + "': " + f.errorString().toStdString());
    QJsonParseError err;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &err);
    if (err.error != QJsonParseError::NoError || !doc.isObject())
        throw DataError(
            QFileInfo(QString::fromStdString(path)).fileName().toStdString() +
            ": not a run description: " +
            (err.error != QJsonParseError::NoError
                 ? err.errorString().toStdString() + " at byte " + std::to_string(err.offset)
                 : std::string("expected a JSON object")));
    return runFromJson(doc.object(), path);
}

} // namespace svi
