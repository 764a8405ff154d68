#pragma once
// Parameter declarations and values.
//
// Every tunable of every algorithm is declared once as a ParamSpec. The GUI form, the command
// line (--set key=value), the saved run configuration (JSON) and the documentation table are
// generated from these declarations; so are the defaults of the options structs that hold the
// values and the checks of those structs' fields (core/base/param_fields.h binds each
// declaration to its field).

#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace svi {

// Text: free text (a file name, a folder name); "" allowed. Names: a comma-separated list of
// names picked from the data (a table's channels); the window offers them as a checklist.
enum class ParamType { Int, Real, Choice, Bool, Text, Names };

struct ParamSpec
{
    std::string key;   // stable, used in scripts and saved configurations
    std::string label; // human label for forms
    std::string help;  // one line
    ParamType type = ParamType::Real;
    double defaultValue = 0.0; // Int, Real, Bool (0/1)
    double minValue = 0.0;     // inclusive bounds for Int and Real
    double maxValue = 0.0;
    std::vector<std::string> choices; // Choice only
    std::string defaultChoice;        // Choice, Text and Names
    // Int and Real: minValue itself is excluded ("must be > 0"), for a parameter that must be
    // positive (a Gamma shape, a Dirichlet parameter) but may be as small as it likes.
    bool minExclusive = false;
    // Applies only while the Choice `whenKey` of the same list holds one of `whenValues` (an
    // optimizer's own settings under `optimizer`); empty: always. The form hides it otherwise;
    // its value is kept, read and checked all the same, so a run description never depends on
    // what the form showed.
    std::string whenKey = {};
    std::vector<std::string> whenValues = {};
    // Bool only: what false does, one line in the voice of `help` ("keep the words' case" for
    // "fold words to lower case"). Every Bool that is on by default declares it: its flag is
    // --no-KEY, whose help says what turning it off does, not what it stops doing.
    std::string offHelp = {};
    bool appliesWhen(const std::string& choice) const;
};

// `spec` made to apply only while the Choice `key` holds one of `values`.
ParamSpec onlyWhen(ParamSpec spec, std::string key, std::vector<std::string> values);

// The help as the front ends print it: the declared line, then when it applies ("; only when
// optimizer is adadelta" or "… is sgd, adagrad or rmsprop").
std::string helpText(const ParamSpec& spec);
// helpText, then for a Bool that declares what false does, "; false: <offHelp>": the help of a
// KEY=true|false setting (svi list, the docs' tables).
std::string helpWithOffText(const ParamSpec& spec);

using ParamValue = std::variant<std::int64_t, double, bool, std::string>;
using ParamValues = std::map<std::string, ParamValue>;

// A violated constraint, naming the field: {key = "minibatch",
// message = "minibatch = 0, but must be ≥ 1"}.
struct ParamError
{
    std::string key;
    std::string message;
};

// No upper bound, for a range's `hi`.
inline constexpr double kHuge = std::numeric_limits<double>::max();

// Declarations of the common kinds; `hi` may be kHuge.
ParamSpec intParam(std::string key, std::string label, std::string help, double def, double lo,
                   double hi);
ParamSpec realParam(std::string key, std::string label, std::string help, double def, double lo,
                    double hi);
// A Real that must be positive: (0, ∞).
ParamSpec positiveParam(std::string key, std::string label, std::string help, double def);
// Free text (Text) and lists of names (Names), default "".
ParamSpec textParam(std::string key, std::string label, std::string help);
ParamSpec namesParam(std::string key, std::string label, std::string help);
// A Bool, default `def`; `offHelp` says what false does (required when `def` is true).
ParamSpec boolParam(std::string key, std::string label, std::string help, bool def,
                    std::string offHelp = {});
// A Choice among `choices`, default `def` (one of them).
ParamSpec choiceParam(std::string key, std::string label, std::string help,
                      std::vector<std::string> choices, std::string def);
// The names of a Names value: split at commas, trimmed, empty ones dropped.
std::vector<std::string> splitNames(const std::string& text);

// The one message format for an invalid setting: "<field> = <value>, but <rule>".
std::string fieldError(const std::string& field, const std::string& value, const std::string& rule);
// The same for a declared setting (a parameter, a data kind's or the run's setting), named by a
// reference to it (below) so that each front end names it its own way. The checks made from the
// declarations (parseParam, checkParam, an options struct's validate()) write their messages so.
std::string settingError(const std::string& key, const std::string& value, const std::string& rule);

