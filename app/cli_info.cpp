// 'svi list' and 'svi info': the registry's models and what a data file holds.

#include "app/cli_parts.h"
#include "app/cli_text.h"
#include "core/io/data_kinds.h"
#include "core/io/declarations_json.h"
#include "core/io/samples.h"
#include "core/models/builtin.h"
#include "core/run/docs_tables.h"

#include <algorithm>
#include <set>
#include <type_traits>
#include <variant>

namespace svi::cli::detail {

// ---------------------------------------------------------------------------------------------
// svi list: every entry with its parameters, and each model's metrics with their caveats.

namespace {

// svi list --presets: the registry's named sets of values, each with what it sets.
int listPresets(bool json)
{
    const Registry& r = builtinRegistry();
    if (json) {
        const QJsonArray out = presetsJson(r);
        std::fputs(QJsonDocument(out).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    for (const Preset& p : r.presets()) {
        std::printf("--preset %s (model %s)\n    %s\n   ", p.key.c_str(), p.model.c_str(),
                    p.help.c_str());
        for (const ParamValues* values : {&p.settings, &p.params})
            for (const auto& [k, v] : *values)
                std::printf(" %s=%s", k.c_str(), formatParam(v).c_str());
        std::printf("\n\n");
    }
    return 0;
}

// svi list --samples: the embedded data sets, each with the kind its content is read as and
// the model a run on it starts with.
int listSamples(bool json)
{
    if (json) {
        std::fputs(QJsonDocument(samplesJson()).toJson(QJsonDocument::Indented).constData(),
                   stdout);
        return 0;
    }
    for (const SampleData& s : sampleData()) {
        const DataDescription d = withKind(DataDescription{sampleFiles(s), s.kind, {}});
        const DataKindSpec& kind = kindOf(d);
        std::printf("--sample %s\n    %s\n    %s data, model %s; %s\n    %s\n\n", s.key.c_str(),
                    s.label.c_str(), kind.label.c_str(), kind.defaultModel.c_str(),
                    s.licence.c_str(), s.about.c_str());
    }
    return 0;
}

} // namespace

int cmdList(const std::vector<std::string>& args)
{
    bool json = false, presets = false, samples = false;
    for (const auto& a : args) {
        if (a == "--json")
            json = true;
        else if (a == "--presets")
            presets = true;
        else if (a == "--samples")
            samples = true;
        else if (a == "--markdown") {
            std::fputs(markdownTables(builtinRegistry()).c_str(), stdout);
            return 0;
        } else
            throw UsageError("list: unknown option '" + a + "'");
    }
    if (presets)
        return listPresets(json);
    if (samples)
        return listSamples(json);
    const Registry& r = builtinRegistry();
    if (json) {
        const QJsonArray entries = registryJson(r);
        std::fputs(QJsonDocument(entries).toJson(QJsonDocument::Indented).constData(), stdout);
        return 0;
    }
    std::string lastModel;
    for (const AlgorithmEntry& e : r.entries()) {
        if (e.model != lastModel) {
            std::printf("model %s — %s\n", e.model.c_str(), e.modelLabel.c_str());
            // Its metrics, each caveat once below them.
            Notes notes;
            std::string keys;
            for (const MetricSpec& m : r.metricsOf({e.model}))
                keys += (keys.empty() ? "" : ", ") + m.key + notes.mark(m.caveat);
            std::printf("  metrics: %s\n%s\n", keys.c_str(), notes.lines("    ").c_str());
            lastModel = e.model;
        }
        const bool isDefault = r.defaultAlgorithm(e.model) == &e;
        std::printf("  --algorithm %s%s%s: %s\n", padded(e.algorithm, 15, 1).c_str(),
                    e.label.c_str(), isDefault ? " (default)" : "", e.help.c_str());
        std::printf("      ELBO: %s\n", e.boundText().c_str());
        // Columns padded by what a reader sees: a range such as [1, ∞) is wider in bytes.
        for (const ParamSpec& p : e.params)
            std::printf("      %s%sdefault %srange %s%s\n", padded(p.key, 14, 1).c_str(),
                        padded(paramTypeName(p.type), 7, 1).c_str(),
                        padded(defaultText(p), 9, 1).c_str(), padded(rangeText(p), 15, 1).c_str(),
                        helpWithOffText(p).c_str());
        std::printf("\n");
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// svi info: what the file's kind reports (core/run/data_kinds.h DataReport), as text or JSON.

namespace {

// Lists longer than this are cut in the text (JSON holds every item).
constexpr std::size_t kTextItems = 50;

std::string numberText(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

// Each item of a value as text: one for a scalar, one per item for a list.
std::vector<std::string> itemsText(const InfoLine::Value& value)
{
    return std::visit(
        [](const auto& v) -> std::vector<std::string> {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, std::int64_t>)
                return {std::to_string(v)};
            else if constexpr (std::is_same_v<T, double>)
                return {numberText(v)};
            else if constexpr (std::is_same_v<T, bool>)
                return {v ? "yes" : "no"};
            else if constexpr (std::is_same_v<T, std::string>)
                return {v};
            else if constexpr (std::is_same_v<T, std::vector<std::string>>)
                return v;
            else {
                std::vector<std::string> out;
                out.reserve(v.size());
                for (double x : v)
                    out.push_back(numberText(x));
                return out;
            }
        },
        value);
}

bool isList(const InfoLine::Value& value)
{
    return std::holds_alternative<std::vector<std::string>>(value) ||
           std::holds_alternative<std::vector<double>>(value);
}

QJsonValue jsonValue(const InfoLine::Value& value)
{
    if (const auto* n = std::get_if<std::int64_t>(&value))
        return qint64(*n);
    if (const auto* x = std::get_if<double>(&value))
        return jsonNumber(*x);
    if (const auto* b = std::get_if<bool>(&value))
        return *b;
    if (const auto* t = std::get_if<std::string>(&value))
        return QString::fromStdString(*t);
    if (const auto* names = std::get_if<std::vector<std::string>>(&value)) {
        QJsonArray a;
        for (const std::string& n : *names)
            a.append(QString::fromStdString(n));
        return a;
    }
    QJsonArray a;
    for (double x : std::get<std::vector<double>>(value))
        a.append(jsonNumber(x));
    return a;
}

// The lists of one table (the lines named `table`) under its name, a row per item, headed by
// the columns' labels when there are several.
std::string tableText(const std::vector<InfoLine>& lines, const std::string& table)
{
    std::vector<std::vector<std::string>> columns;
    std::vector<std::string> labels;
    std::size_t rows = 0;
    for (const InfoLine& l : lines)
        if (l.table == table) {
            columns.push_back(itemsText(l.value));
            labels.push_back(l.label);
            rows = std::max(rows, columns.back().size());
        }
    if (rows == 0)
        return {};
    if (columns.size() > 1) {
        for (std::size_t c = 0; c < columns.size(); ++c)
            columns[c].insert(columns[c].begin(), labels[c]);
        ++rows;
    }
    std::vector<std::size_t> widths;
    for (const auto& column : columns) {
        std::size_t w = 0;
        for (const std::string& cell : column)
            w = std::max(w, displayWidth(cell));
        widths.push_back(w);
    }
    std::string out = "  " + table + "\n";
    for (std::size_t r = 0; r < rows; ++r) {
        std::string row = "   ";
        for (std::size_t c = 0; c < columns.size(); ++c) {
            const std::string cell = r < columns[c].size() ? columns[c][r] : std::string();
            row += " " + (c + 1 < columns.size() ? padded(cell, widths[c] + 1) : cell);
        }
        out += row + "\n";
    }
    return out;
}

std::string reportText(const std::string& path, const DataKindSpec& kind, const DataReport& report)
{
    std::size_t labelWidth = 4; // "kind"
    for (const InfoLine& l : report.lines)
        if (l.table.empty())
            labelWidth = std::max(labelWidth, displayWidth(l.label));
    auto line = [&](const std::string& label, const std::string& text) {
        return "  " + padded(label, labelWidth + 2) + text + "\n";
    };
    std::string out = path + "\n" + line("kind", kind.key + " (" + kind.label + ")");
    std::set<std::string> tablesDone;
    for (const InfoLine& l : report.lines) {
        if (!l.table.empty()) {
            if (tablesDone.insert(l.table).second)
                out += tableText(report.lines, l.table);
            continue;
        }
        const std::vector<std::string> items = itemsText(l.value);
        if (isList(l.value) && items.empty())
            continue;
        std::string text;
        for (std::size_t i = 0; i < items.size() && i < kTextItems; ++i)
            text += (i ? " " : "") + items[i];
        if (items.size() > kTextItems)
            text += " … (" + std::to_string(items.size()) + " in all)";
        out += line(l.label, l.note.empty() ? text : text + " " + l.note);
    }
    return out;
}

} // namespace

int cmdInfo(const std::vector<std::string>& args)
{
    const RunArgs a = parseRunArgs("info", args, {{"--json", false, "JSON instead of text"}});
    if (!a.dataGiven)
        throw UsageError("info: which file? (svi info FILE [--json] [data settings])");
    const DataDescription& data = a.run.data;
    DataReport report;
    try {
        report = inspectData(data);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const DataKindSpec& kind = kindOf(data);
    const std::string& path = data.files.front();
    if (a.options.count("--json")) {
        QJsonObject o{{"path", QString::fromStdString(path)},
                      {"kind", QString::fromStdString(kind.key)}};
        for (const InfoLine& l : report.lines)
            o[QString::fromStdString(l.key)] = jsonValue(l.value);
        std::fputs(QJsonDocument(o).toJson(QJsonDocument::Indented).constData(), stdout);
    } else {
        std::fputs(reportText(path, kind, report).c_str(), stdout);
    }
    return 0;
}

// ---------------------------------------------------------------------------------------------
// svi run

} // namespace svi::cli::detail
