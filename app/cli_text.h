#pragma once
// Columns of text on a terminal, aligned by what a reader sees: a UTF-8 string's width is its
// code points ('∞', '…', 'μ' are one column each, three or two bytes), not its bytes, which
// printf's %-14s counts. The declarations' text holds no double-width or combining characters,
// so a code point is a column.

#include <cstddef>
#include <string>
#include <vector>

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

// Footnotes to figures: a marker beside each figure that has a caveat (MetricSpec::caveat), the
// caveat's text once, below.
class Notes
{
public:
    // " [n]" for `text`, the same n for the same text; "" for no text.
    std::string mark(const std::string& text)
    {
        if (text.empty())
            return {};
        std::size_t i = 0;
        while (i < m_texts.size() && m_texts[i] != text)
            ++i;
        if (i == m_texts.size())
            m_texts.push_back(text);
        return " [" + std::to_string(i + 1) + "]";
    }
    // "<indent>[n] text\n" for each text marked, in order.
    std::string lines(const std::string& indent) const
    {
        std::string out;
        for (std::size_t i = 0; i < m_texts.size(); ++i)
            out += indent + "[" + std::to_string(i + 1) + "] " + m_texts[i] + "\n";
        return out;
    }

private:
    std::vector<std::string> m_texts;
};

} // namespace svi::cli
