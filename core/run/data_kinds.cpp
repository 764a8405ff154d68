#include "core/run/data_kinds.h"

#include <algorithm>
#include <stdexcept>

namespace svi {

void DataKinds::add(DataKindSpec kind)
{
    if (find(kind.key))
        throw std::invalid_argument("DataKinds::add: " + kind.key + " is already declared");
    m_kinds.push_back(std::move(kind));
}

const DataKindSpec* DataKinds::find(const std::string& key) const
{
    for (const DataKindSpec& k : m_kinds)
        if (k.key == key)
            return &k;
    return nullptr;
}

std::string DataKinds::keys() const
{
    std::string out;
    for (const DataKindSpec& k : m_kinds)
        out += (out.empty() ? "" : ", ") + k.key;
    return out;
}

} // namespace svi
