#include "ui/shown_messages.h"

#include "core/io/data_kinds.h"
#include "core/models/builtin.h"

namespace svi::ui {

QString shownMessage(const std::string& message, const std::vector<ParamSpec>& specs)
{
    return QString::fromStdString(renderSettingRefs(message, labelsOf(specs)));
}

QString shownMessage(const std::string& message, const RunDescription& run)
{
    std::vector<ParamSpec> specs;
    if (const DataKindSpec* kind = builtinDataKinds().find(run.data.kind))
        specs = kind->settings;
    if (const AlgorithmEntry* e = builtinRegistry().find(run.model, run.algorithm))
        specs.insert(specs.end(), e->params.begin(), e->params.end());
    specs.insert(specs.end(), runSettings().begin(), runSettings().end());
    return shownMessage(message, specs);
}

} // namespace svi::ui
