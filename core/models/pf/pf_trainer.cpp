#include "core/models/pf/pf_trainer.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <limits>
#include <numeric>
#include <omp.h>
#include <stdexcept>

namespace svi {

namespace {

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum StreamId : std::uint64_t {
    kStreamUsers = 1,
    kStreamItems,
    kStreamSampler,
    kStreamEvalPick,
};

void require(bool ok, const char* field, const std::string& value, const char* rule)
{
    if (!ok)
        throw std::invalid_argument(fieldError(field, value, rule));
}

void requirePositive(double v, const char* field)
{
    require(v > 0.0 && std::isfinite(v), field, formatNumber(v), "must be > 0");
}

} // namespace

PfOptions PfOptions::fromParams(const ParamValues& v, bool hierarchical)
{
    PfOptions o;
    o.priors.hierarchical = hierarchical;
    readParams(v,
               {{"K", &o.K},
                {"local_iters", &o.localIters},
                {"eval_users", &o.evalUsers},
                {"top_n", &o.topN}},
               {{"a", &o.priors.a},
                {"a_prime", &o.priors.aPrime},
                {"b_prime", &o.priors.bPrime},
                {"b", &o.priors.b},
                {"c", &o.priors.c},
                {"c_prime", &o.priors.cPrime},
                {"d_prime", &o.priors.dPrime},
                {"d", &o.priors.d},
                {"local_tol", &o.localTol}});
    if (v.count("minibatch"))
        o.minibatch = getInt(v, "minibatch");
    o.stepSize.read(v);
    return o;
}

PfTrainer::PfTrainer(CountDataPtr data, PfAlgorithm algorithm, const PfOptions& o,
                     std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed),
      m_stepSizer(o.stepSize)
{
    require(o.K >= 1, "K", std::to_string(o.K), "must be ≥ 1");
    for (const auto& [value, field] : {std::pair{o.priors.a, "a"},
                                       {o.priors.c, "c"},
                                       {o.priors.aPrime, "a_prime"},
                                       {o.priors.bPrime, "b_prime"},
                                       {o.priors.cPrime, "c_prime"},
                                       {o.priors.dPrime, "d_prime"},
                                       {o.priors.b, "b"},
                                       {o.priors.d, "d"}})
        requirePositive(value, field);
    require(o.minibatch >= 1, "minibatch", std::to_string(o.minibatch), "must be ≥ 1");
    o.stepSize.check();
    require(o.localIters >= 1, "local_iters", std::to_string(o.localIters), "must be ≥ 1");
    require(o.localTol >= 0.0, "local_tol", formatNumber(o.localTol), "must be ≥ 0");
    require(o.evalUsers >= 1, "eval_users", std::to_string(o.evalUsers), "must be ≥ 1");
    require(o.topN >= 1, "top_n", std::to_string(o.topN), "must be ≥ 1");

    checkRatingsData(m_data);
    const CountData& d = *m_data;

    m_K = o.K;
    m_userPrior = pf::userPrior(o.priors);
    m_itemPrior = pf::itemPrior(o.priors);
    pf::initialise(m_users, d.rows(), m_K, m_userPrior, m_seed, kStreamUsers);
    pf::initialise(m_items, d.cols(), m_K, m_itemPrior, m_seed, kStreamItems);
    m_itemSums = pf::columnSums(m_items.mean);
    for (std::int64_t r = 0; r < d.rows(); ++r)
        m_maxRatings = std::max<Eigen::Index>(m_maxRatings, d.train.rowNonZeros(r));

    const std::int64_t N = d.trainingRowCount();
    if (m_algorithm == PfAlgorithm::Svi)
        m_sampler = std::make_unique<MinibatchSampler>(N, std::min(o.minibatch, N),
                                                       Rng::stream(m_seed, kStreamSampler)());
    else
        m_batch = d.trainingRows();

    m_eval = RatingsEvaluation(d, o.evalUsers, o.topN, m_seed, kStreamEvalPick);
}

PfTrainer::~PfTrainer() = default;

std::int64_t PfTrainer::itemsPerStep() const
{
    const std::int64_t N = m_data->trainingRowCount();
    return m_algorithm == PfAlgorithm::Batch ? N : std::min(m_options.minibatch, N);
}

void PfTrainer::setItems(const pf::MatrixRD& shp, const pf::MatrixRD& rte)
{
    if (shp.rows() != m_items.rows() || shp.cols() != m_K || rte.rows() != shp.rows() ||
        rte.cols() != m_K)
        throw std::invalid_argument("PfTrainer::setItems: the parameters must be M×K = " +
                                    std::to_string(m_items.rows()) + "×" + std::to_string(m_K));
    m_items.shp = shp;
    m_items.rte = rte;
    m_items.refreshAll();
    for (std::int64_t i = 0; i < m_items.rows(); ++i)
        pf::updateLevel(m_items, i, m_itemPrior);
    m_itemSums = pf::columnSums(m_items.mean);
}

void PfTrainer::nextBatch()
{
    const std::vector<std::int64_t>& drawn = m_sampler->next();
    m_batch.resize(drawn.size());
    for (std::size_t j = 0; j < drawn.size(); ++j)
        m_batch[j] = m_data->trainingRows()[std::size_t(drawn[j])];
}

void PfTrainer::localPhase(int maxIters)
{
    const CountData& d = *m_data;
    const std::size_t threads = std::size_t(std::max(omp_get_max_threads(), 1));
    if (m_workspaces.size() < threads)
        m_workspaces.resize(threads);
    for (pf::UserWorkspace& ws : m_workspaces)
        if (ws.stat.size() != m_K || ws.ratio.size() < m_maxRatings)
            ws.resize(m_K, m_maxRatings);

    m_stats.layout(d.train, m_batch, m_K);
    const std::int64_t B = std::int64_t(m_batch.size());
    const pf::LocalOptions local{maxIters, m_options.localTol};
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t j = 0; j < B; ++j) {
        const std::int64_t u = m_batch[std::size_t(j)];
        pf::UserWorkspace& ws = m_workspaces[std::size_t(omp_get_thread_num())];
        pf::fitUser(m_users, u, d.train, m_items, m_itemSums, m_userPrior, local, ws);
        m_stats.record(j, ws, m_users, u);
    }
    m_stats.groupByItem(d.cols());
}

