#pragma once
// Trainer: one model fitted by one algorithm to one data set.
//
// A Trainer is driven by exactly one thread at a time (the Runner's worker). It may use
// OpenMP inside step() and evaluate(); results must not depend on the thread count.

#include <Eigen/Core>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// What the UI or the CLI can show of the current fit. Immutable once published.
struct Preview
{
    // Reconstructed image (0–255, height×width), when the data are image patches and a full
    // pass was made.
    std::optional<Eigen::ArrayXXf> reconstruction;
    // Learned dictionary: one row per feature, ordered by decreasing weight.
    Eigen::MatrixXd atoms;
    Eigen::VectorXd atomWeights; // E[π_k] in the same order
    int atomWidth = 0;           // p for image patches (atoms are p×p tiles), 0 otherwise
};

struct Evaluation
{
    double elbo = 0.0;                     // estimate of the evidence lower bound
    std::map<std::string, double> metrics; // e.g. psnr, psnr_missing, heldout_loglik, mse
    std::shared_ptr<const Preview> preview;
};

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
};

} // namespace svi
