#pragma once
// The Bayesian generalized linear model of paper 002 (Sheth & Khardon, Sec. 3.3, experiment
// 4.1): w ~ N(0, σ_p² I), f_i = x_iᵀw, y_i ~ p(y | f_i) (logistic, probit, Poisson or
// Gaussian), fitted by MC-SSVI, H-MC-SSVI, S-DSVI (minibatches scaled by N/|M|) and batch
// H-MC-SSVI, on labelled data. The bound (3) is optimal for a GLM (the model is in 2L-LVMd).

#include "core/models/glm/linear_lgm.h"
#include "core/run/registry.h"

namespace svi {

// Registers model "glm" with algorithms "h-mc-ssvi", "mc-ssvi", "s-dsvi" and
// "h-mc-ssvi-batch"; labelled data only.
void registerGlm(Registry& registry);

// The metrics of a supervised model: test NLL per example (the headline), the zero-one error
// for class labels, the RMSE for values.
std::vector<MetricSpec> supervisedMetrics();

// One algorithm of a linear latent Gaussian model, as its registry entry names it.
struct LgmAlgorithmEntry
{
    LgmAlgorithm algorithm;
    const char* key;
    const char* label;
    const char* help;
};

// Adds an entry per algorithm, in Compare's order, for labelled data: its parameters are
// Options::params(algorithm), its trainer TrainerT(data, algorithm, Options::fromParams(v), seed).
// `diagnostics` are metrics reported beside supervisedMetrics().
template <typename Options, typename TrainerT>
void addLgmEntries(Registry& r, const std::string& model, const std::string& modelLabel,
                   const std::string& bound, const std::vector<LgmAlgorithmEntry>& algorithms,
                   const std::vector<MetricSpec>& diagnostics = {})
{
    int rank = 1;
    for (const LgmAlgorithmEntry& a : algorithms) {
        AlgorithmEntry e;
        e.model = model;
        e.modelLabel = modelLabel;
        e.algorithm = a.key;
        e.label = a.label;
        e.help = a.help;
        e.dataKinds = {"labelled"};
        e.compareRank = rank++;
        e.params = Options::params(a.algorithm);
        e.metrics = supervisedMetrics();
        e.metrics.insert(e.metrics.end(), diagnostics.begin(), diagnostics.end());
        e.bound = bound;
        const LgmAlgorithm algorithm = a.algorithm;
        e.make = [algorithm, modelLabel](const DataSet& data, const ParamValues& values,
                                         std::uint64_t seed) {
            return std::make_unique<TrainerT>(data.requireLabelled(modelLabel), algorithm,
                                              Options::fromParams(values), seed);
        };
        r.add(std::move(e));
    }
}

} // namespace svi
