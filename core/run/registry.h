#pragma once
// The registry of (model, algorithm) pairs. Each entry declares what data it accepts and its
// parameters, and builds a Trainer. Everything user-facing is generated from it. Models also
// register the data they can draw: a generator of the synthetic table, or a data kind of their
// own (a matrix drawn from the model), which the built-in data kinds then list.

#include "core/base/metric_spec.h"
#include "core/base/params.h"
#include "core/data/data_set.h"
#include "core/data/dense_data.h"
#include "core/run/data_kinds.h"
#include "core/run/memory_need.h"
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
    // The memory a run takes beyond its data (core/run/memory_need.h): its large parts, from
    // the data's shape and the resolved parameters, each naming the setting that scales it.
    // Checked before the trainer is built; every entry declares it (a registry-wide test holds
    // it to the peak memory a run measures).
    std::function<std::vector<MemoryTerm>(const DataSet&, const ParamValues&)> memory;

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

// The settings of the data kind "synthetic" a generator draws with.
struct SyntheticTableOptions
{
    std::int64_t rows = 0;
    int cols = 0;
    int trueK = 0;                // features of the generating dictionary
    double loadingVariance = 0.0; // 0: the generator's own choice
    std::uint64_t seed = 0;
};

// A way to draw the synthetic table (the value of the data kind "synthetic"'s setting
// `generator`), registered by the model whose data it draws.
struct TableGenerator
{
    std::string key;   // "bpfa"
    std::string help;  // what it draws, in the setting's help: "the BPFA prior (…)"
    std::string drawn; // what svi info says of the data: "drawn from the BPFA prior"
    // Settings of the kind it does not use (shown as ignored).
    std::vector<std::string> ignoredSettings;
    // The table as it is to be fitted: every entry observed, standardised by a generator whose
    // data should be (BPFA's) and otherwise left in the units of its loadings, which are then
    // in `trueLoadings` (D × K) as the truth a fit is scored against. May throw
    // std::invalid_argument naming the setting.
    std::function<DenseDataPtr(const SyntheticTableOptions&)> draw;
};

// A named set of values a run can start from (`svi run --preset KEY`, "preset" in run.json):
// the defaults are chosen for a first run on real data of the model's kind, and a preset keeps
// another choice, such as the settings behind a paper's figure, under a name the reproduction
// scripts use. A value the run sets itself wins over the preset's.
struct Preset
{
    std::string key;      // "paper-002-fig4"
    std::string model;    // the registry model it is for ("gpmf")
    std::string help;     // one line: what it is for and what it sets
    ParamValues params;   // algorithm parameters (each declared by an algorithm of the model)
    ParamValues settings; // data-kind settings (each declared by a kind the model fits)
};

class Registry
{
public:
    void add(AlgorithmEntry entry);
    // Throws std::invalid_argument when the key is taken.
    void addGenerator(TableGenerator generator);
    // In registration order; the first is the default.
    const std::vector<TableGenerator>& generators() const { return m_generators; }
    // A data kind a model brings (its key not taken); listed by builtinDataKinds() before the
    // kinds read from files.
    void addDataKind(DataKindSpec kind);
    const std::vector<DataKindSpec>& dataKinds() const { return m_dataKinds; }
    const std::vector<AlgorithmEntry>& entries() const { return m_entries; }
    // Throws std::invalid_argument when the key is taken, the model has no entry yet, or a
    // parameter is declared by none of the model's algorithms.
    void addPreset(Preset preset);
    // In registration order.
    const std::vector<Preset>& presets() const { return m_presets; }
    // nullptr when absent.
    const Preset* preset(const std::string& key) const;
    // nullptr when absent.
    const AlgorithmEntry* find(const std::string& model, const std::string& algorithm) const;
    std::vector<std::string> models() const;
    // The models that fit `dataKind`, in registry order.
    std::vector<std::string> modelsFor(const std::string& dataKind) const;
    // The entries of `model`, in registry order.
    std::vector<const AlgorithmEntry*> algorithms(const std::string& model) const;
    // The algorithm a run of `model` gets when it names none: the one the model declares with
    // setDefaultAlgorithm (the best held-out figure within a minute on real data of its kind,
    // where that is not its first), else its first. nullptr for an unknown model.
    const AlgorithmEntry* defaultAlgorithm(const std::string& model) const;
    // Throws std::invalid_argument when the model has no such algorithm (yet).
    void setDefaultAlgorithm(const std::string& model, const std::string& algorithm);
    // The model's comparison group: its algorithms by compareRank (those ranked 0 last, in
    // registry order, when `withBaselines`); with `dataKind`, only those that fit it (a model's
    // algorithms may fit fewer kinds than the model: HPF's BBVI fits ratings, not corpora).
    std::vector<const AlgorithmEntry*> comparisonGroup(const std::string& model,
                                                       bool withBaselines = false,
                                                       const std::string& dataKind = {}) const;
    // Every metric the entries of `models` declare, once each, in declaration order (Compare's
    // columns when it runs several models); with `dataKind`, only those reported on that kind
    // (the window's metric menu: the first is the one its chart shows first).
    std::vector<MetricSpec> metricsOf(const std::vector<std::string>& models,
                                      const std::string& dataKind = {}) const;

private:
    std::vector<AlgorithmEntry> m_entries;
    std::vector<TableGenerator> m_generators;
    std::vector<DataKindSpec> m_dataKinds;
    std::vector<Preset> m_presets;
    std::map<std::string, std::string> m_defaultAlgorithms; // model → algorithm
};

} // namespace svi
