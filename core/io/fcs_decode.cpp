#include "core/io/fcs_decode.h"

#include <cmath>

namespace svi::fcs {

void linearise(Table& table, const std::vector<IntColumn>& cols, std::vector<std::string>& notes)
{
    std::string names;
    for (std::size_t c = 0; c < cols.size(); ++c) {
        const LogScale& s = cols[c].log;
        if (s.decades <= 0 || s.range <= 0)
            continue;
        const double perUnit = s.decades / s.range;
        auto column = table.values.col(Eigen::Index(c));
        for (Eigen::Index r = 0; r < column.size(); ++r)
            column[r] = float(s.offset * std::pow(10.0, perUnit * double(column[r])));
        names += (names.empty() ? "" : ", ") + table.columns[c];
    }
    if (!names.empty())
        notes.push_back("log-amplified parameters ($PnE) made linear, f2·10^(f1·x/$PnR): " + names);
}

} // namespace svi::fcs
