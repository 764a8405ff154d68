#pragma once
// The registry of (model, algorithm) pairs. Each entry declares what data it accepts and its
// parameters, and builds a Trainer. Everything user-facing is generated from it.

#include "core/data/count_data.h"
#include "core/data/dense_data.h"
#include "core/run/params.h"
#include "core/run/trainer.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace svi {

enum class DataKind { Dense, Count };

// The data a trainer is built on: exactly one of the shapes is set.
struct DataSet
{
    DenseDataPtr dense;
    CountDataPtr counts;

    DataSet() = default;
    DataSet(DenseDataPtr d) : dense(std::move(d)) {}  // NOLINT: implicit on purpose
    DataSet(CountDataPtr c) : counts(std::move(c)) {} // NOLINT
    DataKind kind() const { return counts ? DataKind::Count : DataKind::Dense; }
    explicit operator bool() const { return dense || counts; }
    // The data in the shape `model` (a label for the message) needs; otherwise throws
    // std::invalid_argument "data: <model> models <kind>, not <the other kind>".
    const DenseDataPtr& requireDense(const std::string& model) const;
    const CountDataPtr& requireCounts(const std::string& model) const;
};

// "dense (real-valued rows)" / "counts (documents × words, users × items)", for messages.
std::string dataKindLabel(DataKind kind);

struct AlgorithmEntry
{
    std::string model;      // "bpfa"
    std::string modelLabel; // "Beta process factor analysis"
    std::string algorithm;  // "gibbs-ssvi"
    std::string label;      // "Gibbs-SSVI"
    std::string help;       // one line
    std::vector<DataKind> accepts;
    // Count data read as users × items ratings (a recommender) rather than documents × words.
    bool fitsRatings = false;
    // Its place among the algorithms Compare runs side by side for this model (1, 2, …, the
    // paper's comparison in its order); 0 = not compared.
    int compareRank = 0;
    std::vector<ParamSpec> params;
    // Builds a trainer from resolved parameters. May throw std::invalid_argument with a
    // message naming the field when the parameters do not fit the data (e.g. patch size).
    std::function<std::unique_ptr<Trainer>(const DataSet&, const ParamValues&, std::uint64_t seed)>
        make;
    bool acceptsKind(DataKind kind) const;
};

class Registry
{
public:
    // The registry of every built-in model. Built once, immutable, safe to read from any thread.
    static const Registry& builtin();

    void add(AlgorithmEntry entry);
    const std::vector<AlgorithmEntry>& entries() const { return m_entries; }
    // nullptr when absent.
    const AlgorithmEntry* find(const std::string& model, const std::string& algorithm) const;
    std::vector<std::string> models() const;
    // The first model, in registry order, for data of `kind` (counts as ratings or not); ""
    // when none takes it. The front ends' default model.
    std::string defaultModel(DataKind kind, bool ratings) const;
    // Whether `model` reads counts as ratings (a recommender).
    bool fitsRatings(const std::string& model) const;
    // The algorithms Compare runs for `model`, by compareRank; empty when it has none.
    std::vector<std::string> comparedAlgorithms(const std::string& model) const;

private:
    std::vector<AlgorithmEntry> m_entries;
};

} // namespace svi
