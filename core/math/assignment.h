#pragma once
// Minimum-cost assignment (the Hungarian method), for matching fitted components to true ones
// in recovery tests and reports (topics, dictionary atoms).

#include <Eigen/Core>
#include <vector>

namespace svi {

// Assigns each row of an n×m cost matrix (n ≤ m, finite costs) to a distinct column so that
// the total cost is minimal; returns the column of each row. O(n² m) time, O(n + m) memory
// (shortest augmenting paths with row and column potentials). Throws std::invalid_argument
// when n > m or a cost is not finite.
std::vector<int> minCostAssignment(const Eigen::MatrixXd& cost);

} // namespace svi
