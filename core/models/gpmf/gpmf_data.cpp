#include "core/models/gpmf/gpmf_data.h"

#include "core/base/params.h"
#include "core/math/random.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace svi::gpmf {
namespace {

const std::vector<std::string>& observationNames()
{
    static const std::vector<std::string> names{"binary", "count", "ordinal"};
    return names;
}

const std::vector<std::string>& halfStarsNames()
{
    static const std::vector<std::string> names{"round", "scale"};
    return names;
}

template <typename E>
E fromName(const std::vector<std::string>& names, const std::string& name, const char* field)
{
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
        std::string all;
        for (std::size_t i = 0; i < names.size(); ++i)
            all += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
        throw std::invalid_argument(fieldError(field, name, "must be " + all));
    }
    return E(it - names.begin());
}

std::int64_t idOf(const std::vector<std::int64_t>& ids, std::int64_t index)
{
    return std::size_t(index) < ids.size() ? ids[std::size_t(index)] : index + 1;
}

// The entries of `rows` (users × items) regrouped by column of either side.
struct Triple
{
    std::int32_t user, item;
    float y;
};

ColumnEntries group(const std::vector<Triple>& entries, std::int64_t columns, bool byUser)
{
    ColumnEntries c;
    c.start.assign(std::size_t(columns) + 1, 0);
    for (const Triple& e : entries)
        ++c.start[std::size_t(byUser ? e.user : e.item) + 1];
    for (std::int64_t k = 0; k < columns; ++k)
        c.start[std::size_t(k) + 1] += c.start[std::size_t(k)];
    c.other.resize(entries.size());
    c.y.resize(entries.size());
    std::vector<std::int64_t> at(c.start.begin(), c.start.end() - 1);
    for (const Triple& e : entries) { // entries come by user then item: each column ascends
        const std::int64_t pos = at[std::size_t(byUser ? e.user : e.item)]++;
        c.other[std::size_t(pos)] = byUser ? e.item : e.user;
        c.y[std::size_t(pos)] = e.y;
    }
    return c;
}

} // namespace

std::string observationName(Observation o)
{
    return observationNames()[std::size_t(o)];
}

Observation observationFromName(const std::string& name)
{
    return fromName<Observation>(observationNames(), name, "likelihood");
}

std::string halfStarsName(HalfStars h)
{
    return halfStarsNames()[std::size_t(h)];
}

HalfStars halfStarsFromName(const std::string& name)
{
    return fromName<HalfStars>(halfStarsNames(), name, "half_stars");
}

std::unique_ptr<Likelihood> makeObservationLikelihood(Observation kind, int categories,
                                                      double slope, double delta)
{
    switch (kind) {
    case Observation::Binary:
        return makeLikelihood(LikelihoodKind::Logistic);
    case Observation::Count:
        return makeLikelihood(LikelihoodKind::PoissonLogistic);
    case Observation::Ordinal:
        break;
    }
    return makeOrdinalLikelihood(ordinalCuts(categories, delta), slope);
}

