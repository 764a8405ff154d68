#include "core/models/lda/lda_trainer.h"

#include "core/base/parallel.h"
#include "core/data/document_stream.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>

namespace svi {

using lda::LocalWorkspace;
using lda::MatrixRD;

namespace {

// The lazy blend's scale below which λ is written out (LdaTrainer::settleBlend): L then grows
// by at most 1e6 over λ, far from losing precision, and the O(V K) pass comes every few hundred
// steps (ρ_t = (t + 64)^−0.7 takes about 500 steps from 1 to 1e-6).
constexpr double kSettleScale = 1e-6;

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum LdaStreamId : std::uint64_t {
    kLdaStreamInit = 1,
    kLdaStreamSampler,
    kLdaStreamEvalPick,
    kLdaStreamGibbs,
    kLdaStreamBetaDraw,
};

// The distinct words of the documents `docs` of `rows`, in order of first appearance; `seen` is
// scratch of V entries (cleared here).
void distinctWords(const SparseRows& rows, std::span<const std::int64_t> docs, std::int64_t V,
                   std::vector<unsigned char>& seen, std::vector<std::int32_t>& out)
{
    seen.assign(std::size_t(V), 0);
    out.clear();
    for (std::int64_t d : docs)
        for (std::int32_t w : rows.rowCols(d))
            if (!seen[std::size_t(w)]) {
                seen[std::size_t(w)] = 1;
                out.push_back(w);
            }
}

// SVI's steps: a sampled minibatch, the step size ρ_t (mean-field or sampled local steps).
bool stochastic(LdaAlgorithm a)
{
    return a == LdaAlgorithm::Svi || sampledLocalStep(a);
}

// Mimno-SVI samples each token: the training counts must be whole numbers.
void checkWholeCounts(const CountData& d)
{
    for (std::int64_t r : d.trainingRows()) {
        const auto words = d.train.rowCols(r);
        const auto counts = d.train.rowCounts(r);
        for (std::size_t j = 0; j < counts.size(); ++j)
            if (counts[j] != std::floor(counts[j]))
                throw std::invalid_argument(
                    "data: '" + d.source + "', document " + std::to_string(r + 1) + ", word " +
                    std::to_string(words[j]) + ": count " + std::to_string(counts[j]) +
                    "; mimno-svi and gibbs-ssvi sample a topic for each token, so counts must be "
                    "whole numbers");
    }
}

} // namespace

LdaTrainer::LdaTrainer(CountDataPtr data, LdaAlgorithm algorithm, const LdaOptions& o,
                       std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed)
{
    o.check();
    lda::checkCorpus(m_data, true); // a stream only for streaming VB, checked below
    const CountData& d = *m_data;

    m_K = o.K;
    m_V = d.vocabularySize;
    m_alpha = o.alphaValue();
    for (std::int64_t r = 0; r < d.rows(); ++r)
        m_maxWords = std::max<Eigen::Index>(m_maxWords, d.train.rowNonZeros(r));

    m_stepSizer = StepSizer(stepSizeOf(o));
    if (sampledLocalStep(m_algorithm) && !d.stream)
        checkWholeCounts(d);
    const RowOrder order = stochastic(m_algorithm)                  ? RowOrder::Sampled
                           : m_algorithm == LdaAlgorithm::Streaming ? RowOrder::Stream
                                                                    : RowOrder::All;
    m_rows =
        StepRows(d.trainingRows(), order, o.minibatch, Rng::stream(m_seed, kLdaStreamSampler)());
    m_lambdaT = lda::initialTopics(m_V, m_K, m_seed, kLdaStreamInit);
    m_rawTotals = lda::topicTotals(m_lambdaT);
    refreshExpectations();
    m_stream = d.stream;
    if (m_stream && (m_algorithm != LdaAlgorithm::Streaming || o.distribute != "sync"))
        throw std::invalid_argument("data: '" + d.source +
                                    "' is read out of core, as a stream: only streaming VB on "
                                    "one process (distribute = sync) reads a stream");
    if (m_stream && !m_stream->claim())
        throw std::invalid_argument("data: the stream of '" + d.source +
                                    "' was read by an earlier run; a stream is read once: read "
                                    "the data again for another run");

    std::vector<std::int64_t> allRows(static_cast<std::size_t>(d.rows()));
    std::iota(allRows.begin(), allRows.end(), std::int64_t(0));
    m_evalDocs = lda::EvaluationDocs(d, allRows, o.evalDocs, m_seed, kLdaStreamEvalPick);
}

LdaTrainer::~LdaTrainer() = default;

std::int64_t LdaTrainer::itemsPerStep() const
{
    return m_rows.perStep();
}

std::int64_t LdaTrainer::streamGiven(std::int64_t steps) const noexcept
{
    if (m_stream)
        return m_given;
    return m_algorithm == LdaAlgorithm::Streaming ? m_rows.given() : steps * m_rows.perStep();
}

std::int64_t LdaTrainer::plannedSteps() const
{
    return m_algorithm == LdaAlgorithm::Streaming && !m_stream ? m_rows.minibatches() : 0;
}

std::int64_t LdaTrainer::itemCount() const
{
    return m_stream ? std::max<std::int64_t>(m_given, 1) : m_data->trainingRowCount();
}

bool LdaTrainer::streamEnded() const
{
    if (m_stream)
        return m_headNext == m_data->trainingRows().size() && m_stream->atEnd();
    return m_rows.exhausted();
}

void LdaTrainer::readStreamBatch()
{
    if (communicator().distributed())
        throw std::invalid_argument("data: '" + m_data->source +
                                    "' is read out of core: a stream runs on one process");
    m_streamDocs.rowStart.resize(1); // emptied, its capacity kept
    m_streamDocs.cols.clear();
    m_streamDocs.counts.clear();
    const std::vector<std::int64_t>& head = m_data->trainingRows();
    const std::int64_t B = m_options.minibatch;
    while (m_streamDocs.rows() < B && m_headNext < head.size()) {
        const std::int64_t r = head[m_headNext++];
        m_streamDocs.appendRow(m_data->train.rowCols(r), m_data->train.rowCounts(r));
    }
    m_stream->read(B - m_streamDocs.rows(), m_streamDocs);
    m_streamBatch.resize(std::size_t(m_streamDocs.rows()));
    std::iota(m_streamBatch.begin(), m_streamBatch.end(), std::int64_t(0));
    for (std::int64_t r = 0; r < m_streamDocs.rows(); ++r)
        m_maxWords = std::max<Eigen::Index>(m_maxWords, m_streamDocs.rowNonZeros(r));
    m_given += m_streamDocs.rows();
}

bool LdaTrainer::asynchronous() const
{
    return m_algorithm == LdaAlgorithm::Streaming && m_options.distribute == "async";
}

void LdaTrainer::listPosterior(GlobalStatistic& out)
{
    settleBlend();
    m_atPriorValue = m_atPrior ? 1.0 : 0.0;
    out.dense(m_lambdaT);
    out.dense(&m_atPriorValue, 1);
}

void LdaTrainer::posteriorReplaced()
{
    m_atPrior = m_atPriorValue != 0.0;
    m_rawTotals = lda::topicTotals(m_lambdaT);
    m_totals = m_rawTotals;
    m_expFresh = false;
}

void LdaTrainer::minibatchRows(std::int64_t b, std::vector<std::int32_t>& rows)
{
    m_rows.rowsOf(b, m_aheadDocs);
    distinctWords(m_data->train, m_aheadDocs, m_V, m_wordSeen, rows);
    std::sort(rows.begin(), rows.end());
}

void LdaTrainer::listPosteriorRows(GlobalStatistic& out, const std::vector<std::int32_t>* rows)
{
    settleBlend();
    m_atPriorValue = m_atPrior ? 1.0 : 0.0;
    if (rows) {
        m_exchangeRows.index = *rows;
        m_exchangeRows.rows.resize(Eigen::Index(rows->size()), m_K);
        for (std::size_t i = 0; i < rows->size(); ++i)
            m_exchangeRows.rows.row(Eigen::Index(i)) = m_lambdaT.row((*rows)[i]);
    }
    out.sparse(m_exchangeRows);
    out.dense(m_totals);
    out.dense(&m_atPriorValue, 1);
}

void LdaTrainer::posteriorRowsReplaced()
{
    for (std::size_t i = 0; i < m_exchangeRows.index.size(); ++i)
        m_lambdaT.row(m_exchangeRows.index[i]) = m_exchangeRows.rows.row(Eigen::Index(i));
    m_atPrior = m_atPriorValue != 0.0;
    m_rawTotals = m_totals; // the totals came with the rows
    m_expFresh = false;
}

void LdaTrainer::listStatistic()
{
    m_statistic.clear();
    m_statistic.sparse(m_wordStats);
}

void LdaTrainer::blendTotals()
{
    m_totals =
        m_blend.identity()
            ? m_rawTotals
            : Eigen::VectorXd(m_blend.scale * m_rawTotals.array() + double(m_V) * m_blend.offset);
}

void LdaTrainer::settleBlend()
{
    if (m_blend.identity())
        return;
    lda::applyBlend(m_lambdaT, m_blend);
    m_blend = {};
    m_rawTotals = lda::topicTotals(m_lambdaT);
    m_totals = m_rawTotals;
}

lda::MatrixRD LdaTrainer::lambdaT() const
{
    MatrixRD out = m_lambdaT;
    lda::applyBlend(out, m_blend);
    return out;
}

void LdaTrainer::refreshExpectations()
{
    blendTotals(); // from m_rawTotals as kept: recounting them here would round differently
    lda::expElogBetaT(m_lambdaT, m_totals, m_expElogBetaT, m_blend);
    m_expFresh = true;
}

void LdaTrainer::refreshStepWords()
{
    distinctWords(stepSource(), stepBatch(), m_V, m_wordSeen, m_stepWords);
    if (!m_expFresh)
        lda::expElogBetaRows(m_lambdaT, m_totals, m_stepWords, m_expElogBetaT, m_blend);
}

const lda::MatrixRD& LdaTrainer::expElogBetaT()
{
    if (!m_expFresh)
        refreshExpectations();
    return m_expElogBetaT;
}

void LdaTrainer::setLambdaT(const MatrixRD& lambdaT)
{
    if (lambdaT.rows() != m_V || lambdaT.cols() != m_K)
        throw std::invalid_argument(
            "LdaTrainer::setLambdaT: λ is " + std::to_string(lambdaT.rows()) + "×" +
            std::to_string(lambdaT.cols()) + ", but must be V×K = " + std::to_string(m_V) + "×" +
            std::to_string(m_K));
    m_lambdaT = lambdaT;
    m_blend = {};
    m_rawTotals = lda::topicTotals(m_lambdaT);
    refreshExpectations();
}

void LdaTrainer::ensureWorkspaces()
{
    m_workspaces.prepare(
        [&](const LocalWorkspace& ws) { return ws.K == m_K && ws.beta.rows() >= m_maxWords; },
        [&](LocalWorkspace& ws) { ws.resize(m_K, m_maxWords); });
}

LocalWorkspace& LdaTrainer::fitDocument(const SparseRows& rows, std::int64_t row)
{
    LocalWorkspace& ws = m_workspaces.local();
    ws.gather(m_expElogBetaT, rows.rowCols(row), rows.rowCounts(row));
    lda::localStep(ws, {m_alpha, m_options.localIters, m_options.localTol});
    return ws;
}

StagedTrainer::Round LdaTrainer::localStep(std::int64_t t)
{
    if (!m_sharded) {
        m_rows.setShard(positionsIn(m_data->trainingRows(), ownedRows()));
        m_sharded = true;
    }
    if (m_stream)
        readStreamBatch();
    else
        m_rows.next(); // a batch step keeps every training document
    m_times = {};
    const auto te = Clock::now();
    refreshStepWords();
    m_times.expectation = secondsSince(te);
    if (sampledLocalStep(m_algorithm)) {
        samplePhase(t);
    } else {
        localPhase();
        const auto t0 = Clock::now();
        lda::wordStatistics(m_stats, m_expElogBetaT, m_wordStats);
        m_times.update += secondsSince(t0);
    }
    if (m_algorithm == LdaAlgorithm::Streaming)
        streamRounds();

    listStatistic();
    // The adaptive schedule starts its averages from gradients at the initial λ (Ranganath et
    // al. 2013, Algorithm 1): minibatches drawn before the first update.
    const bool svi = stochastic(m_algorithm);
    return svi && m_stepSizer.needsWarmUp() ? Round::WarmUp : Round::Update;
}

void LdaTrainer::warmUp()
{
    settleBlend();
    const double scale = double(m_data->trainingRowCount()) / double(itemsPerStep());
    m_gradient.resize(m_V * m_K);
    lda::topicGradient(m_lambdaT, m_wordStats, m_options.eta, scale, m_gradient);
    m_stepSizer.warmUp(m_gradient);
}

void LdaTrainer::streamRounds()
{
    // Rounds 2… of the minibatch's batch VB: eβ at its words under λ* = prior + S, the local
    // steps again, and S anew. On several ranks S is summed over them before each round, so
    // that every rank's λ* is that of the whole minibatch (R ranks give the one-rank run); the
    // last round's S is summed by the step.
    const Eigen::VectorXd priorTotals =
        m_atPrior ? Eigen::VectorXd::Constant(m_K, double(m_V) * m_options.eta) : m_totals;
    for (int round = 1; round < m_options.streamIters; ++round) {
        if (communicator().distributed()) {
            listStatistic();
            communicator().reduce(m_statistic);
        }
        auto t0 = Clock::now();
        lda::expElogBetaPosterior(m_atPrior ? nullptr : &m_lambdaT, m_options.eta, priorTotals,
                                  m_wordStats, m_posteriorRows, m_expElogBetaT);
        m_expFresh = false; // the rows of λ* stand where λ's were
        m_times.expectation += secondsSince(t0);
        localPhase();
        t0 = Clock::now();
        lda::wordStatistics(m_stats, m_expElogBetaT, m_wordStats);
        m_times.update += secondsSince(t0);
    }
}

double LdaTrainer::globalUpdate(std::int64_t t)
{
    if (m_algorithm == LdaAlgorithm::Streaming) {
        const auto t0 = Clock::now();
        // λ_b = λ_{b−1} + S; before any data the prior is η everywhere: λ_1 = η + S. The
        // totals follow what was added (an asynchronous rank's other rows may be stale).
        if (m_atPrior) {
            lda::updateTopics(m_lambdaT, m_wordStats, m_options.eta, 1.0, 1.0);
            m_totals = lda::topicTotals(m_lambdaT);
        } else {
            lda::addTopicStatistic(m_lambdaT, m_wordStats);
            m_totals += m_wordStats.rows.colwise().sum().transpose();
        }
        m_rawTotals = m_totals; // streaming never blends
        m_atPrior = false;
        m_expFresh = false;
        m_times.update += secondsSince(t0);
        return 1.0;
    }
    const bool svi = stochastic(m_algorithm);
    const double scale = double(m_data->trainingRowCount()) / double(itemsPerStep());
    const auto t0 = Clock::now();
    double rho = 1.0;
    if (svi && m_stepSizer.adaptive()) {
        settleBlend(); // the adaptive rate's gradient is over all of λ
        m_gradient.resize(m_V * m_K);
        lda::topicGradient(m_lambdaT, m_wordStats, m_options.eta, scale, m_gradient);
        rho = m_stepSizer.rho(t, &m_gradient);
        m_lambdaT.reshaped<Eigen::RowMajor>() += rho * m_gradient;
        m_rawTotals = lda::topicTotals(m_lambdaT);
    } else {
        rho = svi ? m_stepSizer.rho(t, nullptr) : 1.0;
        if (rho < 1.0) {
            // Lazily: the minibatch's words only (lda::Blend); written out once the scale
            // falls below kSettleScale.
            lda::blendTopics(m_lambdaT, m_blend, m_rawTotals, m_wordStats, m_options.eta, scale,
                             rho);
            if (m_blend.scale < kSettleScale)
                settleBlend();
        } else {
            settleBlend();
            lda::updateTopics(m_lambdaT, m_wordStats, m_options.eta, scale, rho);
            m_rawTotals = lda::topicTotals(m_lambdaT);
        }
    }
    // The totals now; eβ at the words the next step's documents hold, then.
    blendTotals();
    m_expFresh = false;
    m_times.update += secondsSince(t0);
    return rho;
}

void LdaTrainer::samplePhase(std::int64_t t)
{
    auto t0 = Clock::now();
    const SparseRows& rows = stepSource();
    const std::vector<std::int64_t>& batch = stepBatch();
    // The statistic's rows: the step's words, ascending, each with its bucket in that row.
    m_wordStats.index = m_stepWords;
    std::sort(m_wordStats.index.begin(), m_wordStats.index.end());
    if (m_algorithm == LdaAlgorithm::GibbsSsvi) {
        // Gibbs-SSVI samples under β ~ q(β) instead of exp E[log β]: drawn into the eβ store's
        // rows (stale until recomputed) at the words of the whole minibatch, which every rank
        // draws alike, so that R ranks sample under the one-rank run's β.
        distinctWords(rows, m_rows.rows(), m_V, m_wordSeen, m_drawWords);
        std::sort(m_drawWords.begin(), m_drawWords.end());
        lda::drawTopicRows(m_lambdaT, m_blend, m_totals, m_drawWords, m_seed, kLdaStreamBetaDraw,
                           std::uint64_t(t), m_expElogBetaT);
        m_expFresh = false;
    }
    m_buckets.build(m_expElogBetaT, m_wordStats.index); // eβ is current at the step's words
    m_chains.prepare(
        [&](const lda::GibbsWorkspace& ws) { return ws.count.size() == std::size_t(m_K); },
        [&](lda::GibbsWorkspace& ws) { ws.resize(m_K); });
    if (m_assignments.size() < batch.size())
        m_assignments.resize(batch.size());
    const std::int64_t B = std::int64_t(batch.size());
#pragma omp parallel for schedule(dynamic, 4)
    for (std::int64_t j = 0; j < B; ++j) {
        const std::int64_t row = batch[std::size_t(j)];
        std::vector<lda::WordTopic>& out = m_assignments[std::size_t(j)];
        out.clear();
        Rng rng = Rng::stream(m_seed, kLdaStreamGibbs, std::uint64_t(t), std::uint64_t(row));
        lda::sampleDocument(m_chains.local(), rows.rowCols(row), rows.rowCounts(row),
                            m_expElogBetaT, m_buckets, m_alpha, m_options.burnin, m_options.samples,
                            rng, out);
    }
    m_times.local += secondsSince(t0);

    // S_wk = Σ over the kept sweeps of the tokens of w assigned k, / kept: in document order.
    t0 = Clock::now();
    m_wordStats.rows.setZero(Eigen::Index(m_wordStats.index.size()), m_K);
    const double share = 1.0 / double(m_options.samples);
    for (std::int64_t j = 0; j < B; ++j)
        for (const lda::WordTopic& a : m_assignments[std::size_t(j)])
            m_wordStats.rows(m_buckets.row(a.word), a.topic) += share;
    m_times.update += secondsSince(t0);
}

void LdaTrainer::localPhase()
{
    ensureWorkspaces(); // before the parallel loop: nothing allocates inside it
    auto t0 = Clock::now();
    const SparseRows& rows = stepSource();
    m_stats.layout(rows, stepBatch(), m_K);
    lda::recordLocalSteps(
        rows, stepBatch(), m_stats,
        [&](std::int64_t row) -> const LocalWorkspace& { return fitDocument(rows, row); });
    m_times.local += secondsSince(t0);

    t0 = Clock::now();
    m_stats.groupByWord(m_V);
    m_times.update += secondsSince(t0);
}

void LdaTrainer::visitState(StateArchive& a)
{
    // L and its blend as they stand, so that a resumed run goes on to the bit.
    a.field("lambda", m_lambdaT);
    std::array<double, 2> blend{m_blend.scale, m_blend.offset};
    a.field("lambda_blend", blend);
    m_blend = {blend[0], blend[1]};
    a.field("lambda_totals", m_rawTotals);
    a.field("step_sizer", m_stepSizer);
    a.field("rows", m_rows);
    if (m_algorithm == LdaAlgorithm::Streaming)
        a.field("at_prior", m_atPrior);
    if (a.loading())
        refreshExpectations();
}

bool LdaTrainer::diverged() const
{
    // λ's entries are positive sums of positive terms, so NaN or infinity anywhere shows in its
    // topics' totals (computed at every update): O(K), not O(V K) at every step.
    return !m_totals.allFinite() || !(m_totals.array() > 0.0).all();
}

Evaluation LdaTrainer::evaluate(bool full)
{
    if (!m_expFresh)
        refreshExpectations();
    return fullOrCheap(
        full, [&] { return evaluateOn(m_data->trainingRows(), m_evalDocs.scored, true); },
        [&] { return evaluateOn(m_evalDocs.cheapElbo, m_evalDocs.cheapScored, false); });
}

Evaluation LdaTrainer::evaluateOn(const std::vector<std::int64_t>& elboRows,
                                  const std::vector<std::int64_t>& scoredRows, bool stopOnInterrupt)
{
    const CountData& data = *m_data;
    ensureWorkspaces();
    const auto stop = [&] { return stopOnInterrupt && interrupted(); };
    // On several ranks each fits its share of the documents; the sums are then summed.
    const std::vector<std::int64_t> elboMine = communicator().mine(elboRows, ownedRows());
    const std::vector<std::int64_t> scoredMine = communicator().mine(scoredRows, ownedRows());

    // ELBO and topic usage over training documents: Σ_d L_d and Σ_d (γ_d − α), where
    // γ_dk − α = Σ_w n_dw φ_dwk is the expected number of words of d assigned to topic k.
    const std::int64_t n = std::int64_t(elboRows.size());
    std::vector<double> cElbo(kChunks, 0.0);
    MatrixRD cUsage = MatrixRD::Zero(kChunks, m_K);
    forChunks(std::int64_t(elboMine.size()), [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            if (stop())
                return;
            LocalWorkspace& ws = fitDocument(data.train, elboMine[std::size_t(j)]);
            cUsage.row(c) += (ws.gamma.array() - m_alpha).matrix().transpose();
            cElbo[std::size_t(c)] += lda::documentElbo(ws, m_alpha);
        }
    });

