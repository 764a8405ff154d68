#pragma once
// The declarations as JSON, one form for every front end that lists them: `svi list --json`
// (entries, presets, samples) and the Python module (svi.models(), svi.algorithms(),
// svi.data_kinds(), help()). Nothing here names a model or a kind.
//
// Pure functions of the declarations; safe to call from any thread.

#include "core/base/params.h"
#include "core/run/registry.h"

#include <QJsonArray>
#include <QJsonObject>
#include <string>
#include <vector>

namespace svi {

// "int", "real", "choice", "bool", "text", "names".
std::string paramTypeName(ParamType type);

// A declaration: key, label, help (with when it applies), type, default (as text), and its
// choices, or what false does, or its bounds (max null when unbounded).
QJsonObject paramJson(const ParamSpec& spec);
QJsonArray paramsJson(const std::vector<ParamSpec>& specs);

// Every entry of `registry`: model, model_label, algorithm, label, help, bound, default (the
// model's default algorithm), compare_rank, data_kinds, params, metrics (key, label, unit,
// direction "higher" / "lower", compared, headline, caveat when declared).
QJsonArray registryJson(const Registry& registry);

// Every data kind: key, label, task, formats, default_model, several_files, settings.
QJsonArray dataKindsJson(const DataKinds& kinds);

// The registry's presets: key, model, help, params and settings (values as text).
QJsonArray presetsJson(const Registry& registry);

// The embedded samples: key, label, about, licence, kind, model and their files (copied out of
// the executable as sampleFiles does). Throws DataError when a copy cannot be written.
QJsonArray samplesJson();

} // namespace svi
