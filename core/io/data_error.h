#pragma once
// A data file that cannot be used. The message names the file and the reason, e.g.
// "cannot read 'x.png': file is empty", and for text files the line (from 1) and the field:
// "cannot read 'u.data' line 7, rating: 'x' is not a number".

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace svi {

class DataError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// The readers' one message format, thrown as DataError.
[[noreturn]] void failFile(const std::string& path, const std::string& reason);
[[noreturn]] void failLine(const std::string& path, std::int64_t line, const std::string& reason);
[[noreturn]] void failField(const std::string& path, std::int64_t line, const std::string& field,
                            const std::string& reason);

// 'text' for a message, cut to 40 bytes at a UTF-8 character boundary when longer.
std::string inQuotes(std::string_view text);

} // namespace svi
