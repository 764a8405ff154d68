#include "core/models/pf/pf_model.h"

#include "core/base/parallel.h"
#include "core/math/digamma.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <stdexcept>

namespace svi::pf {

ParamFields<Priors> Priors::declare(bool hierarchical)
{
    ParamFields<Priors> f;
    f.add(positiveParam("a", "Shape a", "θ_uk ~ Gamma(a, ·): user preferences", 0.3), &Priors::a);
    if (hierarchical) {
        f.add(positiveParam("a_prime", "Shape a′", "user activity ξ_u ~ Gamma(a′, a′/b′)", 0.3),
              &Priors::aPrime)
            .add(positiveParam("b_prime", "Mean b′", "prior mean of the user activity ξ_u", 1.0),
                 &Priors::bPrime);
    } else {
        f.add(positiveParam("b", "Rate b", "θ_uk ~ Gamma(a, b)", 1.0), &Priors::b);
    }
    f.add(positiveParam("c", "Shape c", "β_ik ~ Gamma(c, ·): item attributes", 0.3), &Priors::c);
    if (hierarchical) {
        f.add(positiveParam("c_prime", "Shape c′", "item popularity η_i ~ Gamma(c′, c′/d′)", 0.3),
              &Priors::cPrime)
            .add(positiveParam("d_prime", "Mean d′", "prior mean of the item popularity η_i", 1.0),
                 &Priors::dPrime);
    } else {
        f.add(positiveParam("d", "Rate d", "β_ik ~ Gamma(c, d)", 1.0), &Priors::d);
    }
    return f;
}

const ParamFields<Priors>& Priors::fields()
{
    static const ParamFields<Priors> f = [] {
        ParamFields<Priors> all;
        all.merge(declare(true)).merge(declare(false));
        return all;
    }();
    return f;
}

bool Side::valid() const
{
    return shp.allFinite() && rte.allFinite() && levelRate.allFinite() &&
           std::isfinite(levelShape) && (shp.array() > 0.0).all() && (rte.array() > 0.0).all() &&
           (levelRate.array() > 0.0).all();
}

bool Side::rowValid(std::int64_t r) const
{
    const bool level = levelRate.size() == 0 || (std::isfinite(levelRate[r]) && levelRate[r] > 0.0);
    return level && shp.row(r).allFinite() && rte.row(r).allFinite() &&
           (shp.row(r).array() > 0.0).all() && (rte.row(r).array() > 0.0).all();
}
namespace {

double lgam(double x)
{
    return boost::math::lgamma(x);
}

// E_q[log p(x | shape, rate)] − E_q[log q(x)] for p = Gamma(shape, rate) with E[rate] and
// E[log rate] given, and q = Gamma(s, r):
//   shape E[log rate] − log Γ(shape) + (shape − 1) E[log x] − E[rate] E[x]
//   − (s log r − log Γ(s) + (s − 1) E[log x] − s).
double gammaTerm(double shape, double rateMean, double rateLogMean, double s, double r)
{
    const double eLog = digamma(s) - std::log(r);
    return shape * rateLogMean - lgam(shape) + (shape - 1.0) * eLog - rateMean * s / r -
           (s * std::log(r) - lgam(s) + (s - 1.0) * eLog - s);
}

} // namespace

namespace {

// E[log p] − E[log q] of row r's factors (given its level) and of its level.
double rowPriorTerms(const Side& side, std::int64_t r, const SidePrior& prior)
{
    const double m = levelMean(side, r, prior.fixedRate);
    const double l = levelLogMean(side, r, prior.fixedRate);
    double s = 0.0;
    for (Eigen::Index k = 0; k < side.shp.cols(); ++k)
        s += gammaTerm(prior.shape, m, l, side.shp(r, k), side.rte(r, k));
    if (prior.hierarchical)
        s += gammaTerm(prior.levelShape, prior.levelRate, std::log(prior.levelRate),
                       side.levelShape, side.levelRate[r]);
    return s;
}

} // namespace

void Side::refresh(std::int64_t begin, std::int64_t end)
{
    const Eigen::Index K = shp.cols();
    for (std::int64_t r = begin; r < end; ++r) {
        double* el = expLog.row(r).data();
        digamma(shp.row(r).data(), el, K);
        for (Eigen::Index k = 0; k < K; ++k) {
            el[k] = std::exp(el[k]) / rte(r, k);
            mean(r, k) = shp(r, k) / rte(r, k);
        }
    }
}

void Side::refreshAll()
{
    mean.resize(shp.rows(), shp.cols());
    expLog.resize(shp.rows(), shp.cols());
    forChunks(rows(), [&](int, std::int64_t begin, std::int64_t end) { refresh(begin, end); });
}

void Side::visitState(StateArchive& a)
{
    a.field("shape", shp);
    a.field("rate", rte);
    a.field("level_rate", levelRate);
    a.field("level_shape", levelShape);
    if (a.loading())
        refreshAll();
}

double levelMean(const Side& s, std::int64_t r, double fixedRate)
{
    return s.levelRate.size() ? s.levelShape / s.levelRate[r] : fixedRate;
}

double levelLogMean(const Side& s, std::int64_t r, double fixedRate)
{
    return s.levelRate.size() ? digamma(s.levelShape) - std::log(s.levelRate[r])
                              : std::log(fixedRate);
}

SidePrior userPrior(const Priors& p)
{
    return {p.a, p.b, p.hierarchical, p.aPrime, p.aPrime / p.bPrime};
}

SidePrior itemPrior(const Priors& p)
{
    return {p.c, p.d, p.hierarchical, p.cPrime, p.cPrime / p.dPrime};
}

void updateLevel(Side& s, std::int64_t r, const SidePrior& prior)
{
    if (prior.hierarchical)
        s.levelRate[r] = prior.levelRate + s.mean.row(r).sum();
}

namespace {

// Row r's starting shapes and rates (initialise()), from the stream (seed, stream, r).
void drawStart(Side& s, std::int64_t r, const SidePrior& prior, std::uint64_t seed,
               std::uint64_t stream)
{
    // The prior mean of the factors' rate: b (PMF) or E[ξ] = a' / (a'/b') = b' (HPF).
    const double rate = prior.hierarchical ? prior.levelShape / prior.levelRate : prior.fixedRate;
    Rng rng = Rng::stream(seed, stream, std::uint64_t(r));
    for (Eigen::Index k = 0; k < s.shp.cols(); ++k) {
        s.shp(r, k) = prior.shape + 0.1 * rng.uniform();
        s.rte(r, k) = rate + 0.1 * rng.uniform();
    }
}

} // namespace

void restart(Side& s, std::int64_t r, const SidePrior& prior, std::uint64_t seed,
             std::uint64_t stream)
{
    drawStart(s, r, prior, seed, stream);
    s.refresh(r, r + 1);
    if (prior.hierarchical)
        updateLevel(s, r, prior);
}

void initialise(Side& s, std::int64_t rows, int K, const SidePrior& prior, std::uint64_t seed,
                std::uint64_t stream)
{
    // The prior mean of the factors' rate: b (PMF) or E[ξ] = a' / (a'/b') = b' (HPF).
    s.shp.resize(rows, K);
    s.rte.resize(rows, K);
    for (std::int64_t r = 0; r < rows; ++r)
        drawStart(s, r, prior, seed, stream);
    s.refreshAll();
    s.levelRate.resize(0);
    s.levelShape = 0.0;
    if (prior.hierarchical) {
        s.levelShape = prior.levelShape + double(K) * prior.shape;
        s.levelRate.resize(rows);
        for (std::int64_t r = 0; r < rows; ++r)
            updateLevel(s, r, prior);
    }
}

void UserWorkspace::resize(int K, Eigen::Index maxRatings)
{
    ratio.resize(std::max<Eigen::Index>(maxRatings, 1));
    stat.resize(K);
    eTheta.resize(K);
    newShp.resize(K);
}

int fitUser(Side& users, std::int64_t u, const SparseRows& rows, const Side& items,
            const Eigen::VectorXd& itemSums, const SidePrior& prior, const LocalOptions& options,
            UserWorkspace& ws)
{
    const auto cols = rows.rowCols(u);
    const auto counts = rows.rowCounts(u);
    const Eigen::Index K = users.shp.cols();
    int round = 0;
    while (round < options.maxIters) {
        ++round;
        // φ through the ratios, with the current eθ_u.
        ws.eTheta = users.expLog.row(u).transpose();
        ws.stat.setZero();
        for (std::size_t n = 0; n < cols.size(); ++n) {
            const auto eBeta = items.expLog.row(cols[n]);
            const double r = double(counts[n]) / eBeta.dot(ws.eTheta.transpose());
            ws.ratio[Eigen::Index(n)] = r;
            ws.stat.noalias() += r * eBeta.transpose();
        }
        ws.newShp = prior.shape + (ws.eTheta.array() * ws.stat.array());
        const double change =
            (ws.newShp - users.shp.row(u).transpose()).cwiseAbs().sum() / double(K);
        users.shp.row(u) = ws.newShp.transpose();
        users.rte.row(u) =
            (levelMean(users, u, prior.fixedRate) + itemSums.array()).matrix().transpose();
        users.refresh(u, u + 1);
        updateLevel(users, u, prior);
        if (change < options.tol)
            break;
    }
    return round;
}

void MinibatchStats::layout(const SparseRows& rows, std::span<const std::int64_t> batch, int K)
{
    entryStart.resize(batch.size() + 1);
    entryStart[0] = 0;
    for (std::size_t j = 0; j < batch.size(); ++j)
        entryStart[j + 1] = entryStart[j] + rows.rowNonZeros(batch[j]);
    const std::size_t n = std::size_t(entryStart.back());
    entryItem.resize(n);
    entrySlot.resize(n);
    entryRatio.resize(Eigen::Index(n));
    for (std::size_t j = 0; j < batch.size(); ++j) {
        const auto cols = rows.rowCols(batch[j]);
        std::copy(cols.begin(), cols.end(), entryItem.begin() + entryStart[j]);
        std::fill(entrySlot.begin() + entryStart[j], entrySlot.begin() + entryStart[j + 1],
                  std::int32_t(j));
    }
    eTheta.resize(Eigen::Index(batch.size()), K);
    meanTheta.resize(Eigen::Index(batch.size()), K);
}

void MinibatchStats::record(std::int64_t j, const UserWorkspace& ws, const Side& users,
                            std::int64_t u)
{
    const std::int64_t begin = entryStart[std::size_t(j)];
    const std::int64_t n = entryStart[std::size_t(j) + 1] - begin;
    entryRatio.segment(begin, n) = ws.ratio.head(n);
    eTheta.row(j) = ws.eTheta.transpose();
    meanTheta.row(j) = users.mean.row(u);
}

void MinibatchStats::groupByItem(std::int64_t items)
{
    // Counting sort by item; entries keep their slot order within an item.
    itemStart.assign(std::size_t(items) + 1, 0);
    for (std::int32_t i : entryItem)
        ++itemStart[std::size_t(i) + 1];
    for (std::size_t i = 0; i < std::size_t(items); ++i)
        itemStart[i + 1] += itemStart[i];
    byItem.resize(entryItem.size());
    cursor.assign(itemStart.begin(), itemStart.end() - 1);
    for (std::size_t e = 0; e < entryItem.size(); ++e)
        byItem[std::size_t(cursor[std::size_t(entryItem[e])]++)] = std::int64_t(e);
}

Eigen::VectorXd columnSums(const MatrixRD& m)
{
    Eigen::VectorXd s = Eigen::VectorXd::Zero(m.cols());
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        s += m.row(r).transpose();
    return s;
}

void itemStatistics(const MinibatchStats& stats, SparseRowSum& T, Eigen::VectorXd& thetaSum)
{
    const Eigen::Index K = stats.eTheta.cols();
    const std::int64_t M = std::int64_t(stats.itemStart.size()) - 1;
    T.index.clear();
    for (std::int64_t i = 0; i < M; ++i)
        if (stats.itemStart[std::size_t(i) + 1] > stats.itemStart[std::size_t(i)])
            T.index.push_back(std::int32_t(i));
    T.rows.resize(Eigen::Index(T.index.size()), K);
    forChunks(std::int64_t(T.index.size()), [&](int, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            // The entries of item i, in slot order.
            const std::int64_t i = T.index[std::size_t(j)];
            auto t = T.rows.row(j);
            t.setZero();
            for (std::int64_t g = stats.itemStart[std::size_t(i)];
                 g < stats.itemStart[std::size_t(i) + 1]; ++g) {
                const std::int64_t e = stats.byItem[std::size_t(g)];
                t.noalias() +=
                    stats.entryRatio[e] * stats.eTheta.row(stats.entrySlot[std::size_t(e)]);
            }
        }
    });
    thetaSum = columnSums(stats.meanTheta);
}

