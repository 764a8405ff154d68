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

// What the entries of one latent Gaussian model share.
struct LgmModelEntry
{
    std::string model, modelLabel, bound;
    std::vector<std::string> dataKinds;
    std::vector<MetricSpec> metrics;
};

// Adds an entry per algorithm, in Compare's order: its parameters are
// Options::params(algorithm), its trainer make(data, algorithm, Options::fromParams(v), seed).
template <typename Options, typename Make>
void addLgmAlgorithms(Registry& r, const LgmModelEntry& model,
                      const std::vector<LgmAlgorithmEntry>& algorithms, Make make)
{
    int rank = 1;
    for (const LgmAlgorithmEntry& a : algorithms) {
        AlgorithmEntry e;
        e.model = model.model;
        e.modelLabel = model.modelLabel;
        e.algorithm = a.key;
        e.label = a.label;
        e.help = a.help;
        e.dataKinds = model.dataKinds;
        e.compareRank = rank++;
        e.params = Options::params(a.algorithm);
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

// The same for labelled data, the trainer TrainerT(data, algorithm, options, seed); `diagnostics`
// are metrics reported beside supervisedMetrics().
template <typename Options, typename TrainerT>
void addLgmEntries(Registry& r, const std::string& model, const std::string& modelLabel,
                   const std::string& bound, const std::vector<LgmAlgorithmEntry>& algorithms,
                   const std::vector<MetricSpec>& diagnostics = {})
{
    LgmModelEntry m{model, modelLabel, bound, {"labelled"}, supervisedMetrics()};
    m.metrics.insert(m.metrics.end(), diagnostics.begin(), diagnostics.end());
    addLgmAlgorithms<Options>(r, m, algorithms,
                              [modelLabel](const DataSet& data, LgmAlgorithm algorithm,
                                           const Options& options, std::uint64_t seed) {
                                  return std::make_unique<TrainerT>(
                                      data.requireLabelled(modelLabel), algorithm, options, seed);
                              });
}

} // namespace svi
