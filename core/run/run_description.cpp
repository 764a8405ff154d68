#include "core/run/run_description.h"

#include <algorithm>

namespace svi {

RunOptions RunDescription::runOptions() const
{
    RunOptions o;
    o.maxSeconds = seconds;
    o.maxSteps = steps;
    o.maxWallSeconds = wallSeconds;
    o.evalEverySeconds = evalEvery;
    o.evalEverySteps = evalEverySteps;
    o.checkpointEverySteps = checkpointEvery;
    o.fullEvalEverySeconds = fullEvery;
    return o;
}

const std::vector<ParamSpec>& runSettings()
{
    static const std::vector<ParamSpec> specs = {
        seedParam("seed of every random number of the run (the same seed, the same run)"),
        realParam("seconds", "Seconds",
                  "training-seconds budget (evaluation time excluded); 0 = none", 0, 0, 1e9),
        intParam("steps", "Steps",
                 "step budget; 0 = none (the run ends at whichever budget comes first; with no "
                 "budget at all, 60 training seconds)",
                 0, 0, 9007199254740992.0),
        realParam("wall_seconds", "Wall seconds",
                  "wall-clock budget: training and snapshots, from the run's start (the final "
                  "evaluation comes after it); 0 = none",
                  0, 0, 1e9),
        realParam("eval_every", "Snapshot every (s)",
                  "a snapshot (held-out scores, live image) every this many training seconds; "
                  "0 = automatic: a fortieth of the budget, and rarer when evaluating costs more "
                  "than 15 % of the wall time",
                  0.0, 0.0, 1e6),
        intParam("eval_every_steps", "Snapshot every (steps)",
                 "a snapshot every this many steps instead of by time (a cadence that does not "
                 "depend on the machine's speed); 0 = by time",
                 0, 0, 9007199254740992.0),
        realParam("full_every", "Full pass every (s)",
                  "a full pass (e.g. the whole image's reconstruction) every this many training "
                  "seconds; 0 = only at the end",
                  0, 0, 1e9),
        intParam("threads", "Threads", "OpenMP threads; 0 = the machine's", 0, 0, 4096),
        intParam("checkpoint_every", "Checkpoint every (steps)",
                 "save the run's whole state every this many steps, and when it ends, so that "
                 "it can be resumed from its folder; 0 = only when stopped by a signal",
                 0, 0, 9007199254740992.0),
    };
    return specs;
}

ParamValues runSettingValues(const RunDescription& run)
{
    return {{"seed", std::int64_t(run.seed)},
            {"seconds", run.seconds},
            {"steps", run.steps},
            {"wall_seconds", run.wallSeconds},
            {"eval_every", run.evalEvery},
            {"eval_every_steps", run.evalEverySteps},
            {"full_every", run.fullEvery},
            {"threads", std::int64_t(run.threads)},
            {"checkpoint_every", run.checkpointEvery}};
}

void setRunSettings(RunDescription& run, const ParamValues& v)
{
    if (v.count("seed"))
        run.seed = std::uint64_t(getInt(v, "seed"));
    if (v.count("seconds"))
        run.seconds = getReal(v, "seconds");
    if (v.count("steps"))
        run.steps = getInt(v, "steps");
    if (v.count("wall_seconds"))
        run.wallSeconds = getReal(v, "wall_seconds");
    if (v.count("eval_every"))
        run.evalEvery = getReal(v, "eval_every");
    if (v.count("full_every"))
        run.fullEvery = getReal(v, "full_every");
    if (v.count("threads"))
        run.threads = int(getInt(v, "threads"));
    if (v.count("eval_every_steps"))
        run.evalEverySteps = getInt(v, "eval_every_steps");
    if (v.count("checkpoint_every"))
        run.checkpointEvery = getInt(v, "checkpoint_every");
}

bool isBudgetSetting(const std::string& key)
{
    return key == "seconds" || key == "steps" || key == "wall_seconds";
}

namespace {

// The error of a setting of a part of the description: its field qualified ("params.K"), its
// message naming the setting as every message does (fieldError).
ParamError under(const std::string& prefix, const ParamError& e)
{
    return ParamError{prefix + e.key, e.message};
}

} // namespace

std::variant<const AlgorithmEntry*, ParamError>
resolveEntry(RunDescription& out, const DataKinds& kinds, const Registry& registry)
{
    const DataKindSpec* kind = kinds.find(out.data.kind);
    if (!kind)
        return ParamError{
            "data.kind", fieldError("data.kind", out.data.kind, "must be one of: " + kinds.keys())};
    const auto modelsOfKind = [&] {
        std::string known;
        for (const std::string& m : registry.modelsFor(kind->key))
            known += (known.empty() ? "" : ", ") + m;
        return known;
    };
    const Preset* preset = nullptr;
    if (!out.preset.empty()) {
        preset = registry.preset(out.preset);
        if (!preset) {
            std::string known;
            for (const Preset& p : registry.presets())
                known += (known.empty() ? "" : ", ") + p.key;
            return ParamError{"preset",
                              fieldError("preset", out.preset, "must be one of: " + known)};
        }
        if (out.model.empty())
            out.model = preset->model;
        else if (out.model != preset->model)
            return ParamError{"preset", "preset = " + out.preset + " is for the model " +
                                            preset->model + ", but the run's model is " +
                                            out.model};
    }
    if (out.model.empty())
        out.model = kind->defaultModel;
    const auto algorithms = registry.algorithms(out.model);
    if (algorithms.empty())
        return ParamError{
            "model", fieldError("model", out.model,
                                "must be a model of " + kind->key + " data: " + modelsOfKind())};
    if (out.algorithm.empty())
        out.algorithm = registry.defaultAlgorithm(out.model)->algorithm;
    const AlgorithmEntry* entry = registry.find(out.model, out.algorithm);
    if (!entry) {
        std::string known;
        for (const AlgorithmEntry* e : algorithms)
            known += (known.empty() ? "" : ", ") + e->algorithm;
        return ParamError{"algorithm", fieldError("algorithm", out.algorithm,
                                                  "must be one of " + out.model + "'s: " + known)};
    }
    if (!entry->fits(kind->key)) {
        // What to do, in words every front end shows as they are: another model, or data of a
        // kind this one takes (the data kind is a setting of every front end).
        std::string takes;
        for (const std::string& k : entry->dataKinds)
            if (const DataKindSpec* other = kinds.find(k))
                takes += (takes.empty() ? "" : ", ") + other->label;
        return ParamError{"model", "model = " + out.model + ", but " + entry->modelLabel +
                                       " does not model " + kind->label +
                                       " data: choose a model of " + kind->label + " data (" +
                                       modelsOfKind() + "), or data of a kind " +
                                       entry->modelLabel + " models (" + takes + ")"};
    }
    return entry;
}

namespace {
// Whether `specs` declares `key` (a preset sets only what the model or kind declares).
bool declares(const std::vector<ParamSpec>& specs, const std::string& key)
{
    return std::any_of(specs.begin(), specs.end(),
                       [&key](const ParamSpec& p) { return p.key == key; });
}
} // namespace

void applyPresetSettings(RunDescription& run, const DataKinds& kinds, const Registry& registry)
{
    const Preset* preset = registry.preset(run.preset);
    const DataKindSpec* kind = kinds.find(run.data.kind);
    if (!preset || !kind)
        return;
    for (const auto& [key, value] : preset->settings)
        if (declares(kind->settings, key))
            run.data.settings.try_emplace(key, value);
}

std::variant<RunDescription, ParamError>
resolveRun(const RunDescription& run, const DataKinds& kinds, const Registry& registry)
{
    RunDescription out = run;
    if (out.data.files.empty())
        return ParamError{"data.files", "data.files: no data file given"};
    if (out.data.kind.empty())
        return ParamError{"data.kind", "data.kind: the kind of '" + out.data.files.front() +
                                           "' is not known (one of: " + kinds.keys() + ")"};
    const DataKindSpec* kind = kinds.find(out.data.kind);
    if (!kind)
        return ParamError{
            "data.kind", fieldError("data.kind", out.data.kind, "must be one of: " + kinds.keys())};
    // The preset's values under those the run sets itself (checked by resolveEntry below).
    const Preset* preset = registry.preset(out.preset);
    applyPresetSettings(out, kinds, registry);
    if (out.data.files.size() > 1 && !kind->severalFiles)
        return ParamError{"data.files", "data.files: one " + kind->key + " at a time ('" +
                                            out.data.files[1] + "' is extra)"};
    auto settings = resolveParams(kind->settings, out.data.settings);
    if (auto* e = std::get_if<ParamError>(&settings))
        return under("data.settings.", *e);
    out.data.settings = std::get<ParamValues>(settings);

    auto found = resolveEntry(out, kinds, registry);
    if (auto* e = std::get_if<ParamError>(&found))
        return *e;
    const AlgorithmEntry* entry = std::get<const AlgorithmEntry*>(found);
    if (preset)
        for (const auto& [key, value] : preset->params)
            if (declares(entry->params, key))
                out.params.try_emplace(key, value);
    auto params = resolveParams(entry->params, out.params);
    if (auto* e = std::get_if<ParamError>(&params))
        return under("params.", *e);
    out.params = std::get<ParamValues>(params);

    auto checked = resolveParams(runSettings(), runSettingValues(out));
    if (auto* e = std::get_if<ParamError>(&checked))
        return *e;
    if (!out.hasBudget())
        out.seconds = kDefaultBudgetSeconds;
    return out;
}

} // namespace svi
