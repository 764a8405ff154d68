#pragma once
// The one JSON form of a run description (core/run/run_description.h), read and written by
// `svi run --config`, the run.json every run leaves, `svi compare`, the window's sessions and
// Re-run:
//
//   { "format": "svi-run", "version": 2,
//     "data": { "files": ["house.png"], "kind": "image",
//               "settings": { "missing": 0.8, "noise": 0, "patch": 8, "split_seed": 1 } },
//     "model": "bpfa", "algorithm": "gibbs-ssvi", "params": { "K": 256, … },
//     "seed": 1, "budget": { "seconds": 30, "steps": 0 },
//     "eval_every": 0.5, "full_every": 0, "threads": 0 }
//
// Files of version 1 still read: the run.json of earlier `svi` (task kinds inpaint, heldout,
// completion, recommend) and the runs of earlier sessions (inpaint, heldout, corpus, ratings);
// upgradeRunJson maps their fields onto this form.

#include "core/io/data_kinds.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "core/run/run_description.h"

#include <QJsonObject>
#include <string>

namespace svi {

QJsonObject dataToJson(const DataDescription& data);
QJsonObject runToJson(const RunDescription& run);

// A version-1 run object (a run.json of earlier svi, or one run of an earlier session, whose
// data and task may come from the session: `sessionData`, `sessionTask`) in this form. An object
// already in this form is returned as it is.
QJsonObject upgradeRunJson(const QJsonObject& run, const QJsonValue& sessionData = {},
                           const QJsonValue& sessionTask = {});

// The data of `json` (a "data" object of this form): every value checked against the kind's
// declarations; a missing kind is recognised from the files, for a run of `model` (and
// `algorithm`) when given (withKindFor). Throws DataError "<file>: <where> <field>: <message>".
DataDescription dataFromJson(const QJsonObject& json, const std::string& file,
                             const std::string& where = "data.",
                             const DataKinds& kinds = builtinDataKinds(),
                             const std::string& model = {}, const std::string& algorithm = {},
                             const Registry& registry = builtinRegistry());

// A run of this form or of version 1, resolved (resolveRun: every setting and parameter present,
// checked). Throws DataError "<file>: <field>: <message>", with `where` before the field
// ("runs[2].").
RunDescription runFromJson(const QJsonObject& json, const std::string& file,
                           const std::string& where = "",
                           const DataKinds& kinds = builtinDataKinds(),
                           const Registry& registry = builtinRegistry());

// Reads a run file (JSON, then runFromJson). Relative data paths stay as written.
RunDescription readRunFile(const std::string& path);

// Typed values for `specs` from a JSON object of key → number / string / bool (a Names value
// may also be a list of names); unknown keys and bad values throw DataError naming the field.
ParamValues paramsFromJson(const QJsonObject& json, const std::vector<ParamSpec>& specs,
                           const std::string& file, const std::string& where);
QJsonObject paramsToJson(const ParamValues& values);

} // namespace svi
