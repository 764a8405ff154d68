#include "core/inference/schedule.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace svi {

double RobbinsMonro::rho(std::int64_t t) const
{
    if (t < 1)
        throw std::invalid_argument("RobbinsMonro::rho: t = " + std::to_string(t) +
                                    ", but must be ≥ 1");
    return std::pow(double(t) + tau0, -kappa);
}

void AdaptiveRate::checkSize(Eigen::Index n)
{
    if (m_gBar.size() == 0)
        m_gBar = Eigen::VectorXd::Zero(n);
    else if (m_gBar.size() != n)
        throw std::invalid_argument("AdaptiveRate: the gradient has " + std::to_string(n) +
                                    " entries, but earlier ones had " +
                                    std::to_string(m_gBar.size()));
}

void AdaptiveRate::visitState(StateArchive& a)
{
    a.field("g_bar", m_gBar);
    a.field("h_bar", m_hBar);
    a.field("tau", m_tau);
    a.field("warm", m_warm);
}

void AdaptiveRate::warmUp(const Eigen::Ref<const Eigen::VectorXd>& g)
{
    checkSize(g.size());
    // Running means of g and gᵀg over the warm-up samples; τ counts them.
    ++m_warm;
    const double w = 1.0 / double(m_warm);
    m_gBar += w * (g - m_gBar);
    m_hBar += w * (g.squaredNorm() - m_hBar);
    m_tau = double(m_warm);
}

double AdaptiveRate::rho(const Eigen::Ref<const Eigen::VectorXd>& g)
{
    checkSize(g.size());
    if (m_tau <= 0.0) {
        m_gBar = g;
        m_hBar = g.squaredNorm();
        m_tau = 1.0;
    } else {
        const double w = 1.0 / m_tau;
        m_gBar = (1.0 - w) * m_gBar + w * g;
        m_hBar = (1.0 - w) * m_hBar + w * g.squaredNorm();
    }
    // g = 0 everywhere (a fixed point): no step is needed; ρ = 0 would freeze τ's growth
    // harmlessly, but 1 keeps λ at the exact optimum it already holds.
    const double rho = m_hBar > 0.0 ? std::clamp(m_gBar.squaredNorm() / m_hBar, 0.0, 1.0) : 1.0;
    m_tau = m_tau * (1.0 - rho) + 1.0;
    return rho;
}

std::string scheduleName(StepSchedule s)
{
    return s == StepSchedule::Adaptive ? "adaptive" : "robbins-monro";
}

StepSchedule scheduleFromName(const std::string& name)
{
    if (name == "robbins-monro")
        return StepSchedule::RobbinsMonro;
    if (name == "adaptive")
        return StepSchedule::Adaptive;
    throw std::invalid_argument("schedule = " + name + ", but must be robbins-monro or adaptive");
}

ParamSpec kappaParam(double kappa)
{
    return realParam("kappa", "Forgetting rate κ", "ρ_t = (t + τ0)^(−κ); κ in [0.5, 1]", kappa, 0.5,
                     1.0);
}

ParamSpec tau0Param(double tau0)
{
    return realParam("tau0", "Delay τ0", "ρ_t = (t + τ0)^(−κ); τ0 ≥ 0", tau0, 0.0, kHuge);
}

ParamSpec scheduleParam()
{
    return choiceParam("schedule", "Step size",
                       "robbins-monro: ρ_t = (t + τ0)^(−κ); adaptive: Ranganath et al. (2013)",
                       {"robbins-monro", "adaptive"}, "robbins-monro");
}

ParamSpec adaptiveInitParam()
{
    return intParam("adaptive_init", "Adaptive warm-up",
                    "adaptive schedule: gradient estimates drawn at the initial parameters to "
                    "seed its averages (a model stepping one q at a time: each q's, at its first "
                    "visit)",
                    5, 1, 10000);
}

ParamFields<StepSizeOptions> StepSizeOptions::declare(double kappa, double tau0)
{
    ParamFields<StepSizeOptions> f;
    addStepSizeFields(f, kappa, tau0);
    return f;
}

const ParamFields<StepSizeOptions>& StepSizeOptions::fields()
{
    static const ParamFields<StepSizeOptions> f = declare();
    return f;
}

void StepSizeOptions::read(const ParamValues& values)
{
    fields().read(*this, values);
}

