#pragma once
// Parameter declarations and values.
//
// Every tunable of every algorithm is declared once as a ParamSpec. The GUI form, the command
// line (--set key=value), the saved run configuration (JSON) and the documentation table are
// generated from these declarations; so are the defaults of the options structs that hold the
// values (through ParamFields) and the checks of those structs' fields.

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
    bool appliesWhen(const std::string& choice) const;
};

// `spec` made to apply only while the Choice `key` holds one of `values`.
ParamSpec onlyWhen(ParamSpec spec, std::string key, std::vector<std::string> values);

// The help as the front ends print it: the declared line, then when it applies ("; only when
// optimizer is adadelta" or "… is sgd, adagrad or rmsprop").
std::string helpText(const ParamSpec& spec);

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
// A Bool, default `def`.
ParamSpec boolParam(std::string key, std::string label, std::string help, bool def);
// A Choice among `choices`, default `def` (one of them).
ParamSpec choiceParam(std::string key, std::string label, std::string help,
                      std::vector<std::string> choices, std::string def);
// The names of a Names value: split at commas, trimmed, empty ones dropped.
std::vector<std::string> splitNames(const std::string& text);

// The one message format for an invalid setting: "<field> = <value>, but <rule>".
std::string fieldError(const std::string& field, const std::string& value, const std::string& rule);

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

// Checks the values of `values` that `specs` declare (an options struct's fields, set in code);
// throws std::invalid_argument with checkParam's message for the first invalid one, in the
// order of `specs`. Keys absent from `values` are not checked.
void checkParams(const std::vector<ParamSpec>& specs, const ParamValues& values);

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

// The fields of an options struct `Owner`, each bound to the key that declares it: the one list
// through which the struct reads resolved values (its fromParams, and its defaults from
// defaultValues of its declaration) and gives them back (to check a struct built in code
// against its declaration). Immutable once built; safe to share between threads.
template <typename Owner> class ParamFields
{
public:
    // A field (int, std::int64_t, double, bool or std::string) by member pointer, or by an
    // accessor returning a reference to it from Owner& and from const Owner& (a generic lambda
    // [](auto& o) -> auto& { return o.prior.a; }).
    template <typename Access> ParamFields& add(std::string key, Access access);
    // A Choice kept as another type (an enum): name(value) is its declared choice, parse(name)
    // the value (throwing std::invalid_argument on a name it does not know).
    template <typename Access, typename Name, typename Parse>
    ParamFields& add(std::string key, Access access, Name name, Parse parse);
    // Every field of a member that has its own ParamFields, under the member's keys.
    template <typename Access, typename Inner>
    ParamFields& add(Access access, const ParamFields<Inner>& inner);

    // Copies the values present in `values` into the fields; absent keys leave them as they are.
    void read(Owner& owner, const ParamValues& values) const;
    // Every field's value, by key.
    ParamValues values(const Owner& owner) const;

private:
    template <typename> friend class ParamFields;
    struct Field
    {
        std::string key;
        std::function<void(Owner&, const ParamValue&)> set;
        std::function<ParamValue(const Owner&)> get;
    };
    std::vector<Field> m_fields;
};

// The plumbing of an options struct whose defaults and ranges are its declaration's (CRTP):
// `Options` declares static allParams() (every key that any of its algorithms declares) and
// static fields() (a ParamFields<Options> holding a field for each), and its default
// constructor calls readDefaults().
template <typename Options> class DeclaredOptions
{
public:
    // Reads resolved values (keys as declared); absent keys keep the defaults.
    static Options fromParams(const ParamValues& values)
    {
        Options o;
        Options::fields().read(o, values);
        return o;
    }
    // Every field's value, by key.
    ParamValues toParams() const
    {
        return Options::fields().values(static_cast<const Options&>(*this));
    }
    // Throws std::invalid_argument with the message of checkParam, naming the first field
    // outside its declared range ("K = 0, but must be ≥ 1").
    void check() const { checkParams(Options::allParams(), toParams()); }
    // *this after check(), for a constructor's initialiser list.
    const Options& checked() const
    {
        check();
        return static_cast<const Options&>(*this);
    }

protected:
    // Sets every field to its declared default.
    void readDefaults()
    {
        static const ParamValues defaults = defaultValues(Options::allParams());
        Options::fields().read(static_cast<Options&>(*this), defaults);
    }
};

// --- implementation of the templates ---

template <typename Owner>
template <typename Access>
ParamFields<Owner>& ParamFields<Owner>::add(std::string key, Access access)
{
    using T = std::remove_cvref_t<std::invoke_result_t<Access&, Owner&>>;
    static_assert(std::is_same_v<T, int> || std::is_same_v<T, std::int64_t> ||
                      std::is_same_v<T, double> || std::is_same_v<T, bool> ||
                      std::is_same_v<T, std::string>,
                  "ParamFields: a field is an int, std::int64_t, double, bool or std::string");
    Field f;
    f.key = key;
    f.set = [key, access](Owner& o, const ParamValue& v) {
        T& field = std::invoke(access, o);
        if constexpr (std::is_same_v<T, int>)
            field = paramToInt(key, v);
        else if constexpr (std::is_same_v<T, std::int64_t>)
            field = paramToInt64(key, v);
        else if constexpr (std::is_same_v<T, double>)
            field = paramToReal(key, v);
        else if constexpr (std::is_same_v<T, bool>)
            field = paramToBool(key, v);
        else
            field = paramToText(key, v);
    };
    f.get = [access](const Owner& o) -> ParamValue {
        const T& field = std::invoke(access, o);
        if constexpr (std::is_same_v<T, int>)
            return std::int64_t(field);
        else
            return field;
    };
    m_fields.push_back(std::move(f));
    return *this;
}

template <typename Owner>
template <typename Access, typename Name, typename Parse>
ParamFields<Owner>& ParamFields<Owner>::add(std::string key, Access access, Name name, Parse parse)
{
    Field f;
    f.key = key;
    f.set = [key, access, parse](Owner& o, const ParamValue& v) {
        std::invoke(access, o) = parse(paramToText(key, v));
    };
    f.get = [access, name](const Owner& o) -> ParamValue {
        return std::string(name(std::invoke(access, o)));
    };
    m_fields.push_back(std::move(f));
    return *this;
}

template <typename Owner>
template <typename Access, typename Inner>
ParamFields<Owner>& ParamFields<Owner>::add(Access access, const ParamFields<Inner>& inner)
{
    for (const auto& in : inner.m_fields) {
        Field f;
        f.key = in.key;
        f.set = [access, set = in.set](Owner& o, const ParamValue& v) {
            set(std::invoke(access, o), v);
        };
        f.get = [access, get = in.get](const Owner& o) { return get(std::invoke(access, o)); };
        m_fields.push_back(std::move(f));
    }
    return *this;
}

template <typename Owner>
void ParamFields<Owner>::read(Owner& owner, const ParamValues& values) const
{
    for (const Field& f : m_fields)
        if (const auto it = values.find(f.key); it != values.end())
            f.set(owner, it->second);
}

template <typename Owner> ParamValues ParamFields<Owner>::values(const Owner& owner) const
{
    ParamValues out;
    for (const Field& f : m_fields)
        out[f.key] = f.get(owner);
    return out;
}

} // namespace svi
