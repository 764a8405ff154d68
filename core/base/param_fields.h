#pragma once
// Declarations bound to the fields that hold their values.
//
// An options struct (a model's, an optimizer's, a data kind's settings) declares each of its
// keys once, in one builder: the declaration (key, label, help, default, range: a ParamSpec)
// together with the member that holds the value. Everything else comes from that list: the
// declarations the registry, the forms and the command line show (specs()), the struct's
// defaults (DeclaredOptions::readDefaults), its reading of resolved values (fromParams) and the
// check of a struct built in code (check, validate).

#include "core/base/params.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace svi {

template <typename Owner> class ParamFields
{
public:
    // A declaration and its field, by member pointer or by an accessor returning a reference to
    // it from Owner& and from const Owner& (a generic lambda [](auto& o) -> auto& { return
    // o.prior.a; }). The field is an int, std::int64_t, std::uint64_t, double, bool,
    // std::string, or a std::vector<std::string> (a Names list: split at commas, joined by
    // them).
    template <typename Access> ParamFields& add(const ParamSpec& spec, Access access);
    // A Choice kept as another type (an enum): name(value) is its declared choice, parse(name)
    // the value (throwing std::invalid_argument on a name it does not know).
    template <typename Access, typename Name, typename Parse>
    ParamFields& add(const ParamSpec& spec, Access access, Name name, Parse parse);
    // Every declaration and field of a member that has its own ParamFields, in its order.
    template <typename Access, typename Inner>
    ParamFields& add(Access access, const ParamFields<Inner>& inner);
    // The fields of `other` whose keys this list does not bind yet, after its own: the union of
    // the variants of one struct (the declarations of each algorithm), each key's first.
    ParamFields& merge(const ParamFields& other);

    // The declarations, in order, each key once (its first).
    std::vector<ParamSpec> specs() const;
    // Copies the values present in `values` into the fields; absent keys leave them as they are.
    void read(Owner& owner, const ParamValues& values) const;
    // Every field's value, by key.
    ParamValues values(const Owner& owner) const;

private:
    template <typename> friend class ParamFields;
    struct Field
    {
        ParamSpec spec;
        std::function<void(Owner&, const ParamValue&)> set;
        std::function<ParamValue(const Owner&)> get;
    };
    bool binds(const std::string& key) const;
    std::vector<Field> m_fields;
};

// The plumbing of an options struct whose defaults, ranges and reading are its declaration's
// (CRTP): `Options` declares static fields() (a ParamFields<Options> binding every key that any
// of its variants declares), and its default constructor calls readDefaults(). A rule that
// relates several fields (two fractions that must leave some data to train on) is the struct's
// std::optional<std::string> relations() const, checked after the ranges.
template <typename Options> class DeclaredOptions
{
public:
    // Every declaration of every variant, each key once.
    static std::vector<ParamSpec> allParams() { return Options::fields().specs(); }
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
    // Empty when every field is inside its declared range and the relations hold; otherwise
    // the first violation, "K = 0, but must be ≥ 1".
    std::optional<std::string> validate() const
    {
        if (auto e = firstInvalid(allParams(), toParams()))
            return e->message;
        if constexpr (requires(const Options& o) { o.relations(); })
            return static_cast<const Options&>(*this).relations();
        return std::nullopt;
    }
    // Throws std::invalid_argument with validate()'s message.
    void check() const
    {
        if (auto problem = validate())
            throw std::invalid_argument(*problem);
    }
    // *this after check(), for a constructor's initialiser list.
    const Options& checked() const
    {
        check();
        return static_cast<const Options&>(*this);
    }

    // The fields decide; the base has none (for a struct's defaulted operator==).
    bool operator==(const DeclaredOptions&) const = default;

protected:
    // Sets every field to its declared default.
    void readDefaults()
    {
        static const ParamValues defaults = defaultValues(allParams());
        Options::fields().read(static_cast<Options&>(*this), defaults);
    }
};

// Reads resolved values into `Options` (fromParams), checks them (throws std::invalid_argument
// naming the field) and gives every field back by key: a registry entry's readOptions.
template <typename Options> std::function<ParamValues(const ParamValues&)> optionsReader()
{
    return
        [](const ParamValues& values) { return Options::fromParams(values).checked().toParams(); };
}

// --- implementation of the templates ---

