#include "core/models/lgm/lgm_entries.h"

namespace svi {

std::vector<MetricSpec> supervisedMetrics()
{
    return {
        {.key = "test_nll",
         .label = "Test NLL per example",
         .unit = "nats",
         .higherIsBetter = false,
         .headline = true,
         .shortLabel = "Test NLL"},
        {"test_error", "Test error", "%", false, false},
        {"test_rmse", "Test RMSE", "", false, false},
    };
}

} // namespace svi