// --- Settings named in messages ---
// A message made in core (a range check, a rule between settings, a memory estimate's advice)
// names a declared setting by a reference: its key behind a mark, U+2060 WORD JOINER, which is
// invisible, so that a reference shown as it is reads as the key. Each front end names the setting
// its own way where it shows the message (renderSettingRefs): the command line by its flag
// (--eval-every; --set eval_docs for an algorithm's parameter), the window by the label of its
// form field ("Evaluation documents"), the files a run writes by the key (plainSettingRefs).
inline constexpr const char* kSettingMark = "\u2060";
std::string settingRef(const std::string& key);
// Whether `text` is a key: letters, digits and '_', not empty.
bool isSettingKey(const std::string& text);
// A front end's name for the setting of `key`; "" leaves the key.
using SettingNamer = std::function<std::string(const std::string& key)>;
// `message` with each reference replaced by the front end's name for its setting.
std::string renderSettingRefs(const std::string& message, const SettingNamer& name);
// `message` with each reference as its key, for files.
std::string plainSettingRefs(const std::string& message);
// The labels of `specs` by key (the window's form fields).
SettingNamer labelsOf(std::vector<ParamSpec> specs);

// The "seed" field of a run: an integer in [0, 2³¹ − 1], default 1.
ParamSpec seedParam(std::string help);
// The "split_seed" of a data kind's settings (the corruption, subsample and held-out split),
// apart from the run's seed, so that the same split can be scored by runs of other seeds.
ParamSpec splitSeedParam(std::string help);

// The declaration of `key` in `specs`; throws std::logic_error when absent (a declaration
// built from another's parts).
ParamSpec paramNamed(const std::vector<ParamSpec>& specs, const std::string& key);

// The declared defaults.
ParamValues defaultValues(const std::vector<ParamSpec>& specs);

// Parses text (from the command line, a form or JSON) into a typed value for `spec`.
// Checks type and range; returns the error otherwise.
std::variant<ParamValue, ParamError> parseParam(const ParamSpec& spec, const std::string& text);

// Checks type and range of one value.
std::optional<ParamError> checkParam(const ParamSpec& spec, const ParamValue& value);

// Fills defaults for absent keys and checks every value; unknown keys are errors.
std::variant<ParamValues, ParamError> resolveParams(const std::vector<ParamSpec>& specs,
                                                    const ParamValues& given);

// The first of the values of `values` that `specs` declare (an options struct's fields, set in
// code) that checkParam refuses, in the order of `specs`; keys absent from `values` are not
// checked. std::nullopt when every one is valid.
std::optional<ParamError> firstInvalid(const std::vector<ParamSpec>& specs,
                                       const ParamValues& values);

// The declarations of several lists (the algorithms of one model), each key once: its first
// declaration, in order of first appearance.
std::vector<ParamSpec> mergeParams(const std::vector<std::vector<ParamSpec>>& lists);

// Text form of a value ("0.75", "256", "gibbs", "true").
std::string formatParam(const ParamValue& value);

// The shortest text that reads back to the same double ("0.075", "1e-05"), for messages.
std::string formatNumber(double v);

// What a parameter accepts, for help texts: "[1, 1000000000]", "[0, ∞)", "random | gibbs",
// "true | false".
std::string rangeText(const ParamSpec& spec);

// The declared default as text ("256", "0.75", "gibbs", "true").
std::string defaultText(const ParamSpec& spec);

// Typed access to resolved values; throws std::invalid_argument naming the key on a missing
// key or a wrong type (Int is readable as Real).
std::int64_t getInt(const ParamValues& values, const std::string& key);
double getReal(const ParamValues& values, const std::string& key);
bool getBool(const ParamValues& values, const std::string& key);
std::string getChoice(const ParamValues& values, const std::string& key);

// Conversions of one value for ParamFields; each throws std::invalid_argument naming `key` on a
// value of the wrong type, or (paramToInt) one that does not fit an int.
int paramToInt(const std::string& key, const ParamValue& value);
std::int64_t paramToInt64(const std::string& key, const ParamValue& value);
double paramToReal(const std::string& key, const ParamValue& value);
bool paramToBool(const std::string& key, const ParamValue& value);
std::string paramToText(const std::string& key, const ParamValue& value);

} // namespace svi
