#include "core/data/table.h"

#include "core/data/split_streams.h"
#include "core/math/random.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <type_traits>
#include <unordered_map>

namespace svi {
namespace {

std::string lower(std::string s)
{
    for (char& c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
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

// The first `take` entries of a partial Fisher–Yates shuffle of 0, 1, …, n − 1: chooseFirst on
// that sequence, drawing the same numbers, in O(take) memory (a rank of a distributed run
// replays it over the whole table's rows).
std::vector<std::int64_t> firstOfShuffle(std::int64_t n, std::size_t take, Rng& rng)
{
    std::unordered_map<std::int64_t, std::int64_t> moved; // position → value, where not itself
    const auto at = [&](std::int64_t k) {
        const auto it = moved.find(k);
        return it == moved.end() ? k : it->second;
    };
    std::vector<std::int64_t> out;
    out.reserve(std::min(take, std::size_t(n)));
    for (std::int64_t j = 0; j < std::int64_t(take) && j < n; ++j) {
        const std::int64_t k = j + std::int64_t(rng.below(std::uint64_t(n - j)));
        const std::int64_t vk = at(k);
        moved[k] = at(j);
        out.push_back(vk);
    }
    return out;
}

// Runs `task`; with ranks, every rank then throws the std::invalid_argument of the lowest rank
// whose task threw one, so that none is left waiting in a collective.
template <typename Task> void together(Communicator* ranks, Task&& task)
{
    if (!ranks) {
        task();
        return;
    }
    std::string error;
    try {
        task();
    } catch (const std::invalid_argument& e) {
        error = e.what();
        if (error.empty())
            error = "invalid data";
    }
    if (const std::string first = ranks->firstMessage(error); !first.empty())
        throw std::invalid_argument(first);
}

// Calls body(rng) on each rank in turn, in rank order, each continuing `rng` where the rank
// before left it (its state passed on through a sum): the draws are those one pass over the
// whole table makes, whatever the parts. Without ranks, body(rng).
void inRankOrder(Communicator* ranks, Rng& rng, const std::function<void(Rng&)>& body)
{
    static_assert(std::is_trivially_copyable_v<Rng>);
    if (!ranks) {
        body(rng);
        return;
    }
    for (int q = 0; q < ranks->size(); ++q) {
        std::vector<double> state(sizeof(Rng), 0.0);
        if (q == ranks->rank()) {
            body(rng);
            unsigned char bytes[sizeof(Rng)];
            std::memcpy(bytes, &rng, sizeof(Rng));
            for (std::size_t b = 0; b < sizeof(Rng); ++b)
                state[b] = double(bytes[b]);
        }
        ranks->sum(state);
        unsigned char bytes[sizeof(Rng)];
        for (std::size_t b = 0; b < sizeof(Rng); ++b)
            bytes[b] = static_cast<unsigned char>(state[b]);
        std::memcpy(&rng, bytes, sizeof(Rng));
    }
}

// The held-out split of `data` (rows held from `heldBegin` of data.rows()): entries at random,
// or test rows of which half the entries are scored. One stream over the whole table in row
// order, so on several ranks each continues it where the rank before left it.
void splitHeldOut(DenseData& data, const TableOptions& o, std::int64_t heldBegin,
                  Communicator* ranks)
{
    const std::int64_t N = data.rows(), n = data.values.rows();
    const int D = data.cols();
    Rng rng = Rng::stream(o.seed, kSplitStream);
    if (o.split == HeldOutSplit::Entries) {
        inRankOrder(ranks, rng, [&](Rng& r) {
            for (std::int64_t i = 0; i < n; ++i)
                for (int d = 0; d < D; ++d)
                    if (data.roles(i, d) == std::uint8_t(EntryRole::Observed) &&
                        r.uniform() < o.heldOut)
                        data.roles(i, d) = std::uint8_t(EntryRole::HeldOut);
        });
        return;
    }
    if (o.heldOut <= 0)
        return;
    const auto tests = std::size_t(std::llround(o.heldOut * double(N)));
    if (tests >= std::size_t(N))
        throw std::invalid_argument("heldout = " + formatNumber(o.heldOut) +
                                    " leaves no training row of " + std::to_string(N));
    // The test rows, from every rank's copy of the stream; then the entries of each, in turn.
    std::vector<std::int64_t> testRows = firstOfShuffle(N, tests, rng);
    std::sort(testRows.begin(), testRows.end());
    for (std::int64_t i = 0, t = 0; i < N; ++i) {
        if (t < std::int64_t(tests) && testRows[std::size_t(t)] == i)
            ++t;
        else
            data.trainingRows.push_back(i);
    }
    inRankOrder(ranks, rng, [&](Rng& r) {
        std::vector<int> present;
        const auto from = std::lower_bound(testRows.begin(), testRows.end(), heldBegin);
        for (auto it = from; it != testRows.end() && *it < heldBegin + n; ++it) {
            const std::int64_t i = *it - heldBegin;
            // Half of the row's present entries are scored; the rest condition its local
            // inference (the "document completion" protocol).
            present.clear();
            for (int d = 0; d < D; ++d)
                if (data.roles(i, d) == std::uint8_t(EntryRole::Observed))
                    present.push_back(d);
            const std::size_t hide = present.size() / 2;
            chooseFirst(present, hide, r);
            for (std::size_t j = 0; j < hide; ++j)
                data.roles(i, present[j]) = std::uint8_t(EntryRole::HeldOut);
        }
    });
    if (data.trainingRows.size() == std::size_t(N))
        data.trainingRows.clear();
}

// Scales every channel by its training moments (trainingMoments). `where(i, d)` names the
// entry of held row i for messages.
template <typename Where> void standardise(DenseData& data, Communicator* ranks, const Where& where)
{
    const ChannelMoments m = trainingMoments(data, ranks);
    const std::int64_t n = data.values.rows();
    for (int d = 0; d < data.cols(); ++d) {
        const double mean = m.mean[std::size_t(d)], scale = m.scale[std::size_t(d)];
        for (std::int64_t i = 0; i < n; ++i) {
            if (data.roles(i, d) == std::uint8_t(EntryRole::Missing))
                continue;
            const double z = (data.values(i, d) - mean) / scale;
            // A held-out value far outside a nearly constant training column would become
            // infinite in float and break every score computed from it.
            if (!(std::abs(z) <= double(std::numeric_limits<float>::max()))) {
                char text[96];
                std::snprintf(text, sizeof text,
                              ": the value %.7g lies %.3g standard deviations (%.3g)",
                              double(data.values(i, d)), std::abs(z), scale);
                throw std::invalid_argument(
                    where(i, d) + text +
                    " from the training mean, beyond what a float holds; leave the column out "
                    "or turn standardisation off");
            }
            data.values(i, d) = float(z);
        }
    }
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

const ParamFields<TableOptions>& TableOptions::fields()
{
    using O = TableOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(namesParam("channels", "Channels",
                            "the channels the model sees, by channel or marker name; empty = every "
                            "one"),
                 &O::channels)
            .add(realParam("arcsinh", "arcsinh cofactor",
                           "y ← asinh(y / c) before anything else; 0 = off. An FCS file proposes "
                           "5 for mass cytometry (CyTOF), 150 for flow",
                           0.0, 0.0, 1e9),
                 &O::arcsinhCofactor)
            .add(boolParam("standardise", "Standardise",
                           "scale every channel to mean 0, variance 1 (as paper 000)", true,
                           "leave the channels on their own scales"),
                 &O::standardise)
            .add(intParam("subsample", "Subsample rows",
                          "keep this many rows, drawn at random; 0 = every row", 0, 0, 1e12),
                 &O::subsample)
            .add(realParam("heldout", "Held-out fraction",
                           "fraction of entries (or of rows) held out and scored", 0.05, 0.0, 0.99),
                 &O::heldOut)
            .add(
                choiceParam("split", "Held-out split",
                            "entries: entries at random; rows: whole test rows, excluded from "
                            "training, half of each scored",
                            {"entries", "rows"}, "entries"),
                &O::split,
                [](HeldOutSplit s) { return s == HeldOutSplit::Rows ? "rows" : "entries"; },
                [](const std::string& name) {
                    return name == "rows" ? HeldOutSplit::Rows : HeldOutSplit::Entries;
                })
            .add(splitSeedParam("seed of the subsample and the held-out split"), &O::seed);
    return f;
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
        out.stacked.emplace_back(t.source, t.rows());
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

ChannelMoments trainingMoments(const DenseData& data, Communicator* ranks)
{
    // Two passes, the mean and then the spread about it: one pass (Σx² − n·mean²) loses the
    // spread of values far from zero to cancellation. Read in parts, each pass's sums (Σx and
    // n, then Σ(x − mean)²) are summed over the ranks: the whole table's to rounding, only the
    // order of the additions differing (on one rank, the same additions in the same order).
    const int D = data.cols();
    const std::int64_t n = data.values.rows();
    const Shard held = data.heldRows.value_or(Shard{0, n});
    // The training rows held here: positions [begin, end) among the training rows.
    const Shard positions = data.trainingRows.empty() ? held : positionsIn(data.trainingRows, held);
    std::vector<double> sums(2 * std::size_t(D), 0.0); // Σx per channel, then the counts
    for (std::int64_t j = positions.begin; j < positions.end; ++j) {
        const std::int64_t i = data.heldRow(data.trainingRow(j));
        for (int d = 0; d < D; ++d)
            if (data.roles(i, d) == std::uint8_t(EntryRole::Observed)) {
                sums[std::size_t(d)] += data.values(i, d);
                sums[std::size_t(D) + std::size_t(d)] += 1;
            }
    }
    if (ranks)
        ranks->sum(sums);
    ChannelMoments m;
    m.mean.assign(std::size_t(D), 0.0);
    m.scale.assign(std::size_t(D), 1.0);
    for (int d = 0; d < D; ++d) {
        const double count = sums[std::size_t(D) + std::size_t(d)];
        m.mean[std::size_t(d)] = count > 0 ? sums[std::size_t(d)] / count : 0.0;
    }
    std::vector<double> squares(static_cast<std::size_t>(D), 0.0);
    for (std::int64_t j = positions.begin; j < positions.end; ++j) {
        const std::int64_t i = data.heldRow(data.trainingRow(j));
        for (int d = 0; d < D; ++d)
            if (data.roles(i, d) == std::uint8_t(EntryRole::Observed)) {
                const double e = data.values(i, d) - m.mean[std::size_t(d)];
                squares[std::size_t(d)] += e * e;
            }
    }
    if (ranks)
        ranks->sum(squares);
    for (int d = 0; d < D; ++d) {
        const double count = sums[std::size_t(D) + std::size_t(d)];
        const double var = count > 1 ? squares[std::size_t(d)] / count : 0.0;
        m.scale[std::size_t(d)] = var > 1e-24 ? std::sqrt(var) : 1.0;
    }
    return m;
}

DenseDataPtr makeTableData(const Table& table, const TableOptions& o, const TablePart* part)
{
    if (auto problem = o.validate())
        throw std::invalid_argument(*problem);
    // The whole table's rows, and where this part's begin among them.
    const std::int64_t F = part ? part->wholeRows : table.rows();
    const std::int64_t firstRow = part ? part->firstRow : 0;
    Communicator* const ranks = part ? part->ranks : nullptr;
    if (F < 1 || table.cols() < 1)
        throw std::invalid_argument("'" + table.source + "' has no data (" + std::to_string(F) +
                                    " rows × " + std::to_string(table.cols()) + " columns)");
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
    // Rows: a seeded subsample of the whole table's rows, kept in file order; `rows` are the
    // kept rows of this table (its own indices) and `held` their place among all kept rows.
    std::vector<std::int64_t> rows;
    std::int64_t N = F, heldBegin = firstRow;
    if (o.subsample > 0 && o.subsample < F) {
        Rng rng = Rng::stream(o.seed, kSubsampleStream);
        std::vector<std::int64_t> kept = firstOfShuffle(F, std::size_t(o.subsample), rng);
        std::sort(kept.begin(), kept.end());
        const auto from = std::lower_bound(kept.begin(), kept.end(), firstRow);
        const auto to = std::lower_bound(from, kept.end(), firstRow + table.rows());
        for (auto it = from; it != to; ++it)
            rows.push_back(*it - firstRow);
        N = o.subsample;
        heldBegin = from - kept.begin();
    } else {
        rows.resize(std::size_t(table.rows()));
        std::iota(rows.begin(), rows.end(), 0);
    }
    const std::int64_t n = std::int64_t(rows.size()); // the rows held here
    const int D = int(cols.size());
    // The whole table's row number of held row i, from 1, for messages.
    const auto rowNumber = [&](std::int64_t i) {
        return std::to_string(firstRow + rows[std::size_t(i)] + 1);
    };

    auto data = std::make_shared<DenseData>();
    data->source = table.source;
    if (part) {
        data->heldRows = Shard{heldBegin, heldBegin + n};
        data->wholeRows = N;
    }
    data->values.resize(n, D);
    data->roles.resize(n, D);
    for (int d = 0; d < D; ++d) {
        const int c = cols[std::size_t(d)];
        const std::string& marker =
            c < int(table.markers.size()) ? table.markers[std::size_t(c)] : "";
        data->columnNames.push_back(marker.empty() ? table.columns[std::size_t(c)] : marker);
    }
    together(ranks, [&] {
        for (std::int64_t i = 0; i < n; ++i)
            for (int d = 0; d < D; ++d) {
                float v = table.values(rows[std::size_t(i)], cols[std::size_t(d)]);
                if (std::isinf(v))
                    throw std::invalid_argument("'" + table.source + "' row " + rowNumber(i) +
                                                ", column '" + table.label(cols[std::size_t(d)]) +
                                                "' is infinite");
                if (o.arcsinhCofactor > 0 && !std::isnan(v))
                    v = float(std::asinh(double(v) / o.arcsinhCofactor));
                data->values(i, d) = std::isnan(v) ? 0.0f : v;
                data->roles(i, d) =
                    std::uint8_t(std::isnan(v) ? EntryRole::Missing : EntryRole::Observed);
            }
    });

    splitHeldOut(*data, o, heldBegin, ranks);
    if (o.standardise)
        together(ranks, [&] {
            standardise(*data, ranks, [&](std::int64_t i, int d) {
                return "'" + table.source + "' row " + rowNumber(i) + ", column '" +
                       table.label(cols[std::size_t(d)]) + "'";
            });
        });
    return data;
}

} // namespace svi
