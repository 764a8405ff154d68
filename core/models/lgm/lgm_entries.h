#pragma once
// How a linear latent Gaussian model (GLM, GME, the sparse GP, the CTM, generalized PMF) adds
// its registry entries: the algorithms' keys and labels, written once, and one entry per
// algorithm from the model's options struct and trainer.

#include "core/base/param_fields.h"
#include "core/models/lgm/linear_lgm.h"
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

// What the entries of one latent Gaussian model share.
struct LgmModelEntry
{
    std::string model, modelLabel, bound;
    std::vector<std::string> dataKinds = {};
    std::vector<MetricSpec> metrics = {};
    // The settings of the registry-wide tests (AlgorithmEntry::smallSettings,
    // divergentSettings).
    ParamValues smallSettings = {}, divergentSettings = {};
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
