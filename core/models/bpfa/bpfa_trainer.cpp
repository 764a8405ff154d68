#include "core/models/bpfa/bpfa_trainer.h"

#include "core/base/parallel.h"
#include "core/data/image_task.h"
#include "core/math/constants.h"
#include "core/metrics/image_metrics.h"

#include <Eigen/Cholesky>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace svi {

using bpfa::Globals;
using bpfa::GlobalView;
using bpfa::MatrixRD;
using bpfa::Stats;
using bpfa::Workspace;

namespace {

// Does item i have at least one held-out entry?
bool hasHeldOut(const DenseData& data, std::int64_t i)
{
    const std::uint8_t* roles = data.roleRow(i);
    for (int d = 0; d < data.cols(); ++d)
        if (roles[d] == std::uint8_t(EntryRole::HeldOut))
            return true;
    return false;
}

} // namespace

// ---------------------------------------------------------------------------------------------
// BpfaTrainer

struct BpfaTrainer::Chunked
{
    std::vector<Workspace> ws;
    std::vector<Stats> stats;
};

BpfaTrainer::BpfaTrainer(DenseDataPtr data, BpfaAlgorithm algorithm, const BpfaOptions& o,
                         std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed)
{
    if (!m_data || m_data->rows() < 1 || m_data->cols() < 1)
        throw std::invalid_argument("data: the data set is empty");
    o.check();
    if (!m_data->values.allFinite())
        throw std::invalid_argument("data: '" + m_data->source +
                                    "' contains NaN or infinite values");

    m_K = o.K;
    m_D = m_data->cols();
    // Training rows: every row, or those left after a row split (test rows are only scored).
    const std::int64_t N = m_data->trainingRowCount();
    if (N < 1)
        throw std::invalid_argument("data: '" + m_data->source + "' has no training rows");
    m_stepSizer = StepSizer(stepSizeOf(o));
    m_sampler = std::make_unique<MinibatchSampler>(N, std::min(o.minibatch, N),
                                                   m_seed ^ 0x6d696e6962617463ULL);
    if (m_algorithm == BpfaAlgorithm::Streaming) {
        m_trainingRows.resize(std::size_t(N));
        for (std::int64_t j = 0; j < N; ++j)
            m_trainingRows[std::size_t(j)] = m_data->trainingRow(j);
        m_stream =
            StepRows(m_trainingRows, RowOrder::Stream, o.minibatch, m_seed ^ 0x73747265616d6564ULL);
    }
    m_chunks = std::make_unique<Chunked>();
    m_chunks->ws.resize(kChunks);
    m_chunks->stats.resize(kChunks);
    for (auto& w : m_chunks->ws)
        w.resize(m_K, m_D);
    for (auto& s : m_chunks->stats)
        s.resize(m_K, m_D);

    if ((o.overlapWeight > 0.0 || o.neighbourCoupling > 0.0) && m_data->image &&
        m_algorithm != BpfaAlgorithm::BatchGibbs) {
        const ImageLayout& layout = *m_data->image;
        if (layout.patchCount() != m_data->rows() || layout.patch * layout.patch != m_D)
            throw std::invalid_argument(
                std::string(o.overlapWeight > 0.0 ? "overlap_weight" : "neighbour_coupling") +
                ": the rows of '" + m_data->source + "' are not the patches of its image");
        m_structure = bpfa::ImageStructure(layout, m_K, o.overlapWeight, o.neighbourCoupling,
                                           o.overlapPixels, o.overlapRamp);
    }
    if (m_algorithm == BpfaAlgorithm::BatchGibbs) {
        std::vector<std::int64_t> all(static_cast<std::size_t>(N));
        for (std::int64_t j = 0; j < N; ++j)
            all[std::size_t(j)] = m_data->trainingRow(j);
        m_chain = std::make_unique<GibbsChain>(m_data, std::move(all), m_K, o.prior, m_seed);
    }
    // Read in parts, the ranks must take part: later, once the communicator is set.
    if (!m_data->heldRows)
        prepare(true);
}

void BpfaTrainer::prepare(bool initialise)
{
    if (m_prepared)
        return;
    m_prepared = true;
    pickEvalItems();
    if (initialise)
        initialiseGlobals();
}