void itemGradient(const Side& items, const SparseRowSum& T, const Eigen::VectorXd& thetaSum,
                  const SidePrior& prior, double scale, Eigen::VectorXd& gradient)
{
    const std::int64_t M = items.rows();
    const Eigen::Index K = items.shp.cols();
    gradient.resize(2 * M * K);
    forChunks(M, [&](int, std::int64_t begin, std::int64_t end) {
        // T's rows of the chunk's items: its index is ascending.
        std::size_t j =
            std::size_t(std::lower_bound(T.index.begin(), T.index.end(), std::int32_t(begin)) -
                        T.index.begin());
        const Eigen::VectorXd zero = Eigen::VectorXd::Zero(K);
        for (std::int64_t i = begin; i < end; ++i) {
            const bool rated = j < T.index.size() && T.index[j] == i;
            const double* t = rated ? T.rows.row(Eigen::Index(j)).data() : zero.data();
            if (rated)
                ++j;
            const double eta = levelMean(items, i, prior.fixedRate);
            for (Eigen::Index k = 0; k < K; ++k) {
                const double shpHat = prior.shape + scale * items.expLog(i, k) * t[k];
                const double rteHat = eta + scale * thetaSum[k];
                gradient[i * K + k] = shpHat - items.shp(i, k);
                gradient[M * K + i * K + k] = rteHat - items.rte(i, k);
            }
        }
    });
}