double StepSizer::rho(std::int64_t t, const Eigen::VectorXd* g)
{
    if (!adaptive())
        return RobbinsMonro{m_options.kappa, m_options.tau0}.rho(t);
    if (!g)
        throw std::invalid_argument("StepSizer::rho: the adaptive schedule needs the gradient");
    return m_rate.rho(*g);
}

MinibatchSampler::MinibatchSampler(std::int64_t itemCount, std::int64_t batchSize,
                                   std::uint64_t seed)
    : m_n(itemCount), m_batch(batchSize), m_seed(seed)
{
    if (itemCount < 1)
        throw std::invalid_argument("MinibatchSampler: N = " + std::to_string(itemCount) +
                                    ", but must be ≥ 1");
    if (batchSize < 1)
        throw std::invalid_argument("MinibatchSampler: batch = " + std::to_string(batchSize) +
                                    ", but must be ≥ 1");
    m_batch = std::min(m_batch, m_n);
    m_perm.resize(static_cast<std::size_t>(m_n));
    m_inBatch.assign(static_cast<std::size_t>(m_n), 0);
    m_out.reserve(static_cast<std::size_t>(m_batch));
    reshuffle();
}

void MinibatchSampler::reshuffle()
{
    // A fresh seeded permutation for every epoch (Fisher–Yates), from a stream keyed by the
    // epoch, so epoch e's order does not depend on how earlier epochs were consumed.
    std::iota(m_perm.begin(), m_perm.end(), std::int64_t(0));
    Rng rng = Rng::stream(m_seed, 0x65706f6368ULL, std::uint64_t(m_epoch));
    for (std::size_t i = m_perm.size(); i > 1; --i)
        std::swap(m_perm[i - 1], m_perm[rng.below(i)]);
    m_pos = 0;
}

const std::vector<std::int64_t>& MinibatchSampler::next()
{
    // Invariant between calls: m_pos < N (an exhausted epoch is replaced at once, so epoch()
    // counts completed epochs exactly).
    const std::size_t batch = static_cast<std::size_t>(m_batch);
    m_out.clear();

    // The rest of the current epoch, up to a full batch.
    const std::size_t fromOld = std::min(batch, m_perm.size() - m_pos);
    m_out.insert(m_out.end(), m_perm.begin() + std::ptrdiff_t(m_pos),
                 m_perm.begin() + std::ptrdiff_t(m_pos + fromOld));
    m_pos += fromOld;
    if (m_pos == m_perm.size()) {
        ++m_epoch;
        reshuffle();
    }
    if (fromOld == batch)
        return m_out;

    // Top up from the new epoch. Items already in the batch are deferred: the block of
    // deferred items always sits at perm[w, p); taking an item rotates the block's first
    // element to its end. Every item taken lands at perm[w], so perm[0, w) is what the new
    // epoch has drawn, and perm[w, N) what it still owes (deferred block first). Since the
    // batch holds fromOld ≥ 1 old items and batch ≤ N, w = batch − fromOld < N at the end.
    for (std::size_t i = 0; i < fromOld; ++i)
        m_inBatch[std::size_t(m_out[i])] = 1;
    std::size_t w = 0;
    for (std::size_t p = 0; m_out.size() < batch; ++p) {
        // p < N: the new epoch holds N − fromOld ≥ batch − fromOld items not in the batch.
        if (m_inBatch[std::size_t(m_perm[p])])
            continue;
        std::swap(m_perm[w], m_perm[p]);
        m_out.push_back(m_perm[w]);
        ++w;
    }
    for (std::size_t i = 0; i < fromOld; ++i)
        m_inBatch[std::size_t(m_out[i])] = 0;
    m_pos = w;
    return m_out;
}

void MinibatchSampler::visitState(StateArchive& a)
{
    std::int64_t pos = std::int64_t(m_pos);
    a.field("epoch", m_epoch);
    a.field("position", pos);
    a.field("permutation", m_perm);
    a.field("batch", m_out);
    if (!a.loading())
        return;
    // An index out of range would be read out of bounds by the next draw.
    const auto inRange = [&](std::int64_t i) { return i >= 0 && i < m_n; };
    if (std::int64_t(m_perm.size()) != m_n || pos < 0 || pos >= m_n || m_epoch < 0 ||
        !std::all_of(m_perm.begin(), m_perm.end(), inRange) ||
        !std::all_of(m_out.begin(), m_out.end(), inRange))
        throw StateError("checkpoint: the minibatch sampler's state does not fit " +
                         std::to_string(m_n) + " items");
    m_pos = std::size_t(pos);
}