void BpfaTrainer::pickEvalItems()
{
    // Items scored at each snapshot: a seeded subset of those with held-out entries, drawn by
    // position among every row's candidates. Read in parts, each rank lists its own rows' and
    // learns how many the ranks before it have; it keeps the drawn positions among its own.
    const std::int64_t first = m_data->heldRows ? m_data->heldRows->begin : 0;
    const std::int64_t held = m_data->values.rows();
    std::vector<std::int64_t> candidates;
    for (std::int64_t i = first; i < first + held; ++i)
        if (hasHeldOut(*m_data, i))
            candidates.push_back(i);
    m_heldOutEntries = double((m_data->roles.array() == std::uint8_t(EntryRole::HeldOut)).count());
    std::int64_t before = 0, total = std::int64_t(candidates.size());
    if (m_data->heldRows) {
        Communicator& ranks = communicator();
        std::vector<double> counts(std::size_t(ranks.size()) + 1, 0.0);
        counts[std::size_t(ranks.rank())] = double(candidates.size());
        counts.back() = m_heldOutEntries;
        ranks.sum(counts);
        total = 0;
        for (int q = 0; q < ranks.size(); ++q) {
            if (q < ranks.rank())
                before += std::int64_t(counts[std::size_t(q)]);
            total += std::int64_t(counts[std::size_t(q)]);
        }
        m_heldOutEntries = counts.back();
    }
    std::vector<std::int64_t> positions(static_cast<std::size_t>(total));
    std::iota(positions.begin(), positions.end(), std::int64_t(0));
    Rng rng = Rng::stream(m_seed, bpfa::kStreamEvalPick);
    const std::size_t take =
        std::min<std::size_t>(positions.size(), std::size_t(std::max(m_options.evalItems, 0)));
    for (std::size_t j = 0; j < take; ++j)
        std::swap(positions[j], positions[j + rng.below(positions.size() - j)]);
    m_evalCount = std::int64_t(take);
    m_evalItems.clear();
    for (std::size_t j = 0; j < take; ++j)
        if (const std::int64_t p = positions[j] - before;
            p >= 0 && p < std::int64_t(candidates.size()))
            m_evalItems.push_back(candidates[std::size_t(p)]);
    std::sort(m_evalItems.begin(), m_evalItems.end());
}

DenseDataPtr BpfaTrainer::gatherRows(const std::vector<std::int64_t>& rows)
{
    // Each rank fills the rows it holds (values, then roles) and the sum over the ranks fills
    // every one: x + 0 = x exactly, so the gathered rows are the held ones to the bit.
    const std::int64_t n = std::int64_t(rows.size());
    const Shard held = *m_data->heldRows;
    std::vector<double> buffer(2 * std::size_t(n) * std::size_t(m_D), 0.0);
    for (std::int64_t j = 0; j < n; ++j)
        if (held.contains(rows[std::size_t(j)]))
            for (int d = 0; d < m_D; ++d) {
                buffer[std::size_t(j * m_D + d)] = m_data->value(rows[std::size_t(j)], d);
                buffer[std::size_t((n + j) * m_D + d)] = m_data->role(rows[std::size_t(j)], d);
            }
    communicator().sum(buffer);
    auto out = std::make_shared<DenseData>();
    out->source = m_data->source;
    out->columnNames = m_data->columnNames;
    out->values.resize(n, m_D);
    out->roles.resize(n, m_D);
    for (std::int64_t j = 0; j < n; ++j)
        for (int d = 0; d < m_D; ++d) {
            out->values(j, d) = float(buffer[std::size_t(j * m_D + d)]);
            out->roles(j, d) = std::uint8_t(buffer[std::size_t((n + j) * m_D + d)]);
        }
    return out;
}

