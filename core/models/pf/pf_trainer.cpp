#include "core/models/pf/pf_trainer.h"

#include "core/models/recommender/recommender_parts.h"
#include "core/models/topics/topic_parts.h"
#include "core/models/topics/topics.h"

#include <algorithm>
#include <boost/math/special_functions/gamma.hpp>
#include <cmath>
#include <stdexcept>

namespace svi {

namespace {

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum PfStreamId : std::uint64_t {
    kPfStreamUsers = 1,
    kPfStreamItems,
    kPfStreamSampler,
    kPfStreamEvalPick = pf::kEvaluationPickStream,
};

} // namespace

PfTrainer::PfTrainer(CountDataPtr data, PfAlgorithm algorithm, const PfOptions& o,
                     std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed),
      m_stepSizer(o.stepSize)
{
    o.check();
    checkRatingsData(m_data, true, true); // keeps to its rows (ownedRows), folds test rows in
    const CountData& d = *m_data;

    m_K = o.K;
    m_userPrior = pf::userPrior(o.priors);
    m_itemPrior = pf::itemPrior(o.priors);
    pf::initialise(m_users, d.rows(), m_K, m_userPrior, m_seed, kPfStreamUsers);
    pf::initialise(m_items, d.cols(), m_K, m_itemPrior, m_seed, kPfStreamItems);
    m_itemSums = pf::columnSums(m_items.mean);
    for (std::int64_t r = 0; r < d.rows(); ++r)
        m_maxRatings = std::max<Eigen::Index>(m_maxRatings, d.train.rowNonZeros(r));

    const RowOrder order = m_algorithm == PfAlgorithm::Svi         ? RowOrder::Sampled
                           : m_algorithm == PfAlgorithm::Streaming ? RowOrder::Stream
                                                                   : RowOrder::All;
    m_rows =
        StepRows(d.trainingRows(), order, o.minibatch, Rng::stream(m_seed, kPfStreamSampler)());
    m_rateSum = Eigen::VectorXd::Zero(m_K);
}

const RatingsEvaluation& PfTrainer::evaluation()
{
    if (!m_eval)
        m_eval = RatingsEvaluation(*m_data, m_options.evalUsers, m_options.topN, m_seed,
                                   kPfStreamEvalPick, communicator());
    return *m_eval;
}

PfTrainer::~PfTrainer() = default;

std::int64_t PfTrainer::itemsPerStep() const
{
    return m_rows.perStep();
}

std::int64_t PfTrainer::streamGiven(std::int64_t steps) const noexcept
{
    return m_algorithm == PfAlgorithm::Streaming ? m_rows.given() : steps * m_rows.perStep();
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

void PfTrainer::prepareWorkspaces()
{
    m_workspaces.prepare(
        [&](const pf::UserWorkspace& ws) {
            return ws.stat.size() == m_K && ws.ratio.size() >= m_maxRatings;
        },
        [&](pf::UserWorkspace& ws) { ws.resize(m_K, m_maxRatings); });
}

void PfTrainer::localPhase(int maxIters)
{
    const CountData& d = *m_data;
    prepareWorkspaces();

    const std::vector<std::int64_t>& batch = m_rows.mine();
    m_stats.layout(d.train, batch, m_K);
    const std::int64_t B = std::int64_t(batch.size());
    const pf::LocalOptions local{maxIters, m_options.localTol};
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t j = 0; j < B; ++j) {
        const std::int64_t u = batch[std::size_t(j)];
        pf::UserWorkspace& ws = m_workspaces.local();
        pf::fitUser(m_users, u, d.train, m_items, m_itemSums, m_userPrior, local, ws);
        m_stats.record(j, ws, m_users, u);
    }
    m_stats.groupByItem(d.cols());
}

double PfTrainer::scale() const
{
    return double(m_data->trainingRowCount()) / double(m_rows.rows().size());
}

StagedTrainer::Round PfTrainer::localStep(std::int64_t)
{
    if (!m_sharded) {
        m_rows.setShard(positionsIn(m_data->trainingRows(), ownedRows()));
        m_sharded = true;
    }
    const bool svi = m_algorithm == PfAlgorithm::Svi;
    m_rows.next(); // a batch step keeps every training user
    localPhase(m_algorithm == PfAlgorithm::Batch ? 1 : m_options.localIters);
    pf::itemStatistics(m_stats, m_itemStats, m_thetaSum);
    if (m_algorithm == PfAlgorithm::Streaming)
        pf::streamShapeDelta(m_items, m_itemStats); // the statistic is the posterior's change
    m_statistic.clear();
    m_statistic.sparse(m_itemStats);
    m_statistic.dense(m_thetaSum);
    if (communicator().distributed()) {
        packUsers();
        m_statistic.sparse(m_userRows);
    }
    // The adaptive schedule starts its averages from gradients sampled at the initial λ
    // (Ranganath et al. 2013, Algorithm 1); the users fitted meanwhile keep their fits.
    return svi && m_stepSizer.needsWarmUp() ? Round::WarmUp : Round::Update;
}

void PfTrainer::packUsers()
{
    const std::vector<std::int64_t>& mine = m_rows.mine();
    const Eigen::Index K = m_K, levels = m_users.levelRate.size() > 0 ? 1 : 0;
    m_userRows.index.assign(mine.begin(), mine.end());
    std::sort(m_userRows.index.begin(), m_userRows.index.end());
    m_userRows.rows.resize(Eigen::Index(mine.size()), 2 * K + levels);
    for (Eigen::Index j = 0; j < m_userRows.rows.rows(); ++j) {
        const std::int64_t u = m_userRows.index[std::size_t(j)];
        m_userRows.rows.row(j).head(K) = m_users.shp.row(u);
        m_userRows.rows.row(j).segment(K, K) = m_users.rte.row(u);
        if (levels)
            m_userRows.rows(j, 2 * K) = m_users.levelRate[u];
    }
}

void PfTrainer::unpackUsers()
{
    if (!communicator().distributed())
        return;
    const Eigen::Index K = m_K;
    for (Eigen::Index j = 0; j < m_userRows.rows.rows(); ++j) {
        const std::int64_t u = m_userRows.index[std::size_t(j)];
        m_users.shp.row(u) = m_userRows.rows.row(j).head(K);
        m_users.rte.row(u) = m_userRows.rows.row(j).segment(K, K);
        if (m_users.levelRate.size() > 0)
            m_users.levelRate[u] = m_userRows.rows(j, 2 * K);
        m_users.refresh(u, u + 1);
    }
}

void PfTrainer::warmUp()
{
    unpackUsers();
    pf::itemGradient(m_items, m_itemStats, m_thetaSum, m_itemPrior, scale(), m_gradient);
    m_stepSizer.warmUp(m_gradient);
}

double PfTrainer::globalUpdate(std::int64_t t)
{
    unpackUsers();
    if (m_algorithm == PfAlgorithm::Streaming) {
        m_rateSum += m_thetaSum;
        pf::addItemStatistic(m_items, m_itemStats, m_rateSum, m_itemPrior, m_atPrior);
        m_atPrior = false;
        m_itemSums = pf::columnSums(m_items.mean);
        return 1.0;
    }
    pf::itemGradient(m_items, m_itemStats, m_thetaSum, m_itemPrior, scale(), m_gradient);
    const double rho = m_algorithm == PfAlgorithm::Svi ? m_stepSizer.rho(t, &m_gradient) : 1.0;
    pf::applyItemGradient(m_items, m_gradient, m_itemPrior, rho);
    m_itemSums = pf::columnSums(m_items.mean);
    return rho;
}

void PfTrainer::visitState(StateArchive& a)
{
    a.field("users", m_users);
    a.field("items", m_items);
    a.field("step_sizer", m_stepSizer);
    a.field("rows", m_rows);
    if (m_algorithm == PfAlgorithm::Streaming) {
        a.field("rate_sum", m_rateSum);
        a.field("at_prior", m_atPrior);
    }
    if (a.loading())
        m_itemSums = pf::columnSums(m_items.mean);
}

bool PfTrainer::diverged() const
{
    // The globals, and the users the last step changed (every user for batch VB): O(M K + |B| K).
    if (!m_items.valid())
        return true;
    for (std::int64_t u : m_rows.rows())
        if (!m_users.rowValid(u))
            return true;
    return false;
}

double PfTrainer::usersElbo(const std::vector<std::int64_t>& users) const
{
    const CountData& d = *m_data;
    return sumChunks(std::int64_t(users.size()), [&](std::int64_t begin, std::int64_t end) {
        double s = 0.0;
        for (std::int64_t j = begin; j < end; ++j)
            s += pf::userElbo(m_users, users[std::size_t(j)], d.train, m_items, m_itemSums,
                              m_userPrior);
        return s;
    });
}

double PfTrainer::elbo() const
{
    return pf::sideElbo(m_items, m_itemPrior) + usersElbo(m_data->trainingRows());
}

Evaluation PfTrainer::evaluate(bool full)
{
    const RatingsEvaluation& e = evaluation();
    return fullOrCheap(
        full, [&] { return evaluateOn(m_data->trainingRows(), e.scoredUsers, true); },
        [&] { return evaluateOn(e.elboUsers, e.cheapScoredUsers, false); });
}

void PfTrainer::foldIn(const std::vector<std::int64_t>& users)
{
    const CountData& d = *m_data;
    std::vector<std::int64_t> test;
    for (std::int64_t u : users)
        if (d.isTestRow(u))
            test.push_back(u);
    if (test.empty())
        return;
    prepareWorkspaces();
    const pf::LocalOptions local{m_options.localIters, m_options.localTol};
    const std::int64_t n = std::int64_t(test.size());
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t u = test[std::size_t(j)];
        pf::restart(m_users, u, m_userPrior, m_seed, kPfStreamUsers);
        pf::fitUser(m_users, u, d.train, m_items, m_itemSums, m_userPrior, local,
                    m_workspaces.local());
    }
}

