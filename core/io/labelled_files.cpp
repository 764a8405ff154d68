#include "core/io/labelled_files.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/sniff.h"
#include "core/io/table_file.h"

#include <QFileInfo>
#include <QString>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

namespace svi {
namespace {

// Features are kept dense (LabelledData::x): more than this many values (800 MB of doubles)
// is refused with a message, rather than failing to allocate. Also the most features a LIBSVM
// index may make.
constexpr double kMaxValues = 1e8;
constexpr std::int64_t kMaxFeatures = 10'000'000;

enum class FeatureCell { Number, Missing, Text };

// A cell or token as a number: the whole text as from_chars reads it, a leading '+' allowed
// ("+1"). Missing: empty, NA, N/A, or not finite (NaN, inf, beyond the range of doubles).
FeatureCell classifyFeature(std::string_view s, double& v)
{
    if (s.empty() || s == "NA" || s == "N/A")
        return FeatureCell::Missing;
    if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+')
        s.remove_prefix(1);
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ptr != s.data() + s.size() ||
        (r.ec != std::errc() && r.ec != std::errc::result_out_of_range))
        return FeatureCell::Text;
    return r.ec == std::errc() && std::isfinite(v) ? FeatureCell::Number : FeatureCell::Missing;
}

// Why a missing cell cannot be used.
std::string missingReason(std::string_view text, const char* what)
{
    if (text.empty())
        return std::string("empty ") + what;
    return inQuotes(text) + " is a missing or infinite value (not supported)";
}

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

std::string joined(const std::vector<std::string>& names, std::size_t most = 8)
{
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < most; ++i)
        out += (i ? ", " : "") + names[i];
    return names.size() > most ? out + ", …" : out;
}

// --- labels --------------------------------------------------------------------------------------

// The labels of every row, as numbers or as text, and what they are once all are seen.
class Labels
{
public:
    void number(double v, std::string_view text)
    {
        m_value.push_back(v);
        m_textOf.push_back(-1);
        m_counts = m_counts && v >= 0 && v == std::floor(v) && v < 9007199254740992.0;
        m_sum += v;
        if (m_numbers.size() <= 2 && !m_numbers.count(v))
            m_numbers.emplace(v, std::string(text));
    }
    void text(std::string_view text, int file, std::int64_t line)
    {
        const auto [it, fresh] = m_textId.emplace(std::string(text), int(m_texts.size()));
        if (fresh)
            m_texts.emplace_back(text);
        if (m_firstTextLine == 0)
            m_firstTextFile = file, m_firstTextLine = line;
        m_value.push_back(0.0);
        m_textOf.push_back(it->second);
    }