void BpfaTrainer::initialiseGlobals()
{
    const BpfaOptions& o = m_options;
    const std::int64_t N = m_data->trainingRowCount();
    if (m_algorithm == BpfaAlgorithm::BatchGibbs) {
        m_globals = bpfa::priorGlobals(o.prior, m_K, m_D);
        return;
    }
    if (o.init == "gibbs") {
        // The paper's "Gibbs initialisation": a short batch Gibbs run on a random subset.
        std::vector<std::int64_t> all(static_cast<std::size_t>(N));
        for (std::int64_t j = 0; j < N; ++j)
            all[std::size_t(j)] = m_data->trainingRow(j);
        Rng rng = Rng::stream(m_seed, bpfa::kStreamInit, 0, 0);
        const std::size_t take =
            std::min<std::size_t>(all.size(), std::size_t(std::max(o.initItems, 1)));
        for (std::size_t j = 0; j < take; ++j)
            std::swap(all[j], all[j + rng.below(all.size() - j)]);
        all.resize(take);
        std::unique_ptr<GibbsChain> chain;
        if (m_data->heldRows) {
            // Read in parts: the subset's rows gathered from the ranks, in the chain's order,
            // their streams keyed by their rows in the whole data set.
            std::vector<std::int64_t> local(take);
            std::iota(local.begin(), local.end(), std::int64_t(0));
            chain = std::make_unique<GibbsChain>(gatherRows(all), std::move(local), m_K, o.prior,
                                                 m_seed ^ 0x696e6974ULL, std::move(all));
        } else {
            chain = std::make_unique<GibbsChain>(m_data, std::move(all), m_K, o.prior,
                                                 m_seed ^ 0x696e6974ULL);
        }
        for (int s = 1; s <= o.initSweeps; ++s)
            chain->sweep(s);
        m_globals = chain->toGlobals(N);
    } else {
        // Random initialisation: loadings drawn from their prior and held tightly there,
        // every feature equally likely, unit noise and weight precisions.
        Rng rng = Rng::stream(m_seed, bpfa::kStreamInit, 0, 1);
        m_globals = bpfa::priorGlobals(o.prior, m_K, m_D);
        m_globals.a.setOnes();
        m_globals.b.setOnes();
        m_globals.c = m_globals.d = 1000.0;
        m_globals.e = m_globals.f = 1000.0;
        const double prec = 100.0 * m_D;
        const double sd = 1.0 / std::sqrt(double(m_D));
        m_globals.lambda.setConstant(prec);
        for (int k = 0; k < m_K; ++k)
            for (int d = 0; d < m_D; ++d)
                m_globals.h(k, d) = prec * sd * rng.normal();
    }
}

BpfaTrainer::~BpfaTrainer() = default;

std::int64_t BpfaTrainer::itemsPerStep() const
{
    if (m_algorithm == BpfaAlgorithm::BatchGibbs)
        return m_data->trainingRowCount();
    return std::min<std::int64_t>(m_options.minibatch, m_data->trainingRowCount());
}

std::int64_t BpfaTrainer::streamGiven(std::int64_t steps) const noexcept
{
    return m_algorithm == BpfaAlgorithm::Streaming ? m_stream.given() : steps * itemsPerStep();
}

bool BpfaTrainer::samplingLocal() const
{
    return m_algorithm == BpfaAlgorithm::GibbsSsvi || m_algorithm == BpfaAlgorithm::MimnoSvi ||
           m_algorithm == BpfaAlgorithm::BatchGibbs;
}

bool BpfaTrainer::structured() const
{
    return m_algorithm == BpfaAlgorithm::MfSsvi || m_algorithm == BpfaAlgorithm::TitsiasSsvi ||
           m_algorithm == BpfaAlgorithm::GibbsSsvi;
}

void BpfaTrainer::runLocal(Workspace& ws, const GlobalView& view, Rng& rng, bool evaluation) const
{
    switch (m_algorithm) {
    case BpfaAlgorithm::MfSvi:
    case BpfaAlgorithm::MfSsvi:
    case BpfaAlgorithm::Streaming:
        bpfa::mfLocal(ws, view, m_options.localIters, m_options.localTol);
        break;
    case BpfaAlgorithm::TitsiasSsvi:
        bpfa::titsiasLocal(ws, view, m_options.localIters, m_options.localTol);
        break;
    case BpfaAlgorithm::MimnoSvi:
    case BpfaAlgorithm::GibbsSsvi:
    case BpfaAlgorithm::BatchGibbs:
        if (evaluation)
            bpfa::gibbsLocal(ws, view, m_options.evalBurnin, m_options.evalKept, rng);
        else
            bpfa::gibbsLocal(ws, view, m_options.burnin, m_options.samples, rng);
        break;
    }
}

