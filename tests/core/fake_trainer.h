// A trainer that only sleeps: steps, evaluations and failures set by its fields, so that the
// Runner's budgets, cadence, pause / stop and divergence handling can be tested alone.
#pragma once

#include "core/run/runner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>

namespace svi::test_support {

using namespace std::chrono_literals;

class FakeTrainer : public Trainer
{
public:
    std::atomic<std::int64_t> steps{0};
    // Wall time spent inside step(), as the trainer itself sees it (written by the worker only).
    std::atomic<double> busySeconds{0.0};
    std::chrono::milliseconds stepTime{1};
    std::chrono::milliseconds evalTime{0};
    std::chrono::milliseconds fullEvalTime{0};
    std::int64_t throwAt = -1;
    std::int64_t outOfMemoryAt = -1; // step() throws std::bad_alloc there
    std::int64_t divergeAt = -1;
    bool evaluateThrowsWhenDiverged = false;
    bool itemCountThrows = false;
    // From this step on, evaluate() returns `brokenBound` as the ELBO (globals stay finite).
    std::int64_t breakBoundAt = -1;
    double brokenBound = std::numeric_limits<double>::quiet_NaN();
    bool hasBound = true; // false: a trainer without a bound, whose ELBO is NaN by design
    // Only the full evaluation breaks the bound (a cheap one looks fine).
    bool onlyFullBreaks = false;

    double step(std::int64_t t) override
    {
        if (t == throwAt)
            throw std::runtime_error("boom at step " + std::to_string(t));
        if (t == outOfMemoryAt)
            throw std::bad_alloc();
        const auto t0 = std::chrono::steady_clock::now();
        std::this_thread::sleep_for(stepTime);
        busySeconds.store(
            busySeconds.load() +
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        steps.store(t);
        return 1.0 / double(t);
    }
    std::int64_t itemsPerStep() const override { return 10; }
    std::int64_t itemCount() const override
    {
        if (itemCountThrows)
            throw std::runtime_error("no data");
        return 100;
    }
    Evaluation evaluate(bool full) override
    {
        if (evaluateThrowsWhenDiverged && diverged())
            throw std::runtime_error("cannot evaluate NaN");
        std::this_thread::sleep_for(evalTime);
        // A long full pass that honours the interrupt flag, as a real one does.
        const auto until = std::chrono::steady_clock::now() + (full ? fullEvalTime : 0ms);
        while (std::chrono::steady_clock::now() < until && !interrupted())
            std::this_thread::sleep_for(1ms);
        Evaluation ev;
        ev.elbo = -1.0 / double(std::max<std::int64_t>(steps.load(), 1));
        ev.hasBound = hasBound;
        if (!hasBound)
            ev.elbo = std::numeric_limits<double>::quiet_NaN();
        else if (breakBoundAt > 0 && steps.load() >= breakBoundAt && (full || !onlyFullBreaks))
            ev.elbo = brokenBound;
        ev.metrics["full"] = full ? 1.0 : 0.0;
        return ev;
    }
    bool diverged() const override { return divergeAt > 0 && steps.load() >= divergeAt; }
    void visitState(StateArchive& a) override
    {
        std::int64_t n = steps.load();
        a.field("steps", n);
        steps.store(n);
    }
};

inline RunOptions steps(std::int64_t n)
{
    RunOptions o;
    o.maxSteps = n;
    return o;
}

} // namespace svi::test_support