void PfTrainer::addWordMetrics(std::map<std::string, double>& metrics,
                               const std::vector<std::int64_t>& users)
{
    const CountData& d = *m_data;
    const std::vector<std::int64_t> mine = communicator().mine(users, ownedRows());
    // p(i | u) = E[θ_u]ᵀE[β_i] / E[θ_u]ᵀΣ_j E[β_j]: the Poisson rates given the user's total.
    prepareWorkspaces();
    const lda::HeldOutScore score = lda::scoreHeldOut(
        m_items.mean, d.heldOut, mine,
        [&](std::int64_t u) -> const Eigen::VectorXd& {
            Eigen::VectorXd& omega = m_workspaces.local().newShp; // free outside a local step
            omega = m_users.mean.row(u).transpose() / m_users.mean.row(u).dot(m_itemSums);
            return omega;
        },
        [] { return false; });
    double sums[2] = {score.logLik, score.words};
    communicator().sum({sums, 2});
    lda::addHeldOutMetrics(metrics, {sums[0], sums[1]});
}

std::vector<TopicSummary> PfTrainer::factorTopics() const
{
    const CountData& d = *m_data;
    Eigen::VectorXd userSums = Eigen::VectorXd::Zero(m_K);
    for (std::int64_t u : d.trainingRows())
        userSums += m_users.mean.row(u).transpose();
    Eigen::VectorXd weight = userSums.cwiseProduct(m_itemSums);
    const double total = weight.sum();
    if (!(total > 0.0) || !std::isfinite(total))
        return {};
    weight /= total;
    return topicSummaries(weight, m_items.mean, m_itemSums, d.columnNames, m_options.topWords);
}