    // Sets d.y, d.labelKind and d.classes. `column` names the label for messages ("column 1
    // ('y')" or "label").
    void finish(LabelledData& d, const std::vector<std::string>& paths,
                const std::string& column) const
    {
        const std::size_t distinct = m_texts.size() + m_numbers.size();
        d.y.resize(std::int64_t(m_value.size()));
        if (!m_texts.empty() && distinct > 2) {
            if (!m_numbers.empty())
                failField(paths[std::size_t(m_firstTextFile)], m_firstTextLine, column,
                          inQuotes(m_texts.front()) + " is not a number, but other labels are (" +
                              m_numbers.begin()->second + ")");
            throw DataError("cannot use '" + paths.front() + "': the label " + column + " has " +
                            std::to_string(m_texts.size()) + " values (" + joined(m_texts) +
                            "): multiclass labels are not supported (two classes, counts or "
                            "real numbers)");
        }
        if (distinct == 2) {
            // The two values, the smaller coded 0: by number when both are, else by text.
            struct Value
            {
                bool number;
                double v;
                int text;
                std::string name;
            };
            std::vector<Value> two;
            for (const auto& [v, name] : m_numbers)
                two.push_back({true, v, -1, name});
            for (std::size_t t = 0; t < m_texts.size(); ++t)
                two.push_back({false, 0.0, int(t), m_texts[t]});
            if (two[0].number && two[1].number ? two[1].v < two[0].v : two[1].name < two[0].name)
                std::swap(two[0], two[1]);
            for (std::size_t i = 0; i < m_value.size(); ++i) {
                const Value& one = two[1];
                const bool isOne =
                    one.number ? m_textOf[i] < 0 && m_value[i] == one.v : m_textOf[i] == one.text;
                d.y(std::int64_t(i)) = isOne ? 1.0 : 0.0;
            }
            d.labelKind = LabelKind::Binary;
            d.classes = {two[0].name, two[1].name};
            return;
        }
        if (!m_texts.empty())
            throw DataError("cannot use '" + paths.front() + "': the label " + column +
                            " has one value only (" + m_texts.front() + ")");
        for (std::size_t i = 0; i < m_value.size(); ++i)
            d.y(std::int64_t(i)) = m_value[i];
        // Whole numbers with a large mean are measurements written without decimals (house
        // values in dollars, cadata), not counts: a Poisson model of them is a Gaussian one in
        // all but name, and as counts they would be left unstandardised.
        const bool smallMean = m_value.empty() || m_sum / double(m_value.size()) <= kCountMeanLimit;
        d.labelKind = m_counts && smallMean ? LabelKind::Count : LabelKind::Real;
    }

private:
    std::vector<double> m_value; // per row: the number, or 0 for a text
    std::vector<int> m_textOf;   // per row: the text's id, or −1 for a number
    std::vector<std::string> m_texts;
    std::unordered_map<std::string, int> m_textId;
    std::map<double, std::string> m_numbers; // the first three numbers, as first written
    bool m_counts = true;                    // every number a whole number ≥ 0
    double m_sum = 0.0;                      // of the numbers
    static constexpr double kCountMeanLimit = 1000.0;
    int m_firstTextFile = 0;
    std::int64_t m_firstTextLine = 0;
};

// --- LIBSVM --------------------------------------------------------------------------------------

struct LibsvmRows
{
    std::vector<std::int64_t> start = {0}; // per row, into index and value
    std::vector<std::int32_t> index;       // from 1
    std::vector<double> value;
    std::int64_t highest = 0;
};

// "field 3 '124:1'", for messages.
std::string pairField(std::size_t k, std::string_view text)
{
    return "field " + std::to_string(k + 1) + " " + inQuotes(text);
}

// Reads one LIBSVM file into `rows` (appending), its labels into `labels`. `limit` > 0: the
// highest index allowed, `limitWhy` saying where it comes from.
void readLibsvm(const std::string& path, int file, std::int64_t limit, const std::string& limitWhy,
                LibsvmRows& rows, Labels& labels, LabelledData& d)
{
    ByteSource source(path);
    LineReader reader(source);
    std::string_view line;
    std::int64_t number = 0, examples = 0;
    std::vector<std::string_view> f;
    while (reader.next(line, number)) {
        splitFields(line.substr(0, line.find('#')), f);
        if (f.empty())
            continue;
        double v = 0;
        switch (classifyFeature(f[0], v)) {
        case FeatureCell::Number:
            labels.number(v, f[0]);
            break;
        case FeatureCell::Missing:
            failField(path, number, "label", missingReason(f[0], "label"));
        case FeatureCell::Text:
            failField(path, number, "label", inQuotes(f[0]) + " is not a number");
        }
        std::int64_t last = 0;
        for (std::size_t k = 1; k < f.size(); ++k) {
            const std::size_t colon = f[k].find(':');
            if (colon == std::string_view::npos)
                failField(path, number, pairField(k, f[k]), "no ':' (index:value expected)");
            const std::string_view text = f[k].substr(0, colon);
            std::int64_t index = 0;
            const auto r = std::from_chars(text.data(), text.data() + text.size(), index);
            if (text.empty() || text.front() == '-' || r.ptr != text.data() + text.size() ||
                r.ec != std::errc() || index < 1)
                failField(path, number, pairField(k, f[k]),
                          "the index " + inQuotes(text) +
                              " is not a whole number ≥ 1 (LIBSVM indices count from 1)");
            if (index <= last)
                failField(path, number, pairField(k, f[k]),
                          "the index " + std::to_string(index) + " follows " +
                              std::to_string(last) + ": indices must increase within a line");
            if (limit > 0 && index > limit)
                failField(path, number, pairField(k, f[k]),
                          "the index " + std::to_string(index) + " is above " + limitWhy);
            if (index > kMaxFeatures)
                failField(path, number, pairField(k, f[k]),
                          "the index " + std::to_string(index) + " is above " +
                              groupedNumber(kMaxFeatures) +
                              ", the most features svi keeps (dense)");
            const std::string_view value = f[k].substr(colon + 1);
            switch (classifyFeature(value, v)) {
            case FeatureCell::Number:
                break;
            case FeatureCell::Missing:
                failField(path, number, pairField(k, f[k]), missingReason(value, "value"));
            case FeatureCell::Text:
                failField(path, number, pairField(k, f[k]),
                          "the value " + inQuotes(value) + " is not a number");
            }
            last = index;
            rows.index.push_back(std::int32_t(index));
            rows.value.push_back(v);
        }
        rows.highest = std::max(rows.highest, last);
        rows.start.push_back(std::int64_t(rows.index.size()));
        d.fileOfRow.push_back(file);
        d.lineOfRow.push_back(number);
        ++examples;
    }
    if (examples == 0)
        failFile(path, "no examples (every line is blank or a comment)");
}

