#pragma once
// An algorithm without an ELBO (a sampler) declares so in AlgorithmEntry::bound, in one form:
// "none: " and the reason. svi list and models.md print it as it is; the window's ELBO chart
// reads the reason back to say why it has nothing to draw.

#include "core/run/registry.h"

#include <optional>
#include <string>

namespace svi {

inline constexpr const char* kNoBoundPrefix = "none: ";

// The `bound` text of an algorithm that has none, for the reason given.
inline std::string noBound(const std::string& reason)
{
    return kNoBoundPrefix + reason;
}

// Why `e` has no ELBO, or nothing when it has one.
inline std::optional<std::string> noBoundReason(const AlgorithmEntry& e)
{
    const std::string prefix = kNoBoundPrefix;
    if (e.bound.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt;
    return e.bound.substr(prefix.size());
}

} // namespace svi
