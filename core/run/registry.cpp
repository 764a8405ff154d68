#include "core/run/registry.h"

#include <algorithm>
#include <stdexcept>

namespace svi {

void Registry::add(AlgorithmEntry entry)
{
    if (find(entry.model, entry.algorithm))
        throw std::invalid_argument("Registry::add: " + entry.model + "/" + entry.algorithm +
                                    " is already registered");
    m_entries.push_back(std::move(entry));
}

void Registry::addGenerator(TableGenerator generator)
{
    for (const TableGenerator& g : m_generators)
        if (g.key == generator.key)
            throw std::invalid_argument("Registry::addGenerator: '" + g.key +
                                        "' is already registered");
    m_generators.push_back(std::move(generator));
}

void Registry::addDataKind(DataKindSpec kind)
{
    for (const DataKindSpec& k : m_dataKinds)
        if (k.key == kind.key)
            throw std::invalid_argument("Registry::addDataKind: '" + k.key +
                                        "' is already registered");
    m_dataKinds.push_back(std::move(kind));
}

void Registry::addPreset(Preset preset)
{
    const std::string where = "Registry::addPreset: '" + preset.key + "'";
    if (this->preset(preset.key))
        throw std::invalid_argument(where + " is already registered");
    const auto entries = algorithms(preset.model);
    if (entries.empty())
        throw std::invalid_argument(where + ": no model '" + preset.model + "' is registered");
    for (const auto& [key, value] : preset.params) {
        bool declared = false;
        for (const AlgorithmEntry* e : entries)
            for (const ParamSpec& p : e->params)
                if (p.key == key) {
                    declared = true;
                    if (const auto bad = checkParam(p, value))
                        throw std::invalid_argument(where + ": " + bad->message);
                }
        if (!declared)
            throw std::invalid_argument(where + ": no algorithm of " + preset.model +
                                        " declares the parameter '" + key + "'");
    }
    m_presets.push_back(std::move(preset));
}

const AlgorithmEntry* Registry::defaultAlgorithm(const std::string& model) const
{
    if (const auto it = m_defaultAlgorithms.find(model); it != m_defaultAlgorithms.end())
        return find(model, it->second);
    const auto all = algorithms(model);
    return all.empty() ? nullptr : all.front();
}

void Registry::setDefaultAlgorithm(const std::string& model, const std::string& algorithm)
{
    if (!find(model, algorithm))
        throw std::invalid_argument("Registry::setDefaultAlgorithm: " + model + "/" + algorithm +
                                    " is not registered");
    m_defaultAlgorithms[model] = algorithm;
}

const Preset* Registry::preset(const std::string& key) const
{
    for (const Preset& p : m_presets)
        if (p.key == key)
            return &p;
    return nullptr;
}

const AlgorithmEntry* Registry::find(const std::string& model, const std::string& algorithm) const
{
    for (const AlgorithmEntry& e : m_entries)
        if (e.model == model && e.algorithm == algorithm)
            return &e;
    return nullptr;
}

bool AlgorithmEntry::fits(const std::string& dataKind) const
{
    return std::find(dataKinds.begin(), dataKinds.end(), dataKind) != dataKinds.end();
}

const MetricSpec* AlgorithmEntry::headline(const std::map<std::string, double>& reported) const
{
    for (const MetricSpec& m : metrics)
        if (m.headline && reported.count(m.key))
            return &m;
    for (const MetricSpec& m : metrics)
        if (reported.count(m.key))
            return &m;
    return nullptr;
}

const MetricSpec* AlgorithmEntry::metric(const std::string& key) const
{
    for (const MetricSpec& m : metrics)
        if (m.key == key)
            return &m;
    return nullptr;
}

std::vector<std::string> Registry::models() const
{
    std::vector<std::string> out;
    for (const AlgorithmEntry& e : m_entries)
        if (std::find(out.begin(), out.end(), e.model) == out.end())
            out.push_back(e.model);
    return out;
}

std::vector<std::string> Registry::modelsFor(const std::string& dataKind) const
{
    std::vector<std::string> out;
    for (const AlgorithmEntry& e : m_entries)
        if (e.fits(dataKind) && std::find(out.begin(), out.end(), e.model) == out.end())
            out.push_back(e.model);
    return out;
}

std::vector<const AlgorithmEntry*> Registry::algorithms(const std::string& model) const
{
    std::vector<const AlgorithmEntry*> out;
    for (const AlgorithmEntry& e : m_entries)
        if (e.model == model)
            out.push_back(&e);
    return out;
}

std::vector<const AlgorithmEntry*> Registry::comparisonGroup(const std::string& model,
                                                             bool withBaselines,
                                                             const std::string& dataKind) const
{
    std::vector<const AlgorithmEntry*> out;
    for (const AlgorithmEntry* e : algorithms(model))
        if ((e->compareRank > 0 || withBaselines) && (dataKind.empty() || e->fits(dataKind)))
            out.push_back(e);
    // Ranked entries first, by rank; baselines (rank 0) after them, in registry order.
    std::stable_sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
        const int ra = a->compareRank > 0 ? a->compareRank : 1 << 30;
        const int rb = b->compareRank > 0 ? b->compareRank : 1 << 30;
        return ra < rb;
    });
    return out;
}

std::vector<MetricSpec> Registry::metricsOf(const std::vector<std::string>& models,
                                            const std::string& dataKind) const
{
    std::vector<MetricSpec> out;
    for (const std::string& model : models)
        for (const AlgorithmEntry* e : algorithms(model))
            for (const MetricSpec& m : e->metrics)
                if ((dataKind.empty() || (e->fits(dataKind) && m.reportedOn(dataKind))) &&
                    std::none_of(out.begin(), out.end(),
                                 [&](const MetricSpec& o) { return o.key == m.key; }))
                    out.push_back(m);
    return out;
}

} // namespace svi