// The dense features of `rows`, checked against the memory they would take.
void densify(const LibsvmRows& rows, std::int64_t D, const std::string& path, LabelledData& d)
{
    const auto N = std::int64_t(rows.start.size() - 1);
    if (double(N) * double(D) > kMaxValues)
        failFile(path, groupedNumber(N) + " rows × " + groupedNumber(D) +
                           " features are more values than svi keeps (dense features, at most " +
                           groupedNumber(std::int64_t(kMaxValues)) + ")");
    d.x = MatrixRD::Zero(N, D);
    for (std::int64_t i = 0; i < N; ++i)
        for (std::int64_t n = rows.start[std::size_t(i)]; n < rows.start[std::size_t(i) + 1]; ++n)
            d.x(i, rows.index[std::size_t(n)] - 1) = rows.value[std::size_t(n)];
    for (std::int64_t c = 0; c < D; ++c)
        d.featureNames.push_back(std::string("x").append(std::to_string(c + 1))); // GCC 105329
}

LabelledData readLibsvmFiles(const std::vector<std::string>& paths, const LabelledReadOptions& o,
                             LabelledFileFacts* facts)
{
    LabelledData d;
    LibsvmRows rows;
    Labels labels;
    const std::string given = "dimension = " + std::to_string(o.dimension);
    readLibsvm(paths[0], 0, o.dimension, given, rows, labels, d);
    const std::int64_t trainingRows = std::int64_t(rows.start.size() - 1);
    const std::int64_t D = o.dimension > 0 ? o.dimension : rows.highest;
    if (facts)
        facts->nonZeros = std::int64_t(rows.index.size());
    if (paths.size() > 1)
        readLibsvm(paths[1], 1, D,
                   o.dimension > 0 ? given
                                   : "the " + std::to_string(D) +
                                         " features of the training "
                                         "file '" +
                                         paths[0] + "'",
                   rows, labels, d);
    densify(rows, D, paths.back(), d);
    labels.finish(d, paths, "label");
    d.labelName = "label";
    if (paths.size() > 1)
        for (std::int64_t i = 0; i < d.rows(); ++i)
            (i < trainingRows ? d.trainingRows : d.testRows).push_back(i);
    return d;
}

// --- tables --------------------------------------------------------------------------------------

enum class Role { Label, Group, Feature, Factor, Excluded };

struct TableLayout
{
    std::vector<std::string> columns;
    std::vector<Role> roles;
    int label = 0;
    int group = -1;

