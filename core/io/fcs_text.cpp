#include "core/io/fcs_text.h"

namespace svi::fcs {
namespace {

// Bytes that surround values in real files: padding spaces, and the odd newline or NUL.
bool isPad(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\0';
}

// Well-formed UTF-8 (no overlong forms, no surrogates, nothing past U+10FFFF).
bool validUtf8(std::string_view s)
{
    const auto* p = reinterpret_cast<const unsigned char*>(s.data());
    const std::size_t n = s.size();
    std::size_t i = 0;
    while (i < n) {
        const unsigned c = p[i];
        if (c < 0x80) {
            ++i;
            continue;
        }
        int extra = 0;
        unsigned cp = 0;
        if (c >= 0xC2 && c <= 0xDF) {
            extra = 1;
            cp = c & 0x1F;
        } else if (c >= 0xE0 && c <= 0xEF) {
            extra = 2;
            cp = c & 0x0F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            extra = 3;
            cp = c & 0x07;
        } else {
            return false;
        }
        if (i + std::size_t(extra) >= n)
            return false;
        for (int k = 1; k <= extra; ++k) {
            const unsigned cc = p[i + std::size_t(k)];
            if ((cc & 0xC0) != 0x80)
                return false;
            cp = (cp << 6) | (cc & 0x3F);
        }
        if ((extra == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (extra == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        i += std::size_t(extra) + 1;
    }
    return true;
}

} // namespace

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isPad(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isPad(s.back()))
        s.remove_suffix(1);
    return s;
}

std::string toUtf8(std::string_view s)
{
    if (validUtf8(s))
        return std::string(s);
    std::string out;
    out.reserve(s.size() + 8);
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c < 0x80) {
            out += ch;
        } else {
            out += char(0xC0 | (c >> 6));
            out += char(0x80 | (c & 0x3F));
        }
    }
    return out;
}

std::string upperAscii(std::string s)
{
    for (char& c : s)
        if (c >= 'a' && c <= 'z')
            c = char(c - 'a' + 'A');
    return s;
}

namespace {

// The tokens of a TEXT segment (its first byte is the delimiter). A doubled delimiter is a
// literal one inside a key or value (FCS 3.1 §3.2.9); with `emptyValues`, one that ends a
// keyword is that keyword's empty value instead, as FCS 2.0 writers such as CellQuest
// (FACSCalibur) write it: "\$P3S\\$P4S\\…".
std::vector<std::string> textTokens(std::string_view seg, char delim, bool emptyValues)
{
    std::vector<std::string> tokens;
    std::string cur;
    for (std::size_t i = 1; i < seg.size(); ++i) {
        const char c = seg[i];
        if (c != delim) {
            cur += c;
        } else if (i + 1 < seg.size() && seg[i + 1] == delim) {
            ++i;
            if (emptyValues && tokens.size() % 2 == 0 && !cur.empty()) {
                tokens.push_back(std::move(cur));
                tokens.emplace_back();
                cur.clear();
            } else {
                cur += delim;
            }
        } else {
            tokens.push_back(std::move(cur));
            cur.clear();
        }
    }
    // Text after the last delimiter: the last value when the final delimiter is missing, or the
    // padding many writers leave after it.
    if (!trim(cur).empty() || tokens.size() % 2 == 1)
        tokens.push_back(std::move(cur));
    return tokens;
}

// Whether tokens read with doubled delimiters as escapes went wrong: a keyword holding the
// delimiter, or a value holding the delimiter and then a '$' keyword (it swallowed the keywords
// after an empty value).
bool swallowsKeywords(const std::vector<std::string>& tokens, char delim)
{
    const std::string swallowed{delim, '$'};
    for (std::size_t t = 0; t < tokens.size(); ++t)
        if (t % 2 == 0 ? tokens[t].find(delim) != std::string::npos
                       : tokens[t].find(swallowed) != std::string::npos)
            return true;
    return false;
}

} // namespace

void parseText(std::string_view seg, char delim, std::map<std::string, std::string>& keywords,
               std::vector<std::string>& notes, const char* what)
{
    std::vector<std::string> tokens = textTokens(seg, delim, false);
    if (swallowsKeywords(tokens, delim)) {
        std::vector<std::string> empties = textTokens(seg, delim, true);
        if (!swallowsKeywords(empties, delim)) {
            tokens = std::move(empties);
            notes.push_back(std::string(what) + " writes empty values as a doubled delimiter ('" +
                            std::string(2, delim) + "' after a keyword); read so");
        }
    }
    if (tokens.size() % 2 == 1) {
        const std::string_view last = trim(tokens.back());
        if (!last.empty())
            notes.push_back(std::string(what) + " ends with '" + toUtf8(last) +
                            "' without a value; ignored");
        tokens.pop_back();
    }
    for (std::size_t t = 0; t + 1 < tokens.size(); t += 2) {
        std::string key = upperAscii(toUtf8(trim(tokens[t])));
        if (key.empty()) {
            notes.push_back(std::string(what) + " has an empty keyword; its value is ignored");
            continue;
        }
        std::string value = toUtf8(trim(tokens[t + 1]));
        const auto [it, added] = keywords.emplace(std::move(key), value);
        // The Krieg CyTOF files repeat some $PnS with the same value; only a conflict is news.
        if (!added && it->second != value)
            notes.push_back(std::string(what) + " repeats " + it->first + " with '" + value +
                            "'; the first value, '" + it->second + "', is kept");
    }
}

} // namespace svi::fcs
