#include "core/models/lgm/lgm_entries.h"

namespace svi {

std::vector<MetricSpec> supervisedMetrics()
{
    return {
        {"test_nll", "Test NLL per example", "nats", false, true},
        {"test_error", "Test error", "%", false, false},
        {"test_rmse", "Test RMSE", "", false, false},
    };
}

} // namespace svi
