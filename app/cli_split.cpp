// 'svi split': a data set's held-out split written in formats other tools read, so that they
// train and score on exactly the data svi does (the kind declares what it writes).

#include "app/cli_parts.h"

namespace svi::cli::detail {

int cmdSplit(const std::vector<std::string>& args)
{
    const RunArgs a = parseRunArgs("split", args);
    const DataKindSpec& kind = kindOf(withKind(a.run.data));
    if (!kind.writeSplit) {
        std::string kinds;
        for (const DataKindSpec& k : builtinDataKinds().all())
            if (k.writeSplit)
                kinds += (kinds.empty() ? "" : ", ") + k.key;
        throw UsageError("split: '" + a.run.data.files.front() + "' is " + kind.label +
                         " data, which has no split to write (these have: " + kinds + ")");
    }
    PreparedData d;
    try {
        d = prepareData(a.run.data);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    const QString dir = QString::fromStdString(a.out);
    makeFolder(dir);
    const std::string written = kind.writeSplit(d.built, a.out);
    if (!a.quiet)
        std::fprintf(stderr, "%s → %s\n", written.c_str(), a.out.c_str());
    return 0;
}

} // namespace svi::cli::detail
