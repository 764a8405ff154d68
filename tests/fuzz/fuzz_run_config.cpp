// The run description's JSON, as `svi run --config FILE`, re-run and the window's sessions read
// it: every input either reads into a resolved description or fails with a DataError naming the
// field; what reads writes back and reads again to the same description.

#include "core/io/data_error.h"
#include "core/io/run_json.h"
#include "tests/fuzz/fuzz_input.h"

#include <QJsonDocument>

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("run.json", {reinterpret_cast<const char*>(data), size});
    RunDescription r;
    if (!expectOnly<DataError>([&] { r = readRunFile(path); }))
        return 0;
    require(!r.data.files.empty() && !r.data.kind.empty() && !r.model.empty() &&
                !r.algorithm.empty(),
            "a resolved description names its data, kind, model and algorithm");
    require(r.seconds >= 0 && r.steps >= 0 && (r.seconds > 0 || r.steps > 0) && r.threads >= 0,
            "a resolved description has a budget");
    const RunDescription again = runFromJson(runToJson(r), path);
    require(again == r, "a description reads back as it was written");
    return 0;
}
