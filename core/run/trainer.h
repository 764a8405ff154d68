#pragma once
// Trainer: one model fitted by one algorithm to one data set.
//
// A Trainer is driven by exactly one thread at a time (the Runner's worker). It may use
// OpenMP inside step() and evaluate(); results must not depend on the thread count.

#include "core/base/communicator.h"
#include "core/base/state_archive.h"
#include "core/data/preview.h"

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace svi {

struct Evaluation
{
    double elbo = 0.0; // estimate of the evidence lower bound
    // False when the trainer has no bound to report (a sampler; no items to estimate it on):
    // elbo is then NaN by design. Otherwise a NaN or infinite elbo means the run has diverged,
    // and the Runner ends it so.
    bool hasBound = true;
    std::map<std::string, double> metrics; // e.g. psnr, psnr_missing, heldout_loglik, mse
    std::shared_ptr<const Preview> preview;
};

// Sets ev.elbo to the estimate from a subset of n of the `total` items: `global` (the global
// terms) plus `localSum` (the local terms of the subset's items) scaled by total / n. With no
// item there is no estimate: elbo NaN, hasBound false.
inline void setSubsetElbo(Evaluation& ev, double global, double localSum, std::int64_t n,
                          std::int64_t total)
{
    ev.hasBound = n > 0;
    ev.elbo = n > 0 ? global + double(total) / double(n) * localSum
                    : std::numeric_limits<double>::quiet_NaN();
}

class Trainer
{
public:
    virtual ~Trainer() = default;

    // One stochastic update (one minibatch), or one sweep for a batch method.
    // `step` counts from 1. Throws on invalid state; returns the step size used.
    virtual double step(std::int64_t step) = 0;

    // Items processed by one step (minibatch size, or N for batch methods).
    virtual std::int64_t itemsPerStep() const = 0;
    virtual std::int64_t itemCount() const = 0;

    // ELBO estimate and held-out metrics. `full` asks for the full-data quantities that are
    // expensive (e.g. the reconstruction of a whole image); otherwise a cheaper estimate.
    virtual Evaluation evaluate(bool full) = 0;

    // True when the global parameters contain NaN or infinity.
    virtual bool diverged() const = 0;

    // True when the last step left the global parameters where they were (a closed-form or
    // fixed-point method at its solution): the run then ends as converged, whatever its budget.
    virtual bool converged() const { return false; }

    // Called by the Runner before every evaluate(): a trainer that holds part of its state
    // elsewhere brings it in.
    virtual void beforeEvaluation() {}

    // True when the trainer reads its items as a stream (streaming VB: each item once) and the
    // last step used the last of them: the run then ends as EndOfData, whatever its budget.
    virtual bool exhausted() const { return false; }
    // Items the steps so far have used: steps × itemsPerStep(), or what a stream has read
    // (its last minibatch may be short).
    virtual std::int64_t itemsSeen(std::int64_t steps) const noexcept
    {
        return steps * itemsPerStep();
    }

    // The steps the data allow, when known before the run (a stream held in memory: its
    // minibatches); 0 when not (no end, or a stream read out of core). The Runner's automatic
    // cadence then takes a snapshot at least every fortieth of them, so that a stream that
    // ends before its budget still charts a posterior after (nearly) every minibatch.
    virtual std::int64_t plannedSteps() const { return 0; }

    // Whether a checkpoint can hold where it stands: false for a trainer reading its data from
    // a stream it cannot rewind (a corpus read out of core), whose runs are neither saved nor
    // resumed.
    virtual bool resumable() const { return true; }

    // Checkpoints: lists the trainer's whole state with archive.field(…) — everything a step
    // or an evaluation changes that a later one reads: the global parameters, the schedule's
    // and the optimizers' state, step and evaluation counters, the samplers' positions, any
    // per-item state kept across steps — and, when archive.loading(), recomputes what is
    // derived from it. A trainer built from the same run description and data and then read
    // from a written archive continues exactly as the written one would have: the same steps
    // and the same evaluations, to the bit. Called between steps, never during one. Throws
    // StateError when an archive being read does not fit this trainer (another run's).
    virtual void visitState(StateArchive& archive)
    {
        (void)archive;
        throw StateError("checkpoint: this trainer does not list its state yet");
    }

    // Asks the trainer to keep a running estimate of every item, refreshed from each
    // minibatch's local step, so that a cheap evaluate(false) can return a reconstruction (the
    // window shows it live; a full pass is still an evaluation). Costs one N×D float buffer;
    // off by default. Trainers without such an estimate ignore it. Call before the first step.
    virtual void setLivePreview(bool on) { (void)on; }

    // The ranks this trainer's run is spread over (the local communicator unless set): call
    // before the first step, on every rank, with trainers built from the same run description.
    // Only a trainer that distributes() may be given one of more than one rank.
    void setCommunicator(Communicator& communicator) { m_communicator = &communicator; }
    Communicator& communicator() const { return *m_communicator; }
    // True when the trainer can run on several ranks (a StagedTrainer).
    virtual bool distributes() const { return false; }

    // A flag that, once true, asks a long evaluation (a full pass) to return early without its
    // full-pass results. Owned by the caller (the Runner), which keeps it alive as long as
    // the trainer; read from any of the trainer's threads.
    void setInterrupt(const std::atomic<bool>* flag) { m_interrupt = flag; }

protected:
    bool interrupted() const { return m_interrupt && m_interrupt->load(std::memory_order_relaxed); }

    // Runs a full pass (a callable that returns early once interrupted() is set) and returns
    // its result, or std::nullopt when it was interrupted: the pass is then incomplete and its
    // results must not be reported as full-pass ones.
    template <typename Pass>
    auto completePass(Pass&& pass) const -> std::optional<std::invoke_result_t<Pass&>>
    {
        auto result = pass();
        if (interrupted())
            return std::nullopt;
        return result;
    }

    // evaluate(full) of a trainer whose full evaluation is its cheap one over every item:
    // fullPass() when `full` and not interrupted, otherwise cheap() (an interrupted full pass
    // reports the cheap evaluation instead).
    template <typename Full, typename Cheap>
    Evaluation fullOrCheap(bool full, Full&& fullPass, Cheap&& cheap) const
    {
        if (full)
            if (std::optional<Evaluation> ev = completePass(fullPass))
                return std::move(*ev);
        return cheap();
    }

private:
    const std::atomic<bool>* m_interrupt = nullptr;
    Communicator* m_communicator = &localCommunicator();
};

class AsyncStream;

// A trainer whose step is a local phase, a global statistic and a global update — the shape
// of stochastic variational inference, where the global step is a sum of sufficient statistics
// (or of gradients) over the minibatch. On several ranks, each rank runs the local phase on its
// shard's items of the step's minibatch (every rank draws the same minibatch), the statistic is
// summed over the ranks here and nowhere else, and every rank applies the same global update
// to the same global parameters. On one rank the sum is the identity.
//
// A streaming trainer (streaming VB: its statistic is the change of the posterior a minibatch
// makes) may also run asynchronously on several ranks (core/run/async_stream.h): each rank
// streams its own rows, rank 0 holds the posterior and adds every rank's change as it comes.
class StagedTrainer : public Trainer
{
public:
    double step(std::int64_t t) final;
    bool distributes() const override { return true; }
    // A streaming trainer: its rows have all been used (asynchronously: every rank's, and
    // every change is in the posterior).
    bool exhausted() const final;
    std::int64_t itemsSeen(std::int64_t steps) const noexcept final;
    // Whether, on several ranks, this run streams asynchronously (its settings ask it).
    virtual bool asynchronous() const { return false; }
    // Asynchronously on rank 0: the whole posterior as it now stands, for the evaluation.
    void beforeEvaluation() final;

protected:
    friend class AsyncStream;
    // WarmUp: the statistic is a gradient at the initial parameters for the adaptive step size
    // (Ranganath et al. 2013: minibatches drawn before the first update), after which warmUp()
    // takes it and the step goes on with another local phase; Update: the step's own.
    enum class Round { WarmUp, Update };
    // This rank's part of the step t: the local step of its items of the minibatch; fills the
    // buffers statistic() lists.
    virtual Round localStep(std::int64_t t) = 0;
    // The buffers the local step filled, to be summed over the ranks.
    virtual GlobalStatistic& statistic() = 0;
    // The global update from the summed statistic; returns the step size used.
    virtual double globalUpdate(std::int64_t t) = 0;
    virtual void warmUp() {}

    // Streaming trainers. Their own rows are all used (a stream's end), and how many they used.
    virtual bool streamEnded() const { return false; }
    virtual std::int64_t streamGiven(std::int64_t steps) const noexcept
    {
        return steps * itemsPerStep();
    }
    // Asynchronous streaming: the stream's minibatches (numbered from 0, the same on every
    // rank), the next step taking minibatch b, and the rows of the posterior minibatch b reads
    // (ascending); the buffers of the whole posterior, listed into `out`, and what follows
    // their replacement; the buffers a statistic received is read into, listed in statistic()
    // (as localStep lists them).
    virtual std::int64_t streamMinibatches() const;
    virtual void seekMinibatch(std::int64_t b);
    virtual void minibatchRows(std::int64_t b, std::vector<std::int32_t>& rows);
    virtual void listPosterior(GlobalStatistic& out);
    virtual void posteriorReplaced() {}
    virtual void listStatistic() {}
    // The posterior by rows, for the exchanges of a stream: `rows` of the posterior and the rest
    // of what a local step reads (a topic model's totals), listed into `out` — or, with `rows`
    // null, the buffers an answer is read into; and what follows their replacement. The rows
    // not sent are stale, so a local step must read no other, and globalUpdate must change only
    // what it adds to (not recompute from every row).
    virtual void listPosteriorRows(GlobalStatistic& out, const std::vector<std::int32_t>* rows);
    virtual void posteriorRowsReplaced() {}

private:
    AsyncStream* m_async = nullptr; // set by AsyncStream on rank 0
};

} // namespace svi
