#pragma once
// How a linear latent Gaussian model (GLM, GME, the sparse GP, the CTM, generalized PMF) adds
// its registry entries: the algorithms' keys and labels, written once, and one entry per
// algorithm from the model's options struct and trainer.

#include "core/base/param_fields.h"
#include "core/models/lgm/linear_lgm.h"
#include "core/models/memory_terms.h"
#include "core/run/registry.h"

#include <string>
#include <vector>

namespace svi {

// The metrics of a supervised model: test NLL per example (the headline), the zero-one error
// for class labels, the RMSE for values.
std::vector<MetricSpec> supervisedMetrics();

// The key and label every latent Gaussian model registers an algorithm under ("h-mc-ssvi",
// "H-MC-SSVI"): written once, here.
inline const char* lgmAlgorithmKey(LgmAlgorithm a)
{
    switch (a) {
    case LgmAlgorithm::HybridMcSsvi:
        return "h-mc-ssvi";
    case LgmAlgorithm::McSsvi:
        return "mc-ssvi";
    case LgmAlgorithm::SDsvi:
        return "s-dsvi";
    case LgmAlgorithm::BatchHybrid:
        return "h-mc-ssvi-batch";
    case LgmAlgorithm::FixedPoint:
        break;
    }
    return "closed-form";
}

inline const char* lgmAlgorithmLabel(LgmAlgorithm a)
{
    switch (a) {
    case LgmAlgorithm::HybridMcSsvi:
        return "H-MC-SSVI";
    case LgmAlgorithm::McSsvi:
        return "MC-SSVI";
    case LgmAlgorithm::SDsvi:
        return "S-DSVI";
    case LgmAlgorithm::BatchHybrid:
        return "Batch H-MC-SSVI";
    case LgmAlgorithm::FixedPoint:
        break;
    }
    return "Closed form";
}

// An algorithm of a latent Gaussian model, and what it does there (one line).
struct LgmAlgorithmEntry
{
    LgmAlgorithm algorithm;
    const char* help;
};

// The memory of the shared linear-LGM trainer over `D` weights (core/models/lgm/linear_lgm.h):
// the prior's precision (D × D, dense whatever the covariance), with a full covariance its root,
// precision, each chunk's Γ and the natural step's temporaries (S-DSVI's root, gradient and
// AdaGrad sums besides), and the rows a full pass gathers (`rows` × D, twice with a full
// covariance).
inline std::vector<MemoryTerm> linearLgmMemory(double D, double rows, const ParamValues& v,
                                               LgmAlgorithm a, const std::string& what = "D")
{
    using namespace memory;
    const bool full = choice(v, "covariance") != "diagonal";
    std::vector<MemoryTerm> terms = {
        {"the prior's precision: " + what + " × " + what + " doubles", kDouble * D * D, "data"},
        {"the rows a pass gathers: rows × " + what + " doubles",
         (full ? 2 : 1) * kDouble * rows * D, "data"},
    };
    if (full)
        terms.push_back({"the full covariance's matrices: about " +
                             std::string(a == LgmAlgorithm::SDsvi ? "30" : "26") + " × " + what +
                             " × " + what + " doubles",
                         (a == LgmAlgorithm::SDsvi ? 30 : 26) * kDouble * D * D, "covariance"});
    return terms;
}

// What the entries of one latent Gaussian model share.
struct LgmModelEntry
{
    std::string model, modelLabel, bound;
    std::vector<std::string> dataKinds = {};
    std::vector<MetricSpec> metrics = {};
    // The settings of the registry-wide tests (AlgorithmEntry::smallSettings,
    // divergentSettings).
    ParamValues smallSettings = {}, divergentSettings = {};
    // The memory of a run of each algorithm (AlgorithmEntry::memory).
    std::function<std::vector<MemoryTerm>(const DataSet&, const ParamValues&, LgmAlgorithm)>
        memory = {};
};

// Adds an entry per algorithm, in Compare's order: its parameters are
// Options::declare(algorithm).specs(), its trainer make(data, algorithm, Options::fromParams(v),
// seed).
template <typename Options, typename Make>
void addLgmAlgorithms(Registry& r, const LgmModelEntry& model,
                      const std::vector<LgmAlgorithmEntry>& algorithms, Make make)
{
    int rank = 1;
    for (const LgmAlgorithmEntry& a : algorithms) {
        AlgorithmEntry e;
        e.model = model.model;
        e.modelLabel = model.modelLabel;
        e.algorithm = lgmAlgorithmKey(a.algorithm);
        e.label = lgmAlgorithmLabel(a.algorithm);
        e.help = a.help;
        e.dataKinds = model.dataKinds;
        e.compareRank = rank++;
        e.params = Options::declare(a.algorithm).specs();
        e.readOptions = optionsReader<Options>();
        e.smallSettings = model.smallSettings;
        e.divergentSettings = model.divergentSettings;
        e.metrics = model.metrics;
        e.bound = model.bound;
        const LgmAlgorithm algorithm = a.algorithm;
        if (model.memory)
            e.memory = [algorithm, memory = model.memory](const DataSet& data,
                                                          const ParamValues& values) {
                return memory(data, values, algorithm);
            };
        e.make = [algorithm, make](const DataSet& data, const ParamValues& values,
                                   std::uint64_t seed) {
            return make(data, algorithm, Options::fromParams(values), seed);
        };
        r.add(std::move(e));
    }
}

// The same for labelled data, the trainer TrainerT(data, algorithm, options, seed);
// `m.metrics` are diagnostics reported beside supervisedMetrics(), and its data kind is
// "labelled".
template <typename Options, typename TrainerT>
void addLgmEntries(Registry& r, LgmModelEntry m, const std::vector<LgmAlgorithmEntry>& algorithms)
{
    const std::string modelLabel = m.modelLabel;
    std::vector<MetricSpec> metrics = supervisedMetrics();
    metrics.insert(metrics.end(), m.metrics.begin(), m.metrics.end());
    m.metrics = std::move(metrics);
    m.dataKinds = {"labelled"};
    addLgmAlgorithms<Options>(r, m, algorithms,
                              [modelLabel](const DataSet& data, LgmAlgorithm algorithm,
                                           const Options& options, std::uint64_t seed) {
                                  return std::make_unique<TrainerT>(
                                      data.requireLabelled(modelLabel), algorithm, options, seed);
                              });
}

} // namespace svi
