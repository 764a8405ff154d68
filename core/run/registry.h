#pragma once
// The registry of (model, algorithm) pairs. Each entry declares what data it accepts and its
// parameters, and builds a Trainer. Everything user-facing is generated from it.

#include "core/base/metric_spec.h"
#include "core/base/params.h"
#include "core/data/data_set.h"
#include "core/run/trainer.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace svi {

struct AlgorithmEntry
{
    std::string model;      // "bpfa"
    std::string modelLabel; // "Beta process factor analysis"
    std::string algorithm;  // "gibbs-ssvi"
    std::string label;      // "Gibbs-SSVI"
    std::string help;       // one line
    // The data kinds it fits (keys of core/run/data_kinds.h: "image", "table", …).
    std::vector<std::string> dataKinds;
    // Its place in the model's comparison group (1, 2, …: Compare's columns in the paper's
    // order); 0 = a baseline outside the group, which Compare runs only when ticked.
    int compareRank = 0;
    std::vector<ParamSpec> params;
    std::vector<MetricSpec> metrics; // what its evaluations report, the headline among them
    // Whether its trainer, on several ranks, trains on and evaluates only the rows its rank owns
    // (Communicator::ownedRows) and takes nothing else from the data that other ranks' rows
    // would change: then a distributed run may read only each rank's part of the files
    // (DataKindSpec::readPart). Otherwise every rank reads them whole.
    bool readsParts = false;
    // What its ELBO trace is (one line), when it is not simply the model's bound under the
    // algorithm's own q: e.g. a Monte Carlo estimate, or a lower bound of the bound optimised.
    std::string bound;
    // `bound`, or the generic description when it is empty.
    std::string boundText() const
    {
        return bound.empty() ? "the evidence lower bound of the model under the algorithm's q"
                             : bound;
    }
    // Builds a trainer from resolved parameters. May throw std::invalid_argument with a
    // message naming the field when the parameters do not fit the data (e.g. patch size).
    std::function<std::unique_ptr<Trainer>(const DataSet&, const ParamValues&, std::uint64_t seed)>
        make;
    // Reads resolved parameters into the options struct make() builds from them, checks it as
    // the trainer does (std::invalid_argument naming the field) and gives every field back by
    // key (optionsReader<Options>() in core/base/param_fields.h): what the registry-wide tests
    // hold the declarations against.
    std::function<ParamValues(const ParamValues&)> readOptions;

    // What the registry-wide tests run of every entry, declared with the model so that they need
    // no list of models (each applied where the entry declares the key):
    // settings that make a run small enough for a test, a fraction of a second on small data of
    // its kind, also under the sanitizers;
    ParamValues smallSettings;
    // and an absurd setting, accepted by the declarations, that drives a run into numerical
    // divergence (which the Runner must report as Diverged).
    ParamValues divergentSettings;
    bool fits(const std::string& dataKind) const;
    // The headline of `reported` (a snapshot's metrics): the first metric marked headline that
    // it holds, else the first declared one it holds; nullptr when it holds none.
    const MetricSpec* headline(const std::map<std::string, double>& reported) const;
    const MetricSpec* metric(const std::string& key) const;
};

class Registry
{
public:
    void add(AlgorithmEntry entry);
    const std::vector<AlgorithmEntry>& entries() const { return m_entries; }
    // nullptr when absent.
    const AlgorithmEntry* find(const std::string& model, const std::string& algorithm) const;
    std::vector<std::string> models() const;
    // The models that fit `dataKind`, in registry order.
    std::vector<std::string> modelsFor(const std::string& dataKind) const;
    // The entries of `model`, in registry order.
    std::vector<const AlgorithmEntry*> algorithms(const std::string& model) const;
    // The model's comparison group: its algorithms by compareRank (those ranked 0 last, in
    // registry order, when `withBaselines`).
    std::vector<const AlgorithmEntry*> comparisonGroup(const std::string& model,
                                                       bool withBaselines = false) const;
    // Every metric the entries of `models` declare, once each, in declaration order (Compare's
    // columns when it runs several models); with `dataKind`, only those reported on that kind
    // (the window's metric menu: the first is the one its chart shows first).
    std::vector<MetricSpec> metricsOf(const std::vector<std::string>& models,
                                      const std::string& dataKind = {}) const;

private:
    std::vector<AlgorithmEntry> m_entries;
};

} // namespace svi
