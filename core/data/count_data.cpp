#include "core/data/count_data.h"

#include <algorithm>

namespace svi {

bool CountData::isTestRow(std::int64_t r) const
{
    return std::binary_search(testRows.begin(), testRows.end(), r);
}

void CountData::finalise()
{
    m_trainingRows.clear();
    m_trainingRows.reserve(std::size_t(rows()) - testRows.size());
    std::size_t t = 0;
    for (std::int64_t r = 0; r < rows(); ++r) {
        while (t < testRows.size() && testRows[t] < r)
            ++t;
        if (t < testRows.size() && testRows[t] == r)
            continue;
        m_trainingRows.push_back(r);
    }
}

} // namespace svi