double BpfaTrainer::localBound(Workspace& ws, const GlobalView& view) const
{
    // Mean-field families are scored by their own bound; the others by the best spike-and-slab
    // factors, a lower bound of the exact (Gibbs-SSVI) or Mimno local optimum.
    if (m_algorithm == BpfaAlgorithm::MfSvi || m_algorithm == BpfaAlgorithm::MfSsvi ||
        m_algorithm == BpfaAlgorithm::Streaming) {
        bpfa::mfLocal(ws, view, m_options.localIters, m_options.localTol);
        return bpfa::mfLocalElbo(ws, view);
    }
    bpfa::titsiasLocal(ws, view, m_options.localIters, m_options.localTol);
    return bpfa::titsiasLocalElbo(ws, view);
}

void BpfaTrainer::drawLocal(Workspace& ws, const GlobalView& view, Rng& rng, bool first) const
{
    switch (m_algorithm) {
    case BpfaAlgorithm::MfSvi:
    case BpfaAlgorithm::MfSsvi:
    case BpfaAlgorithm::TitsiasSsvi:
    case BpfaAlgorithm::Streaming:
        if (first)
            runLocal(ws, view, rng, true);
        // One draw from the factorised local q: z ~ Bernoulli(θ), w | z = 1 ~ N(ν/κ, 1/κ).
        for (int k = 0; k < ws.K; ++k)
            ws.x[k] = rng.uniform() < ws.theta[k]
                          ? ws.mean[k] + rng.normal() / std::sqrt(ws.prec[k])
                          : 0.0;
        break;
    case BpfaAlgorithm::MimnoSvi:
    case BpfaAlgorithm::GibbsSsvi:
    case BpfaAlgorithm::BatchGibbs:
        // The chain's last state is a draw; later draws continue the same chain.
        if (first)
            runLocal(ws, view, rng, true);
        else
            bpfa::gibbsLocal(ws, view, 0, 1, rng, true);
        break;
    }
}

Stats BpfaTrainer::localStats(const std::vector<std::int64_t>& items, const GlobalView& view,
                              std::int64_t streamId)
{
    const DenseData& data = *m_data;
    const std::int64_t n = std::int64_t(items.size());
    const bool predictiveNoise = m_options.noiseFit == "predictive";
    const bool structure = !m_structure.empty();
    if (structure)
        m_batchRecords.resize(n, m_structure.recordWidth());
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        Workspace& ws = m_chunks->ws[c];
        Stats& st = m_chunks->stats[c];
        st.clear();
        for (std::int64_t j = begin; j < end; ++j) {
            ws.gather(data, items[j], view);
            Rng rng = Rng::stream(m_seed, bpfa::kStreamLocal, streamId, items[j]);
            // The noise statistic from an entry the local step has not seen: Do times the
            // squared error of its posterior-mean prediction stands for the item's E‖r‖²
            // (cross-validation). With the prediction's variance added as well the noise
            // feeds on itself (a larger σ, a vaguer fit, a larger error): measured σ 17.5
            // grey levels on house against 12.8 without it, and 0.8 dB lower PSNR.
            const bool leaveOne = predictiveNoise && ws.Do > 1;
            const int d = leaveOne ? ws.leaveOut(int(rng.below(std::uint64_t(ws.Do))), view) : -1;
            const double left = leaveOne ? ws.y[ws.Do] : 0.0;
            if (structure)
                m_structure.apply(ws, items[j], view, &rng);
            runLocal(ws, view, rng);
            if (leaveOne)
                ws.er2 = (ws.weight + 1.0) * ws.predictionError(d, left, view);
            st.add(ws);
            if (leaveOne)
                st.obsCount += 1.0; // the left-out entry counts as observed for γ_obs
            if (m_live.size() > 0)
                predictItem(ws, view, m_live.row(items[j]).data());
            if (structure) {
                float* record = m_batchRecords.row(j).data();
                if (m_structure.wantsPrediction())
                    predictItem(ws, view, record);
                m_structure.recordExpectations(ws, record);
            }
        }
    });
    updateStructure(items);
    Stats total;
    total.resize(m_K, m_D);
    const int chunks = int(std::min<std::int64_t>(kChunks, std::max<std::int64_t>(n, 1)));
    for (int c = 0; c < chunks; ++c)
        total.add(m_chunks->stats[c]);
    return total;
}

