#pragma once
// Step-size schedules and minibatch sampling.

#include "core/base/communicator.h"
#include "core/base/param_fields.h"
#include "core/base/state_archive.h"
#include "core/math/random.h"

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace svi {

// Robbins–Monro schedule ρ_t = (t + τ0)^(−κ), t = 1, 2, …; κ in (0.5, 1] satisfies the
// Robbins–Monro conditions, τ0 ≥ 0 slows the early steps.
struct RobbinsMonro
{
    double kappa = 0.75;
    double tau0 = 0.0;
    double rho(std::int64_t t) const;
};

// The adaptive learning rate of Ranganath, Wang, Blei & Xing (2013), paper 004 §2.4. With
// g_t = λ̂_t − λ_t the noisy natural gradient of the global parameters (any fixed linear
// parametrisation of the natural parameters gives the same norms: Dirichlet λ, Beta (a, b),
// Gamma (shape, rate)), it keeps exponential moving averages over a window τ_t,
//   ḡ ← (1 − 1/τ) ḡ + (1/τ) g_t,   h̄ ← (1 − 1/τ) h̄ + (1/τ) g_tᵀg_t,
// takes ρ*_t = ḡᵀḡ / h̄ (the step that minimises the expected distance to the batch update,
// estimated from the running moments; in [0, 1] by Cauchy–Schwarz), and then grows the
// window τ ← τ (1 − ρ*_t) + 1. ḡ and h̄ start (Ranganath et al., Algorithm 1) from the mean
// of S gradients sampled at the initial λ, with τ = S.
//
// Use: warmUp(g) S times (the trainer draws S minibatches at the initial λ before its first
// update), then rho(g) every step. Nothing allocates after the first call.
// Thread-safety: a value; driven by the trainer's thread.
class AdaptiveRate
{
public:
    // Adds one gradient sampled at the initial λ; all must have the same size.
    void warmUp(const Eigen::Ref<const Eigen::VectorXd>& g);
    // Gradients seen by warmUp so far.
    int warmUpCount() const { return m_warm; }
    // The step size for gradient g, after updating the moments with it (and τ after). Without
    // any warm-up, the first call starts the averages from g alone (ρ = 1). Throws
    // std::invalid_argument when g's size changes.
    double rho(const Eigen::Ref<const Eigen::VectorXd>& g);
    double window() const { return m_tau; }
    // ḡ, the averaged gradient (empty before any gradient).
    const Eigen::VectorXd& gradientAverage() const { return m_gBar; }
    // Applies f to ḡ in place (a trainer that relabels its globals, as the HDP sorting its
    // topics, moves their averages with them); h̄ and τ are sums over every entry and stay.
    template <typename F> void reorderAverages(F&& f)
    {
        if (m_gBar.size() > 0)
            f(m_gBar);
    }
    // Checkpoints: the moments, the window and the warm-up count.
    void visitState(StateArchive& a);

private:
    void checkSize(Eigen::Index n);

    Eigen::VectorXd m_gBar;
    double m_hBar = 0.0;
    double m_tau = 0.0;
    int m_warm = 0;
};

// How a stochastic trainer sets its step size: ρ_t = (t + τ0)^(−κ), or adaptively.
enum class StepSchedule { RobbinsMonro, Adaptive };

// "robbins-monro" / "adaptive" (the registry's choice names); fromName throws
// std::invalid_argument naming the field "schedule" for anything else.
std::string scheduleName(StepSchedule s);
StepSchedule scheduleFromName(const std::string& name);

// The step-size settings every stochastic trainer declares (keys schedule, kappa, tau0,
// adaptive_init) and the step size they give.
struct StepSizeOptions : DeclaredOptions<StepSizeOptions>
{
    // The declared defaults: those of declare().
    StepSizeOptions() { readDefaults(); }

    StepSchedule schedule{};
    double kappa{};     // ρ_t = (t + τ0)^(−κ), κ in [0.5, 1]
    double tau0{};      // ≥ 0
    int adaptiveInit{}; // adaptive: minibatches drawn at the initial λ to start ḡ, h̄ (≥ 1)

    // The declarations bound to the fields, with the model's default κ and τ0 (a model
    // without one: 0.75 and 1).
    static ParamFields<StepSizeOptions> declare(double kappa = 0.75, double tau0 = 1.0);
    static const ParamFields<StepSizeOptions>& fields();
    // Reads the keys present in `values` (others keep their value).
    void read(const ParamValues& values);
    // check() (DeclaredOptions) throws std::invalid_argument "kappa = 2, but must be in
    // [0.5, 1]" on a field outside its declared range.
};

// The declarations of kappa and tau0 (the Robbins–Monro rate ρ_t = (t + τ0)^(−κ)) with the
// model's defaults, and of the schedule's choice and the adaptive warm-up.
ParamSpec kappaParam(double kappa);
ParamSpec tau0Param(double tau0);
ParamSpec scheduleParam();
ParamSpec adaptiveInitParam();

// Binds kappa and tau0 to two fields of an options struct, for a trainer with the Robbins–Monro
// schedule only.
template <typename Options, typename Kappa, typename Tau0>
void addRobbinsMonroFields(ParamFields<Options>& fields, double kappa, double tau0,
                           Kappa kappaField, Tau0 tau0Field)
{
    fields.add(kappaParam(kappa), kappaField).add(tau0Param(tau0), tau0Field);
}

// Binds the step-size keys to the fields of the same names of an options struct that keeps
// them flat (schedule, kappa, tau0, adaptiveInit), as StepSizeOptions itself does.
template <typename Options>
void addStepSizeFields(ParamFields<Options>& fields, double kappa, double tau0)
{
    fields.add(scheduleParam(), &Options::schedule, scheduleName, scheduleFromName);
    addRobbinsMonroFields(fields, kappa, tau0, &Options::kappa, &Options::tau0);
    fields.add(adaptiveInitParam(), &Options::adaptiveInit);
}

// The step-size settings of an options struct that keeps them flat.
template <typename Options> StepSizeOptions stepSizeOf(const Options& o)
{
    StepSizeOptions s;
    s.schedule = o.schedule;
    s.kappa = o.kappa;
    s.tau0 = o.tau0;
    s.adaptiveInit = o.adaptiveInit;
    return s;
}

// ρ for each step of a trainer: Robbins–Monro from t, or the adaptive rate from the gradient.
// A trainer with the adaptive schedule calls warmUp(g) while needsWarmUp() (gradients at its
// initial λ), then rho(t, &g) every step; with Robbins–Monro, rho(t, nullptr) is enough.
class StepSizer
{
public:
    explicit StepSizer(const StepSizeOptions& options = {}) : m_options(options) {}
    bool adaptive() const { return m_options.schedule == StepSchedule::Adaptive; }
    bool needsWarmUp() const { return adaptive() && m_rate.warmUpCount() < m_options.adaptiveInit; }
    void warmUp(const Eigen::Ref<const Eigen::VectorXd>& g) { m_rate.warmUp(g); }
    // Throws std::invalid_argument when adaptive and g is null.
    double rho(std::int64_t t, const Eigen::VectorXd* g);
    // Checkpoints: the adaptive rate's state (the settings come from the run description).
    void visitState(StateArchive& a) { a.field("adaptive", m_rate); }
    const AdaptiveRate& adaptiveRate() const { return m_rate; }
    template <typename F> void reorderAverages(F&& f) { m_rate.reorderAverages(f); }

private:
    StepSizeOptions m_options;
    AdaptiveRate m_rate;
};

// Draws minibatches without replacement within an epoch: each epoch is a fresh seeded
// permutation of 0..N−1 consumed in order; a minibatch never straddles two epochs' draws of
// the same item. Deterministic for a given (seed, N, batch).
//
// Invariants: every item is drawn exactly once per epoch (after k·N draws, each item k times);
// indices within one minibatch are distinct. A batch that spans an epoch boundary takes the
// rest of the old epoch and tops up from the new one, deferring to later in the new epoch any
// item it already holds. No allocation after construction; O(batch) per call.
// Thread-safety: a value; not to be shared between threads without external locking.
class MinibatchSampler
{
public:
    // Throws std::invalid_argument when itemCount < 1 or batchSize < 1. A batch larger than N
    // is clamped to N (the whole data set, in a fresh order every step).
    MinibatchSampler(std::int64_t itemCount, std::int64_t batchSize, std::uint64_t seed);
    // The next minibatch (size min(batch, N)); indices are distinct. The reference stays valid
    // until the next call.
    const std::vector<std::int64_t>& next();
    // Number of completed epochs (N items drawn per epoch).
    std::int64_t epoch() const { return m_epoch; }
    // Checkpoints: the epoch, the permutation and the position in it, the last minibatch.
    void visitState(StateArchive& a);

private:
    void reshuffle();

    std::int64_t m_n;
    std::int64_t m_batch;
    std::uint64_t m_seed;
    std::int64_t m_epoch = 0;
    std::size_t m_pos = 0;
    std::vector<std::int64_t> m_perm;
    std::vector<std::int64_t> m_out;
    // m_inBatch[i] != 0 while item i is in the part of the current batch taken from the old
    // epoch; all zero between calls.
    std::vector<unsigned char> m_inBatch;
};

// How a trainer's steps take the training rows: all of them every step (batch); a minibatch
// drawn by a MinibatchSampler, epoch after epoch (stochastic); or one pass in a seeded order,
// consecutive minibatches of it, the last one short, each row once (a stream: streaming VB).
enum class RowOrder { All, Sampled, Stream };

// The rows of each step of a trainer that draws from the training rows of its data, in the
// order of a RowOrder: positions among the training rows, mapped to rows.
// Thread-safety: a value; driven by the trainer's thread.
class StepRows
{
public:
    StepRows() = default;
    // `trainingRows` (non-empty, ascending) must outlive this object. Stochastic: minibatches of
    // min(minibatch, their count), drawn by a sampler seeded with `samplerSeed`.
    StepRows(const std::vector<std::int64_t>& trainingRows, bool stochastic, std::int64_t minibatch,
             std::uint64_t samplerSeed)
        : StepRows(trainingRows, stochastic ? RowOrder::Sampled : RowOrder::All, minibatch,
                   samplerSeed)
    {
    }
    // Stream: a permutation of the rows drawn from `samplerSeed`, minibatches of `minibatch`.
    StepRows(const std::vector<std::int64_t>& trainingRows, RowOrder order, std::int64_t minibatch,
             std::uint64_t samplerSeed);
    // Rows per step: min(minibatch, training rows) when stochastic, all of them otherwise.
    std::int64_t perStep() const { return m_perStep; }
    // Draws the next minibatch into rows() (stochastic, stream); a batch trainer's rows stay
    // all. A stream at its end gives no rows.
    void next();
    // Stream: the next next() gives minibatch b (from 0) of the pass (asynchronous workers
    // take the minibatch their master hands them).
    void seek(std::int64_t b);
    // Stream: the rows of minibatch b (from 0) of the pass, into `rows`; none past the end.
    void rowsOf(std::int64_t b, std::vector<std::int64_t>& rows) const;
    // Stream: every row has been given (a batch or sampled order never ends).
    bool exhausted() const { return m_order == RowOrder::Stream && m_pos >= m_perStream.size(); }
    // Rows given so far (a stream's; steps × perStep() otherwise is the caller's count).
    std::int64_t given() const { return std::int64_t(m_pos); }
    // Stream: minibatches in the pass.
    std::int64_t minibatches() const;
    // The rows of the current step, in minibatch order.
    const std::vector<std::int64_t>& rows() const { return m_rows; }
    // This rank's training rows: those at positions `positions` among the training rows
    // (Communicator::shardOf their count). All of them until set.
    void setShard(Shard positions);
    // The rows of the current step in this rank's shard, in minibatch order.
    const std::vector<std::int64_t>& mine() const { return m_shard ? m_mine : m_rows; }
    // Checkpoints: the sampler's position and the current rows.
    void visitState(StateArchive& a);

private:
    // Fills m_rows (and m_mine) from positions among the training rows.
    void take(std::span<const std::int64_t> positions);

    const std::vector<std::int64_t>* m_training = nullptr;
    RowOrder m_order = RowOrder::All;
    std::unique_ptr<MinibatchSampler> m_sampler; // stochastic only
    std::vector<std::int64_t> m_perStream;       // stream only: the order of the positions
    std::size_t m_pos = 0;                       // stream only: positions given
    std::int64_t m_perStep = 0;
    std::vector<std::int64_t> m_rows;
    std::optional<Shard> m_shard;
    std::vector<std::int64_t> m_mine;
    std::vector<std::int64_t> m_positions; // the current step's positions among the training rows
};

} // namespace svi
