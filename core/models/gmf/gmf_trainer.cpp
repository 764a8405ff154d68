#include "core/models/gmf/gmf_trainer.h"

#include "core/models/recommender/recommender_parts.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>

namespace svi {

namespace {

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum GmfStreamId : std::uint64_t {
    kGmfStreamUsers = 1,
    kGmfStreamItems,
    kGmfStreamEvalPick,
};

} // namespace

GmfTrainer::GmfTrainer(CountDataPtr data, const GmfOptions& o, std::uint64_t seed)
    : m_data(std::move(data)), m_options(o), m_seed(seed), m_K(o.K)
{
    o.check();
    checkRatingsData(m_data);
    const CountData& d = *m_data;

    m_residuals = gmf::residuals(d);
    gmf::initialise(m_users, d.rows(), m_K, m_seed, kGmfStreamUsers);
    gmf::initialise(m_items, d.cols(), m_K, m_seed, kGmfStreamItems);
    m_noise = gmf::initialNoise(m_residuals, o.priors);
    m_itemSquares.assign(std::size_t(d.cols()), 0.0);

    m_eval = RatingsEvaluation(d, o.evalUsers, o.topN, m_seed, kGmfStreamEvalPick);
}

GmfTrainer::~GmfTrainer() = default;

void GmfTrainer::prepareWorkspaces()
{
    m_workspaces.prepare([&](const gmf::Workspace& ws) { return ws.rhs.size() == m_K; },
                         [&](gmf::Workspace& ws) { ws.resize(m_K); });
}

StagedTrainer::Round GmfTrainer::localStep(std::int64_t)
{
    const auto& rows = m_data->trainingRows();
    if (!m_sharded) {
        const Shard mine = communicator().shardOf(std::int64_t(rows.size()));
        m_myUsers.assign(rows.begin() + mine.begin, rows.begin() + mine.end);
        m_sharded = true;
    }
    prepareWorkspaces();
    // Users given the items and q(β): exact coordinate ascent, the rows independent.
    const double eBeta = m_noise.mean();
    const std::int64_t N = std::int64_t(m_myUsers.size());
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t j = 0; j < N; ++j)
        gmf::updateRow(m_users, m_myUsers[std::size_t(j)], m_residuals.byUser, m_items,
                       m_options.priors.lambdaU, eBeta, m_workspaces.local());
    m_statistic.clear();
    if (communicator().distributed()) {
        packUsers();
        m_statistic.sparse(m_userRows);
    }
    return Round::Update;
}

void GmfTrainer::packUsers()
{
    const Eigen::Index K = m_K;
    m_userRows.index.assign(m_myUsers.begin(), m_myUsers.end());
    std::sort(m_userRows.index.begin(), m_userRows.index.end());
    m_userRows.rows.resize(Eigen::Index(m_myUsers.size()), K + K * K);
    for (Eigen::Index j = 0; j < m_userRows.rows.rows(); ++j) {
        const std::int64_t u = m_userRows.index[std::size_t(j)];
        m_userRows.rows.row(j).head(K) = m_users.mean.row(u);
        m_userRows.rows.row(j).tail(K * K) = m_users.covariance(u).reshaped().transpose();
    }
}

void GmfTrainer::unpackUsers()
{
    if (!communicator().distributed())
        return;
    const Eigen::Index K = m_K;
    for (Eigen::Index j = 0; j < m_userRows.rows.rows(); ++j) {
        const std::int64_t u = m_userRows.index[std::size_t(j)];
        m_users.mean.row(u) = m_userRows.rows.row(j).head(K);
        m_users.covariance(u).reshaped() = m_userRows.rows.row(j).tail(K * K).transpose();
    }
}

double GmfTrainer::globalUpdate(std::int64_t)
{
    unpackUsers();
    prepareWorkspaces();
    const gmf::Priors& p = m_options.priors;
    const std::int64_t M = m_items.rows();
    // Items given the new users (every user, whichever rank updated it), then q(β) from the
    // expected squared errors under the new users and items (4), summed in item order.
    const double eBeta = m_noise.mean();
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t i = 0; i < M; ++i)
        m_itemSquares[std::size_t(i)] = gmf::updateRow(m_items, i, m_residuals.byItem, m_users,
                                                       p.lambdaV, eBeta, m_workspaces.local());
    const double squares = std::accumulate(m_itemSquares.begin(), m_itemSquares.end(), 0.0);
    m_noise.shape = p.a0 + 0.5 * double(m_residuals.count);
    m_noise.rate = p.b0 + 0.5 * squares;
    return 1.0;
}

