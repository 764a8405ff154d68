#include "core/models/hdp/hdp_trainer.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace svi {

using lda::MatrixRD;

namespace {

// Document completion fits γ until the mean |Δγ_k| falls below this (Hoffman's test, the
// default of LdaTrainer), with at most local_iters updates.
constexpr double kProportionTol = 1e-3;

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum HdpStreamId : std::uint64_t {
    kHdpStreamInit = 1,
    kHdpStreamSampler,
    kHdpStreamEvalPick,
};

} // namespace

HdpTrainer::HdpTrainer(CountDataPtr data, HdpAlgorithm algorithm, const HdpOptions& o,
                       std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed)
{
    o.check();
    lda::checkCorpus(m_data);
    const CountData& d = *m_data;

    m_T = o.T;
    m_K = o.K;
    m_V = d.vocabularySize;
    for (std::int64_t r = 0; r < d.rows(); ++r)
        m_maxWords = std::max<Eigen::Index>(m_maxWords, d.train.rowNonZeros(r));

    m_stepSizer = StepSizer(stepSizeOf(o));
    m_rows = StepRows(d.trainingRows(), m_algorithm == HdpAlgorithm::Svi, o.minibatch,
                      Rng::stream(m_seed, kHdpStreamSampler)());
    m_lambdaT = lda::initialTopics(m_V, m_T, m_seed, kHdpStreamInit);
    m_sticks = Eigen::VectorXd::Ones(m_T);
    m_order.resize(std::size_t(m_T));
    std::iota(m_order.begin(), m_order.end(), 0);
    refreshExpectations();

    m_evalDocs = lda::EvaluationDocs(d, d.testRows, o.evalDocs, m_seed, kHdpStreamEvalPick);
}

HdpTrainer::~HdpTrainer() = default;

std::int64_t HdpTrainer::itemsPerStep() const
{
    return m_rows.perStep();
}

hdp::LocalOptions HdpTrainer::localOptions() const
{
    hdp::LocalOptions lo;
    lo.alpha = m_options.alpha;
    lo.maxIters = m_options.localIters;
    lo.tol = m_options.localTol;
    return lo;
}

void HdpTrainer::refreshExpectations()
{
    m_totals = lda::topicTotals(m_lambdaT);
    hdp::elogBetaT(m_lambdaT, m_totals, m_elogBetaT);
    hdp::corpusSticks(m_sticks, m_options.gamma, m_u, m_v);
    hdp::expectLogSticks(m_u, m_v, m_elogSticks);
}

Eigen::VectorXd HdpTrainer::expectedSticks() const
{
    return hdp::expectSticks(m_u, m_v);
}

void HdpTrainer::setGlobals(const MatrixRD& lambdaT, const Eigen::VectorXd& sticks)
{
    if (lambdaT.rows() != m_V || lambdaT.cols() != m_T)
        throw std::invalid_argument(
            "HdpTrainer::setGlobals: λ is " + std::to_string(lambdaT.rows()) + "×" +
            std::to_string(lambdaT.cols()) + ", but must be V×T = " + std::to_string(m_V) + "×" +
            std::to_string(m_T));
    if (sticks.size() != m_T)
        throw std::invalid_argument("HdpTrainer::setGlobals: s has " +
                                    std::to_string(sticks.size()) +
                                    " entries, but must have T = " + std::to_string(m_T));
    m_lambdaT = lambdaT;
    m_sticks = sticks;
    refreshExpectations();
}

void HdpTrainer::ensureWorkspaces()
{
    m_workspaces.prepare(
        [&](const hdp::LocalWorkspace& ws) {
            return ws.T == m_T && ws.K == m_K && ws.elogBeta.rows() >= m_maxWords;
        },
        [&](hdp::LocalWorkspace& ws) { ws.resize(m_T, m_K, m_maxWords); });
}

hdp::LocalWorkspace& HdpTrainer::fitDocument(const SparseRows& rows, std::int64_t row)
{
    hdp::LocalWorkspace& ws = m_workspaces.local();
    ws.gather(m_elogBetaT, rows.rowCols(row), rows.rowCounts(row));
    hdp::localStep(ws, m_elogSticks, localOptions());
    return ws;
}

StagedTrainer::Round HdpTrainer::localStep(std::int64_t)
{
    const CountData& data = *m_data;
    if (!m_sharded) {
        m_rows.setShard(positionsIn(data.trainingRows(), ownedRows()));
        m_sharded = true;
    }
    m_rows.next(); // a batch step keeps every training document
    const std::vector<std::int64_t>& batch = m_rows.mine();

    ensureWorkspaces(); // before the parallel loop: nothing allocates inside it
    auto t0 = Clock::now();
    m_stats.layout(data.train, batch, m_T, m_K);
    lda::recordLocalSteps(data.train, batch, m_stats,
                          [&](std::int64_t row) -> const hdp::LocalWorkspace& {
                              return fitDocument(data.train, row);
                          });
    m_times.local = secondsSince(t0);

    t0 = Clock::now();
    m_stats.groupByWord(m_V);
    hdp::wordStatistics(m_stats, m_wordStats);
    m_stickStats = m_stats.stickStatistic();
    m_statistic.clear();
    m_statistic.sparse(m_wordStats);
    m_statistic.dense(m_stickStats);
    m_times.update = secondsSince(t0);
    const bool svi = m_algorithm == HdpAlgorithm::Svi;
    return svi && m_stepSizer.needsWarmUp() ? Round::WarmUp : Round::Update;
}

double HdpTrainer::scale() const
{
    return double(m_data->trainingRowCount()) / double(m_rows.rows().size());
}

