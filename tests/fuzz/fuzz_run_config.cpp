// The headless tool's run.json, as `svi run --config FILE` reads and checks it.

#include "app/run_config.h"
#include "tests/fuzz/fuzz_input.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("run.json", {reinterpret_cast<const char*>(data), size});
    cli::RunConfig c;
    if (!expectOnly<cli::UsageError>([&] { c = cli::parseRun({"--config", path}); }))
        return 0;
    require(!c.files.empty() && !c.model.empty() && !c.algorithm.empty(),
            "a checked configuration names its data, model and algorithm");
    require(c.seconds >= 0 && c.steps >= 0 && (c.seconds > 0 || c.steps > 0) && c.threads >= 0,
            "a checked configuration has a budget");
    return 0;
}