template <typename Owner>
template <typename Access>
ParamFields<Owner>& ParamFields<Owner>::add(const ParamSpec& spec, Access access)
{
    using T = std::remove_cvref_t<std::invoke_result_t<Access&, Owner&>>;
    static_assert(std::is_same_v<T, int> || std::is_same_v<T, std::int64_t> ||
                      std::is_same_v<T, std::uint64_t> || std::is_same_v<T, double> ||
                      std::is_same_v<T, bool> || std::is_same_v<T, std::string> ||
                      std::is_same_v<T, std::vector<std::string>>,
                  "ParamFields: a field is an int, std::int64_t, std::uint64_t, double, bool, "
                  "std::string or std::vector<std::string>");
    Field f;
    f.set = [key = spec.key, access](Owner& o, const ParamValue& v) {
        T& field = std::invoke(access, o);
        if constexpr (std::is_same_v<T, int>)
            field = paramToInt(key, v);
        else if constexpr (std::is_same_v<T, std::int64_t>)
            field = paramToInt64(key, v);
        else if constexpr (std::is_same_v<T, std::uint64_t>)
            field = std::uint64_t(paramToInt64(key, v));
        else if constexpr (std::is_same_v<T, double>)
            field = paramToReal(key, v);
        else if constexpr (std::is_same_v<T, bool>)
            field = paramToBool(key, v);
        else if constexpr (std::is_same_v<T, std::string>)
            field = paramToText(key, v);
        else
            field = splitNames(paramToText(key, v));
    };
    f.get = [access](const Owner& o) -> ParamValue {
        const T& field = std::invoke(access, o);
        if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::uint64_t>)
            return std::int64_t(field);
        else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
            std::string text;
            for (const std::string& name : field)
                text += (text.empty() ? "" : ",") + name;
            return text;
        } else
            return field;
    };
    f.spec = spec;
    m_fields.push_back(std::move(f));
    return *this;
}

template <typename Owner>
template <typename Access, typename Name, typename Parse>
ParamFields<Owner>& ParamFields<Owner>::add(const ParamSpec& spec, Access access, Name name,
                                            Parse parse)
{
    Field f;
    f.set = [key = spec.key, access, parse](Owner& o, const ParamValue& v) {
        std::invoke(access, o) = parse(paramToText(key, v));
    };
    f.get = [access, name](const Owner& o) -> ParamValue {
        return std::string(name(std::invoke(access, o)));
    };
    f.spec = spec;
    m_fields.push_back(std::move(f));
    return *this;
}

template <typename Owner>
template <typename Access, typename Inner>
ParamFields<Owner>& ParamFields<Owner>::add(Access access, const ParamFields<Inner>& inner)
{
    for (const auto& in : inner.m_fields) {
        Field f;
        f.spec = in.spec;
        f.set = [access, set = in.set](Owner& o, const ParamValue& v) {
            set(std::invoke(access, o), v);
        };
        f.get = [access, get = in.get](const Owner& o) { return get(std::invoke(access, o)); };
        m_fields.push_back(std::move(f));
    }
    return *this;
}

template <typename Owner> bool ParamFields<Owner>::binds(const std::string& key) const
{
    for (const Field& f : m_fields)
        if (f.spec.key == key)
            return true;
    return false;
}

template <typename Owner> ParamFields<Owner>& ParamFields<Owner>::merge(const ParamFields& other)
{
    for (const Field& f : other.m_fields)
        if (!binds(f.spec.key))
            m_fields.push_back(f);
    return *this;
}

template <typename Owner> std::vector<ParamSpec> ParamFields<Owner>::specs() const
{
    std::vector<ParamSpec> out;
    for (const Field& f : m_fields) {
        bool seen = false;
        for (const ParamSpec& s : out)
            seen = seen || s.key == f.spec.key;
        if (!seen)
            out.push_back(f.spec);
    }
    return out;
}

template <typename Owner>
void ParamFields<Owner>::read(Owner& owner, const ParamValues& values) const
{
    for (const Field& f : m_fields)
        if (const auto it = values.find(f.spec.key); it != values.end())
            f.set(owner, it->second);
}

template <typename Owner> ParamValues ParamFields<Owner>::values(const Owner& owner) const
{
    ParamValues out;
    for (const Field& f : m_fields)
        out.emplace(f.spec.key, f.get(owner));
    return out;
}

} // namespace svi
