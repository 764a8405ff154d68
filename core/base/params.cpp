#include "core/base/params.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace svi {

std::string formatNumber(double v)
{
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

namespace {

// A bound is meaningful when a value can actually cross it. Declarations write "no upper limit"
// as a huge number (often std::numeric_limits<double>::max()); such a bound is left out of the
// message, which then reads "must be ≥ lo" rather than "must be in [lo, 1.79769e+308]". For an
// Int, a bound outside the int64 range can never be crossed (and could not be converted).
bool meaningfulBound(const ParamSpec& spec, double b)
{
    if (spec.type == ParamType::Int)
        return std::isfinite(b) && std::abs(b) < 0x1p63;
    return std::isfinite(b) && std::abs(b) < 1e300;
}

bool hasBound(const ParamSpec& spec)
{
    return meaningfulBound(spec, spec.minValue) || meaningfulBound(spec, spec.maxValue);
}

std::string rangeRule(const ParamSpec& spec)
{
    const bool lo = meaningfulBound(spec, spec.minValue), hi = meaningfulBound(spec, spec.maxValue);
    auto num = [&](double v) {
        // Bounds of an Int are printed as integers ("≥ 1", not "≥ 1.0"); v is in int64 range here.
        return spec.type == ParamType::Int ? std::to_string(static_cast<long long>(v))
                                           : formatNumber(v);
    };
    if (lo && hi)
        return std::string("must be in ") + (spec.minExclusive ? "(" : "[") + num(spec.minValue) +
               ", " + num(spec.maxValue) + "]";
    if (lo)
        return (spec.minExclusive ? "must be > " : "must be ≥ ") + num(spec.minValue);
    if (hi)
        return "must be ≤ " + num(spec.maxValue);
    return "must be finite";
}

ParamError error(const ParamSpec& spec, const std::string& text, const std::string& rule)
{
    return ParamError{spec.key, settingError(spec.key, text, rule)};
}

bool belowMin(const ParamSpec& spec, double v)
{
    return spec.minExclusive ? !(v > spec.minValue) : v < spec.minValue;
}

std::string choicesText(const ParamSpec& spec)
{
    std::string s;
    for (const auto& c : spec.choices)
        s += (s.empty() ? "" : ", ") + c;
    return s;
}

} // namespace

ParamValues defaultValues(const std::vector<ParamSpec>& specs)
{
    ParamValues v;
    for (const ParamSpec& s : specs) {
        switch (s.type) {
        case ParamType::Int:
            v[s.key] = static_cast<std::int64_t>(s.defaultValue);
            break;
        case ParamType::Real:
            v[s.key] = s.defaultValue;
            break;
        case ParamType::Bool:
            v[s.key] = s.defaultValue != 0.0;
            break;
        case ParamType::Choice:
        case ParamType::Text:
        case ParamType::Names:
            v[s.key] = s.defaultChoice;
            break;
        }
    }
    return v;
}

std::variant<ParamValue, ParamError> parseParam(const ParamSpec& spec, const std::string& text)
{
    ParamValue value;
    switch (spec.type) {
    case ParamType::Int: {
        long long v = 0;
        const char* end = text.data() + text.size();
        const auto res = std::from_chars(text.data(), end, v);
        if (text.empty() || res.ptr != end ||
            (res.ec != std::errc() && res.ec != std::errc::result_out_of_range))
            return error(spec, text, "must be an integer");
        // An integer too long for 64 bits is a range problem, not a syntax one.
        if (res.ec == std::errc::result_out_of_range)
            return error(spec, text, hasBound(spec) ? rangeRule(spec) : "must be a 64-bit integer");
        value = static_cast<std::int64_t>(v);
        break;
    }
    case ParamType::Real: {
        double v = 0;
        const char* end = text.data() + text.size();
        const auto res = std::from_chars(text.data(), end, v);
        if (text.empty() || res.ec != std::errc() || res.ptr != end)
            return error(spec, text, "must be a number");
        if (!std::isfinite(v))
            return error(spec, text, "must be finite");
        value = v;
        break;
    }
    case ParamType::Bool: {
        std::string t;
        for (char c : text)
            t += char(std::tolower(static_cast<unsigned char>(c)));
        if (t == "true" || t == "1" || t == "yes" || t == "on")
            value = true;
        else if (t == "false" || t == "0" || t == "no" || t == "off")
            value = false;
        else
            return error(spec, text, "must be true or false");
        break;
    }
    case ParamType::Choice:
    case ParamType::Text:
    case ParamType::Names:
        value = text;
        break;
    }
    if (auto e = checkParam(spec, value))
        return *e;
    return value;
}

std::optional<ParamError> checkParam(const ParamSpec& spec, const ParamValue& value)
{
    switch (spec.type) {
    case ParamType::Int: {
        const auto* v = std::get_if<std::int64_t>(&value);
        if (!v)
            return error(spec, formatParam(value), "must be an integer");
        if (belowMin(spec, double(*v)) || double(*v) > spec.maxValue)
            return error(spec, std::to_string(*v), rangeRule(spec));
        return std::nullopt;
    }
    case ParamType::Real: {
        double v;
        if (const auto* d = std::get_if<double>(&value))
            v = *d;
        else if (const auto* i = std::get_if<std::int64_t>(&value))
            v = double(*i);
        else
            return error(spec, formatParam(value), "must be a number");
        // NaN lies in no range; an infinity is outside any range that has a bound, which the
        // rule then names ("b0 = inf, but must be > 0").
        if (std::isnan(v) || (std::isinf(v) && !hasBound(spec)))
            return error(spec, formatParam(value), "must be finite");
        if (belowMin(spec, v) || v > spec.maxValue || std::isinf(v))
            return error(spec, formatNumber(v), rangeRule(spec));
        return std::nullopt;
    }
    case ParamType::Bool:
        if (!std::holds_alternative<bool>(value))
            return error(spec, formatParam(value), "must be true or false");
        return std::nullopt;
    case ParamType::Choice: {
        const auto* s = std::get_if<std::string>(&value);
        if (!s)
            return error(spec, formatParam(value), "must be one of: " + choicesText(spec));
        for (const auto& c : spec.choices)
            if (c == *s)
                return std::nullopt;
        return error(spec, *s, "must be one of: " + choicesText(spec));
    }
    case ParamType::Text:
    case ParamType::Names:
        if (!std::holds_alternative<std::string>(value))
            return error(spec, formatParam(value),
                         spec.type == ParamType::Text ? "must be text" : "must be a list of names");
        return std::nullopt;
    }
    return std::nullopt;
}

std::variant<ParamValues, ParamError> resolveParams(const std::vector<ParamSpec>& specs,
                                                    const ParamValues& given)
{
    ParamValues out = defaultValues(specs);
    for (const auto& [key, value] : given) {
        const ParamSpec* spec = nullptr;
        for (const ParamSpec& s : specs)
            if (s.key == key)
                spec = &s;
        if (!spec) {
            std::string known;
            for (const ParamSpec& s : specs)
                known += (known.empty() ? "" : ", ") + s.key;
            return ParamError{key, "unknown parameter '" + key + "' (known: " + known + ")"};
        }
        ParamValue v = value;
        // An integer is a valid real.
        if (spec->type == ParamType::Real)
            if (const auto* i = std::get_if<std::int64_t>(&value))
                v = double(*i);
        if (auto e = checkParam(*spec, v))
            return *e;
        out[key] = v;
    }
    return out;
}

std::optional<ParamError> firstInvalid(const std::vector<ParamSpec>& specs,
                                       const ParamValues& values)
{
    for (const ParamSpec& spec : specs)
        if (const auto it = values.find(spec.key); it != values.end())
            if (auto e = checkParam(spec, it->second))
                return e;
    return std::nullopt;
}

std::vector<ParamSpec> mergeParams(const std::vector<std::vector<ParamSpec>>& lists)
{
    std::vector<ParamSpec> out;
    for (const auto& list : lists)
        for (const ParamSpec& spec : list) {
            bool seen = false;
            for (const ParamSpec& s : out)
                seen = seen || s.key == spec.key;
            if (!seen)
                out.push_back(spec);
        }
    return out;
}

std::string formatParam(const ParamValue& value)
{
    if (const auto* i = std::get_if<std::int64_t>(&value))
        return std::to_string(*i);
    if (const auto* d = std::get_if<double>(&value))
        return formatNumber(*d);
    if (const auto* b = std::get_if<bool>(&value))
        return *b ? "true" : "false";
    return std::get<std::string>(value);
}

namespace {
const ParamValue& lookup(const ParamValues& values, const std::string& key)
{
    const auto it = values.find(key);
    if (it == values.end())
        throw std::invalid_argument("parameter '" + key + "' is missing");
    return it->second;
}
} // namespace

std::int64_t getInt(const ParamValues& values, const std::string& key)
{
    return paramToInt64(key, lookup(values, key));
}

double getReal(const ParamValues& values, const std::string& key)
{
    return paramToReal(key, lookup(values, key));
}

bool getBool(const ParamValues& values, const std::string& key)
{
    return paramToBool(key, lookup(values, key));
}

std::string getChoice(const ParamValues& values, const std::string& key)
{
    return paramToText(key, lookup(values, key));
}

std::string rangeText(const ParamSpec& p)
{
    if (p.type == ParamType::Choice) {
        std::string s;
        for (const auto& c : p.choices)
            s += (s.empty() ? "" : " | ") + c;
        return s;
    }
    if (p.type == ParamType::Bool)
        return "true | false";
    if (p.type == ParamType::Text)
        return "text";
    if (p.type == ParamType::Names)
        return "name,name,…";
    std::ostringstream o;
    o << (p.minExclusive ? "(" : "[")
      << formatParam(p.type == ParamType::Int ? ParamValue(std::int64_t(p.minValue))
                                              : ParamValue(p.minValue))
      << ", ";
    if (p.maxValue >= 1e300)
        o << "∞)";
    else
        o << formatParam(p.type == ParamType::Int ? ParamValue(std::int64_t(p.maxValue))
                                                  : ParamValue(p.maxValue))
          << "]";
    return o.str();
}

std::string defaultText(const ParamSpec& p)
{
    switch (p.type) {
    case ParamType::Int:
        return formatParam(std::int64_t(p.defaultValue));
    case ParamType::Real:
        return formatParam(p.defaultValue);
    case ParamType::Bool:
        return p.defaultValue != 0 ? "true" : "false";
    case ParamType::Choice:
    case ParamType::Text:
    case ParamType::Names:
        return p.defaultChoice;
    }
    return "";
}

ParamSpec intParam(std::string key, std::string label, std::string help, double def, double lo,
                   double hi)
{
    return ParamSpec{
        std::move(key), std::move(label), std::move(help), ParamType::Int, def, lo, hi, {}, {}};
}

ParamSpec positiveParam(std::string key, std::string label, std::string help, double def)
{
    ParamSpec spec = realParam(std::move(key), std::move(label), std::move(help), def, 0.0,
                               std::numeric_limits<double>::max());
    spec.minExclusive = true;
    return spec;
}

int paramToInt(const std::string& key, const ParamValue& value)
{
    const std::int64_t v = paramToInt64(key, value);
    if (v > std::numeric_limits<int>::max())
        throw std::invalid_argument(
            fieldError(key, std::to_string(v),
                       "must be ≤ " + std::to_string(std::numeric_limits<int>::max())));
    if (v < std::numeric_limits<int>::min())
        throw std::invalid_argument(
            fieldError(key, std::to_string(v),
                       "must be ≥ " + std::to_string(std::numeric_limits<int>::min())));
    return int(v);
}

std::int64_t paramToInt64(const std::string& key, const ParamValue& value)
{
    if (const auto* i = std::get_if<std::int64_t>(&value))
        return *i;
    throw std::invalid_argument("parameter '" + key + "' is not an integer");
}

double paramToReal(const std::string& key, const ParamValue& value)
{
    if (const auto* d = std::get_if<double>(&value))
        return *d;
    if (const auto* i = std::get_if<std::int64_t>(&value))
        return double(*i);
    throw std::invalid_argument("parameter '" + key + "' is not a number");
}

bool paramToBool(const std::string& key, const ParamValue& value)
{
    if (const auto* b = std::get_if<bool>(&value))
        return *b;
    throw std::invalid_argument("parameter '" + key + "' is not a boolean");
}

std::string paramToText(const std::string& key, const ParamValue& value)
{
    if (const auto* s = std::get_if<std::string>(&value))
        return *s;
    throw std::invalid_argument("parameter '" + key + "' is not a choice");
}

std::string fieldError(const std::string& field, const std::string& value, const std::string& rule)
{
    return field + " = " + value + ", but " + rule;
}

std::string settingError(const std::string& key, const std::string& value, const std::string& rule)
{
    return fieldError(settingRef(key), value, rule);
}

namespace {

bool isKeyChar(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

} // namespace

bool isSettingKey(const std::string& text)
{
    return !text.empty() && std::all_of(text.begin(), text.end(), isKeyChar);
}

std::string settingRef(const std::string& key)
{
    return kSettingMark + key;
}

std::string renderSettingRefs(const std::string& message, const SettingNamer& name)
{
    const std::string mark = kSettingMark;
    std::string out;
    std::size_t from = 0;
    for (std::size_t at = message.find(mark); at != std::string::npos;
         at = message.find(mark, from)) {
        out.append(message, from, at - from);
        std::size_t end = at + mark.size();
        while (end < message.size() && isKeyChar(message[end]))
            ++end;
        const std::string key = message.substr(at + mark.size(), end - at - mark.size());
        const std::string named = key.empty() || !name ? std::string() : name(key);
        out += named.empty() ? key : named;
        from = end;
    }
    return out.append(message, from, std::string::npos);
}

std::string plainSettingRefs(const std::string& message)
{
    return renderSettingRefs(message, {});
}

SettingNamer labelsOf(std::vector<ParamSpec> specs)
{
    return [specs = std::move(specs)](const std::string& key) {
        for (const ParamSpec& s : specs)
            if (s.key == key)
                return s.label;
        return std::string();
    };
}

ParamSpec seedParam(std::string help)
{
    return intParam("seed", "Seed", std::move(help), 1, 0, 2147483647.0);
}

ParamSpec paramNamed(const std::vector<ParamSpec>& specs, const std::string& key)
{
    for (const ParamSpec& p : specs)
        if (p.key == key)
            return p;
    throw std::logic_error("no parameter '" + key + "' is declared here");
}

ParamSpec splitSeedParam(std::string help)
{
    ParamSpec p = seedParam(std::move(help));
    p.key = "split_seed";
    p.label = "Split seed";
    return p;
}

ParamSpec textParam(std::string key, std::string label, std::string help)
{
    return ParamSpec{
        std::move(key), std::move(label), std::move(help), ParamType::Text, 0, 0, 0, {}, {}};
}

ParamSpec namesParam(std::string key, std::string label, std::string help)
{
    return ParamSpec{
        std::move(key), std::move(label), std::move(help), ParamType::Names, 0, 0, 0, {}, {}};
}

ParamSpec boolParam(std::string key, std::string label, std::string help, bool def,
                    std::string offHelp)
{
    ParamSpec spec{std::move(key),
                   std::move(label),
                   std::move(help),
                   ParamType::Bool,
                   def ? 1.0 : 0.0,
                   0,
                   1,
                   {},
                   {}};
    spec.offHelp = std::move(offHelp);
    return spec;
}

ParamSpec choiceParam(std::string key, std::string label, std::string help,
                      std::vector<std::string> choices, std::string def)
{
    return ParamSpec{
        std::move(key),     std::move(label), std::move(help), ParamType::Choice, 0, 0, 0,
        std::move(choices), std::move(def)};
}

bool ParamSpec::appliesWhen(const std::string& choice) const
{
    return whenKey.empty() ||
           std::find(whenValues.begin(), whenValues.end(), choice) != whenValues.end();
}

ParamSpec onlyWhen(ParamSpec spec, std::string key, std::vector<std::string> values)
{
    spec.whenKey = std::move(key);
    spec.whenValues = std::move(values);
    return spec;
}

std::string helpText(const ParamSpec& spec)
{
    if (spec.whenKey.empty())
        return spec.help;
    std::string values;
    for (std::size_t i = 0; i < spec.whenValues.size(); ++i)
        values += (i == 0                            ? ""
                   : i + 1 == spec.whenValues.size() ? " or "
                                                     : ", ") +
                  spec.whenValues[i];
    return spec.help + "; only when " + spec.whenKey + " is " + values;
}

std::string helpWithOffText(const ParamSpec& spec)
{
    const std::string help = helpText(spec);
    return spec.type == ParamType::Bool && !spec.offHelp.empty() ? help + "; false: " + spec.offHelp
                                                                 : help;
}

std::vector<std::string> splitNames(const std::string& text)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(',', start);
        if (end == std::string::npos)
            end = text.size();
        std::string name = text.substr(start, end - start);
        const auto first = name.find_first_not_of(" \t");
        const auto last = name.find_last_not_of(" \t");
        if (first != std::string::npos)
            out.push_back(name.substr(first, last - first + 1));
        start = end + 1;
    }
    return out;
}

ParamSpec realParam(std::string key, std::string label, std::string help, double def, double lo,
                    double hi)
{
    return ParamSpec{
        std::move(key), std::move(label), std::move(help), ParamType::Real, def, lo, hi, {}, {}};
}

} // namespace svi