void HdpTrainer::formGradient(double scale)
{
    const Eigen::Index VT = m_V * m_T;
    m_gradient.resize(VT + m_T);
    lda::topicGradient(m_lambdaT, m_wordStats, m_options.eta, scale, m_gradient.head(VT));
    m_gradient.tail(m_T) = scale * m_stickStats - m_sticks;
}

void HdpTrainer::warmUp()
{
    formGradient(scale());
    m_stepSizer.warmUp(m_gradient);
}

double HdpTrainer::globalUpdate(std::int64_t t)
{
    const bool svi = m_algorithm == HdpAlgorithm::Svi;
    auto t0 = Clock::now();
    double rho = 1.0;
    if (svi && m_stepSizer.adaptive()) {
        // λ ← λ + ρ(λ̂ − λ) and s ← s + ρ(ŝ − s), ρ from the gradient of both.
        formGradient(scale());
        rho = m_stepSizer.rho(t, &m_gradient);
        m_lambdaT.reshaped<Eigen::RowMajor>() += rho * m_gradient.head(m_V * m_T);
        m_sticks += rho * m_gradient.tail(m_T);
    } else {
        rho = svi ? m_stepSizer.rho(t, nullptr) : 1.0;
        lda::updateTopics(m_lambdaT, m_wordStats, m_options.eta, scale(), rho);
        hdp::updateStickStatistic(m_sticks, m_stickStats, scale(), rho);
    }
    if (m_options.sortTopics) {
        m_order = hdp::sortTopics(m_lambdaT, m_sticks);
        if (m_stepSizer.adaptive())
            m_stepSizer.reorderAverages(
                [&](Eigen::VectorXd& g) { hdp::reorderTopics(g, m_V, m_order); });
    }
    m_times.update += secondsSince(t0);

    t0 = Clock::now();
    refreshExpectations();
    m_times.expectation = secondsSince(t0);
    return rho;
}

void HdpTrainer::visitState(StateArchive& a)
{
    a.field("lambda", m_lambdaT);
    a.field("sticks", m_sticks);
    a.field("rows", m_rows);
    if (m_stepSizer.adaptive())
        a.field("step_sizer", m_stepSizer);
    if (a.loading())
        refreshExpectations();
}

bool HdpTrainer::diverged() const
{
    return !m_lambdaT.allFinite() || !(m_lambdaT.array() > 0.0).all() || !m_sticks.allFinite() ||
           !(m_sticks.array() >= 0.0).all();
}

Evaluation HdpTrainer::evaluate(bool full)
{
    return fullOrCheap(
        full, [&] { return evaluateOn(m_data->trainingRows(), m_evalDocs.scored, true); },
        [&] { return evaluateOn(m_evalDocs.cheapElbo, m_evalDocs.cheapScored, false); });
}

Evaluation HdpTrainer::evaluateOn(const std::vector<std::int64_t>& elboRows,
                                  const std::vector<std::int64_t>& testRows, bool stopOnInterrupt)
{
    const CountData& data = *m_data;
    ensureWorkspaces();
    const auto stop = [&] { return stopOnInterrupt && interrupted(); };

    // On several ranks each fits its share of the documents; the sums are then summed.
    const std::vector<std::int64_t> elboMine = communicator().mine(elboRows, ownedRows());
    const std::vector<std::int64_t> testMine = communicator().mine(testRows, ownedRows());

    // ELBO: the local optimum of each training document in the subset.
    const std::int64_t n = std::int64_t(elboRows.size());
    const double localSum =
        sumChunks(std::int64_t(elboMine.size()), [&](std::int64_t begin, std::int64_t end) {
            double s = 0.0;
            for (std::int64_t j = begin; j < end && !stop(); ++j)
                s += fitDocument(data.train, elboMine[std::size_t(j)]).elbo;
            return s;
        });

    // Document completion through the LDA reading of the fit (see the header).
    const Eigen::VectorXd weight = expectedSticks();
    Eigen::VectorXd alphaVec = m_options.alpha * weight;
    // A stick weight can underflow for a very long tail of unused topics; γ_k must stay > 0.
    alphaVec = alphaVec.cwiseMax(std::numeric_limits<double>::min());
    MatrixRD meanBetaT = m_lambdaT;
    meanBetaT.array().rowwise() /= m_totals.transpose().array();
    m_ldaWorkspaces.prepare(
        [&](const lda::LocalWorkspace& ws) { return ws.K == m_T && ws.beta.rows() >= m_maxWords; },
        [&](lda::LocalWorkspace& ws) { ws.resize(m_T, m_maxWords); });
    const lda::HeldOutScore heldOutMine = lda::scoreHeldOut(
        meanBetaT, data.heldOut, testMine,
        [&](std::int64_t row) -> const Eigen::VectorXd& {
            lda::LocalWorkspace& ws = m_ldaWorkspaces.local();
            ws.gather(meanBetaT, data.train.rowCols(row), data.train.rowCounts(row));
            hdp::fitProportions(ws, alphaVec, m_options.localIters, kProportionTol);
            ws.next = ws.gamma / ws.gamma.sum(); // E[θ]
            return ws.next;
        },
        stop);

    double sums[3] = {localSum, heldOutMine.logLik, heldOutMine.words};
    communicator().sum(sums);
    const lda::HeldOutScore heldOut{sums[1], sums[2]};

    Evaluation ev;
    setSubsetElbo(
        ev, hdp::stickElbo(m_u, m_v, m_options.gamma) + lda::globalElbo(m_lambdaT, m_options.eta),
        sums[0], n, data.trainingRowCount());
    lda::addHeldOutMetrics(ev.metrics, heldOut);
    lda::addTopicsInUse(ev, weight, m_lambdaT, m_totals, data.columnNames, m_options.topWords);
    return ev;
}

} // namespace svi