Evaluation PfTrainer::evaluateOn(const std::vector<std::int64_t>& elboUsers,
                                 const std::vector<std::int64_t>& scoredUsers, bool full)
{
    const CountData& d = *m_data;
    Evaluation ev;
    foldIn(communicator().mine(scoredUsers, ownedRows()));
    // ELBO: the users' terms over the subset, scaled to all training users (on several ranks,
    // each rank's share of them, summed).
    double usersSum = usersElbo(communicator().mine(elboUsers, ownedRows()));
    communicator().sum({&usersSum, 1});
    setSubsetElbo(ev, pf::sideElbo(m_items, m_itemPrior), usersSum, std::int64_t(elboUsers.size()),
                  d.trainingRowCount());
    // Rating-scale measures at the mean prediction E[θ_u]ᵀE[β_i], scored by the Poisson
    // density; the ranking by the same prediction.
    addRecommenderMetrics(
        ev.metrics, *m_eval, d, scoredUsers, full, m_options.topN,
        [&](std::int64_t u, std::int32_t i) {
            return m_users.mean.row(u).dot(m_items.mean.row(i));
        },
        [](double y, double pred) {
            return y * std::log(pred) - pred - boost::math::lgamma(y + 1.0);
        },
        [&](std::int64_t u, Eigen::VectorXd& out) {
            out.noalias() = m_items.mean * m_users.mean.row(u).transpose();
        },
        communicator());
    if (d.kind == "documents")
        addWordMetrics(ev.metrics, scoredUsers);
    auto preview = factorsPreview(m_users.mean, m_items.mean, 0.0, m_options.topN);
    preview->topics = factorTopics();
    ev.preview = std::move(preview);
    return ev;
}

} // namespace svi