void GmfTrainer::visitState(StateArchive& a)
{
    a.field("user_mean", m_users.mean);
    a.field("user_cov", m_users.cov);
    a.field("item_mean", m_items.mean);
    a.field("item_cov", m_items.cov);
    a.field("noise_shape", m_noise.shape);
    a.field("noise_rate", m_noise.rate);
}

bool GmfTrainer::diverged() const
{
    return !m_items.mean.allFinite() || !m_users.mean.allFinite() || !m_items.cov.allFinite() ||
           !m_users.cov.allFinite() || !std::isfinite(m_noise.shape) ||
           !std::isfinite(m_noise.rate) || !(m_noise.rate > 0.0);
}

double GmfTrainer::usersElbo(const std::vector<std::int64_t>& users) const
{
    // This rank's share of the users; the partial sums then over the ranks.
    const Shard mine = communicator().shardOf(std::int64_t(users.size()));
    double total = sumChunks(mine.size(), [&](std::int64_t begin, std::int64_t end) {
        begin += mine.begin;
        end += mine.begin;
        gmf::Workspace ws;
        ws.resize(m_K);
        double s = 0.0;
        for (std::int64_t j = begin; j < end; ++j)
            s += gmf::userElbo(m_users, users[std::size_t(j)], m_residuals.byUser, m_items,
                               m_options.priors.lambdaU, m_noise, ws);
        return s;
    });
    communicator().sum({&total, 1});
    return total;
}

double GmfTrainer::elbo() const
{
    const gmf::Priors& p = m_options.priors;
    return usersElbo(m_data->trainingRows()) - gmf::sideKl(m_items, p.lambdaV) -
           gmf::gammaKl(m_noise.shape, m_noise.rate, p.a0, p.b0);
}

Evaluation GmfTrainer::evaluate(bool full)
{
    return fullOrCheap(
        full, [&] { return evaluateOn(m_data->trainingRows(), m_eval.scoredUsers, true); },
        [&] { return evaluateOn(m_eval.elboUsers, m_eval.cheapScoredUsers, false); });
}

Evaluation GmfTrainer::evaluateOn(const std::vector<std::int64_t>& elboUsers,
                                  const std::vector<std::int64_t>& scoredUsers, bool full)
{
    const CountData& d = *m_data;
    const gmf::Priors& p = m_options.priors;
    Evaluation ev;

    // ELBO: the users' terms over the subset, scaled to all training users.
    const double globalTerms =
        -gmf::sideKl(m_items, p.lambdaV) - gmf::gammaKl(m_noise.shape, m_noise.rate, p.a0, p.b0);
    setSubsetElbo(ev, globalTerms, usersElbo(elboUsers), std::int64_t(elboUsers.size()),
                  d.trainingRowCount());

    // Rating-scale measures at the posterior mean prediction μ + m_uᵀn_i, with the plug-in
    // noise precision E[β]; the ranking by the predicted rating.
    const double mu = m_residuals.mu;
    const double eBeta = m_noise.mean();
    const double logNorm = 0.5 * (std::log(eBeta) - std::log(2.0 * std::numbers::pi));
    addRecommenderMetrics(
        ev.metrics, m_eval, d, scoredUsers, full, m_options.topN,
        [&](std::int64_t u, std::int32_t i) {
            return mu + m_users.mean.row(u).dot(m_items.mean.row(i));
        },
        [&](double x, double pred) { return logNorm - 0.5 * eBeta * (x - pred) * (x - pred); },
        [&](std::int64_t u, Eigen::VectorXd& out) {
            out.noalias() = m_items.mean * m_users.mean.row(u).transpose();
            out.array() += mu;
        },
        communicator());
    ev.preview = factorsPreview(m_users.mean, m_items.mean, mu, m_options.topN);
    return ev;
}

} // namespace svi