    // "column 2 ('trt')", for messages.
    std::string field(std::size_t c) const
    {
        return "column " + std::to_string(c + 1) + " ('" + columns[c] + "')";
    }
};

// The column `name` names: exactly, else ignoring case; −1 when none does.
int columnNamed(const std::vector<std::string>& columns, const std::string& name)
{
    for (std::size_t c = 0; c < columns.size(); ++c)
        if (columns[c] == name)
            return int(c);
    for (std::size_t c = 0; c < columns.size(); ++c)
        if (lower(columns[c]) == lower(name))
            return int(c);
    return -1;
}

int requireColumn(const std::vector<std::string>& columns, const std::string& name,
                  const std::string& key, const std::string& path)
{
    const int c = columnNamed(columns, name);
    if (c < 0)
        throw std::invalid_argument(key + ": no column named '" + name + "' in '" + path +
                                    "' (its columns: " + joined(columns, 20) + ")");
    return c;
}

// What each column is, from the header and the settings. Throws std::invalid_argument naming
// the setting that does not fit the file.
TableLayout layoutOf(const std::vector<std::string>& columns, const LabelledReadOptions& o,
                     const std::string& path)
{
    TableLayout t;
    t.columns = columns;
    t.roles.assign(columns.size(), Role::Feature);
    if (!o.label.empty()) {
        t.label = columnNamed(columns, o.label);
        if (t.label < 0 && std::all_of(o.label.begin(), o.label.end(),
                                       [](char c) { return c >= '0' && c <= '9'; })) {
            const std::size_t index = o.label.size() < 10 ? std::stoul(o.label) : 0;
            if (index < 1 || index > columns.size())
                throw std::invalid_argument("label = " + o.label + ", but '" + path + "' has " +
                                            std::to_string(columns.size()) + " columns");
            t.label = int(index) - 1;
        }
        if (t.label < 0)
            t.label = requireColumn(columns, o.label, "label", path);
    } else {
        t.label = 0;
        for (const char* name : {"y", "label", "target", "class"})
            if (const int c = columnNamed(columns, name); c >= 0) {
                t.label = c;
                break;
            }
    }
    const std::string& label = columns[std::size_t(t.label)];
    for (const std::string& name : o.exclude) {
        const int c = requireColumn(columns, name, "exclude", path);
        if (c == t.label)
            throw std::invalid_argument("exclude: '" + label + "' is the label column");
        t.roles[std::size_t(c)] = Role::Excluded;
    }
    if (o.groups.size() > 1)
        throw std::invalid_argument("groups = " + joined(o.groups) +
                                    ": one group column at a time (several grouping factors "
                                    "are not supported yet)");
    for (const std::string& name : o.groups) {
        const int c = requireColumn(columns, name, "groups", path);
        if (c == t.label)
            throw std::invalid_argument("groups: '" + label + "' is the label column");
        if (t.roles[std::size_t(c)] == Role::Excluded)
            throw std::invalid_argument("groups: '" + name + "' is excluded");
        t.roles[std::size_t(c)] = Role::Group;
        t.group = c;
    }
    for (const std::string& name : o.factors) {
        const int c = requireColumn(columns, name, "factors", path);
        if (c == t.label)
            throw std::invalid_argument("factors: '" + label + "' is the label column");
        if (t.roles[std::size_t(c)] == Role::Feature)
            t.roles[std::size_t(c)] = Role::Factor;
    }
    t.roles[std::size_t(t.label)] = Role::Label;
    return t;
}

// Values seen in first-seen order, with their ids.
struct Levels
{
    std::vector<std::string> names;
    std::unordered_map<std::string, std::int32_t> ids;

