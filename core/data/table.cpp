#include "core/data/table.h"

#include "core/math/random.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// Stream ids of Rng::stream(seed, id).
constexpr std::uint64_t kSubsampleStream = 0x7375627361ULL; // "subsa"
constexpr std::uint64_t kSplitStream = 0x73706c6974ULL;     // "split"

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The first `take` entries of `v` become a uniform random subset (partial Fisher–Yates).
template <class T> void chooseFirst(std::vector<T>& v, std::size_t take, Rng& rng)
{
    for (std::size_t j = 0; j < take && j < v.size(); ++j)
        std::swap(v[j], v[j + rng.below(v.size() - j)]);
}

// "170Yb_CD3" → "CD3"; a marker without such a prefix is returned unchanged.
std::string markerWithoutIsotope(const std::string& marker)
{
    std::size_t i = 0;
    while (i < marker.size() && std::isdigit(static_cast<unsigned char>(marker[i])))
        ++i;
    const std::size_t digits = i;
    while (i < marker.size() && std::isalpha(static_cast<unsigned char>(marker[i])))
        ++i;
    if (digits == 0 || i == digits || i >= marker.size() || marker[i] != '_' ||
        i + 1 == marker.size())
        return marker;
    return marker.substr(i + 1);
}

} // namespace

std::string Table::label(int col) const
{
    const std::string& name = columns[std::size_t(col)];
    const std::string marker =
        col < int(markers.size()) ? markers[std::size_t(col)] : std::string();
    if (marker.empty() || marker == name)
        return name;
    return marker + " (" + name + ")";
}

std::optional<std::string> TableOptions::validate() const
{
    if (!(arcsinhCofactor >= 0.0) || !std::isfinite(arcsinhCofactor))
        return "arcsinh = " + formatNumber(arcsinhCofactor) + ", but must be ≥ 0 (0 = off)";
    if (subsample < 0)
        return "subsample = " + std::to_string(subsample) + ", but must be ≥ 0 (0 = every row)";
    if (!(heldOut >= 0.0 && heldOut < 1.0))
        return "heldout = " + formatNumber(heldOut) + ", but must be in [0, 1)";
    return std::nullopt;
}

std::vector<ParamSpec> TableOptions::params()
{
    return {
        namesParam("channels", "Channels",
                   "the channels the model sees, by channel or marker name; empty = every one"),
        realParam(
            "arcsinh", "arcsinh cofactor",
            "y ← asinh(y / c) before anything else; 5 is usual for CyTOF, 150 for flow; 0 = off",
            0.0, 0.0, 1e9),
        ParamSpec{"standardise",
                  "Standardise",
                  "scale every channel to mean 0, variance 1 (as paper 000)",
                  ParamType::Bool,
                  1.0,
                  0,
                  1,
                  {},
                  ""},
        intParam("subsample", "Subsample rows",
                 "keep this many rows, drawn at random; 0 = every row", 0, 0, 1e12),
        realParam("heldout", "Held-out fraction",
                  "fraction of entries (or of rows) held out and scored", 0.05, 0.0, 0.99),
        ParamSpec{
            "split",
            "Held-out split",
            "entries: entries at random; rows: whole test rows, excluded from training, half of "
            "each scored",
            ParamType::Choice,
            0,
            0,
            0,
            {"entries", "rows"},
            "entries"},
        splitSeedParam("seed of the subsample and the held-out split"),
    };
}

TableOptions TableOptions::fromParams(const ParamValues& values)
{
    TableOptions o;
    o.arcsinhCofactor = getReal(values, "arcsinh");
    o.standardise = getBool(values, "standardise");
    o.subsample = getInt(values, "subsample");
    o.heldOut = getReal(values, "heldout");
    o.split = getChoice(values, "split") == "rows" ? HeldOutSplit::Rows : HeldOutSplit::Entries;
    o.seed = std::uint64_t(getInt(values, "split_seed"));
    if (values.count("channels"))
        o.channels = splitNames(getChoice(values, "channels"));
    return o;
}

