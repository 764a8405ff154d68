#include "core/data/labelled.h"

#include "core/data/split_streams.h"
#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// Mean and standard deviation (divided by n) of `rows` of column c; of the label when c < 0.
struct Moments
{
    double mean = 0.0;
    double sd = 0.0;
};

Moments moments(const LabelledData& d, const std::vector<std::int64_t>& rows, int c)
{
    Moments m;
    if (rows.empty())
        return m;
    const auto value = [&](std::int64_t i) { return c < 0 ? d.y(i) : d.x(i, c); };
    for (const std::int64_t i : rows)
        m.mean += value(i);
    m.mean /= double(rows.size());
    double ss = 0.0;
    for (const std::int64_t i : rows) {
        const double e = value(i) - m.mean;
        ss += e * e;
    }
    m.sd = std::sqrt(ss / double(rows.size()));
    return m;
}

void checkRead(const LabelledData& read)
{
    const auto n = std::size_t(read.rows());
    if (read.rows() == 0)
        throw std::invalid_argument("labelled data: no examples in '" + read.source + "'");
    if (std::size_t(read.y.size()) != n || read.featureNames.size() != std::size_t(read.cols()))
        throw std::invalid_argument("labelled data: " + std::to_string(read.y.size()) +
                                    " labels and " + std::to_string(read.featureNames.size()) +
                                    " feature names for " + std::to_string(n) + " rows × " +
                                    std::to_string(read.cols()) + " features");
    if ((!read.group.empty() && read.group.size() != n) ||
        (!read.lineOfRow.empty() && (read.lineOfRow.size() != n || read.fileOfRow.size() != n)))
        throw std::invalid_argument("labelled data: per-row groups or lines do not match the " +
                                    std::to_string(n) + " rows");
    if (read.trainingRows.size() + read.testRows.size() != 0 &&
        read.trainingRows.size() + read.testRows.size() != n)
        throw std::invalid_argument("labelled data: the given training and test rows are not "
                                    "every row");
}

} // namespace

std::string labelKindName(LabelKind kind)
{
    switch (kind) {
    case LabelKind::Binary:
        return "binary";
    case LabelKind::Count:
        return "count";
    case LabelKind::Real:
        break;
    }
    return "real";
}

const ParamFields<LabelledOptions>& LabelledOptions::fields()
{
    using O = LabelledOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(realParam("test_share", "Test share",
                           "share of the rows held out as test rows (ignored when a test file is "
                           "given)",
                           0.2, 0.0, 0.9),
                 &O::testShare)
            .add(intParam("max_rows", "Training rows",
                          "keep this many training rows, drawn at random (the rest are dropped); "
                          "0 = all",
                          0, 0, 1e12),
                 &O::maxRows)
            .add(boolParam("standardise", "Standardise",
                           "z-score every feature column with the training rows' mean and sd", true,
                           "leave the feature columns on their own scales"),
                 &O::standardise)
            .add(boolParam("standardise_label", "Standardise a real label",
                           "z-score a real (not binary, not count) label with the training rows' "
                           "mean and sd",
                           true, "leave a real label on its own scale"),
                 &O::standardiseLabel)
            .add(boolParam("intercept", "Intercept", "append a column of ones, named 1", true,
                           "append no column of ones (the model has no intercept)"),
                 &O::intercept)
            .add(
                choiceParam("label_kind", "Label kind",
                            "auto: two values are classes, whole numbers ≥ 0 with a mean up to "
                            "1,000 counts, the rest real (house prices in whole dollars); real: "
                            "always real values",
                            {"auto", "real"}, "auto"),
                &O::realLabel, [](bool real) { return real ? "real" : "auto"; },
                [](const std::string& name) { return name == "real"; })
            .add(splitSeedParam("seed of the held-out split and of the training subsample"),
                 &O::seed);
    return f;
}

