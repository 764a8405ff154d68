#pragma once
// The flags of the commands that describe a run (svi run, compare, bench), generated from the
// declarations: every data kind's settings (--missing, --channels, --strip-headers /
// --no-strip-headers, …), the run's own settings (--seed, --seconds, --steps, --eval-every,
// --full-every, --threads) and the algorithm's parameters (--set KEY=VALUE). A flag's name is
// its key with '-' for '_'. Nothing here names a kind or a model.

#include "core/io/compare_results.h"
#include "core/io/samples.h"
#include "core/run/run_description.h"

#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace svi::cli {

// A bad-input error: the one-line reason is printed and the exit status is 2.
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// Runs a command of svi or svi-plot and turns what it throws into the exit status and one line
// on stderr: 2 for bad input (UsageError, DataError), 3 for anything else.
int reportingErrors(const std::function<int()>& command);

// An option of one command only (svi compare's --repeats, svi bench's --warmup).
struct CommandOption
{
    std::string flag; // "--repeats"
    bool takesValue = true;
    std::string help;
};

struct RunArgs
{
    // The run as given: the settings and parameters hold only what the flags (and --config)
    // gave; the kind is recognised from the files when no --kind or --config names it.
    RunDescription run;
    std::string out = "results";
    bool quiet = false;
    // Whether files were named (as arguments or by --config): when not, the run is on the
    // embedded default image.
    bool dataGiven = false;
    std::map<std::string, std::string> options; // the command's own options, by flag
};

// Parses the arguments of `command` (after the command word). Throws UsageError with a
// one-line reason naming the flag.
RunArgs parseRunArgs(const std::string& command, const std::vector<std::string>& args,
                     const std::vector<CommandOption>& commandOptions = {});

// The flags of the data kinds and of the run, for help texts, generated from the declarations.
std::string runFlagsHelp();

// "--max-documents" for "max_documents".
std::string flagOf(const std::string& key);

// A message made in core as svi prints it: each setting it names (core/base/params.h,
// settingRef) by the flag that sets it — a data kind's or the run's setting by its own flag
// (--missing, --eval-every), an algorithm's parameter as --set KEY — so that "missing = 1.5, but
// must be in [0, 0.99]" reads "--missing = 1.5, but …". reportingErrors prints every error so.
std::string cliMessage(const std::string& message);

// A number or an integer given to `flag`; throws UsageError "flag = text, but must be …".
double parseNumber(const std::string& flag, const std::string& text);
std::int64_t parseInteger(const std::string& flag, const std::string& text);

} // namespace svi::cli
