#include "core/math/assignment.h"

#include <limits>
#include <stdexcept>
#include <string>

namespace svi {

std::vector<int> minCostAssignment(const Eigen::MatrixXd& cost)
{
    const int n = int(cost.rows()), m = int(cost.cols());
    if (n > m)
        throw std::invalid_argument("minCostAssignment: cost is " + std::to_string(n) + "×" +
                                    std::to_string(m) + ", but needs rows ≤ columns");
    if (!cost.allFinite())
        throw std::invalid_argument("minCostAssignment: cost has NaN or infinite entries");
    const double inf = std::numeric_limits<double>::infinity();
    // 1-based: column 0 is a virtual column holding the row being inserted. Invariant: the
    // reduced costs cost(i, j) − u[i] − v[j] are ≥ 0, and 0 on matched pairs.
    std::vector<double> u(std::size_t(n) + 1, 0.0), v(std::size_t(m) + 1, 0.0), minv;
    std::vector<int> match(std::size_t(m) + 1, 0), way(std::size_t(m) + 1, 0); // match[j]: row
    std::vector<char> used;
    for (int i = 1; i <= n; ++i) {
        // Grow a shortest-path tree (Dijkstra on reduced costs) from row i until it reaches a
        // free column, then flip the matching along the path.
        match[0] = i;
        int j0 = 0;
        minv.assign(std::size_t(m) + 1, inf);
        used.assign(std::size_t(m) + 1, 0);
        do {
            used[std::size_t(j0)] = 1;
            const int i0 = match[std::size_t(j0)];
            double delta = inf;
            int j1 = 0;
            for (int j = 1; j <= m; ++j) {
                if (used[std::size_t(j)])
                    continue;
                const double reduced = cost(i0 - 1, j - 1) - u[std::size_t(i0)] - v[std::size_t(j)];
                if (reduced < minv[std::size_t(j)]) {
                    minv[std::size_t(j)] = reduced;
                    way[std::size_t(j)] = j0;
                }
                if (minv[std::size_t(j)] < delta) {
                    delta = minv[std::size_t(j)];
                    j1 = j;
                }
            }
            for (int j = 0; j <= m; ++j) {
                if (used[std::size_t(j)]) {
                    u[std::size_t(match[std::size_t(j)])] += delta;
                    v[std::size_t(j)] -= delta;
                } else {
                    minv[std::size_t(j)] -= delta;
                }
            }
            j0 = j1;
        } while (match[std::size_t(j0)] != 0);
        do {
            const int j1 = way[std::size_t(j0)];
            match[std::size_t(j0)] = match[std::size_t(j1)];
            j0 = j1;
        } while (j0 != 0);
    }
    std::vector<int> column(static_cast<std::size_t>(n), -1);
    for (int j = 1; j <= m; ++j)
        if (match[std::size_t(j)] != 0)
            column[std::size_t(match[std::size_t(j)] - 1)] = j - 1;
    return column;
}

} // namespace svi
