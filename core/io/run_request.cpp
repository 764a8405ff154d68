#include "core/io/run_request.h"

#include "core/io/data_kinds.h"
#include "core/models/builtin.h"

#include <stdexcept>

namespace svi {

namespace {

const ParamSpec* declared(const std::vector<ParamSpec>& specs, const std::string& key)
{
    for (const ParamSpec& p : specs)
        if (p.key == key)
            return &p;
    return nullptr;
}

ParamValue typed(const ParamSpec& spec, const std::string& text)
{
    auto v = parseParam(spec, text);
    if (const auto* e = std::get_if<ParamError>(&v)) {
        const bool named = e->message.find(kSettingMark) != std::string::npos;
        throw std::invalid_argument(
            plainSettingRefs(named ? e->message : spec.key + " = " + text + ": " + e->message));
    }
    return std::get<ParamValue>(v);
}

std::string keysOf(const std::vector<ParamSpec>& specs)
{
    std::string keys;
    for (const ParamSpec& p : specs)
        keys += (keys.empty() ? "" : ", ") + p.key;
    return keys;
}

} // namespace

RunDescription describeRun(const RunRequest& request,
                           const std::vector<const AlgorithmEntry*>& entries)
{
    const DataKinds& kinds = builtinDataKinds();
    const Registry& registry = builtinRegistry();
    RunDescription r;
    r.data.files = request.files;
    if (!request.kind.empty() && !kinds.find(request.kind))
        throw std::invalid_argument("kind = " + request.kind +
                                    ", but must be one of: " + kinds.keys());
    r.data.kind = request.kind;
    r.data = withKindFor(r.data, request.model, request.algorithm, kinds, registry);
    const DataKindSpec& kind = kindOf(r.data, kinds);

    // The kind's settings first: the preset fills only those not given.
    std::vector<std::pair<std::string, std::string>> params;
    ParamValues run;
    for (const auto& [key, text] : request.values) {
        if (const ParamSpec* s = declared(runSettings(), key))
            run[key] = typed(*s, text);
        else if (const ParamSpec* k = declared(kind.settings, key))
            r.data.settings[key] = typed(*k, text);
        else
            params.emplace_back(key, text);
    }
    r.model = request.model;
    r.algorithm = request.algorithm;
    r.preset = request.preset;
    applyPresetSettings(r, kinds, registry);
    setRunSettings(r, run);
    if (params.empty())
        return r;
    RunDescription probe = r;
    auto found = resolveEntry(probe, kinds, registry);
    if (const auto* e = std::get_if<ParamError>(&found))
        throw std::invalid_argument(plainSettingRefs(e->message));
    std::vector<const AlgorithmEntry*> typing = entries;
    if (typing.empty())
        typing = {std::get<const AlgorithmEntry*>(found)};
    std::string names;
    std::vector<std::vector<ParamSpec>> lists;
    for (const AlgorithmEntry* e : typing) {
        names += (names.empty() ? "" : ", ") + e->model + " " + e->algorithm;
        lists.push_back(e->params);
    }
    r.params =
        typedSettings(mergeParams(lists), params, "a parameter of " + names,
                      ", nor a setting of " + kind.label + " data (" + keysOf(kind.settings) +
                          ") or of the run (" + keysOf(runSettings()) + ")");
    return r;
}

ParamValues typedSettings(const std::vector<ParamSpec>& specs,
                          const std::vector<std::pair<std::string, std::string>>& given,
                          const std::string& what, const std::string& also)
{
    ParamValues values;
    for (const auto& [key, text] : given) {
        const ParamSpec* s = declared(specs, key);
        if (!s)
            throw std::invalid_argument(key + ": not " + what + " (" + keysOf(specs) + ")" + also);
        values[key] = typed(*s, text);
    }
    return values;
}

} // namespace svi