LabelledDataPtr makeLabelledData(const LabelledData& read, const LabelledOptions& o)
{
    if (auto problem = o.validate())
        throw std::invalid_argument(*problem);
    checkRead(read);
    const std::int64_t N = read.rows();

    // The split: as given, or round(testShare × N) rows drawn.
    std::vector<std::uint8_t> isTest(std::size_t(N), 0);
    if (read.trainingRows.empty() && read.testRows.empty()) {
        const auto tests = std::size_t(std::llround(o.testShare * double(N)));
        if (tests >= std::size_t(N))
            throw std::invalid_argument("test_share = " + formatNumber(o.testShare) +
                                        " leaves no training row of " + std::to_string(N));
        std::vector<std::int64_t> order(static_cast<std::size_t>(N));
        std::iota(order.begin(), order.end(), 0);
        Rng rng = Rng::stream(o.seed, kSplitStream);
        chooseFirst(order, tests, rng);
        for (std::size_t j = 0; j < tests; ++j)
            isTest[std::size_t(order[j])] = 1;
    } else {
        if (read.trainingRows.empty())
            throw std::invalid_argument("labelled data: no training row in '" + read.source + "'");
        for (const std::int64_t i : read.testRows)
            isTest[std::size_t(i)] = 1;
    }

    // The rows kept: every test row, and the training rows (a subsample of them with maxRows).
    std::vector<std::int64_t> training;
    for (std::int64_t i = 0; i < N; ++i)
        if (!isTest[std::size_t(i)])
            training.push_back(i);
    std::vector<std::uint8_t> keep(std::size_t(N), 1);
    if (o.maxRows > 0 && std::size_t(o.maxRows) < training.size()) {
        std::vector<std::int64_t> order = training;
        Rng rng = Rng::stream(o.seed, kSubsampleStream);
        chooseFirst(order, std::size_t(o.maxRows), rng);
        for (std::size_t j = std::size_t(o.maxRows); j < order.size(); ++j)
            keep[std::size_t(order[j])] = 0;
    }

    auto out = std::make_shared<LabelledData>();
    LabelledData& d = *out;
    const std::int64_t kept = std::count(keep.begin(), keep.end(), std::uint8_t(1));
    // The columns kept: with an intercept, each factor's first level is the reference level
    // and its column is left out (the levels' columns would sum to the intercept's).
    std::vector<int> columns, newIndex(std::size_t(read.cols()), -1);
    {
        std::vector<std::uint8_t> reference(std::size_t(read.cols()), 0);
        if (o.intercept)
            for (const auto& [first, end] : read.factorColumns)
                if (end - first >= 2)
                    reference[std::size_t(first)] = 1;
        for (int c = 0; c < read.cols(); ++c)
            if (!reference[std::size_t(c)]) {
                newIndex[std::size_t(c)] = int(columns.size());
                columns.push_back(c);
                d.featureNames.push_back(read.featureNames[std::size_t(c)]);
            }
        for (const auto& [first, end] : read.factorColumns) {
            const int from = first + int(reference[std::size_t(first)]);
            if (from < end)
                d.factorColumns.emplace_back(newIndex[std::size_t(from)],
                                             newIndex[std::size_t(end - 1)] + 1);
        }
    }
    const int D = int(columns.size());
    d.x.resize(kept, D + (o.intercept ? 1 : 0));
    d.y.resize(kept);
    const bool lines = !read.lineOfRow.empty();
    for (std::int64_t i = 0, r = 0; i < N; ++i) {
        if (!keep[std::size_t(i)])
            continue;
        d.x.row(r).head(D) = read.x.row(i)(columns);
        d.y(r) = read.y(i);
        (isTest[std::size_t(i)] ? d.testRows : d.trainingRows).push_back(r);
        if (!read.group.empty())
            d.group.push_back(read.group[std::size_t(i)]);
        if (lines) {
            d.fileOfRow.push_back(read.fileOfRow[std::size_t(i)]);
            d.lineOfRow.push_back(read.lineOfRow[std::size_t(i)]);
        }
        ++r;
    }
    d.labelKind = o.realLabel ? LabelKind::Real : read.labelKind;
    if (!o.realLabel)
        d.classes = read.classes;
    d.labelName = read.labelName;
    d.groupNames = read.groupNames;
    d.files = read.files;
    d.source = read.source;

    if (o.standardise)
        for (int c = 0; c < D; ++c) {
            const Moments m = moments(d, d.trainingRows, c);
            auto column = d.x.col(c).array();
            column -= m.mean;
            if (m.sd > 0)
                column /= m.sd;
        }
    if (o.standardiseLabel && d.labelKind == LabelKind::Real) {
        const Moments m = moments(d, d.trainingRows, -1);
        d.labelMean = m.mean;
        d.labelScale = m.sd > 0 ? m.sd : 1.0;
        d.y.array() = (d.y.array() - d.labelMean) / d.labelScale;
    }
    if (o.intercept) {
        d.x.col(D).setOnes();
        d.featureNames.push_back("1");
        d.interceptColumn = D;
    }
    return out;
}

} // namespace svi
