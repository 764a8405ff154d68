#pragma once
// A run described by keyword, for a front end that takes every value by its key in one list (the
// Python module's keyword arguments): each key is a run setting (seed, steps, …), a setting of the
// data's kind (missing, heldout, …) or a parameter of the algorithm (K, kappa, …), looked up in
// that order in their declarations, and each value is text as `svi run --set` takes it. The
// description is then what `svi run` builds from the same values given as flags.
//
// Pure function of its arguments and the files; safe to call from any thread.

#include "core/run/run_description.h"

#include <string>
#include <utility>
#include <vector>

namespace svi {

struct RunRequest
{
    std::vector<std::string> files; // files or folders; ":/…" for embedded resources
    std::string kind;               // "" = recognised from the files (for the model)
    std::string model, algorithm, preset;
    std::vector<std::pair<std::string, std::string>> values; // key, value as text
};

// The run `request` describes: the kind recognised (for the model, as withKindFor), each value
// typed by its declaration, the preset's settings applied; not yet resolved against the data
// (prepareRun does that). Throws std::invalid_argument with a message naming the key ("K = 0,
// but must be in [1, 100000]"; "Kx: not a parameter of lda svi, nor a setting of Corpus data or
// of the run (parameters: …)"), DataError naming the file when it cannot be recognised. With
// `entries` (a comparison's algorithms), a parameter is typed by the first that declares it;
// otherwise by the run's own entry.
RunDescription describeRun(const RunRequest& request,
                           const std::vector<const AlgorithmEntry*>& entries = {});

// The settings `given` (key, value as text) typed by their declarations in `specs`, as `svi run
// --set` types them. Throws std::invalid_argument naming the key: "<key>: not <what> (<the keys of
// specs>)<also>" when `specs` does not declare it, "K = x, but …" when its text does not parse.
ParamValues typedSettings(const std::vector<ParamSpec>& specs,
                          const std::vector<std::pair<std::string, std::string>>& given,
                          const std::string& what, const std::string& also = {});

} // namespace svi