Observations makeObservations(const CountData& data, Observation kind, int categories,
                              HalfStars halfStars, bool unobservedZero)
{
    Observations obs;
    obs.kind = kind;
    obs.unobservedZero = unobservedZero;
    if (unobservedZero && kind == Observation::Ordinal)
        throw std::invalid_argument(fieldError("unobserved", "zero",
                                               "needs the binary or count likelihood (a 0 is "
                                               "not an ordinal category)"));
    const bool stars = data.values == "stars";
    const std::string source = "'" + data.source + "'";

    // The training values' range, for the binary extremes and the ordinal scale.
    double low = std::numeric_limits<double>::infinity(), high = -low;
    bool halves = false;
    for (float v : data.train.counts) {
        low = std::min(low, double(v));
        high = std::max(high, double(v));
        halves = halves || double(v) != std::floor(double(v));
    }
    if (data.train.nonZeros() == 0)
        throw std::invalid_argument("data: no training entries in " + source);

    const bool implicit = unobservedZero && kind == Observation::Binary;
    if (kind == Observation::Binary && data.values != "binary" && !stars && !implicit)
        throw std::invalid_argument(fieldError(
            "likelihood", "binary",
            "needs ratings on a scale (their lowest and highest become 0 and 1) or 0/1 values "
            "with observed zeros; " +
                source + " holds " + data.values));
    if (kind == Observation::Binary && data.values == "binary" && !data.observedZeros && !implicit)
        throw std::invalid_argument(fieldError(
            "likelihood", "binary",
            "needs observed zeros, but the ratings were binarised (binarize > 0) and hold only "
            "1s: set binarize = 0, and the lowest and highest ratings become 0 and 1"));
    if (kind == Observation::Ordinal && data.values != "stars" && data.values != "ordinal")
        throw std::invalid_argument(fieldError("likelihood", "ordinal",
                                               "needs ratings on a scale or categories; " + source +
                                                   " holds " + data.values));

    // value → y (NaN: dropped).
    const auto toY = [&](double v) {
        switch (kind) {
        case Observation::Binary:
            if (implicit && !data.observedZeros)
                return 1.0; // rated: 1; the unobserved entries are the zeros
            if (!stars)
                return v;
            return v == high ? 1.0 : v == low ? 0.0 : std::nan("");
        case Observation::Count:
            return v;
        case Observation::Ordinal:
            break;
        }
        if (stars && halves)
            return halfStars == HalfStars::Scale ? std::round(2.0 * v) : std::ceil(v - 1e-9);
        return v;
    };
    if (kind == Observation::Ordinal) {
        const int largest = int(std::lround(toY(high)));
        obs.categories = categories > 0 ? categories : std::max(2, largest);
        if (largest > obs.categories)
            throw std::invalid_argument(fieldError("categories", std::to_string(categories),
                                                   "must be at least the largest category in " +
                                                       source + ", " + std::to_string(largest)));
    }
    const auto lik = makeObservationLikelihood(kind, std::max(obs.categories, 2), 1.0, 1.0);

    std::vector<Triple> train, test;
    const auto collect = [&](const SparseRows& rows, std::vector<Triple>& out) {
        for (std::int64_t u = 0; u < rows.rows(); ++u) {
            const auto cols = rows.rowCols(u);
            const auto vals = rows.rowCounts(u);
            for (std::size_t e = 0; e < cols.size(); ++e) {
                const double y = toY(double(vals[e]));
                if (std::isnan(y)) {
                    ++obs.dropped;
                    continue;
                }
                if (const auto why = lik->outsideSupport(y))
                    throw std::invalid_argument(
                        source + ": user " + std::to_string(idOf(data.rowIds, u)) + ", item " +
                        std::to_string(idOf(data.columnIds, cols[e])) + ": " + *why +
                        " (likelihood = " + observationName(kind) + ")");
                out.push_back({std::int32_t(u), cols[e], float(y)});
            }
        }
    };
    collect(data.train, train);
    const std::int64_t droppedTrain = obs.dropped;
    collect(data.heldOut, test);
    if (train.empty())
        throw std::invalid_argument("data: no training entries left in " + source + " after " +
                                    std::to_string(droppedTrain) +
                                    " were dropped (likelihood = " + observationName(kind) + ")");

    obs.byUser = group(train, data.rows(), true);
    obs.byItem = group(train, data.cols(), false);
    obs.test.reserve(test.size());
    for (const Triple& t : test)
        obs.test.push_back({t.user, t.item, t.y});
    if (implicit && !data.observedZeros)
        obs.mapping = "every rating → 1, every unobserved entry → 0";
    else if (kind == Observation::Binary && stars)
        obs.mapping = "ratings " + formatNumber(low) + " → 0 and " + formatNumber(high) + " → 1; " +
                      std::to_string(obs.dropped) + " others dropped";
    else if (kind == Observation::Ordinal && stars && halves)
        obs.mapping =
            halfStars == HalfStars::Scale ? "each half star a category" : "half stars rounded up";
    return obs;
}

