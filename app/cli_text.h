#pragma once
// Columns of text on a terminal, aligned by what a reader sees: a UTF-8 string's width is its
// code points ('∞', '…', 'μ' are one column each, three or two bytes), not its bytes, which
// printf's %-14s counts. The declarations' text holds no double-width or combining characters,
// so a code point is a column.

#include <cstddef>
#include <string>

namespace svi::cli {

// The columns `text` (UTF-8) takes: its code points.
inline std::size_t displayWidth(const std::string& text)
{
    std::size_t n = 0;
    for (const unsigned char c : text)
        n += (c & 0xC0) != 0x80 ? 1 : 0; // a continuation byte adds no column
    return n;
}

// `text` followed by spaces up to `width` columns, and by at least `gap` spaces in any case, so
// that a cell wider than its column still stands apart from the next.
inline std::string padded(const std::string& text, std::size_t width, std::size_t gap = 0)
{
    const std::size_t w = displayWidth(text);
    return text + std::string(w + gap < width ? width - w : gap, ' ');
}

} // namespace svi::cli
