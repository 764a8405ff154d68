#include "core/io/reuters_sgml.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/tokenizer.h"

#include <QFileInfo>
#include <QString>
#include <algorithm>
#include <charconv>
#include <cstdint>

namespace svi {
namespace {

constexpr std::string_view kNone{};

bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// Where the start tag <NAME …> begins at or after `from` (the name followed by a blank, '>' or
// '/', so that <TEXT> is not found in <TEXTS>); npos when there is none.
std::size_t findStartTag(std::string_view s, std::string_view name, std::size_t from)
{
    for (std::size_t at = s.find('<', from); at != std::string_view::npos;
         at = s.find('<', at + 1)) {
        const std::size_t after = at + 1 + name.size();
        if (s.substr(at + 1, name.size()) == name &&
            (after == s.size() || isSpace(s[after]) || s[after] == '>' || s[after] == '/'))
            return at;
    }
    return std::string_view::npos;
}

std::int64_t lineAt(std::string_view s, std::size_t offset)
{
    return 1 + std::count(s.begin(), s.begin() + std::ptrdiff_t(std::min(offset, s.size())), '\n');
}

// The value of attribute `name` in a start tag's attributes (quoted or bare); "" when absent.
std::string attribute(std::string_view attrs, std::string_view name)
{
    for (std::size_t at = attrs.find(name); at != std::string_view::npos;
         at = attrs.find(name, at + 1)) {
        if (at > 0 && !isSpace(attrs[at - 1]))
            continue;
        std::size_t p = at + name.size();
        while (p < attrs.size() && isSpace(attrs[p]))
            ++p;
        if (p >= attrs.size() || attrs[p] != '=')
            continue;
        ++p;
        while (p < attrs.size() && isSpace(attrs[p]))
            ++p;
        if (p < attrs.size() && (attrs[p] == '"' || attrs[p] == '\'')) {
            const std::size_t close = attrs.find(attrs[p], p + 1);
            return std::string(attrs.substr(
                p + 1, close == std::string_view::npos ? std::string_view::npos : close - p - 1));
        }
        std::size_t e = p;
        while (e < attrs.size() && !isSpace(attrs[e]) && attrs[e] != '/')
            ++e;
        return std::string(attrs.substr(p, e - p));
    }
    return {};
}

// The content of the first element NAME in `s` (up to its end tag, or to the end of `s` when
// the end tag is left out); `found` says whether there is one.
std::string_view element(std::string_view s, std::string_view name, bool& found)
{
    const std::size_t start = findStartTag(s, name, 0);
    found = start != std::string_view::npos;
    if (!found)
        return kNone;
    const std::size_t open = s.find('>', start);
    if (open == std::string_view::npos)
        return kNone;
    if (s[open - 1] == '/') // <BODY/>
        return kNone;
    const std::string endTag = "</" + std::string(name) + ">";
    const std::size_t close = s.find(endTag, open + 1);
    return s.substr(open + 1,
                    close == std::string_view::npos ? std::string_view::npos : close - open - 1);
}

void appendUtf8(std::string& out, std::uint32_t cp)
{
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

// The text of `s`: tags dropped (each leaves a space, so that words either side stay apart),
// entities decoded; control characters (&#2; &#3; …) become spaces.
void appendText(std::string& out, std::string_view s)
{
    for (std::size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '<') {
            const std::size_t close = s.find('>', i);
            if (close == std::string_view::npos)
                break;
            out += ' ';
            i = close;
            continue;
        }
        if (c != '&') {
            out += c;
            continue;
        }
        const std::size_t semi = s.find(';', i);
        const std::string_view name =
            semi == std::string_view::npos || semi - i > 10 ? kNone : s.substr(i + 1, semi - i - 1);
        if (name == "lt")
            out += '<';
        else if (name == "gt")
            out += '>';
        else if (name == "amp")
            out += '&';
        else if (name == "quot")
            out += '"';
        else if (name == "apos")
            out += '\'';
        else if (name.size() > 1 && name[0] == '#') {
            const bool hex = name[1] == 'x' || name[1] == 'X';
            const std::string_view digits = name.substr(hex ? 2 : 1);
            std::uint32_t cp = 0;
            const auto r =
                std::from_chars(digits.data(), digits.data() + digits.size(), cp, hex ? 16 : 10);
            if (r.ec != std::errc() || r.ptr != digits.data() + digits.size() || cp > 0x10FFFF) {
                out += c; // not a character reference: kept as written
                continue;
            }
            if (cp < 0x20 || cp == 0x7F)
                out += ' ';
            else
                appendUtf8(out, cp);
        } else {
            out += c; // an entity not defined here: kept as written
            continue;
        }
        i = semi;
    }
}

// TITLE and BODY of an article's TEXT; the TEXT's own text when it has neither (UNPROC).
std::string articleText(std::string_view article)
{
    bool hasText = false;
    const std::string_view text = element(article, "TEXT", hasText);
    std::string out;
    if (!hasText)
        return out;
    bool hasTitle = false, hasBody = false;
    const std::string_view title = element(text, "TITLE", hasTitle);
    const std::string_view body = element(text, "BODY", hasBody);
    if (!hasTitle && !hasBody) {
        appendText(out, text);
        return out;
    }
    appendText(out, title);
    out += '\n';
    appendText(out, body);
    return out;
}

} // namespace

bool looksLikeReuters(std::string_view head)
{
    if (head.starts_with("\xEF\xBB\xBF"))
        head.remove_prefix(3);
    const auto skipSpace = [&] {
        while (!head.empty() && isSpace(head.front()))
            head.remove_prefix(1);
    };
    skipSpace();
    for (const std::string_view prolog : {std::string_view("<?xml"), std::string_view("<!DOCTYPE")})
        if (head.starts_with(prolog)) {
            const std::size_t close = head.find('>');
            if (close == std::string_view::npos)
                return false;
            head.remove_prefix(close + 1);
            skipSpace();
        }
    return findStartTag(head, "REUTERS", 0) == 0;
}

std::vector<ReutersArticle> reutersArticles(const std::string& path, std::string_view markup)
{
    std::vector<ReutersArticle> out;
    std::size_t pos = 0;
    for (;;) {
        const std::size_t start = findStartTag(markup, "REUTERS", pos);
        if (start == std::string_view::npos)
            break;
        const std::size_t open = markup.find('>', start);
        const std::size_t close =
            open == std::string_view::npos ? open : markup.find("</REUTERS>", open);
        ReutersArticle a;
        if (open != std::string_view::npos)
            a.newId = attribute(markup.substr(start + 8, open - start - 8), "NEWID");
        if (close == std::string_view::npos)
            failLine(path, lineAt(markup, start),
                     "the article" + (a.newId.empty() ? std::string() : " NEWID=" + a.newId) +
                         " has no </REUTERS> (a truncated file?)");
        a.text = articleText(markup.substr(open + 1, close - open - 1));
        out.push_back(std::move(a));
        pos = close + 10;
    }
    if (out.empty())
        failFile(path, "no Reuters-21578 article (<REUTERS …> … </REUTERS>) in it");
    return out;
}

Corpus readReutersFiles(const std::vector<std::string>& paths, const CorpusReadOptions& options)
{
    if (auto problem = options.validate())
        throw std::invalid_argument("readReutersFiles: " + *problem);
    if (paths.empty())
        throw DataError("no Reuters-21578 file given");
    CorpusBuilder builder(options.tokenizer);
    for (const std::string& path : paths) {
        const std::string bytes = readAllBytes(path);
        if (bytes.find('\0') != std::string::npos)
            failFile(path, "holds binary data (NUL bytes), not Reuters-21578 markup");
        const std::string file = QFileInfo(QString::fromStdString(path)).fileName().toStdString();
        std::int64_t n = 0;
        for (ReutersArticle& a : reutersArticles(path, bytes)) {
            ++n;
            builder.addDocument(a.newId.empty() ? file + "#" + std::to_string(n) : a.newId, a.text);
        }
    }
    std::string source = paths.front();
    if (paths.size() > 1)
        source += " and " + std::to_string(paths.size() - 1) + " more";
    return builder.finish(source);
}

} // namespace svi
