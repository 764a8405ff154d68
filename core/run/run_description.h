#pragma once
// A run, described once: its data (files, kind, task settings), the model and algorithm with
// their parameters, the seed, the budget, the threads and the evaluation cadence. The command
// line's flags and --config, the run.json a run writes, the window's forms, sessions and
// Re-run all read and write this one value (its JSON codec is core/io/run_json.h). No Qt.

#include "core/base/params.h"
#include "core/run/data_kinds.h"
#include "core/run/registry.h"
#include "core/run/runner.h"

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace svi {

struct RunDescription
{
    DataDescription data;
    std::string model;     // a registry model key; "" = the data kind's default model
    std::string algorithm; // "" = the model's default algorithm (Registry::defaultAlgorithm)
    std::string preset;    // a registry preset the parameters start from; "" = the defaults
    ParamValues params;    // the entry's parameters (absent keys take their defaults)
    std::uint64_t seed = 1;
    double seconds = 0.0;            // training-seconds budget; 0 = none
    std::int64_t steps = 0;          // step budget; 0 = none
    double wallSeconds = 0.0;        // wall-clock budget; 0 = none
    double evalEvery = 0.0;          // snapshot cadence, training seconds; 0 = automatic
    std::int64_t evalEverySteps = 0; // or every this many steps; 0 = by time
    double fullEvery = 0.0; // a full pass every this many training seconds; 0 = only at the end
    int threads = 0;        // OpenMP threads; 0 = the machine's
    std::int64_t checkpointEvery = 0; // a checkpoint every this many steps; 0 = none

    RunOptions runOptions() const;
    // Whether any budget (seconds, steps, wall seconds) is set.
    bool hasBudget() const { return seconds > 0 || steps > 0 || wallSeconds > 0; }
    bool operator==(const RunDescription&) const = default;
};

// The budget of a run given none, in training seconds: the window's and `svi run`'s.
inline constexpr double kDefaultBudgetSeconds = 60.0;

// The run's own settings, declared once: seed, seconds, steps, wall_seconds, eval_every,
// eval_every_steps, full_every, threads, checkpoint_every (keys as in the JSON; flags --seed,
// --seconds, …). The budget settings are seconds, steps and wall_seconds.
bool isBudgetSetting(const std::string& key);
const std::vector<ParamSpec>& runSettings();
// The run settings of `run` as values of runSettings(), and back.
ParamValues runSettingValues(const RunDescription& run);
void setRunSettings(RunDescription& run, const ParamValues& values);

// The registry entry `run` names: its model completed with its preset's, else the data kind's
// default, and its
// algorithm with the model's default, checked to fit the kind (run.data.kind must be set). The
// parameters and the rest are not looked at: resolveRun does that.
std::variant<const AlgorithmEntry*, ParamError>
resolveEntry(RunDescription& run, const DataKinds& kinds, const Registry& registry);

// Sets the data settings of `run`'s preset that `run` does not set itself (none without a
// preset or a known kind; an unknown preset is left to resolveRun to report). Call it before
// the data's own suggestions fill the rest (prepareData), as the command line does: once every
// setting holds a value, a preset cannot tell a default from a choice. resolveRun fills the
// preset's parameters.
void applyPresetSettings(RunDescription& run, const DataKinds& kinds, const Registry& registry);

// Resolves and checks a description against the data kinds and the registry: the kind is
// known (it must be set: recognising files is core/io's job), the settings resolve against the
// kind's declarations, the model fits the kind (empty: the kind's default), the algorithm is
// the model's (empty: its first), the parameters resolve. Returns the
// description with every setting and parameter present, or the first error with the field
// ("data.kind", "data.settings.missing", "model", "algorithm", "preset", "params.K") and a
// message naming it. A preset's values fill the settings and parameters the run leaves unset. A
// description without a budget gets kDefaultBudgetSeconds.
std::variant<RunDescription, ParamError>
resolveRun(const RunDescription& run, const DataKinds& kinds, const Registry& registry);

} // namespace svi
