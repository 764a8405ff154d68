// Delimited tables (CSV, TSV, semicolon; plain or gzip, recognised by content), read as the
// data (readTableFile) and inspected as `svi info` does (inspectTableFile), both ways round.

#include "core/io/table_file.h"
#include "tests/fuzz/fuzz_dense.h"

#include <cmath>

using namespace svi;
using namespace svi::fuzz;

namespace {

void check(const std::string& path, bool transpose)
{
    TableReadOptions o;
    o.transpose = transpose;
    Table t;
    if (!expectOnly([&] { t = readTableFile(path, o); }))
        return;
    require(int(t.columns.size()) == t.cols() && int(t.markers.size()) == t.cols(),
            "one name and one marker per column");
    require(t.rowNames.empty() || std::int64_t(t.rowNames.size()) == t.rows(),
            "no row names or one per row");
    for (const std::string& c : t.columns)
        require(!c.empty(), "column names are never empty");
    for (Eigen::Index i = 0; i < t.values.size(); ++i) {
        const float v = t.values.data()[i];
        require(std::isnan(v) || std::isfinite(v), "values are finite or missing (NaN)");
    }
    // A file that reads is one whose shape svi info can tell, and the two agree.
    TableFileInfo info;
    expectOnly([&] { info = inspectTableFile(path, o); });
    require(info.rows == t.rows() && info.cols == t.cols() && info.columns == t.columns,
            "inspectTableFile agrees with readTableFile");
    if (!transpose)
        checkTableData(t);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("input.csv", {reinterpret_cast<const char*>(data), size});
    check(path, false);
    check(path, true);
    return 0;
}
