#include "app/cli_flags.h"

#include "app/cli_text.h"
#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/load_control.h"
#include "core/io/run_json.h"
#include "core/io/samples.h"
#include "core/models/builtin.h"

#include <QDir>
#include <cmath>
#include <cstdio>
#include <set>

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

std::string flagOf(const std::string& key)
{
    std::string f = "--" + key;
    for (char& c : f)
        if (c == '_')
            c = '-';
    return f;
}

namespace {

// Every data kind's setting of this flag name (a key may be declared by several kinds, with
// the same type: the declarations test checks it).
const ParamSpec* settingOfAnyKind(const std::string& flag)
{
    for (const DataKindSpec& k : builtinDataKinds().all())
        for (const ParamSpec& p : k.settings)
            if (flagOf(p.key) == flag)
                return &p;
    return nullptr;
}

const ParamSpec* runSettingOf(const std::string& flag)
{
    for (const ParamSpec& p : runSettings())
        if (flagOf(p.key) == flag)
            return &p;
    return nullptr;
}

// The value of `flag` (given as `text`) typed by its declaration; the error names the flag
// (cliMessage: the declaration's key is the flag's).
ParamValue parsed(const ParamSpec& spec, const std::string& flag, const std::string& text)
{
    auto v = parseParam(spec, text);
    if (auto* e = std::get_if<ParamError>(&v))
        throw UsageError(e->message.find(kSettingMark) == std::string::npos
                             ? flag + " = " + text + ": " + e->message
                             : e->message);
    return std::get<ParamValue>(v);
}

// svi's name for the setting of `key`: its flag, or --set KEY for an algorithm's parameter; ""
// for a key that is neither.
std::string flagNaming(const std::string& key)
{
    if (settingOfAnyKind(flagOf(key)) || runSettingOf(flagOf(key)) || key == "kind" ||
        key == "model" || key == "algorithm")
        return flagOf(key);
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        for (const ParamSpec& p : e.params)
            if (p.key == key)
                return "--set " + key;
    return {};
}

} // namespace

std::string cliMessage(const std::string& message)
{
    return renderSettingRefs(message, flagNaming);
}