    std::int32_t id(std::string_view text)
    {
        const auto [it, fresh] = ids.emplace(std::string(text), std::int32_t(names.size()));
        if (fresh)
            names.emplace_back(text);
        return it->second;
    }
    // Per id its place among the names sorted (as numbers when every name is one, else as
    // text); `sorted` receives the names in that order.
    std::vector<std::int32_t> ranks(std::vector<std::string>& sorted) const
    {
        std::vector<double> value(names.size());
        bool numbers = true;
        for (std::size_t i = 0; i < names.size(); ++i)
            numbers = numbers && classifyFeature(names[i], value[i]) == FeatureCell::Number;
        std::vector<std::int32_t> order(names.size());
        for (std::size_t i = 0; i < order.size(); ++i)
            order[i] = std::int32_t(i);
        std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
            return numbers ? value[std::size_t(a)] < value[std::size_t(b)]
                           : names[std::size_t(a)] < names[std::size_t(b)];
        });
        std::vector<std::int32_t> rank(names.size());
        sorted.clear();
        for (std::size_t r = 0; r < order.size(); ++r) {
            rank[std::size_t(order[r])] = std::int32_t(r);
            sorted.push_back(names[std::size_t(order[r])]);
        }
        return rank;
    }
};

LabelledData readLabelledTables(const std::vector<std::string>& paths, const LabelledReadOptions& o,
                                LabelledFileFacts* facts)
{
    LabelledData d;
    TableLayout t;
    Labels labels;
    Levels groups;
    std::vector<std::int32_t> rowGroup;
    std::vector<std::uint8_t> text; // per column: a cell that is not a number was seen
    std::int64_t trainingRows = 0;

    // Pass 1: the layout, the labels and groups, which columns hold text; bad cells.
    for (std::size_t f = 0; f < paths.size(); ++f) {
        const std::string& path = paths[f];
        const auto header = [&](const DelimitedHeader& h) {
            if (f == 0) {
                t = layoutOf(h.columns, o, path);
                text.assign(h.columns.size(), 0);
            } else if (h.columns != t.columns) {
                failFile(path, "its columns (" + joined(h.columns) +
                                   ") are not those of the training file '" + paths[0] + "' (" +
                                   joined(t.columns) + ")");
            }
        };
        const auto row = [&](const std::vector<std::string_view>& cells, std::int64_t line) {
            for (std::size_t c = 0; c < cells.size(); ++c) {
                double v = 0;
                const Role role = t.roles[c];
                if (role == Role::Excluded)
                    continue;
                if (role == Role::Group) {
                    if (cells[c].empty())
                        failField(path, line, t.field(c), "empty group");
                    rowGroup.push_back(groups.id(cells[c]));
                    continue;
                }
                const FeatureCell cell = classifyFeature(cells[c], v);
                if (cell == FeatureCell::Missing)
                    failField(path, line, t.field(c),
                              missingReason(cells[c], role == Role::Label ? "label" : "field"));
                if (role == Role::Label) {
                    if (cell == FeatureCell::Number)
                        labels.number(v, cells[c]);
                    else
                        labels.text(cells[c], int(f), line);
                } else if (cell == FeatureCell::Text) {
                    text[c] = 1;
                }
            }
            d.fileOfRow.push_back(int(f));
            d.lineOfRow.push_back(line);
        };
        scanDelimitedFile(path, header, row);
        if (f == 0)
            trainingRows = std::int64_t(d.lineOfRow.size());
    }
    const auto N = std::int64_t(d.lineOfRow.size());
    for (std::size_t c = 0; c < t.roles.size(); ++c)
        if (t.roles[c] == Role::Feature && text[c])
            t.roles[c] = Role::Factor;

    // Pass 2: the numbers of numeric columns and the levels of factors.
    std::vector<int> numeric, factor; // the columns of each
    for (std::size_t c = 0; c < t.roles.size(); ++c)
        if (t.roles[c] == Role::Feature)
            numeric.push_back(int(c));
        else if (t.roles[c] == Role::Factor)
            factor.push_back(int(c));
    std::vector<double> numbers;
    std::vector<std::int32_t> levelOf;
    std::vector<Levels> levels(factor.size());
    numbers.reserve(std::size_t(N) * numeric.size());
    levelOf.reserve(std::size_t(N) * factor.size());
    std::int64_t seen = 0;
    for (const std::string& path : paths) {
        const auto row = [&](const std::vector<std::string_view>& cells, std::int64_t line) {
            if (++seen > N)
                failLine(path, line, "the file changed while it was read");
            double v = 0;
            for (const int c : numeric) {
                classifyFeature(cells[std::size_t(c)], v);
                numbers.push_back(v);
            }
            for (std::size_t j = 0; j < factor.size(); ++j)
                levelOf.push_back(levels[j].id(cells[std::size_t(factor[j])]));
        };
        scanDelimitedFile(path, {}, row);
    }
    if (seen != N)
        failFile(paths.back(), "the file changed while it was read");

    // The features: numeric columns as they are, one 0/1 column per level of a factor, in the
    // order of the columns.
    std::vector<std::vector<std::int32_t>> rank(factor.size());
    std::vector<std::int64_t> offset(t.columns.size(), 0);
    std::size_t widest = 0;
    std::vector<std::string> sorted;
    for (std::size_t c = 0, j = 0; c < t.columns.size(); ++c) {
        offset[c] = std::int64_t(d.featureNames.size());
        if (t.roles[c] == Role::Feature) {
            d.featureNames.push_back(t.columns[c]);
        } else if (t.roles[c] == Role::Factor) {
            rank[j] = levels[j].ranks(sorted);
            for (const std::string& level : sorted)
                d.featureNames.push_back(t.columns[c] + "=" + level);
            d.factorColumns.emplace_back(int(offset[c]), int(d.featureNames.size()));
            if (levels[j].names.size() > levels[widest].names.size())
                widest = j;
            ++j;
        }
    }
    const auto D = std::int64_t(d.featureNames.size());
    if (double(N) * double(D) > kMaxValues)
        failFile(paths[0], groupedNumber(N) + " rows × " + groupedNumber(D) +
                               " features are more values than svi keeps (dense features, at "
                               "most " +
                               groupedNumber(std::int64_t(kMaxValues)) + ")" +
                               (factor.empty()
                                    ? std::string()
                                    : "; the factor '" + t.columns[std::size_t(factor[widest])] +
                                          "' alone has " +
                                          groupedNumber(std::int64_t(levels[widest].names.size())) +
                                          " levels (an id? exclude it)"));
    d.x = MatrixRD::Zero(N, D);
    for (std::int64_t i = 0; i < N; ++i) {
        for (std::size_t j = 0; j < numeric.size(); ++j)
            d.x(i, offset[std::size_t(numeric[j])]) = numbers[std::size_t(i) * numeric.size() + j];
        for (std::size_t j = 0; j < factor.size(); ++j) {
            const std::int32_t id = levelOf[std::size_t(i) * factor.size() + j];
            d.x(i, offset[std::size_t(factor[j])] + rank[j][std::size_t(id)]) = 1.0;
        }
    }

    if (t.group >= 0) {
        const std::vector<std::int32_t> groupRank = groups.ranks(d.groupNames);
        for (const std::int32_t g : rowGroup)
            d.group.push_back(groupRank[std::size_t(g)]);
    }
    labels.finish(d, paths, t.field(std::size_t(t.label)));
    d.labelName = t.columns[std::size_t(t.label)];
    if (paths.size() > 1)
        for (std::int64_t i = 0; i < N; ++i)
            (i < trainingRows ? d.trainingRows : d.testRows).push_back(i);
    if (facts) {
        facts->columns = t.columns;
        for (std::size_t c = 0, j = 0; c < t.columns.size(); ++c) {
            const Role role = t.roles[c];
            facts->roles.push_back(
                role == Role::Label      ? "label"
                : role == Role::Excluded ? "excluded"
                : role == Role::Feature  ? "numeric"
                : role == Role::Group
                    ? "group (" + std::to_string(d.groupNames.size()) + " levels)"
                    : "factor (" + std::to_string(levels[j++].names.size()) + " levels)");
        }
    }
    return d;
}

} // namespace

