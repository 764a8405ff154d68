#pragma once
// Run folders written in tests as another process's `svi run --out` writes them: a short trace,
// and the trace file replaced atomically with more of it.

#include "core/io/run_files.h"
#include "core/run/runner.h"

#include <QString>
#include <cstddef>
#include <vector>

namespace test_support {

// `n` snapshots at steps every, 2·every, …: epochs 0.1·i, 0.5·i training seconds, an ELBO
// rising as −scale/i, and a PSNR of 20 + i.
inline std::vector<svi::Snapshot> psnrTrace(int n, int every, double scale)
{
    std::vector<svi::Snapshot> rows;
    for (int i = 1; i <= n; ++i) {
        svi::Snapshot s;
        s.step = std::int64_t(every) * i;
        s.epochs = 0.1 * i;
        s.trainSeconds = 0.5 * i;
        s.elbo = -scale / i;
        s.metrics["psnr"] = 20.0 + i;
        rows.push_back(s);
    }
    return rows;
}

// Writes the first `n` of `rows` as `folder`/trace.csv, replacing it by a rename.
inline void writeTracePrefix(const QString& folder, const std::vector<svi::Snapshot>& rows,
                             std::size_t n)
{
    const std::vector<svi::Snapshot> part(rows.begin(), rows.begin() + std::ptrdiff_t(n));
    svi::writeFileAtomically(folder + "/trace.csv", svi::traceCsv(part, svi::metricKeys(part)));
}

} // namespace test_support