Eigen::ArrayXd paramsFromCuts(const std::vector<double>& cuts)
{
    Eigen::ArrayXd theta(Eigen::Index(cuts.size()));
    theta[0] = cuts[0];
    for (std::size_t k = 1; k < cuts.size(); ++k)
        theta[Eigen::Index(k)] = std::log(cuts[k] - cuts[k - 1]);
    return theta;
}

std::vector<double> cutsFromParams(const Eigen::ArrayXd& theta)
{
    std::vector<double> cuts(static_cast<std::size_t>(theta.size()));
    cuts[0] = theta[0];
    for (Eigen::Index k = 1; k < theta.size(); ++k)
        cuts[std::size_t(k)] = cuts[std::size_t(k - 1)] + std::exp(theta[k]);
    return cuts;
}

Eigen::ArrayXd cutParamGradient(const Eigen::ArrayXd& theta, const Eigen::VectorXd& dB)
{
    Eigen::ArrayXd g(theta.size());
    double tail = 0.0;
    for (Eigen::Index k = theta.size() - 1; k >= 0; --k) {
        tail += dB[k];
        g[k] = k == 0 ? tail : std::exp(theta[k]) * tail;
    }
    return g;
}

CountDataPtr makeSyntheticMatrix(const SyntheticMatrixOptions& o)
{
    if (o.users < 1 || o.items < 1 || o.dim < 1)
        throw std::invalid_argument("synthetic matrix: users, items and dim must be ≥ 1");
    if (!(o.testFraction >= 0.0 && o.testFraction < 1.0))
        throw std::invalid_argument(
            fieldError("heldout", formatNumber(o.testFraction), "must be in [0, 1)"));
    const auto lik = makeObservationLikelihood(o.kind, o.categories, o.slope, o.delta);
    Eigen::MatrixXd U(o.dim, o.users), V(o.dim, o.items);
    Rng draw = Rng::stream(o.seed, 0x9f3a, 0);
    for (Eigen::Index k = 0; k < U.size(); ++k)
        U.data()[k] = draw.normal();
    for (Eigen::Index k = 0; k < V.size(); ++k)
        V.data()[k] = draw.normal();

    auto data = std::make_shared<CountData>();
    data->kind = "ratings";
    data->values = o.kind == Observation::Binary  ? "binary"
                   : o.kind == Observation::Count ? "counts"
                                                  : "ordinal";
    data->observedZeros = true;
    data->vocabularySize = o.items;
    data->source = "synthetic " + observationName(o.kind) + " matrix";
    for (std::int64_t u = 0; u < o.users; ++u) {
        data->rowNames.push_back("user " + std::to_string(u + 1));
        data->rowIds.push_back(u + 1);
    }
    for (std::int64_t i = 0; i < o.items; ++i) {
        data->columnNames.push_back("item " + std::to_string(i + 1));
        data->columnIds.push_back(i + 1);
    }
    std::vector<std::int32_t> trainCols, testCols;
    std::vector<float> trainY, testY;
    for (std::int64_t u = 0; u < o.users; ++u) {
        Rng rng = Rng::stream(o.seed, 0x9f3b, std::uint64_t(u));
        trainCols.clear(), testCols.clear(), trainY.clear(), testY.clear();
        const Eigen::VectorXd f = V.transpose() * U.col(u);
        for (std::int64_t i = 0; i < o.items; ++i) {
            const float y = float(lik->sample(f[i], rng));
            const bool held = rng.uniform() < o.testFraction;
            (held ? testCols : trainCols).push_back(std::int32_t(i));
            (held ? testY : trainY).push_back(y);
        }
        data->train.appendRow(trainCols, trainY);
        data->heldOut.appendRow(testCols, testY);
    }
    data->finalise();
    return data;
}

} // namespace svi::gpmf
