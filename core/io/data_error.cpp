#include "core/io/data_error.h"

namespace svi {
namespace {

// Text quoted in messages is cut to this many bytes.
constexpr std::size_t kQuoteMax = 40;

} // namespace

void failFile(const std::string& path, const std::string& reason)
{
    throw DataError("cannot read '" + path + "': " + reason);
}

void failLine(const std::string& path, std::int64_t line, const std::string& reason)
{
    throw DataError("cannot read '" + path + "' line " + std::to_string(line) + ": " + reason);
}

void failField(const std::string& path, std::int64_t line, const std::string& field,
               const std::string& reason)
{
    throw DataError("cannot read '" + path + "' line " + std::to_string(line) + ", " + field +
                    ": " + reason);
}

// Built with append: GCC 12 warns wrongly about "literal" + std::string at -O3 (its bug
// 105329).
std::string inQuotes(std::string_view text)
{
    std::string out(1, '\'');
    if (text.size() <= kQuoteMax)
        return out.append(text).append(1, '\'');
    std::size_t n = kQuoteMax;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
        --n;
    return out.append(text.substr(0, n)).append("…'");
}

} // namespace svi