// --- the entry points ----------------------------------------------------------------------------

const ParamFields<LabelledReadOptions>& LabelledReadOptions::fields()
{
    using O = LabelledReadOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(textParam("label", "Label column",
                           "tables: the label's column, by name or 1-based index; empty = y, "
                           "label, target or class, else the first"),
                 &O::label)
            .add(namesParam("factors", "Factors",
                            "tables: numeric columns read as factors, one 0/1 column per level (a "
                            "year); beside the intercept the first level is the reference, left "
                            "out"),
                 &O::factors)
            .add(namesParam("groups", "Group column",
                            "tables: the column of groups for mixed effects (one); not a feature"),
                 &O::groups)
            .add(namesParam("exclude", "Exclude", "tables: columns left out (an id)"), &O::exclude)
            .add(intParam("dimension", "Dimension",
                          "LIBSVM: the number of features; 0 = the training file's highest index",
                          0, 0, double(kMaxFeatures)),
                 &O::dimension);
    return f;
}

LabelledFormat labelledFormatOf(const std::string& path)
{
    const FileFormat f = recogniseFile(path);
    const bool byName = f.name.find("(by its name)") != std::string::npos;
    if (f.kind == DataFileKind::Libsvm)
        return LabelledFormat::Libsvm;
    if (f.kind == DataFileKind::Delimited && !byName)
        return LabelledFormat::Table;
    if (f.kind == DataFileKind::Image || f.kind == DataFileKind::Fcs)
        failFile(path, "it is not labelled examples (LIBSVM text or a table) but " + f.name);
    QString name = QFileInfo(QString::fromStdString(path)).fileName().toLower();
    if (name.endsWith(".gz"))
        name.chop(3);
    if (name.endsWith(".csv") || name.endsWith(".tsv"))
        return LabelledFormat::Table;
    // Neither says: a first line with a tab, comma or semicolon and no "index:value" pair is a
    // table's header.
    ByteSource source(path);
    LineReader reader(source);
    std::string_view line;
    std::int64_t number = 0;
    std::vector<std::string_view> f2;
    while (reader.next(line, number)) {
        splitFields(line.substr(0, line.find('#')), f2);
        if (f2.empty())
            continue;
        const bool pair = std::any_of(f2.begin() + 1, f2.end(), [](std::string_view t) {
            const std::size_t colon = t.find(':');
            return colon != std::string_view::npos && colon > 0 &&
                   std::all_of(t.begin(), t.begin() + std::ptrdiff_t(colon),
                               [](char c) { return c >= '0' && c <= '9'; });
        });
        return !pair && line.find_first_of("\t,;") != std::string_view::npos
                   ? LabelledFormat::Table
                   : LabelledFormat::Libsvm;
    }
    return LabelledFormat::Libsvm;
}