RunArgs parseRunArgs(const std::string& command, const std::vector<std::string>& args,
                     const std::vector<CommandOption>& commandOptions)
{
    RunArgs out;
    std::string config, kind, sample;
    std::vector<std::string> files;
    std::vector<std::pair<std::string, std::string>> settingFlags; // flag, text
    std::map<std::string, std::string> sets;
    std::vector<std::pair<std::string, std::string>> runFlags;
    std::string model, algorithm, preset;
    bool modelGiven = false, algorithmGiven = false, presetGiven = false;

    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= args.size())
                throw UsageError(a + " needs a value (see svi help " + command + ")");
            return args[++i];
        };
        const CommandOption* own = nullptr;
        for (const CommandOption& o : commandOptions)
            if (o.flag == a)
                own = &o;
        if (own)
            out.options[a] = own->takesValue ? value() : "true";
        else if (a == "--config")
            config = value();
        else if (a == "--kind")
            kind = value();
        else if (a == "--model")
            model = value(), modelGiven = true;
        else if (a == "--algorithm")
            algorithm = value(), algorithmGiven = true;
        else if (a == "--preset")
            preset = value(), presetGiven = true;
        else if (a == "--sample")
            sample = value();
        else if (a == "--out")
            out.out = value();
        else if (a == "--quiet")
            out.quiet = true;
        else if (a == "--set") {
            const std::string kv = value();
            const auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0)
                throw UsageError("--set " + kv + ": expected KEY=VALUE");
            sets[kv.substr(0, eq)] = kv.substr(eq + 1);
        } else if (runSettingOf(a))
            runFlags.emplace_back(a, value());
        else if (const ParamSpec* s = settingOfAnyKind(a))
            settingFlags.emplace_back(a, s->type == ParamType::Bool ? "true" : value());
        else if (const ParamSpec* negated =
                     a.rfind("--no-", 0) == 0 ? settingOfAnyKind("--" + a.substr(5)) : nullptr;
                 negated && negated->type == ParamType::Bool)
            settingFlags.emplace_back("--" + a.substr(5), "false");
        else if (!a.empty() && a[0] == '-' && a != kStandardInput)
            throw UsageError(command + ": unknown option '" + a + "' (see svi help " + command +
                             ")");
        else
            files.push_back(a);
    }

    if (!sample.empty()) {
        const SampleData* s = findSample(sample);
        if (!s)
            throw UsageError("--sample = " + sample + ", but must be one of: " + sampleKeys() +
                             " (svi list --samples)");
        if (!files.empty())
            throw UsageError("--sample " + sample + " names the data: give no file as well");
        try {
            files = sampleFiles(*s);
        } catch (const DataError& e) {
            throw UsageError(e.what());
        }
        if (kind.empty())
            kind = s->kind;
    }
    RunDescription& r = out.run;
    out.dataGiven = !files.empty() || !config.empty();
    if (!config.empty()) {
        try {
            r = readRunFile(config);
        } catch (const DataError& e) {
            throw UsageError(e.what());
        }
    }
    if (!files.empty()) {
        if (r.data.files != files && kind.empty())
            r.data.kind.clear();
        r.data.files = files;
    }
    if (r.data.files.empty())
        r.data.files = {kDefaultImage};
    if (!kind.empty()) {
        if (!builtinDataKinds().find(kind))
            throw UsageError("--kind = " + kind +
                             ", but must be one of: " + builtinDataKinds().keys());
        if (kind != r.data.kind)
            r.data.settings.clear();
        r.data.kind = kind;
    }
    try {
        // Without --kind, the files are read as a kind the model takes when they can be (a CSV
        // with a label column as labelled data for --model glm): core/io/data_kinds.h.
        r.data = withKindFor(r.data, modelGiven ? model : r.model,
                             algorithmGiven ? algorithm
                             : modelGiven   ? std::string()
                                            : r.algorithm);
    } catch (const DataError& e) {
        throw UsageError(e.what());
    }
    const DataKindSpec& spec = kindOf(r.data);
    for (const auto& [flag, text] : settingFlags) {
        const ParamSpec* s = nullptr;
        for (const ParamSpec& p : spec.settings)
            if (flagOf(p.key) == flag)
                s = &p;
        if (!s)
            throw UsageError(flag + " is not a setting of " + spec.label + " data ('" +
                             r.data.files.front() + "'; see svi help " + command + ")");
        r.data.settings[s->key] = parsed(*s, flag, text);
    }

    if (presetGiven)
        r.preset = preset;
    applyPresetSettings(r, builtinDataKinds(), builtinRegistry());

    if (modelGiven && model != r.model)
        r.params.clear(), r.algorithm.clear();
    if (modelGiven)
        r.model = model;
    if (algorithmGiven && algorithm != r.algorithm)
        r.params.clear();
    if (algorithmGiven)
        r.algorithm = algorithm;
    for (const auto& [flag, text] : runFlags) {
        const ParamSpec* s = runSettingOf(flag);
        ParamValues v{{s->key, parsed(*s, flag, text)}};
        setRunSettings(r, v);
    }
    // The parameters are typed against the algorithm's declarations (resolved with the kind's
    // default model when none is given) or, for a command that picks --algorithms, against the
    // first pick that declares the key; an unknown key is an error naming the known ones.
    if (!sets.empty()) {
        RunDescription p = r;
        auto found = resolveEntry(p, builtinDataKinds(), builtinRegistry());
        if (auto* e = std::get_if<ParamError>(&found))
            throw UsageError(e->message);
        std::vector<const AlgorithmEntry*> entries = {std::get<const AlgorithmEntry*>(found)};
        std::string names = p.model + " " + p.algorithm;
        if (const auto picked = out.options.find("--algorithms"); picked != out.options.end()) {
            std::vector<const AlgorithmEntry*> picks;
            std::string pickNames;
            for (const Pick& pick : picksOf(picked->second, p.model))
                if (const AlgorithmEntry* e = builtinRegistry().find(pick.model, pick.algorithm)) {
                    picks.push_back(e);
                    pickNames += pickNames.empty() ? "" : ", ";
                    pickNames += pick.model + " " + pick.algorithm;
                }
            if (!picks.empty()) // an unknown pick is refused by the command, naming it
                entries = picks, names = pickNames;
        }
        for (const auto& [key, text] : sets) {
            const ParamSpec* s = nullptr;
            std::string known;
            std::set<std::string> listed;
            for (const AlgorithmEntry* e : entries)
                for (const ParamSpec& ps : e->params) {
                    if (ps.key == key && !s)
                        s = &ps;
                    if (listed.insert(ps.key).second) {
                        known += known.empty() ? "" : ", ";
                        known += ps.key;
                    }
                }
            if (!s)
                throw UsageError("--set " + key + ": not a parameter of " + names +
                                 " (known: " + known + ")");
            r.params[key] = parsed(*s, "--set " + key, text);
        }
    }
    return out;
}

