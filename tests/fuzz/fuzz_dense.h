#pragma once
// What a table becomes before a model sees it (makeTableData with the default task: every
// channel, standardised, 5 % of entries held out): either a data set a model can train on, or
// std::invalid_argument naming the problem (no rows, no channel, …).

#include "core/data/table.h"
#include "tests/fuzz/fuzz_input.h"

#include <cmath>
#include <stdexcept>

namespace svi::fuzz {

inline void checkTableData(const Table& t)
{
    if (t.values.size() > 200000) // keep an execution short; the readers are the target
        return;
    DenseDataPtr d;
    if (!expectOnly<std::invalid_argument>([&] { d = makeTableData(t, TableOptions{}); }))
        return;
    require(d->rows() >= 1 && d->cols() >= 1, "a data set has rows and columns");
    require(d->roles.rows() == d->rows() && d->roles.cols() == d->cols(), "one role per entry");
    for (std::int64_t i = 0; i < d->rows(); ++i)
        for (int j = 0; j < d->cols(); ++j)
            if (d->observed(i, j) || d->heldOut(i, j))
                require(std::isfinite(d->values(i, j)), "observed and held-out values are finite");
}

} // namespace svi::fuzz
