// Version 1 of the run description, as the two front ends wrote it before they shared one
// form: `svi run`'s run.json (task kinds inpaint, heldout, completion, recommend; a task's
// seed was the run's) and the window's session runs (inpaint, heldout, corpus, ratings; the
// tokenizer's "vocabulary" was the size cap). Mapped field by field onto version 2, so that
// files saved by earlier versions open and re-run the same.

#include "core/io/run_json.h"

#include <QJsonArray>

namespace svi {

namespace {

// Version-1 task kinds → data kinds.
QString kindOf(const QString& task, const QJsonValue& files)
{
    if (task == "inpaint")
        return "image";
    if (task == "heldout")
        return files.toString() == "synthetic" ? "synthetic" : "table";
    if (task == "completion" || task == "corpus")
        return "corpus";
    if (task == "recommend" || task == "ratings")
        return "ratings";
    return task; // unknown: dataFromJson names it
}

// Every field of a version-1 task becomes a setting of its kind (renamed where the name
// changed), so that one the kind does not declare is reported by dataFromJson, never dropped.
QJsonObject settingsOf(const QString& kind, const QJsonObject& task, const QJsonObject& run)
{
    QJsonObject s;
    for (auto it = task.begin(); it != task.end(); ++it) {
        const QString key = it.key();
        if (key == "kind" || key == "tokenizer" || key == "synthetic")
            continue;
        if (key == "seed")
            s["split_seed"] = it.value();
        else if (key == "vocabulary") // svi: the vocabulary file
            s["vocab"] = it.value();
        else if (key == "vocabulary_cap")
            s["vocab_cap"] = it.value();
        else
            s[key] = it.value();
    }
    const QJsonObject tok = task.value("tokenizer").toObject(); // the session's
    for (auto it = tok.begin(); it != tok.end(); ++it)
        s[it.key() == "vocabulary" ? QString("vocab_cap") : it.key()] = it.value();
    const QJsonObject y = task.value("synthetic").toObject(); // svi's synthetic data
    for (auto it = y.begin(); it != y.end(); ++it)
        s[it.key()] = it.value();
    // svi drew the corruption and the split from the run's seed, and wrote the patch size
    // among BPFA's parameters.
    if (!s.contains("split_seed") && run.contains("seed"))
        s["split_seed"] = run.value("seed");
    if (kind == "image" && !s.contains("patch") && run.value("params").toObject().contains("patch"))
        s["patch"] = run.value("params").toObject().value("patch");
    // svi wrote "" for a file not given, and the session a subset only for raw text.
    for (const QString& k : s.keys())
        if (s.value(k).isString() && s.value(k).toString().isEmpty())
            s.remove(k);
    return s;
}

} // namespace

QJsonObject upgradeRunJson(const QJsonObject& run, const QJsonValue& sessionData,
                           const QJsonValue& sessionTask)
{
    if (run.value("format").toString() == "svi-run" || run.value("data").isObject())
        return run;
    if (run.contains("version") && run.value("version").toInt() != 1)
        return run; // an unknown version: runFromJson says so
    // svi's version 1 ran the embedded image when no data were named.
    const QJsonValue files = run.contains("data") ? run.value("data")
                             : !sessionData.isNull() && !sessionData.isUndefined()
                                 ? sessionData
                                 : QJsonValue(":/images/default.png");
    const QJsonValue taskValue =
        run.contains("data") || run.contains("task") ? run.value("task") : sessionTask;
    const QJsonObject task = taskValue.toObject();
    QJsonObject data;
    data["files"] = files.isString() ? QJsonArray{files} : files;
    const QString kind = kindOf(task.value("kind").toString(), files);
    if (!kind.isEmpty())
        data["kind"] = kind;
    data["settings"] = settingsOf(kind, task, run);

    QJsonObject out = run;
    out.remove("task");
    out["format"] = "svi-run";
    out["version"] = 2;
    out["data"] = data;
    QJsonObject params = run.value("params").toObject();
    params.remove("patch"); // a setting of the image now
    out["params"] = params;
    return out;
}

} // namespace svi