void BpfaTrainer::gatherItem(Workspace& ws, std::int64_t i, const GlobalView& view) const
{
    ws.gather(*m_data, i, view);
    if (!m_structure.empty())
        m_structure.apply(ws, i, view);
}

void BpfaTrainer::updateStructure(const std::vector<std::int64_t>& items)
{
    if (m_structure.empty())
        return;
    if (!communicator().distributed() || &items != &m_batchRows)
        m_structure.update(items, m_batchRecords);
    else
        m_structure.update(m_fullBatch, m_batchPos, m_batchRecords, communicator());
}

StagedTrainer::Round BpfaTrainer::localStep(std::int64_t t)
{
    prepare(true);
    m_statistic.clear();
    m_lastStep = t;
    if (m_algorithm == BpfaAlgorithm::BatchGibbs) {
        m_chain->sweep(t);
        return Round::Update;
    }
    // The adaptive schedule starts its averages from gradients at the initial globals
    // (Ranganath et al. 2013, Algorithm 1): minibatches drawn before the first update, whose
    // streams are marked apart from the steps'.
    const bool streaming = m_algorithm == BpfaAlgorithm::Streaming;
    const bool warm = !streaming && m_stepSizer.needsWarmUp();
    const std::uint64_t streamStep =
        warm ? (std::uint64_t(1) << 62) + std::uint64_t(++m_warmUps) : std::uint64_t(t);
    // The minibatch's training rows (the same on every rank); this rank takes those it owns.
    const Shard owned = ownedRows();
    m_batchRows.clear();
    m_fullBatch.clear();
    m_batchPos.clear();
    auto take = [&](std::int64_t row) {
        if (owned.contains(row)) {
            m_batchPos.push_back(std::int64_t(m_fullBatch.size()));
            m_batchRows.push_back(row);
        }
        m_fullBatch.push_back(row);
    };
    if (streaming) {
        m_stream.next();
        for (std::int64_t row : m_stream.rows())
            take(row);
    } else {
        for (std::int64_t position : m_sampler->next())
            take(m_data->trainingRow(position));
    }
    if (structured()) {
        Rng rng = Rng::stream(m_seed, bpfa::kStreamGlobal, streamStep);
        m_view = bpfa::sampleView(m_globals, rng);
    } else {
        m_view = bpfa::expectationView(m_globals);
    }
    m_stats = localStats(m_batchRows, m_view, std::int64_t(streamStep));
    listStatistic();
    if (streaming)
        streamRounds();
    return warm ? Round::WarmUp : Round::Update;
}

void BpfaTrainer::listStatistic()
{
    m_scalars.resize(4);
    m_scalars << m_stats.r2, m_stats.w2, m_stats.obsCount, double(m_stats.items);
    m_statistic.clear();
    m_statistic.dense(m_stats.zSum);
    m_statistic.dense(m_stats.P);
    m_statistic.dense(m_stats.C);
    m_statistic.dense(m_scalars);
}

void BpfaTrainer::streamRounds()
{
    for (int round = 1; round < m_options.streamIters; ++round) {
        if (communicator().distributed())
            communicator().reduce(m_statistic);
        m_view = bpfa::expectationView(streamPosterior());
        m_stats = localStats(m_batchRows, m_view, m_lastStep);
        listStatistic();
    }
}

bpfa::Globals BpfaTrainer::streamPosterior()
{
    summedTarget(1.0);
    const Globals prior = bpfa::priorGlobals(m_options.prior, m_K, m_D);
    Globals posterior = m_atPrior ? prior : m_globals;
    posterior.addChange(m_target, prior);
    return posterior;
}

void BpfaTrainer::summedTarget(double scale)
{
    m_stats.r2 = m_scalars[0];
    m_stats.w2 = m_scalars[1];
    m_stats.obsCount = m_scalars[2];
    m_stats.items = std::int64_t(m_scalars[3]);
    m_target = bpfa::globalTarget(m_options.prior, m_stats, m_view, scale, m_K, m_D);
}

Eigen::VectorXd BpfaTrainer::summedGradient()
{
    summedTarget(double(m_data->trainingRowCount()) / double(itemsPerStep()));
    return m_globals.difference(m_target);
}

void BpfaTrainer::warmUp()
{
    m_stepSizer.warmUp(summedGradient());
}

