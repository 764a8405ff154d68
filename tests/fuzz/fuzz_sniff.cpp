// Any file, recognised by its content (recogniseFile; the input has no suffix, so no name breaks
// a tie) and read by the loader of the kind found, as the window and `svi` read what they open.

#include "core/data/corpus.h"
#include "core/data/ratings.h"
#include "core/io/corpus_files.h"
#include "core/io/data_files.h"
#include "core/io/graph_files.h"
#include "core/io/image_file.h"
#include "core/io/labelled_files.h"
#include "core/io/ratings_files.h"
#include "core/io/sniff.h"
#include "tests/fuzz/fuzz_input.h"

#include <string_view>

using namespace svi;
using namespace svi::fuzz;

namespace {

// The input, for `load`: a message may quote a field of the file, so a file that itself holds a
// loader's wording cannot tell that loader's refusal from an echo of its content.
std::string_view input;

// Runs the loader; its DataError must be its own, not the message of a loader that finds the
// file is of another kind (`foreign`).
void load(const std::function<void()>& loader, const char* foreign, const char* what)
{
    try {
        loader();
    } catch (const DataError& e) {
        if (input.find(foreign) == std::string_view::npos)
            require(std::string(e.what()).find(foreign) == std::string::npos, what);
    } catch (const std::exception& e) {
        finding(std::string("a loader threw other than DataError: ") + e.what());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    input = {reinterpret_cast<const char*>(data), size};
    const std::string path = writeInput("input", input);
    FileFormat format;
    try {
        format = recogniseFile(path);
    } catch (const std::exception& e) {
        finding(std::string("recogniseFile threw on a file that exists: ") + e.what());
    }
    require(!format.name.empty(), "what was recognised has a name");
    require(dataFileKind(path) == format.kind && guessFileKind(path) == format.kind,
            "dataFileKind and guessFileKind say what recogniseFile says");
    require(corpusFormatOf(path).has_value() == (format.kind == DataFileKind::Corpus),
            "corpusFormatOf finds a corpus exactly when recogniseFile does");
    switch (format.kind) {
    case DataFileKind::Fcs:
    case DataFileKind::Delimited:
        load([&] { loadTable({path}); }, "' as a table: ", "loadTable reads what is a table");
        break;
    case DataFileKind::Corpus:
        load([&] { loadCorpus({path}); }, "cannot be read together", "loadCorpus reads a corpus");
        break;
    case DataFileKind::Ratings:
        require(ratingsFormatOf(path).has_value(), "ratingsFormatOf finds the ratings' layout");
        load([&] { loadRatings(path); }, "not a ratings file", "loadRatings reads them");
        break;
    case DataFileKind::Image:
        load([&] { loadGrayImage(path); }, "not an image", "loadGrayImage reads an image");
        break;
    case DataFileKind::Gml:
        load([&] { readGraphFile(path); }, "it is not a graph", "readGraphFile reads GML");
        break;
    case DataFileKind::Libsvm:
        load([&] { readLabelledFiles({path}, {}); },
             "' as a table: ", "readLabelledFiles reads LIBSVM text");
        break;
    case DataFileKind::Unknown:
        load([&] { loadTable({path}); }, "' as a table: it is", "loadTable says it is no kind");
        break;
    }
    // Delimited text laid out as a graph is read as one too.
    if (format.graph != GraphLayout::None)
        load([&] { readGraphFile(path); }, "it is not a graph", "readGraphFile reads a graph");
    return 0;
}
