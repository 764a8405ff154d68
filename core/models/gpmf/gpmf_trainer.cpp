#include "core/models/gpmf/gpmf_trainer.h"

#include "core/models/recommender/recommender_parts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <stdexcept>
#include <string>

namespace svi {
namespace {

// Streams apart from the steps' (seed, t ≥ 1, other index).
constexpr std::uint64_t kGpmfStreamInit = 0x6f3a01;
constexpr std::uint64_t kGpmfStreamSubsample = 0x6f3a02;
constexpr std::uint64_t kGpmfStreamEvalPick = 0x6f3a03;
constexpr std::uint64_t kGpmfStreamBound = 0x6f3a04;
constexpr std::uint64_t kGpmfStreamZeros = 0x6f3a05;
constexpr int kGpmfBoundDraws = 10; // draws of u_i for an entry's term of the bound (the paper's)

const CountData& checked(const CountDataPtr& data)
{
    if (!data)
        throw std::invalid_argument("data: none");
    return *data;
}

std::vector<std::int64_t> iota(std::int64_t n)
{
    std::vector<std::int64_t> v(std::size_t(std::max<std::int64_t>(n, 0)));
    std::iota(v.begin(), v.end(), 0);
    return v;
}

// tr S + |m|², the column's part of eq. 68.
double secondMoment(const GaussianQ& q)
{
    return q.variances().sum() + q.mean().squaredNorm();
}

} // namespace

GpmfTrainer::GpmfTrainer(CountDataPtr data, LgmAlgorithm algorithm, const GpmfOptions& options,
                         std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(options), m_seed(seed),
      m_obs(gpmf::makeObservations(checked(m_data), observationFor(options.likelihood, *m_data),
                                   options.categories, options.halfStars,
                                   options.unobserved == "zero")),
      m_lik(gpmf::makeObservationLikelihood(m_obs.kind, m_obs.categories, options.slope,
                                            options.delta)),
      m_estimator(options.estimator, options.samples), m_ghBound(20),
      m_ghPredict(m_obs.kind == gpmf::Observation::Ordinal ? 100 : 32)
{
    m_options.check();
    m_learnCuts = options.learnCuts && m_obs.kind == gpmf::Observation::Ordinal;
    if (m_learnCuts) {
        m_cutParams = gpmf::paramsFromCuts(ordinalCutsOf(*m_lik));
        m_cutGrad = Eigen::VectorXd::Zero(m_cutParams.size());
        m_cutOpt = AdaGrad(options.cutsRate);
    }
    if (algorithm == LgmAlgorithm::BatchHybrid || algorithm == LgmAlgorithm::FixedPoint)
        throw std::invalid_argument("gpmf: the round robin updates one column at a time");
    const int D = options.D;
    const auto init = [&](std::int64_t count, std::uint64_t side) {
        std::vector<GaussianQ> q;
        q.reserve(std::size_t(count));
        const double sd = std::sqrt(options.initVariance);
        for (std::int64_t c = 0; c < count; ++c) {
            q.emplace_back(D, options.covariance, options.initVariance);
            Rng rng = Rng::stream(seed, kGpmfStreamInit, side, std::uint64_t(c));
            Eigen::VectorXd m(D);
            for (int k = 0; k < D; ++k)
                m[k] = sd * rng.normal();
            q.back().setMean(m);
        }
        return q;
    };
    m_users = init(m_obs.users(), 0);
    m_items = init(m_obs.items(), 1);
    // One AdaGrad state per column (users, then items); each allocates on its first step, so
    // MC-SSVI's and H-MC-SSVI's unused ones cost nothing.
    m_meanOpt.assign(std::size_t(m_obs.users() + m_obs.items()), AdaGrad(options.adagradRate));
    m_rootOpt = m_meanOpt;
    m_steps = QStepSizes(stepSizeOf(m_options), m_meanOpt.size());
    for (Side side : {Side::Users, Side::Items}) {
        m_priorVar[int(side)] = options.priorVariance;
        auto& moments = m_secondMoment[int(side)];
        for (const GaussianQ& q : qs(side))
            moments.push_back(secondMoment(q));
    }
    const Rng pick = Rng::stream(seed, kGpmfStreamEvalPick);
    m_evalTrain = trainingEntries(
        seededSubset(iota(m_obs.trainCount()), std::size_t(options.evalEntries), pick));
    if (m_obs.unobservedZero) { // a fixed sample of the zeros for the bound
        m_zeroCount = m_obs.users() * m_obs.items() - m_obs.trainCount();
        Rng rng = Rng::stream(seed, kGpmfStreamZeros, 0);
        const auto observed = [&](std::int32_t u, std::int32_t i) {
            const auto row = m_obs.byUser.others(u);
            return std::binary_search(row.begin(), row.end(), i);
        };
        if (m_zeroCount <= options.evalEntries) { // all of them
            for (std::int32_t u = 0; u < m_obs.users(); ++u)
                for (std::int32_t i = 0; i < m_obs.items(); ++i)
                    if (!observed(u, i))
                        m_evalZeros.push_back({u, i, 0.0f});
        }
        while (std::int64_t(m_evalZeros.size()) <
               std::min<std::int64_t>(m_zeroCount, options.evalEntries)) {
            const auto u = std::int32_t(rng.below(std::uint64_t(m_obs.users())));
            const auto i = std::int32_t(rng.below(std::uint64_t(m_obs.items())));
            if (!observed(u, i)) // drawn with replacement: an unbiased sample
                m_evalZeros.push_back({u, i, 0.0f});
        }
    }
    m_evalTest =
        seededSubset(iota(std::int64_t(m_obs.test.size())), std::size_t(options.evalEntries), pick);
    m_rank = !m_data->observedZeros;
    if (m_rank)
        m_ratingsEval = RatingsEvaluation(*m_data, options.evalUsers, options.topN, seed, 0x6f3b);
}

GpmfTrainer::~GpmfTrainer() = default;

void GpmfTrainer::visitState(StateArchive& a)
{
    a.field("users", m_users);
    a.field("items", m_items);
    // lgmUpdate's AdaGrad states: the mean's unless MC-SSVI, the root's for S-DSVI.
    if (m_algorithm != LgmAlgorithm::McSsvi)
        a.field("mean_opt", m_meanOpt);
    if (m_algorithm == LgmAlgorithm::SDsvi)
        a.field("root_opt", m_rootOpt);
    if (m_steps.adaptive())
        a.field("step_sizes", m_steps);
    if (m_options.learnPrior)
        a.field("prior_variance", m_priorVar);
    a.field("non_finite", m_nonFinite);
    if (m_learnCuts) {
        a.field("cut_params", m_cutParams);
        a.field("cut_opt", m_cutOpt);
        a.field("cut_grad", m_cutGrad); // the users' half-sweep so far
        a.field("last_cut_grad", m_lastCutGrad);
    }
    if (!a.loading())
        return;
    for (Side side : {Side::Users, Side::Items}) {
        auto& moments = m_secondMoment[int(side)];
        for (std::size_t c = 0; c < moments.size(); ++c)
            moments[c] = secondMoment(qs(side)[c]);
    }
    if (m_learnCuts)
        // The cut points as the last step of them left them: before it, the constructor's
        // (b from its log gaps would differ from them in rounding).
        m_lik = m_cutOpt.steps() > 0
                    ? makeOrdinalLikelihood(gpmf::cutsFromParams(m_cutParams), m_options.slope)
                    : gpmf::makeObservationLikelihood(m_obs.kind, m_obs.categories, m_options.slope,
                                                      m_options.delta);
}

void GpmfTrainer::columnOf(std::int64_t t, Side& side, std::int64_t& column, std::int64_t& n) const
{
    const std::int64_t sweep = m_obs.users() + m_obs.items();
    const std::int64_t at = (t - 1) % sweep;
    n = (t - 1) / sweep + 1;
    side = at < m_obs.users() ? Side::Users : Side::Items;
    column = side == Side::Users ? at : at - m_obs.users();
}

std::int64_t GpmfTrainer::itemsPerStep() const
{
    const double mean =
        double(m_obs.trainCount()) / double(std::max<std::int64_t>(m_obs.users(), 1));
    return std::max<std::int64_t>(
        1, m_options.subsample > 0
               ? std::min<std::int64_t>(m_options.subsample, std::int64_t(std::ceil(mean)))
               : std::int64_t(std::ceil(mean)));
}

StagedTrainer::Round GpmfTrainer::localStep(std::int64_t t)
{
    Side side;
    std::int64_t column = 0, n = 0;
    columnOf(t, side, column, n);
    m_stepSide = side;
    m_stepColumn = column;
    // The adaptive rate starts a column's averages from estimates at its initial q (Ranganath
    // et al. 2013, Algorithm 1), each from entries and streams of its own.
    const bool warm = m_steps.needsWarmUp(slotOf(side, column));
    localColumn(side, column, warm ? std::int64_t(m_steps.nextWarmUpKey()) : t);
    const CovarianceForm form = qs(side)[std::size_t(column)].form();
    m_statistic.clear();
    m_statistic.dense(m_grads.g);
    if (form == CovarianceForm::Full)
        m_statistic.dense(m_grads.gammaFull);
    else
        m_statistic.dense(m_grads.gammaDiag);
    if (m_learnCuts && side == Side::Users)
        m_statistic.dense(m_cutSum);
    return warm ? Round::WarmUp : Round::Update;
}

void GpmfTrainer::warmUp()
{
    GaussianQ& q = qs(m_stepSide)[std::size_t(m_stepColumn)];
    const GaussianPrior prior = GaussianPrior::isotropic(q.dim(), m_priorVar[int(m_stepSide)]);
    m_steps.warmUp(slotOf(m_stepSide, m_stepColumn), m_algorithm, q, m_grads, prior);
    q.releasePrecision();
}

double GpmfTrainer::globalUpdate(std::int64_t t)
{
    Side side;
    std::int64_t column = 0, n = 0;
    columnOf(t, side, column, n);
    return globalColumn(side, column, m_steps.scheduled(n));
}

double GpmfTrainer::updateColumn(Side side, std::int64_t column, double rho, std::int64_t t)
{
    localColumn(side, column, t);
    return globalColumn(side, column, rho);
}

void GpmfTrainer::drawRows(const GaussianQ& other, Rng& rng, Chunk& c, Eigen::Index at) const
{
    const int D = other.dim();
    const int k1 = m_options.outerSamples;
    for (int a = 0; a < k1; ++a)
        for (int k = 0; k < D; ++k)
            c.h(at + a, k) = rng.normal();
    auto rows = c.h.middleRows(at, k1);
    if (other.form() == CovarianceForm::Full)
        rows = (rows * other.root().triangularView<Eigen::Upper>()).eval(); // zᵀR: u = m + Rᵀz
    else
        rows.array().rowwise() *= other.root().col(0).transpose().array();
    rows.rowwise() += other.mean().transpose();
}

void GpmfTrainer::pickEntries(Side side, std::int64_t column, std::int64_t t)
{
    const gpmf::ColumnEntries& entries = side == Side::Users ? m_obs.byUser : m_obs.byItem;
    const std::int64_t first = entries.start[std::size_t(column)];
    const std::int64_t all = entries.size(column);
    m_pick.clear();
    // The observed entries: all, or a seeded subsample scaled by |O_j|/|M|.
    std::vector<std::int64_t> picked = iota(all);
    if (m_options.subsample > 0 && all > m_options.subsample)
        picked = seededSubset(std::move(picked), std::size_t(m_options.subsample),
                              Rng::stream(m_seed, kGpmfStreamSubsample, std::uint64_t(t)));
    for (std::int64_t k : picked) {
        const std::size_t e = std::size_t(first + k);
        m_pick.push_back({entries.other[e], entries.y[e], double(all) / double(picked.size())});
    }
    if (!m_obs.unobservedZero)
        return;
    // The unobserved entries are zeros: a seeded sample of them, scaled by their number.
    const std::int64_t span = side == Side::Users ? m_obs.items() : m_obs.users();
    const std::int64_t zeros = span - all;
    const std::int64_t take = std::min<std::int64_t>(
        zeros, m_options.zeroSamples > 0 ? m_options.zeroSamples
                                         : std::max<std::int64_t>(std::int64_t(picked.size()), 10));
    if (take <= 0)
        return;
    const auto observed = entries.others(column);
    std::vector<std::int64_t> unobserved;
    Rng rng = Rng::stream(m_seed, kGpmfStreamZeros, std::uint64_t(t));
    if (2 * take > zeros) { // dense column: draw from the complement itself
        for (std::int64_t o = 0, k = 0; o < span; ++o) {
            while (k < all && observed[std::size_t(k)] < o)
                ++k;
            if (k >= all || observed[std::size_t(k)] != o)
                unobserved.push_back(o);
        }
        unobserved = seededSubset(std::move(unobserved), std::size_t(take), rng);
    } else { // sparse column: rejection, distinct draws
        while (std::int64_t(unobserved.size()) < take) {
            const std::int64_t o = std::int64_t(rng.below(std::uint64_t(span)));
            if (!std::binary_search(observed.begin(), observed.end(), std::int32_t(o)) &&
                std::find(unobserved.begin(), unobserved.end(), o) == unobserved.end())
                unobserved.push_back(o);
        }
        std::sort(unobserved.begin(), unobserved.end());
    }
    for (std::int64_t o : unobserved)
        m_pick.push_back({std::int32_t(o), 0.0f, double(zeros) / double(take)});
}

void GpmfTrainer::localColumn(Side side, std::int64_t column, std::int64_t t)
{
    const std::vector<GaussianQ>& others = qs(side == Side::Users ? Side::Items : Side::Users);
    const GaussianQ& q = qs(side)[std::size_t(column)];
    pickEntries(side, column, t); // every rank the same entries
    // This rank's share of them, in chunks of its own; the chunks' sums added in order.
    const Shard mine = communicator().shardOf(std::int64_t(m_pick.size()));
    const std::int64_t n = mine.size();
    const int D = q.dim(), k1 = m_options.outerSamples;
    const CovarianceForm form = q.form();
    const bool cuts = m_learnCuts && side == Side::Users;

    forChunks(n, [&](int ci, std::int64_t begin, std::int64_t end) {
        Chunk& c = m_chunks[std::size_t(ci)];
        begin += mine.begin;
        end += mine.begin;
        const Eigen::Index rows = (end - begin) * k1;
        c.h.resize(rows, D);
        c.rngs.clear();
        for (std::int64_t r = begin; r < end; ++r) {
            const std::int32_t o = m_pick[std::size_t(r)].other;
            c.rngs.push_back(Rng::stream(m_seed, std::uint64_t(t), std::uint64_t(o)));
            drawRows(others[std::size_t(o)], c.rngs.back(), c, (r - begin) * k1);
        }
        c.mf.noalias() = c.h * q.mean();
        c.vf.resize(rows);
        q.marginalVariances(c.h, c.vf, c.work);
        c.alpha.resize(rows);
        c.gamma.resize(rows);
        for (std::int64_t r = begin; r < end; ++r) {
            const Picked& p = m_pick[std::size_t(r)];
            Rng& rng = c.rngs[std::size_t(r - begin)];
            for (int a = 0; a < k1; ++a) {
                const Eigen::Index i = (r - begin) * k1 + a;
                m_estimator.estimate(*m_lik, p.y, c.mf[i], c.vf[i], rng, c.alpha[i], c.gamma[i]);
                c.alpha[i] *= p.weight / k1; // the entry's scale, over its k1 draws
                c.gamma[i] *= p.weight / k1;
            }
        }
        c.grads.reset(D, form);
        c.grads.addRows(c.h, c.alpha, c.gamma, form);
        if (cuts)
            addCutGradient(c, begin, end);
    });
    if (cuts) {
        // The half-sweep's running sum rides on rank 0's part, so that one rank adds the
        // chunks to it in order, as before the ranks.
        if (communicator().rank() == 0)
            m_cutSum = m_cutGrad;
        else
            m_cutSum = Eigen::VectorXd::Zero(m_cutGrad.size());
        for (int ci = 0; ci < int(std::min<std::int64_t>(kChunks, n)); ++ci)
            m_cutSum += m_chunks[std::size_t(ci)].cutGrad;
    }
    m_grads.reset(D, form);
    const int chunks = int(std::min<std::int64_t>(kChunks, std::max<std::int64_t>(n, 1)));
    for (int ci = 0; n > 0 && ci < chunks; ++ci)
        m_grads.add(m_chunks[std::size_t(ci)].grads, form);
}

double GpmfTrainer::globalColumn(Side side, std::int64_t column, double rho)
{
    GaussianQ& q = qs(side)[std::size_t(column)];
    const int D = q.dim();
    if (m_learnCuts && side == Side::Users) {
        m_cutGrad = m_cutSum;
        if (column == m_obs.users() - 1)
            stepCuts();
    }

    const std::size_t slot = slotOf(side, column);
    const GaussianPrior prior = GaussianPrior::isotropic(D, m_priorVar[int(side)]);
    if (m_steps.adaptive()) // the column's own rate; else the ρ given
        rho = m_steps.rho(slot, m_algorithm, q, m_grads, prior);
    const double used =
        lgmUpdate(m_algorithm, q, m_grads, prior, rho, m_meanOpt[slot], m_rootOpt[slot]);
    q.releasePrecision(); // D² doubles per column otherwise
    m_nonFinite = m_nonFinite || !q.mean().allFinite() || !q.root().allFinite();

    auto& moments = m_secondMoment[int(side)];
    moments[std::size_t(column)] = secondMoment(q);
    if (m_options.learnPrior) // eq. 68
        m_priorVar[int(side)] = std::max(std::accumulate(moments.begin(), moments.end(), 0.0) /
                                             (double(moments.size()) * D),
                                         1e-12);
    return used;
}

void GpmfTrainer::addCutGradient(Chunk& c, std::int64_t begin, std::int64_t end) const
{
    const int k1 = m_options.outerSamples;
    c.cutGrad = Eigen::VectorXd::Zero(m_cutParams.size());
    for (std::int64_t r = begin; r < end; ++r) {
        const Picked& p = m_pick[std::size_t(r)];
        const int cat = int(p.y);
        for (int a = 0; a < k1; ++a) {
            const Eigen::Index i = (r - begin) * k1 + a;
            double up = 0.0, low = 0.0;
            for (int k = 0; k < m_ghBound.size(); ++k) {
                double du = 0.0, dl = 0.0;
                ordinalCutDerivatives(*m_lik, p.y,
                                      c.mf[i] + std::sqrt(c.vf[i]) * m_ghBound.nodes()[k], du, dl);
                up += m_ghBound.weights()[k] * du;
                low += m_ghBound.weights()[k] * dl;
            }
            if (cat <= m_cutParams.size())
                c.cutGrad[cat - 1] += p.weight / k1 * up;
            if (cat >= 2)
                c.cutGrad[cat - 2] += p.weight / k1 * low;
        }
    }
}

void GpmfTrainer::stepCuts()
{
    m_cutOpt.ascend(m_cutParams, gpmf::cutParamGradient(m_cutParams, m_cutGrad));
    m_lik = makeOrdinalLikelihood(gpmf::cutsFromParams(m_cutParams), m_options.slope);
    m_lastCutGrad = m_cutGrad;
    m_cutGrad.setZero();
}

double GpmfTrainer::priorVarianceFit(Side side) const
{
    double s = 0.0;
    for (const GaussianQ& q : qs(side))
        s += secondMoment(q);
    return s / (double(qs(side).size()) * m_options.D);
}

double GpmfTrainer::klSum() const
{
    for (Side side : {Side::Users, Side::Items})
        if (!(m_priorVar[int(side)] > 0.0) || !std::isfinite(m_priorVar[int(side)]))
            return std::numeric_limits<double>::quiet_NaN(); // diverged: no prior to compare
    // Each rank its share of each side's columns, the partial sums then over the ranks.
    double kl = 0.0;
    for (Side side : {Side::Users, Side::Items}) {
        const GaussianPrior prior = GaussianPrior::isotropic(m_options.D, m_priorVar[int(side)]);
        const std::vector<GaussianQ>& columns = qs(side);
        const Shard mine = communicator().shardOf(std::int64_t(columns.size()));
        for (std::int64_t c = mine.begin; c < mine.end; ++c)
            kl += columns[std::size_t(c)].kl(prior);
    }
    communicator().sum({&kl, 1});
    return kl;
}

double GpmfTrainer::expectedTerms(const std::vector<gpmf::TestEntry>& entries) const
{
    // This rank's share of the entries; the partial sums then over the ranks.
    const Shard mine = communicator().shardOf(std::int64_t(entries.size()));
    double total = sumChunks(mine.size(), [&](std::int64_t begin, std::int64_t end) {
        begin += mine.begin;
        end += mine.begin;
        double s = 0.0;
        Eigen::VectorXd z(m_options.D), u(m_options.D);
        Eigen::VectorXd work(m_options.D);
        for (std::int64_t r = begin; r < end; ++r) {
            const gpmf::TestEntry& e = entries[std::size_t(r)];
            const GaussianQ& qu = m_users[std::size_t(e.user)];
            const GaussianQ& qv = m_items[std::size_t(e.item)];
            Rng rng =
                Rng::stream(m_seed, kGpmfStreamBound, std::uint64_t(e.user), std::uint64_t(e.item));
            double term = 0.0;
            for (int a = 0; a < kGpmfBoundDraws; ++a) {
                for (int k = 0; k < m_options.D; ++k)
                    z[k] = rng.normal();
                qu.draw(z, u);
                double v = 0.0;
                if (qv.form() == CovarianceForm::Full) {
                    work.noalias() = qv.root().triangularView<Eigen::Upper>() * u;
                    v = work.squaredNorm();
                } else {
                    v = (qv.root().col(0).cwiseProduct(u)).squaredNorm();
                }
                term += m_lik->expectedLogLik(e.y, u.dot(qv.mean()), v, m_ghBound);
            }
            s += term / kGpmfBoundDraws;
        }
        return s;
    });
    communicator().sum({&total, 1});
    return total;
}

std::vector<gpmf::TestEntry> GpmfTrainer::trainingEntries(const std::vector<std::int64_t>& at) const
{
    const gpmf::ColumnEntries& byUser = m_obs.byUser;
    std::vector<gpmf::TestEntry> out;
    out.reserve(at.size());
    for (std::int64_t e : at) {
        const std::int64_t user = std::upper_bound(byUser.start.begin(), byUser.start.end(), e) -
                                  byUser.start.begin() - 1;
        out.push_back({std::int32_t(user), byUser.other[std::size_t(e)], byUser.y[std::size_t(e)]});
    }
    return out;
}

double GpmfTrainer::zeroTerms() const
{
    if (m_evalZeros.empty())
        return 0.0;
    return double(m_zeroCount) / double(m_evalZeros.size()) * expectedTerms(m_evalZeros);
}

double GpmfTrainer::bound() const
{
    return expectedTerms(trainingEntries(iota(m_obs.trainCount()))) + zeroTerms() - klSum();
}

bool GpmfTrainer::diverged() const
{
    // Every change of q goes through updateColumn, which checks the column it moved: scanning
    // every column after each step would cost as much as the step.
    return m_nonFinite || !std::isfinite(m_priorVar[0]) || !std::isfinite(m_priorVar[1]);
}

Evaluation GpmfTrainer::evaluate(bool full)
{
    Evaluation ev;
    const std::vector<gpmf::TestEntry> train =
        full ? trainingEntries(iota(m_obs.trainCount())) : m_evalTrain;
    setSubsetElbo(ev, zeroTerms() - klSum(), expectedTerms(train), std::int64_t(train.size()),
                  m_obs.trainCount());
    addTestMetrics(ev, full ? iota(std::int64_t(m_obs.test.size())) : m_evalTest);
    ev.metrics["prior_variance_u"] = m_priorVar[0];
    ev.metrics["prior_variance_v"] = m_priorVar[1];

    MatrixRD users(m_obs.users(), m_options.D), items(m_obs.items(), m_options.D);
    for (std::int64_t u = 0; u < m_obs.users(); ++u)
        users.row(u) = m_users[std::size_t(u)].mean().transpose();
    for (std::int64_t i = 0; i < m_obs.items(); ++i)
        items.row(i) = m_items[std::size_t(i)].mean().transpose();
    if (m_rank) {
        const RankingScore r = rankingScore(
            *m_data, full ? m_ratingsEval.scoredUsers : m_ratingsEval.cheapScoredUsers,
            m_options.topN,
            [&](std::int64_t u, Eigen::VectorXd& out) {
                out.noalias() = items * users.row(u).transpose();
            },
            communicator());
        addRankingMetrics(ev.metrics, r,
                          full ? m_ratingsEval.popularityFull : m_ratingsEval.popularityCheap,
                          m_options.topN);
    }
    ev.preview = factorsPreview(users, items, 0.0, m_options.topN);
    return ev;
}

} // namespace svi