bool tickedByDefault(const Table& t, int c)
{
    const auto column = [&](int j) -> const std::string& { return t.columns[std::size_t(j)]; };
    const auto marker = [&](int j) -> std::string {
        return j < int(t.markers.size()) ? t.markers[std::size_t(j)] : std::string();
    };
    bool anyMarker = false;
    for (int j = 0; j < t.cols(); ++j)
        anyMarker |= !marker(j).empty() && marker(j) != column(j);
    std::string name = column(c);
    for (char& ch : name)
        ch = char(std::tolower(static_cast<unsigned char>(ch)));
    if (name == "time" || name.rfind("event", 0) == 0 || name == "cell_length")
        return false;
    return !anyMarker || (!marker(c).empty() && marker(c) != column(c));
}

Table combineTables(const std::vector<Table>& tables)
{
    if (tables.empty())
        throw std::invalid_argument("no tables to combine");
    if (tables.size() == 1)
        return tables.front();
    const Table& first = tables.front();
    std::int64_t rows = 0;
    std::vector<std::vector<int>> maps;
    for (const Table& t : tables) {
        std::vector<int> map;
        for (const std::string& name : first.columns) {
            const auto it = std::find(t.columns.begin(), t.columns.end(), name);
            if (it == t.columns.end())
                throw std::invalid_argument("'" + t.source + "' has no channel '" + name +
                                            "' (which '" + first.source +
                                            "' has); combine files of one panel");
            map.push_back(int(it - t.columns.begin()));
        }
        if (t.cols() != first.cols())
            throw std::invalid_argument("'" + t.source + "' has " + std::to_string(t.cols()) +
                                        " channels, but '" + first.source + "' has " +
                                        std::to_string(first.cols()));
        maps.push_back(std::move(map));
        rows += t.rows();
    }
    Table out;
    out.columns = first.columns;
    out.markers = first.markers;
    out.suggestedArcsinh = first.suggestedArcsinh;
    out.values.resize(rows, first.cols());
    const bool names = std::all_of(tables.begin(), tables.end(),
                                   [](const Table& t) { return !t.rowNames.empty(); });
    std::int64_t r = 0;
    for (std::size_t f = 0; f < tables.size(); ++f) {
        const Table& t = tables[f];
        // (A table without rows has no storage: a column of it would offset a null pointer.)
        for (int c = 0; c < first.cols() && t.rows() > 0; ++c)
            out.values.block(r, c, t.rows(), 1) = t.values.col(maps[f][std::size_t(c)]);
        if (names)
            out.rowNames.insert(out.rowNames.end(), t.rowNames.begin(), t.rowNames.end());
        // Up to three files are named; more are summarised so messages stay one line.
        if (tables.size() <= 3)
            out.source += (f ? " + " : "") + t.source;
        else if (f == 0)
            out.source = t.source + " + " + std::to_string(tables.size() - 1) + " more files";
        r += t.rows();
    }
    return out;
}

Table transposed(const Table& t)
{
    Table out;
    out.values = t.values.transpose();
    out.rowNames = t.columns;
    if (t.rowNames.empty()) {
        for (std::int64_t i = 0; i < t.rows(); ++i)
            out.columns.push_back(std::string("V").append(std::to_string(i + 1)));
    } else {
        out.columns = t.rowNames;
    }
    out.markers.assign(out.columns.size(), std::string());
    out.source = t.source;
    out.suggestedArcsinh = t.suggestedArcsinh;
    return out;
}

