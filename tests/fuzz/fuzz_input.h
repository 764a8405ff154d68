#pragma once
// What every fuzz target shares: the input written as a file (the readers take paths, as the
// window and the CLI give them), an input split into two files, and the rules every reader
// must keep whatever the bytes are.
//
// The rules: a reader either returns data that satisfies its documented invariants or throws
// DataError (the message the user sees, naming the file). Any other exception (an
// std::out_of_range from a forgotten bounds check, std::bad_alloc from a size taken on trust
// from the file, …), a crash, a sanitizer report, a hang or an allocation beyond the fuzzer's
// limit is a finding.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <utility>

namespace svi::fuzz {

// A folder private to this process (under TMPDIR or /tmp), made on first use.
const std::string& workDir();

// Writes `bytes` to workDir()/name, replacing it; returns the path. Creates sub-folders.
std::string writeInput(const std::string& name, std::string_view bytes);
// Removes workDir()/name if it exists.
void removeInput(const std::string& name);

// The input split at the first "\n%%\n": the bytes before it plus "\n", and the bytes after
// it; {input, nullopt-like empty view with has = false} when there is no separator.
struct TwoParts
{
    std::string_view first;
    std::string_view second;
    bool hasSecond = false;
};
TwoParts splitInput(const std::uint8_t* data, std::size_t size);

// Aborts (a finding) with the reason on stderr.
[[noreturn]] void finding(const std::string& what);
// Aborts unless `ok`.
inline void require(bool ok, const char* what)
{
    if (!ok)
        finding(std::string("invariant broken: ") + what);
}

// Runs f(); DataError and the listed exception types `Allowed...` are the documented answers
// to bad input; anything else escaping is a finding. Returns true when f() returned.
template <class... Allowed, class F> bool expectOnly(F&& f);

} // namespace svi::fuzz

#include "core/io/data_error.h"

namespace svi::fuzz {

namespace detail {
template <class F> bool tryAllowed(F&& f)
{
    return std::forward<F>(f)();
}
template <class First, class... Rest, class F> bool tryAllowed(F&& f)
{
    try {
        return tryAllowed<Rest...>(std::forward<F>(f));
    } catch (const First&) {
        return false;
    }
}
} // namespace detail

template <class... Allowed, class F> bool expectOnly(F&& f)
{
    try {
        return detail::tryAllowed<DataError, Allowed...>([&] {
            f();
            return true;
        });
    } catch (const std::exception& e) {
        finding(std::string("an exception other than the reader's documented ones: ") + e.what());
    } catch (...) {
        finding("a non-standard exception");
    }
}

} // namespace svi::fuzz