void applyItemGradient(Side& items, const Eigen::VectorXd& gradient, const SidePrior& prior,
                       double rho)
{
    const std::int64_t M = items.rows();
    const Eigen::Index K = items.shp.cols();
    if (gradient.size() != 2 * M * K)
        throw std::invalid_argument("applyItemGradient: the gradient has " +
                                    std::to_string(gradient.size()) +
                                    " entries, but must have 2·M·K = " + std::to_string(2 * M * K));
    forChunks(M, [&](int, std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            for (Eigen::Index k = 0; k < K; ++k) {
                items.shp(i, k) += rho * gradient[i * K + k];
                items.rte(i, k) += rho * gradient[M * K + i * K + k];
            }
            items.refresh(i, i + 1);
            updateLevel(items, i, prior);
        }
    });
}

void streamShapeDelta(const Side& items, SparseRowSum& T)
{
    for (Eigen::Index j = 0; j < T.rows.rows(); ++j)
        T.rows.row(j).array() *= items.expLog.row(T.index[std::size_t(j)]).array();
}

void addItemStatistic(Side& items, const SparseRowSum& shapeDelta, const Eigen::VectorXd& rateSum,
                      const SidePrior& prior, bool fromPrior)
{
    const std::int64_t M = items.rows();
    const Eigen::Index K = items.shp.cols();
    if (rateSum.size() != K || (shapeDelta.rows.rows() > 0 && shapeDelta.rows.cols() != K))
        throw std::invalid_argument(
            "addItemStatistic: the statistic has " + std::to_string(shapeDelta.rows.cols()) +
            " and " + std::to_string(rateSum.size()) + " factors, the items " + std::to_string(K));
    if (fromPrior)
        items.shp.setConstant(prior.shape);
    for (Eigen::Index j = 0; j < shapeDelta.rows.rows(); ++j)
        items.shp.row(shapeDelta.index[std::size_t(j)]) += shapeDelta.rows.row(j);
    forChunks(M, [&](int, std::int64_t begin, std::int64_t end) {
        for (std::int64_t i = begin; i < end; ++i) {
            items.rte.row(i) = (rateSum.array() + levelMean(items, i, prior.fixedRate)).transpose();
            items.refresh(i, i + 1);
            updateLevel(items, i, prior);
        }
    });
}

double userElbo(const Side& users, std::int64_t u, const SparseRows& rows, const Side& items,
                const Eigen::VectorXd& itemSums, const SidePrior& prior)
{
    const auto cols = rows.rowCols(u);
    const auto counts = rows.rowCounts(u);
    const auto eTheta = users.expLog.row(u);
    double s = 0.0;
    for (std::size_t n = 0; n < cols.size(); ++n) {
        const double y = counts[n];
        s += y * std::log(items.expLog.row(cols[n]).dot(eTheta)) - lgam(y + 1.0);
    }
    s -= users.mean.row(u).dot(itemSums.transpose());
    return s + rowPriorTerms(users, u, prior);
}

double sideElbo(const Side& side, const SidePrior& prior)
{
    std::vector<double> partial(kChunks, 0.0);
    forChunks(side.rows(), [&](int c, std::int64_t begin, std::int64_t end) {
        double s = 0.0;
        for (std::int64_t r = begin; r < end; ++r)
            s += rowPriorTerms(side, r, prior);
        partial[std::size_t(c)] = s;
    });
    double s = 0.0;
    for (double p : partial)
        s += p;
    return s;
}

} // namespace svi::pf