double BpfaTrainer::globalUpdate(std::int64_t t)
{
    if (m_algorithm == BpfaAlgorithm::BatchGibbs)
        return 1.0;
    if (m_algorithm == BpfaAlgorithm::Streaming) {
        m_globals = streamPosterior();
        m_atPrior = false;
        return 1.0;
    }
    const Eigen::VectorXd g = summedGradient();
    const double rho = m_stepSizer.rho(t, &g);
    m_globals.blend(m_target, rho);
    return rho;
}

void BpfaTrainer::visitState(StateArchive& a)
{
    // Read in parts, the first step or evaluation (collective) has prepared the trainer before
    // any checkpoint is written; a loaded state replaces the initial globals.
    prepare(!a.loading());
    if (m_chain) {
        // Batch Gibbs: the chain is the state; the globals stay at the prior, the sampler unused.
        a.field("chain", *m_chain);
    } else {
        a.field("globals", m_globals);
        a.field("step_sizer", m_stepSizer);
        if (m_algorithm == BpfaAlgorithm::Streaming) {
            a.field("rows", m_stream);
            a.field("at_prior", m_atPrior);
        } else {
            a.field("sampler", *m_sampler);
        }
    }
    a.field("last_step", m_lastStep);
    // The image's structure, as "overlap" and "coupling" when on.
    m_structure.visitState(a);
    // The live preview's estimate: each minibatch refreshes its own items only, and a cheap
    // evaluation shows (and scores) the whole. Whether it is on is the front end's choice, not
    // the run's: an estimate this trainer does not show is read and dropped, and without one a
    // trainer that shows it keeps the start setLivePreview gave it.
    bool live = m_live.size() > 0;
    a.field("live_preview", live);
    if (live && a.loading() && m_live.size() == 0) {
        MatrixRF dropped;
        a.field("live", dropped);
    } else if (live) {
        a.field("live", m_live);
    }
}

bool BpfaTrainer::diverged() const
{
    if (m_algorithm == BpfaAlgorithm::BatchGibbs)
        return !(m_chain->phi().allFinite() && std::isfinite(m_chain->gamma()) &&
                 std::isfinite(m_chain->gammaW()));
    return !m_globals.finite();
}

GlobalView BpfaTrainer::estimateView() const
{
    if (m_algorithm == BpfaAlgorithm::BatchGibbs)
        return m_chain->view();
    if (structured())
        return bpfa::meanPointView(m_globals);
    return bpfa::expectationView(m_globals);
}

MatrixRF BpfaTrainer::predictAll()
{
    const DenseData& data = *m_data;
    const std::int64_t N = data.rows();
    const GlobalView view = estimateView();
    MatrixRF out(N, m_D);
    const std::int64_t pass = m_lastStep; // as in evaluate()
    forChunks(N, [&](int c, std::int64_t begin, std::int64_t end) {
        Workspace& ws = m_chunks->ws[c];
        for (std::int64_t i = begin; i < end; ++i) {
            if (interrupted())
                return;
            gatherItem(ws, i, view);
            Rng rng = Rng::stream(m_seed, bpfa::kStreamFull, pass, i);
            runLocal(ws, view, rng, true);
            predictItem(ws, view, out.row(i).data());
        }
    });
    return out;
}

void BpfaTrainer::predictItem(const Workspace& ws, const GlobalView& view, float* row) const
{
    Eigen::Map<Eigen::RowVectorXf> out(row, m_D);
    out.setZero();
    for (int k = 0; k < m_K; ++k)
        if (ws.ex[k] != 0.0)
            out += (ws.ex[k] * view.phi.row(k)).cast<float>();
}

void BpfaTrainer::setLivePreview(bool on)
{
    if (on && m_data->image) {
        // Start from what is seen: observed entries as observed, the others at the mean grey
        // level (zero in normalised units); each minibatch then replaces its patches.
        const DenseData& data = *m_data;
        m_live = MatrixRF::Zero(data.rows(), m_D);
        for (std::int64_t i = 0; i < data.rows(); ++i)
            for (int d = 0; d < m_D; ++d)
                if (data.observed(i, d))
                    m_live(i, d) = data.values(i, d);
    } else
        m_live.resize(0, 0);
}