namespace {

// The flag column of the help: "  --flag METAVAR" padded to here, the help after it.
constexpr std::size_t kFlagColumn = 28;

// How a setting is given on the command line: "--missing X", "--channels A,B,…", and for a
// Bool the flag that changes it from its default ("--strip-headers", "--no-lowercase").
std::string flagUsage(const ParamSpec& p)
{
    std::string flag = flagOf(p.key);
    switch (p.type) {
    case ParamType::Bool:
        return p.defaultValue != 0 ? "--no-" + flag.substr(2) : flag;
    case ParamType::Int:
        return flag + " N";
    case ParamType::Real:
        return flag + " X";
    case ParamType::Names:
        return flag + " A,B,…";
    case ParamType::Text:
        return flag + " TEXT";
    case ParamType::Choice:
        return flag + " CHOICE";
    }
    return flag;
}

// What the flag of flagUsage does. A Bool on by default is turned off by its flag: the line
// says what off does (its declared offHelp), then what the default does.
std::string flagHelp(const ParamSpec& p)
{
    if (p.type == ParamType::Bool) {
        if (p.defaultValue == 0)
            return helpText(p);
        // Every such Bool declares offHelp (test_cli_text checks); "off" stands in otherwise.
        return (p.offHelp.empty() ? std::string("off") : p.offHelp) +
               "; by default: " + helpText(p);
    }
    const std::string def = defaultText(p);
    return def.empty() ? helpText(p) : helpText(p) + " (default " + def + ", " + rangeText(p) + ")";
}

// One setting's line: how it is given, in a column, then what that does.
std::string flagHelpLine(const ParamSpec& p)
{
    // A flag too wide for its column has the help on a line of its own, at the column.
    const std::string usage = "  " + flagUsage(p);
    const std::string lead = displayWidth(usage) + 2 <= kFlagColumn
                                 ? padded(usage, kFlagColumn)
                                 : usage + "\n" + std::string(kFlagColumn, ' ');
    return lead + flagHelp(p) + "\n";
}

} // namespace

std::string runFlagsHelp()
{
    std::string out;
    for (const DataKindSpec& k : builtinDataKinds().all()) {
        out += "\n" + k.label + " (--kind " + k.key + "): " + k.formats + "\n  " + k.task + "\n";
        for (const ParamSpec& p : k.settings)
            out += flagHelpLine(p);
    }
    out += "\nRun\n";
    for (const ParamSpec& p : runSettings())
        out += flagHelpLine(p);
    return out;
}

} // namespace svi::cli

namespace svi::cli {

int reportingErrors(const std::function<int()>& command)
{
    try {
        return command();
    } catch (const UsageError& e) {
        std::fprintf(stderr, "svi: error: %s\n", cliMessage(e.what()).c_str());
        return 2;
    } catch (const DataError& e) {
        std::fprintf(stderr, "svi: error: %s\n", cliMessage(e.what()).c_str());
        return 2;
    } catch (const LoadCancelled&) {
        std::fprintf(stderr, "svi: interrupted while the data were read; nothing was written\n");
        return 130;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "svi: error: %s\n", cliMessage(e.what()).c_str());
        return 3;
    }
}

} // namespace svi::cli

namespace svi::cli::detail {

// (Declared in cli_parts.h; here so that svi-plot, which links this file, has it too.)
void makeFolder(const QString& dir)
{
    if (!QDir().mkpath(dir))
        throw UsageError("cannot create the output folder '" + dir.toStdString() + "'");
}

} // namespace svi::cli::detail
