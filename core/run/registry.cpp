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

const AlgorithmEntry* Registry::find(const std::string& model, const std::string& algorithm) const
{
    for (const AlgorithmEntry& e : m_entries)
        if (e.model == model && e.algorithm == algorithm)
            return &e;
    return nullptr;
}

std::string dataKindLabel(DataKind kind)
{
    return kind == DataKind::Count ? "counts (documents × words, users × items)"
                                   : "dense rows (image patches, cells, expression profiles)";
}

const DenseDataPtr& DataSet::requireDense(const std::string& model) const
{
    if (!dense)
        throw std::invalid_argument("data: " + model + " models " + dataKindLabel(DataKind::Dense) +
                                    ", not " + dataKindLabel(kind()));
    return dense;
}

const CountDataPtr& DataSet::requireCounts(const std::string& model) const
{
    if (!counts)
        throw std::invalid_argument("data: " + model + " models " + dataKindLabel(DataKind::Count) +
                                    ", not " + dataKindLabel(kind()));
    return counts;
}

bool AlgorithmEntry::acceptsKind(DataKind kind) const
{
    return std::find(accepts.begin(), accepts.end(), kind) != accepts.end();
}

std::vector<std::string> Registry::models() const
{
    std::vector<std::string> out;
    for (const AlgorithmEntry& e : m_entries)
        if (std::find(out.begin(), out.end(), e.model) == out.end())
            out.push_back(e.model);
    return out;
}

std::string Registry::defaultModel(DataKind kind, bool ratings) const
{
    for (const AlgorithmEntry& e : m_entries)
        if (e.acceptsKind(kind) && (kind != DataKind::Count || e.fitsRatings == ratings))
            return e.model;
    return {};
}

bool Registry::fitsRatings(const std::string& model) const
{
    return std::any_of(m_entries.begin(), m_entries.end(),
                       [&](const AlgorithmEntry& e) { return e.model == model && e.fitsRatings; });
}

std::vector<std::string> Registry::comparedAlgorithms(const std::string& model) const
{
    std::vector<const AlgorithmEntry*> compared;
    for (const AlgorithmEntry& e : m_entries)
        if (e.model == model && e.compareRank > 0)
            compared.push_back(&e);
    std::stable_sort(compared.begin(), compared.end(),
                     [](const auto* a, const auto* b) { return a->compareRank < b->compareRank; });
    std::vector<std::string> out;
    for (const AlgorithmEntry* e : compared)
        out.push_back(e->algorithm);
    return out;
}

} // namespace svi