std::shared_ptr<Preview> BpfaTrainer::makePreview(std::optional<Eigen::ArrayXXf> image) const
{
    auto preview = std::make_shared<Preview>();
    preview->reconstruction = std::move(image);
    MatrixRD phi;
    Eigen::VectorXd weight;
    if (m_algorithm == BpfaAlgorithm::BatchGibbs) {
        phi = m_chain->phi();
        weight = m_chain->pi();
    } else {
        phi = m_globals.phiMean();
        weight = m_globals.piMean();
    }
    std::vector<int> order(static_cast<std::size_t>(m_K));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return weight[x] > weight[y]; });
    preview->atoms.resize(m_K, m_D);
    preview->atomWeights.resize(m_K);
    for (int j = 0; j < m_K; ++j) {
        preview->atoms.row(j) = phi.row(order[std::size_t(j)]);
        preview->atomWeights[j] = weight[order[std::size_t(j)]];
    }
    preview->atomWidth = m_data->image ? m_data->image->patch : 0;
    return preview;
}

Evaluation BpfaTrainer::evaluate(bool full)
{
    prepare(true);
    const DenseData& data = *m_data;
    // Streams keyed by the step evaluated, not by how many evaluations came before: a run
    // with a step budget scores the same whatever its snapshot cadence.
    const std::int64_t pass = m_lastStep;
    const int M = m_options.evalSamples;
    const bool batch = m_algorithm == BpfaAlgorithm::BatchGibbs;
    const GlobalView expView = batch ? m_chain->view() : bpfa::expectationView(m_globals);
    // Predictive draws of the globals (eq. 12); the batch sampler's current state for Gibbs.
    std::vector<GlobalView> views;
    views.reserve(std::size_t(M));
    for (int m = 0; m < M; ++m) {
        if (batch) {
            views.push_back(expView);
        } else {
            Rng rng = Rng::stream(m_seed, bpfa::kStreamEvalView, pass, m);
            views.push_back(bpfa::sampleView(m_globals, rng));
        }
    }

    // On several ranks each scores the items of its rows; the sums are then summed.
    const std::int64_t n = m_evalCount;
    const std::vector<std::int64_t> items = communicator().mine(m_evalItems, ownedRows());
    std::vector<double> cElbo(kChunks, 0.0), cLl(kChunks, 0.0), cSse(kChunks, 0.0),
        cCount(kChunks, 0.0), cActive(kChunks, 0.0);
    forChunks(std::int64_t(items.size()), [&](int c, std::int64_t begin, std::int64_t end) {
        Workspace& ws = m_chunks->ws[c];
        std::vector<int> held;
        held.reserve(std::size_t(m_D));
        std::vector<double> ll(static_cast<std::size_t>(M));
        Eigen::VectorXd predMean(m_D);
        double elbo = 0.0, llSum = 0.0, sse = 0.0, count = 0.0, active = 0.0;
        for (std::int64_t j = begin; j < end; ++j) {
            const std::int64_t i = items[std::size_t(j)];
            held.clear();
            for (int d = 0; d < m_D; ++d)
                if (data.heldOut(i, d))
                    held.push_back(d);
            // Held-out predictive log-likelihood (eq. 12): log-mean over M joint draws. Each
            // local step also gives the ELBO's local part, the bound the algorithm optimises
            // (its registry entry's `bound` says which): structured methods average it over
            // the draws β ~ q(β); the others take it once, under E_q(β).
            predMean.setZero();
            Rng rng = Rng::stream(m_seed, bpfa::kStreamEval, pass, i);
            double bound = 0.0;
            for (int m = 0; m < M; ++m) {
                const GlobalView& vm = views[std::size_t(m)];
                const GlobalView& local = structured() ? vm : expView;
                bool first = m == 0 || structured() || batch;
                if (m == 0 || structured())
                    gatherItem(ws, i, local);
                if (first && !batch) {
                    bound += localBound(ws, local);
                    // A factorised family's bound comes from its own local step: draw from it.
                    first = samplingLocal();
                }
                drawLocal(ws, local, rng, first);
                // The likelihood uses the joint draw (ψ, β); the predictive mean uses the
                // local posterior mean E[x | β] (Rao–Blackwellised), which has less Monte
                // Carlo noise than the single draw.
                double l = 0.0;
                for (int d : held) {
                    double pred = 0.0, mean = 0.0;
                    for (int k = 0; k < m_K; ++k) {
                        if (ws.x[k] != 0.0)
                            pred += ws.x[k] * vm.phi(k, d);
                        if (ws.ex[k] != 0.0)
                            mean += ws.ex[k] * vm.phi(k, d);
                    }
                    const double res = double(data.value(i, d)) - pred;
                    l += 0.5 * (vm.logGamma - kLog2Pi) - 0.5 * vm.gamma * res * res;
                    predMean[d] += mean / M;
                }
                ll[std::size_t(m)] = l;
            }
            elbo += structured() ? bound / M : bound;
            active += ws.ez.sum(); // E[Σ_k z_k] under the last draw's local posterior
            const double mx = *std::max_element(ll.begin(), ll.end());
            double s = 0.0;
            for (double l : ll)
                s += std::exp(l - mx);
            llSum += mx + std::log(s / M);
            for (int d : held) {
                const double res = double(data.value(i, d)) - predMean[d];
                sse += res * res;
            }
            count += double(held.size());
        }
        cElbo[std::size_t(c)] = elbo;
        cLl[std::size_t(c)] = llSum;
        cSse[std::size_t(c)] = sse;
        cCount[std::size_t(c)] = count;
        cActive[std::size_t(c)] = active;
    });
    auto sum = [](const std::vector<double>& v) {
        return std::accumulate(v.begin(), v.end(), 0.0);
    };
    enum { kElbo, kLl, kSse, kCount, kActive };
    double sums[] = {sum(cElbo), sum(cLl), sum(cSse), sum(cCount), sum(cActive)};
    communicator().sum(sums);

    Evaluation ev;
    const double count = sums[kCount];
    if (batch) { // a sampler: no bound
        ev.elbo = std::numeric_limits<double>::quiet_NaN();
        ev.hasBound = false;
    } else
        setSubsetElbo(ev, bpfa::globalElboTerm(m_options.prior, m_globals), sums[kElbo], n,
                      data.trainingRowCount());
    if (count > 0) {
        ev.metrics["heldout_loglik"] = sums[kLl] / count;
        ev.metrics["mse"] = sums[kSse] / count;
        // The paper reports the sum over the whole test set: the per-entry mean times the
        // number of held-out entries (an estimate when eval_items scores a subset).
        ev.metrics["heldout_loglik_total"] = sums[kLl] / count * m_heldOutEntries;
    }
    if (n > 0)
        ev.metrics["atoms_per_item"] = sums[kActive] / double(n);
    {
        const Eigen::VectorXd weight = batch ? m_chain->pi() : m_globals.piMean();
        const double threshold = 1.0 / double(data.trainingRowCount()); // one item expected
        ev.metrics["features_used"] = double((weight.array() > threshold).count());
    }
    {
        // The learned noise level, on the data's own scale (0–255 for images).
        const double gamma = batch ? m_chain->gamma() : m_globals.c / m_globals.d;
        ev.metrics["noise_sd"] = (data.image ? data.image->scale : 1.0) / std::sqrt(gamma);
    }

    std::optional<Eigen::ArrayXXf> image;
    bool fullImage = false;
    if (full && data.image) {
        // An interrupted pass is incomplete: report no full-pass scores.
        if (std::optional<MatrixRF> pred = completePass([&] { return predictAll(); })) {
            Eigen::ArrayXXf fit = reconstructImage(*data.image, *pred, false);
            // How closely the model fits the values it saw, noise included (a diagnostic of
            // overfitting, not a measure of inpainting).
            ev.metrics["psnr_observed"] =
                psnrObserved(data.image->corrupted, fit, data.image->pixelObserved);
            image = keepObservedPixels(*data.image, std::move(fit));
            fullImage = true;
            ev.metrics["psnr"] = psnr(data.image->original, *image);
            ev.metrics["psnr_missing"] =
                psnrMasked(data.image->original, *image, data.image->pixelObserved);
            if (m_live.size() > 0)
                m_live = std::move(*pred);
        }
    }
    if (!image && m_live.size() > 0) {
        image = reconstructImage(*data.image, m_live);
        ev.metrics["psnr_running"] = psnr(data.image->original, *image);
    }
    auto preview = makePreview(std::move(image));
    preview->reconstructionFull = fullImage;
    ev.preview = std::move(preview);
    return ev;
}

} // namespace svi