std::optional<std::vector<int>>
selectColumns(const Table& table, const std::vector<std::string>& wanted, std::string* unknown)
{
    std::vector<int> out;
    for (const std::string& w : wanted) {
        const std::string key = lower(w);
        int found = -1;
        for (int c = 0; c < table.cols() && found < 0; ++c)
            if (lower(table.columns[std::size_t(c)]) == key)
                found = c;
        for (int c = 0; c < table.cols() && found < 0; ++c)
            if (c < int(table.markers.size()) && lower(table.markers[std::size_t(c)]) == key)
                found = c;
        // Mass-cytometry markers are often written with their isotope ("170Yb_CD3"): "CD3"
        // names that marker when exactly one channel carries it.
        if (found < 0) {
            int hits = 0;
            for (int c = 0; c < table.cols() && c < int(table.markers.size()); ++c)
                if (lower(markerWithoutIsotope(table.markers[std::size_t(c)])) == key &&
                    hits++ == 0)
                    found = c;
            if (hits > 1)
                found = -1; // ambiguous: the user must name the channel
        }
        if (found < 0) {
            if (unknown)
                *unknown = w;
            return std::nullopt;
        }
        out.push_back(found);
    }
    return out;
}

DenseDataPtr makeTableData(const Table& table, const TableOptions& o)
{
    if (auto problem = o.validate())
        throw std::invalid_argument(*problem);
    if (table.rows() < 1 || table.cols() < 1)
        throw std::invalid_argument("'" + table.source + "' has no data (" +
                                    std::to_string(table.rows()) + " rows × " +
                                    std::to_string(table.cols()) + " columns)");
    // Columns.
    std::vector<int> cols(static_cast<std::size_t>(table.cols()));
    std::iota(cols.begin(), cols.end(), 0);
    if (!o.channels.empty()) {
        std::string unknown;
        auto picked = selectColumns(table, o.channels, &unknown);
        if (!picked) {
            std::string known;
            for (int c = 0; c < table.cols(); ++c)
                known += (c ? ", " : "") + table.label(c);
            throw std::invalid_argument("channels: no channel or marker named '" + unknown +
                                        "' in '" + table.source + "' (it has: " + known + ")");
        }
        cols = std::move(*picked);
        for (std::size_t a = 0; a < cols.size(); ++a)
            for (std::size_t b = a + 1; b < cols.size(); ++b)
                if (cols[a] == cols[b])
                    throw std::invalid_argument("channels: '" + table.label(cols[a]) +
                                                "' is selected twice");
    }
    // Rows: a seeded subsample, kept in file order.
    std::vector<std::int64_t> rows(static_cast<std::size_t>(table.rows()));
    std::iota(rows.begin(), rows.end(), 0);
    if (o.subsample > 0 && o.subsample < table.rows()) {
        Rng rng = Rng::stream(o.seed, kSubsampleStream);
        chooseFirst(rows, std::size_t(o.subsample), rng);
        rows.resize(std::size_t(o.subsample));
        std::sort(rows.begin(), rows.end());
    }
    const std::int64_t N = std::int64_t(rows.size());
    const int D = int(cols.size());

    auto data = std::make_shared<DenseData>();
    data->source = table.source;
    data->values.resize(N, D);
    data->roles.resize(N, D);
    for (int d = 0; d < D; ++d) {
        const int c = cols[std::size_t(d)];
        const std::string& marker =
            c < int(table.markers.size()) ? table.markers[std::size_t(c)] : "";
        data->columnNames.push_back(marker.empty() ? table.columns[std::size_t(c)] : marker);
    }
    for (std::int64_t i = 0; i < N; ++i)
        for (int d = 0; d < D; ++d) {
            float v = table.values(rows[std::size_t(i)], cols[std::size_t(d)]);
            if (std::isinf(v))
                throw std::invalid_argument(
                    "'" + table.source + "' row " + std::to_string(rows[std::size_t(i)] + 1) +
                    ", column '" + table.label(cols[std::size_t(d)]) + "' is infinite");
            if (o.arcsinhCofactor > 0 && !std::isnan(v))
                v = float(std::asinh(double(v) / o.arcsinhCofactor));
            data->values(i, d) = std::isnan(v) ? 0.0f : v;
            data->roles(i, d) =
                std::uint8_t(std::isnan(v) ? EntryRole::Missing : EntryRole::Observed);
        }

    // The held-out split.
    Rng rng = Rng::stream(o.seed, kSplitStream);
    if (o.split == HeldOutSplit::Entries) {
        for (std::int64_t i = 0; i < N; ++i)
            for (int d = 0; d < D; ++d)
                if (data->observed(i, d) && rng.uniform() < o.heldOut)
                    data->roles(i, d) = std::uint8_t(EntryRole::HeldOut);
    } else if (o.heldOut > 0) {
        const auto tests = std::size_t(std::llround(o.heldOut * double(N)));
        if (tests >= std::size_t(N))
            throw std::invalid_argument("heldout = " + formatNumber(o.heldOut) +
                                        " leaves no training row of " + std::to_string(N));
        std::vector<std::int64_t> order(static_cast<std::size_t>(N));
        std::iota(order.begin(), order.end(), 0);
        chooseFirst(order, tests, rng);
        std::vector<std::uint8_t> isTest(std::size_t(N), 0);
        for (std::size_t j = 0; j < tests; ++j)
            isTest[std::size_t(order[j])] = 1;
        std::vector<int> present;
        for (std::int64_t i = 0; i < N; ++i) {
            if (!isTest[std::size_t(i)]) {
                data->trainingRows.push_back(i);
                continue;
            }
            // Half of the row's present entries are scored; the rest condition its local
            // inference (the "document completion" protocol).
            present.clear();
            for (int d = 0; d < D; ++d)
                if (data->observed(i, d))
                    present.push_back(d);
            const std::size_t hide = present.size() / 2;
            chooseFirst(present, hide, rng);
            for (std::size_t j = 0; j < hide; ++j)
                data->roles(i, present[j]) = std::uint8_t(EntryRole::HeldOut);
        }
        if (data->trainingRows.size() == std::size_t(N))
            data->trainingRows.clear();
    }

    if (o.standardise) {
        // Per channel, from the entries the model trains on, so that nothing of the held-out
        // values leaks into the scaling. Two passes, the mean and then the spread about it: one
        // pass (Σx² − n·mean²) loses the spread of values far from zero to cancellation.
        for (int d = 0; d < D; ++d) {
            double sum = 0, count = 0;
            for (std::int64_t j = 0; j < data->trainingRowCount(); ++j)
                if (const std::int64_t i = data->trainingRow(j); data->observed(i, d)) {
                    sum += data->values(i, d);
                    count += 1;
                }
            const double mean = count > 0 ? sum / count : 0.0;
            double squares = 0;
            for (std::int64_t j = 0; j < data->trainingRowCount(); ++j)
                if (const std::int64_t i = data->trainingRow(j); data->observed(i, d)) {
                    const double e = data->values(i, d) - mean;
                    squares += e * e;
                }
            const double var = count > 1 ? squares / count : 0.0;
            const double scale = var > 1e-24 ? std::sqrt(var) : 1.0;
            for (std::int64_t i = 0; i < N; ++i) {
                if (data->roles(i, d) == std::uint8_t(EntryRole::Missing))
                    continue;
                const double z = (data->values(i, d) - mean) / scale;
                // A held-out value far outside a nearly constant training column would become
                // infinite in float and break every score computed from it.
                if (!(std::abs(z) <= double(std::numeric_limits<float>::max()))) {
                    char text[96];
                    std::snprintf(text, sizeof text,
                                  "the value %.7g lies %.3g standard deviations (%.3g)",
                                  double(data->values(i, d)), std::abs(z), scale);
                    throw std::invalid_argument(
                        "'" + table.source + "' row " + std::to_string(rows[std::size_t(i)] + 1) +
                        ", column '" + table.label(cols[std::size_t(d)]) + "': " + text +
                        " from the training mean, beyond what a float holds; leave the column out "
                        "or turn standardisation off");
                }
                data->values(i, d) = float(z);
            }
        }
    }
    return data;
}

} // namespace svi