StepRows::StepRows(const std::vector<std::int64_t>& trainingRows, RowOrder order,
                   std::int64_t minibatch, std::uint64_t samplerSeed)
    : m_training(&trainingRows), m_order(order)
{
    const std::int64_t n = std::int64_t(trainingRows.size());
    m_perStep = order == RowOrder::All ? n : std::min(minibatch, n);
    if (order == RowOrder::Sampled)
        m_sampler = std::make_unique<MinibatchSampler>(n, m_perStep, samplerSeed);
    else if (order == RowOrder::All)
        m_rows = trainingRows;
    else {
        if (minibatch < 1)
            throw std::invalid_argument("StepRows: minibatch = " + std::to_string(minibatch) +
                                        ", but must be ≥ 1");
        // The pass's order: a Fisher–Yates permutation from its own stream.
        m_perStream.resize(std::size_t(n));
        std::iota(m_perStream.begin(), m_perStream.end(), std::int64_t(0));
        Rng rng = Rng::stream(samplerSeed, 0x73747265616dULL);
        for (std::size_t i = m_perStream.size(); i > 1; --i)
            std::swap(m_perStream[i - 1], m_perStream[rng.below(i)]);
    }
}

std::int64_t StepRows::minibatches() const
{
    const std::int64_t n = std::int64_t(m_perStream.size());
    return m_perStep > 0 ? (n + m_perStep - 1) / m_perStep : 0;
}

void StepRows::rowsOf(std::int64_t b, std::vector<std::int64_t>& rows) const
{
    rows.clear();
    const std::size_t from = std::size_t(b) * std::size_t(m_perStep);
    for (std::size_t j = from; j < std::min(m_perStream.size(), from + std::size_t(m_perStep)); ++j)
        rows.push_back((*m_training)[std::size_t(m_perStream[j])]);
}

void StepRows::seek(std::int64_t b)
{
    if (m_order != RowOrder::Stream || b < 0)
        throw std::invalid_argument("StepRows::seek: minibatch " + std::to_string(b) +
                                    " of a stream of " + std::to_string(minibatches()));
    m_pos = std::min(m_perStream.size(), std::size_t(b * m_perStep));
}

void StepRows::visitState(StateArchive& a)
{
    if (m_order == RowOrder::Stream) {
        std::int64_t pos = std::int64_t(m_pos);
        a.field("stream_position", pos);
        a.field("rows", m_rows);
        if (a.loading()) {
            if (pos < 0 || pos > std::int64_t(m_perStream.size()))
                throw StateError("checkpoint: a stream position (" + std::to_string(pos) +
                                 ") beyond the " + std::to_string(m_perStream.size()) + " rows");
            m_pos = std::size_t(pos);
        }
        return;
    }
    if (!m_sampler)
        return; // a batch trainer's rows are all of them, always
    a.field("sampler", *m_sampler);
    a.field("rows", m_rows);
    const std::int64_t n = std::int64_t(m_training->size());
    if (a.loading())
        for (std::int64_t& row : m_rows)
            if (!std::binary_search(m_training->begin(), m_training->end(), row))
                throw StateError("checkpoint: a minibatch row (" + std::to_string(row) +
                                 ") is not one of the " + std::to_string(n) + " training rows");
}

void StepRows::setShard(Shard positions)
{
    m_shard = positions;
    m_mine.clear();
    if (m_order == RowOrder::All) // a batch step: the shard's rows, every step
        m_mine.assign(m_training->begin() + positions.begin, m_training->begin() + positions.end);
}

void StepRows::next()
{
    if (m_order == RowOrder::Stream) {
        const std::size_t n = std::min(std::size_t(m_perStep), m_perStream.size() - m_pos);
        take(std::span<const std::int64_t>(m_perStream.data() + m_pos, n));
        m_pos += n;
        return;
    }
    if (!m_sampler)
        return;
    take(m_sampler->next()); // positions among the training rows
}

void StepRows::take(std::span<const std::int64_t> drawn)
{
    m_rows.resize(drawn.size());
    for (std::size_t j = 0; j < drawn.size(); ++j)
        m_rows[j] = (*m_training)[std::size_t(drawn[j])];
    if (m_shard) {
        m_mine.clear();
        for (std::size_t j = 0; j < drawn.size(); ++j)
            if (m_shard->contains(drawn[j]))
                m_mine.push_back(m_rows[j]);
    }
}

} // namespace svi