    // Document completion: γ from the observed half (the `train` row), each held-out word
    // scored by log Σ_k E[θ_k] E[β_kw] with E[β_kw] = λ_kw / Σ_v λ_kv.
    const Eigen::ArrayXd invTotals = m_totals.array().inverse();
    lda::HeldOutScore heldOut = lda::scoreHeldOut(
        m_lambdaT, data.heldOut, scoredMine,
        [&](std::int64_t row) -> const Eigen::VectorXd& {
            LocalWorkspace& ws = fitDocument(data.train, row);
            // ws.next is free after the local step: it holds E[θ_k] / Σ_v λ_kv.
            ws.next.array() = ws.gamma.array() / ws.gamma.sum() * invTotals;
            return ws.next;
        },
        stop, m_blend);

    // The partial sums of every rank: the local ELBO, the held-out score, the topic usage.
    Eigen::VectorXd sums(3 + m_K);
    sums(0) = std::accumulate(cElbo.begin(), cElbo.end(), 0.0);
    sums(1) = heldOut.logLik;
    sums(2) = heldOut.words;
    sums.tail(m_K).setZero();
    for (int c = 0; c < kChunks; ++c)
        sums.tail(m_K) += cUsage.row(c).transpose();
    communicator().sum(std::span<double>(sums.data(), std::size_t(sums.size())));
    heldOut = {sums(1), sums(2)};
    const Eigen::VectorXd usage = sums.tail(m_K);

    Evaluation ev;
    // Out of core the corpus's length is not known: there is no bound to scale to it.
    setSubsetElbo(ev, lda::globalElbo(m_lambdaT, m_options.eta, m_blend), sums(0), m_stream ? 0 : n,
                  data.trainingRowCount());
    lda::addHeldOutMetrics(ev.metrics, heldOut);
    const double mass = usage.sum();
    const Eigen::VectorXd weight =
        mass > 0 ? Eigen::VectorXd(usage / mass) : Eigen::VectorXd::Constant(m_K, 1.0 / m_K);
    lda::addTopicsInUse(ev, weight, m_lambdaT, m_totals, data.columnNames, m_options.topWords,
                        m_blend);
    return ev;
}

} // namespace svi