LabelledData readLabelledFiles(const std::vector<std::string>& paths,
                               const LabelledReadOptions& options, LabelledFileFacts* facts)
{
    if (paths.empty())
        throw DataError("no data file given");
    if (paths.size() > 2)
        throw DataError("labelled examples: one file (split at random) or two (training, then "
                        "test), not " +
                        std::to_string(paths.size()) + " ('" + paths[2] + "' is extra)");
    const LabelledFormat format = labelledFormatOf(paths[0]);
    if (paths.size() > 1 && labelledFormatOf(paths[1]) != format)
        failFile(paths[1], std::string("the test file is not ") +
                               (format == LabelledFormat::Libsvm ? "LIBSVM text" : "a table") +
                               " like the training file '" + paths[0] + "'");
    if (facts) {
        facts->format = format;
        const FileFormat f = recogniseFile(paths[0]);
        facts->formatName = f.kind == DataFileKind::Libsvm || f.kind == DataFileKind::Delimited
                                ? f.name
                                : (format == LabelledFormat::Libsvm ? "LIBSVM text" : "table");
    }
    LabelledData d = format == LabelledFormat::Libsvm ? readLibsvmFiles(paths, options, facts)
                                                      : readLabelledTables(paths, options, facts);
    d.files = paths;
    d.source = paths.size() > 1 ? paths[0] + " + " + paths[1] : paths[0];
    return d;
}

} // namespace svi
