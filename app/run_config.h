#pragma once
// The headless tool's run configuration: what `svi run` is asked to do, from its flags and from
// a saved run.json (--config). Parsing only: nothing here reads data or runs anything.

#include "core/base/params.h"
#include "core/io/tokenizer.h"

#include <QJsonObject>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace svi::cli {

inline constexpr const char* kDefaultImage = ":/images/default.png";
// The pseudo-file naming data drawn from the BPFA prior (paper 000, Sec. 5.1).
inline constexpr const char* kSynthetic = "synthetic";

// A bad-input error: the one-line reason is printed and the exit status is 2.
struct UsageError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

// A number or an integer given to `flag`; throws UsageError "flag = text, but must be …".
double parseNumber(const std::string& flag, const std::string& text);
std::int64_t parseInteger(const std::string& flag, const std::string& text);

struct RunConfig
{
    std::vector<std::string> files = {kDefaultImage};
    std::string task; // "" = from the data: inpaint for images, heldout for tables
    double missing = 0.8;
    double noise = 0.0;
    // Tables and synthetic data.
    std::string channels;          // comma-separated
    std::string exclude;           // comma-separated: every channel but these
    std::optional<double> arcsinh; // unset: the data's suggestion (Table::suggestedArcsinh)
    bool standardise = true;
    std::int64_t subsample = 0;
    double heldout = -1.0; // < 0: the data kind's default
    std::string split = "entries";
    bool transpose = false;
    std::int64_t tile = 0;
    std::int64_t synthRows = 100000;
    std::int64_t synthCols = 40;
    std::int64_t synthK = 80;
    double synthLoadingVar = 0.0; // ≤ 0: 1/D as in eq. 5
    // Corpora (--task completion).
    std::string subset;     // raw text: only files below a folder of this name
    std::string vocabulary; // LDA-C / UCI: the vocabulary file (default: found beside)
    TokenizerOptions tokenizer;
    std::int64_t maxDocuments = 0;
    // Ratings (--task recommend); the test fraction is `heldout`.
    double validation = 0.01;
    double binarize = 0.0;
    std::string items;     // titles file (default: found beside the ratings)
    std::string model;     // "" = by data: lda for corpora, bpfa otherwise
    std::string algorithm; // "" = the model's first (gibbs-ssvi for bpfa, svi for lda and hdp)
    std::map<std::string, std::string> sets; // raw --set values, resolved against the registry
    double seconds = 0.0;
    std::int64_t steps = 0;
    std::uint64_t seed = 1;
    int threads = 0;
    double evalEvery = 0.0;
    double fullEvery = 0.0;
    std::string out = "results";
    bool quiet = false;
};

// Reads a run.json written by `svi run` into `c` (the fields it holds replace those of `c`).
// Throws UsageError naming the file and the field.
void loadConfig(const std::string& path, RunConfig& c);

// The arguments of `svi run` after the command (a --config file first, then the flags over
// it), checked: the task fits the data file, a budget is given, values are in range. Throws
// UsageError with a one-line reason.
RunConfig parseRun(const std::vector<std::string>& args);

// The task settings as run.json and summary.json write them.
QJsonObject taskJson(const RunConfig& c);
// The complete configuration with every parameter resolved, for run.json.
QJsonObject configJson(const RunConfig& c, const ParamValues& params);

} // namespace svi::cli