double PfTrainer::step(std::int64_t t)
{
    const bool svi = m_algorithm == PfAlgorithm::Svi;
    const int iters = svi ? m_options.localIters : 1;
    const double N = double(m_data->trainingRowCount());
    // The adaptive schedule starts its averages from gradients sampled at the initial λ
    // (Ranganath et al. 2013, Algorithm 1); the users fitted meanwhile keep their fits.
    while (svi && m_stepSizer.needsWarmUp()) {
        nextBatch();
        localPhase(iters);
        pf::itemGradient(m_items, m_stats, m_itemPrior, N / double(m_batch.size()), m_gradient);
        m_stepSizer.warmUp(m_gradient);
    }
    if (svi)
        nextBatch();
    localPhase(iters);
    pf::itemGradient(m_items, m_stats, m_itemPrior, N / double(m_batch.size()), m_gradient);
    const double rho = svi ? m_stepSizer.rho(t, &m_gradient) : 1.0;
    pf::applyItemGradient(m_items, m_gradient, m_itemPrior, rho);
    m_itemSums = pf::columnSums(m_items.mean);
    return rho;
}

bool PfTrainer::diverged() const
{
    // The globals, and the users the last step changed (every user for batch VB): O(M K + |B| K).
    if (!m_items.valid())
        return true;
    for (std::int64_t u : m_batch)
        if (!m_users.rowValid(u))
            return true;
    return false;
}

double PfTrainer::elbo() const
{
    const CountData& d = *m_data;
    std::vector<double> partial(kChunks, 0.0);
    const auto& rows = d.trainingRows();
    forChunks(std::int64_t(rows.size()), [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j)
            partial[std::size_t(c)] += pf::userElbo(m_users, rows[std::size_t(j)], d.train, m_items,
                                                    m_itemSums, m_userPrior);
    });
    return pf::sideElbo(m_items, m_itemPrior) +
           std::accumulate(partial.begin(), partial.end(), 0.0);
}

std::shared_ptr<RatingFactors> PfTrainer::factors() const
{
    auto f = std::make_shared<RatingFactors>();
    f->users = m_users.mean.cast<float>();
    f->items = m_items.mean.cast<float>();
    return f;
}

Evaluation PfTrainer::evaluate(bool full)
{
    if (full) {
        Evaluation ev = evaluateOn(m_data->trainingRows(), m_eval.scoredUsers, true);
        if (!interrupted())
            return ev;
    }
    return evaluateOn(m_eval.elboUsers, m_eval.cheapScoredUsers, false);
}

Evaluation PfTrainer::evaluateOn(const std::vector<std::int64_t>& elboUsers,
                                 const std::vector<std::int64_t>& scoredUsers, bool full)
{
    const CountData& d = *m_data;
    Evaluation ev;

    // ELBO: the users' terms over the subset, scaled to all training users.
    std::vector<double> cElbo(kChunks, 0.0);
    forChunks(std::int64_t(elboUsers.size()), [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j)
            cElbo[std::size_t(c)] += pf::userElbo(m_users, elboUsers[std::size_t(j)], d.train,
                                                  m_items, m_itemSums, m_userPrior);
    });
    const double userTerms = std::accumulate(cElbo.begin(), cElbo.end(), 0.0);
    ev.hasBound = !elboUsers.empty();
    ev.elbo = elboUsers.empty()
                  ? std::numeric_limits<double>::quiet_NaN()
                  : pf::sideElbo(m_items, m_itemPrior) +
                        double(d.trainingRowCount()) / double(elboUsers.size()) * userTerms;

    // Rating-scale measures at the mean prediction E[θ_u]ᵀE[β_i], scored by the Poisson density.
    m_eval.addRatingMetrics(
        ev.metrics, d, scoredUsers,
        [&](std::int64_t u, std::int32_t i) {
            return m_users.mean.row(u).dot(m_items.mean.row(i));
        },
        [](double y, double pred) {
            return y * std::log(pred) - pred - boost::math::lgamma(y + 1.0);
        });

    // Ranking: every item the user has not rated in training or validation.
    const int n = m_options.topN;
    const RankingScore r =
        rankingScore(d, scoredUsers, n, [&](std::int64_t u, Eigen::VectorXd& out) {
            out.noalias() = m_items.mean * m_users.mean.row(u).transpose();
        });
    addRankingMetrics(ev.metrics, r, full ? m_eval.popularityFull : m_eval.popularityCheap, n);
    auto preview = std::make_shared<Preview>();
    preview->factors = factors();
    ev.preview = preview;
    return ev;
}

} // namespace svi
