// FCS files (readFcs, as `svi info` and the window read them) and two files stacked
// (readFcsFiles), from any bytes.

#include "core/io/fcs_file.h"
#include "tests/fuzz/fuzz_dense.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("input.fcs", {reinterpret_cast<const char*>(data), size});
    FcsFile meta, file;
    if (!expectOnly([&] { meta = readFcs(path, false); }))
        return 0;
    require(meta.table.rows() == 0, "metadata only: no values");
    require(int(meta.names.size()) == meta.parameters &&
                int(meta.markers.size()) == meta.parameters,
            "one name and one marker per parameter");
    if (!expectOnly([&] { file = readFcs(path, true); }))
        return 0;
    require(file.parameters == meta.parameters && file.events == meta.events,
            "the metadata do not depend on reading the data");
    require(file.table.rows() == file.events && file.table.cols() == file.parameters,
            "events × parameters values");
    require(file.table.columns == file.names, "columns are the $PnN names");
    // The values read lie inside the file, after the HEADER (the DATA segment's end may point a
    // little past the data, even past the end of the file, which readFcs notes and tolerates).
    std::int64_t eventBytes = 0;
    for (int b : file.bits)
        eventBytes += b / 8;
    require(file.events == 0 || (file.dataBegin >= 58 &&
                                 file.dataBegin + file.events * eventBytes <= std::int64_t(size)),
            "the data read lie inside the file");
    for (const std::string& n : file.names)
        require(!n.empty(), "names are never empty");
    (void)isMassCytometry(file);
    checkTableData(file.table);
    Table stacked;
    if (expectOnly([&] { stacked = readFcsFiles({path, path}); }))
        require(stacked.rows() == 2 * file.events && stacked.cols() == file.parameters,
                "a file stacked on itself has twice its rows");
    return 0;
}
