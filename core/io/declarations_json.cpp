#include "core/io/declarations_json.h"

#include "core/io/data_kinds.h"
#include "core/io/run_files.h"
#include "core/io/samples.h"

namespace svi {

namespace {

QString q(const std::string& s)
{
    return QString::fromStdString(s);
}

QJsonArray strings(const std::vector<std::string>& list)
{
    QJsonArray a;
    for (const std::string& s : list)
        a.append(q(s));
    return a;
}

QJsonObject valuesJson(const ParamValues& values)
{
    QJsonObject o;
    for (const auto& [k, v] : values)
        o[q(k)] = q(formatParam(v));
    return o;
}

} // namespace

std::string paramTypeName(ParamType type)
{
    switch (type) {
    case ParamType::Int:
        return "int";
    case ParamType::Real:
        return "real";
    case ParamType::Choice:
        return "choice";
    case ParamType::Bool:
        return "bool";
    case ParamType::Text:
        return "text";
    case ParamType::Names:
        return "names";
    }
    return "?";
}

QJsonObject paramJson(const ParamSpec& p)
{
    QJsonObject o{{"key", q(p.key)},
                  {"label", q(p.label)},
                  {"help", q(helpText(p))},
                  {"type", q(paramTypeName(p.type))},
                  {"default", q(defaultText(p))}};
    if (p.type == ParamType::Choice) {
        o["choices"] = strings(p.choices);
    } else if (p.type == ParamType::Bool) {
        if (!p.offHelp.empty())
            o["off_help"] = q(p.offHelp);
    } else if (p.type == ParamType::Int || p.type == ParamType::Real) {
        o["min"] = jsonNumber(p.minValue);
        o["max"] = p.maxValue >= 1e300 ? QJsonValue() : jsonNumber(p.maxValue);
        if (p.minExclusive)
            o["min_exclusive"] = true;
    }
    return o;
}

QJsonArray paramsJson(const std::vector<ParamSpec>& specs)
{
    QJsonArray a;
    for (const ParamSpec& p : specs)
        a.append(paramJson(p));
    return a;
}

QJsonArray registryJson(const Registry& r)
{
    QJsonArray entries;
    for (const AlgorithmEntry& e : r.entries()) {
        QJsonArray metrics;
        for (const MetricSpec& m : e.metrics) {
            QJsonObject o{
                {"key", q(m.key)},        {"label", q(m.label)},
                {"unit", q(m.unit)},      {"direction", m.higherIsBetter ? "higher" : "lower"},
                {"compared", m.compared}, {"headline", m.headline}};
            if (!m.caveat.empty())
                o["caveat"] = q(m.caveat);
            metrics.append(o);
        }
        entries.append(QJsonObject{{"model", q(e.model)},
                                   {"model_label", q(e.modelLabel)},
                                   {"algorithm", q(e.algorithm)},
                                   {"label", q(e.label)},
                                   {"help", q(e.help)},
                                   {"bound", q(e.boundText())},
                                   {"default", r.defaultAlgorithm(e.model) == &e},
                                   {"compare_rank", e.compareRank},
                                   {"data_kinds", strings(e.dataKinds)},
                                   {"params", paramsJson(e.params)},
                                   {"metrics", metrics}});
    }
    return entries;
}

QJsonArray dataKindsJson(const DataKinds& kinds)
{
    QJsonArray a;
    for (const DataKindSpec& k : kinds.all())
        a.append(QJsonObject{{"key", q(k.key)},
                             {"label", q(k.label)},
                             {"task", q(k.task)},
                             {"formats", q(k.formats)},
                             {"default_model", q(k.defaultModel)},
                             {"several_files", k.severalFiles},
                             {"settings", paramsJson(k.settings)}});
    return a;
}

QJsonArray presetsJson(const Registry& r)
{
    QJsonArray out;
    for (const Preset& p : r.presets())
        out.append(QJsonObject{{"key", q(p.key)},
                               {"model", q(p.model)},
                               {"help", q(p.help)},
                               {"params", valuesJson(p.params)},
                               {"settings", valuesJson(p.settings)}});
    return out;
}

QJsonArray samplesJson()
{
    QJsonArray out;
    for (const SampleData& s : sampleData()) {
        const DataDescription d = withKind(DataDescription{sampleFiles(s), s.kind, {}});
        const DataKindSpec& kind = kindOf(d);
        out.append(QJsonObject{{"key", q(s.key)},
                               {"label", q(s.label)},
                               {"about", q(s.about)},
                               {"licence", q(s.licence)},
                               {"kind", q(kind.key)},
                               {"model", q(kind.defaultModel)},
                               {"files", strings(d.files)}});
    }
    return out;
}

} // namespace svi
