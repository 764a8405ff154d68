#include "core/io/table_text.h"

#include <QFileInfo>
#include <QString>
#include <charconv>

namespace svi::tabletext {

// V1, V2, …: the names of unnamed columns, as R gives them.
std::string numberedName(std::int64_t i)
{
    return std::string("V").append(std::to_string(i + 1));
}

std::vector<std::string> numberedNames(std::int64_t n)
{
    std::vector<std::string> names;
    names.reserve(std::size_t(n));
    for (std::int64_t i = 0; i < n; ++i)
        names.push_back(numberedName(i));
    return names;
}

// Row names as column names must not be empty: an empty one becomes V<row>.
std::vector<std::string> rowNamesAsColumns(std::vector<std::string> names)
{
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i].empty())
            names[i] = numberedName(std::int64_t(i));
    return names;
}

// Whether a decimal number that from_chars found out of double range is too large (rather
// than too small, which is 0 in float anyway): the position of its first significant digit
// relative to the decimal point, plus its exponent, is positive.
bool overflows(std::string_view s)
{
    std::size_t i = s.find_first_of("eE");
    long long exponent = 0;
    if (i != std::string_view::npos) {
        const char* b = s.data() + i + 1;
        if (b != s.data() + s.size() && *b == '+')
            ++b;
        long long e = 0;
        const auto r = std::from_chars(b, s.data() + s.size(), e);
        exponent = r.ec == std::errc() ? e : (s[i + 1] == '-' ? -1000000 : 1000000);
        s = s.substr(0, i);
    }
    if (!s.empty() && (s.front() == '-' || s.front() == '+'))
        s.remove_prefix(1);
    const std::size_t dot = std::min(s.find('.'), s.size());
    const std::size_t first = s.find_first_not_of("0.");
    if (first == std::string_view::npos)
        return false;
    const long long position =
        first < dot ? (long long)(dot - first) - 1 : -(long long)(first - dot);
    return position + exponent > 0;
}

namespace {

char delimiterFromName(const std::string& path)
{
    QString name = QFileInfo(QString::fromStdString(path)).fileName().toLower();
    if (name.endsWith(".gz"))
        name.chop(3);
    if (name.endsWith(".csv"))
        return ',';
    if (name.endsWith(".tsv") || name.endsWith(".tab") || name.endsWith(".txt"))
        return '\t';
    return 0;
}

} // namespace

// The name's delimiter when the first line holds it; else the most frequent of tab, comma and
// semicolon outside quotes (a .txt or .csv file is often something else).
char guessDelimiter(const std::string& path, std::string_view firstLine)
{
    int tabs = 0, commas = 0, semicolons = 0;
    bool inQuote = false;
    for (char c : firstLine) {
        if (c == '"')
            inQuote = !inQuote;
        else if (inQuote)
            continue;
        else if (c == '\t')
            ++tabs;
        else if (c == ',')
            ++commas;
        else if (c == ';')
            ++semicolons;
    }
    const char byName = delimiterFromName(path);
    if ((byName == ',' && commas > 0) || (byName == '\t' && tabs > 0))
        return byName;
    if (tabs > 0 && tabs >= commas && tabs >= semicolons)
        return '\t';
    if (commas > 0 && commas >= semicolons)
        return ',';
    if (semicolons > 0)
        return ';';
    return byName ? byName : ',';
}

} // namespace svi::tabletext
