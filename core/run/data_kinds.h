#pragma once
// Data kinds: what a file holds (an image, a table, a corpus, ratings, …), declared once. Each
// kind says how its files are recognised (by their content), which task settings it has
// (declared as parameters: the window's form, the command line's flags and the JSON keys come
// from them), how it reads its files and builds the data set (with its held-out split), which
// model it suggests and which views the window offers for it. The front ends are generated
// from these declarations and never branch on a kind.
//
// No Qt: the built-in kinds, which use the Qt readers, are declared in core/io/kinds/ and
// listed by builtinDataKinds() (core/io/data_kinds.h).

#include "core/base/communicator.h"
#include "core/base/params.h"
#include "core/data/data_set.h"
#include "core/run/memory_need.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace svi {

// What the data of a run are: the files, their kind and the kind's task settings.
struct DataDescription
{
    std::vector<std::string> files; // a file or folder each; ":/…" for embedded resources
    std::string kind;               // a data kind's key; "" until recognised
    ParamValues settings;           // the kind's settings, resolved against its declarations
    bool operator==(const DataDescription&) const = default;
};

// A view the window offers for a run on the kind's data.
enum class DataView {
    Image,           // the corrupted and reconstructed image, the dictionary atoms
    Loadings,        // features × columns heat map
    Topics,          // top words per topic
    Recommendations, // a user's top items
    Weights,         // the posterior over a supervised model's weights: mean ± 2 sd with feature
                     // names
    Graph            // the adjacency matrix ordered by community, the predicted links beside it
};

// The data as read from the files, before the task settings that select, transform and split:
// what the window keeps while the settings are edited. Immutable once read; any thread.
class RawData
{
public:
    virtual ~RawData() = default;
    // One line on what was read: "512×512 grey image", "3 FCS files, 104,184 events × 40
    // channels".
    virtual std::string summary() const = 0;
    // The names a Names setting picks from (a table's channels), with the ones ticked by
    // default; empty for other keys.
    struct Name
    {
        std::string name;
        std::string label; // "CD3 (Er170Di)"
        bool ticked = true;
    };
    virtual std::vector<Name> names(const std::string& settingKey) const
    {
        (void)settingKey;
        return {};
    }
    // Settings the data suggest once read (a CyTOF file's arcsinh cofactor 5, the held-out
    // share usual for such data), used for the settings the user did not give; empty when none.
    virtual ParamValues suggestedSettings() const { return {}; }
    // Settings that do not apply to these files (a counts file is not tokenized; an FCS file
    // is not transposed): the window hides them; their values are kept but change nothing.
    virtual std::vector<std::string> ignoredSettings() const { return {}; }
};

// A data set built for a run, with what the front ends say of it.
struct BuiltData
{
    DataSet data;
    std::string summary; // "40 × 40 patches of 8×8 · 80 % missing", for the window and stderr
    // Counts worth keeping with the results ("users" 943, "test" 18,859, …): summary.json.
    std::vector<std::pair<std::string, double>> facts;
};

// What recognition saw of a file, read once for all the kinds (core/io fills it).
struct FileProbe
{
    std::string path;
    // What its content is: "fcs", "delimited", "corpus", "ratings", "libsvm", "image"; "" when it
    // is none of these or cannot be read.
    std::string content;
    std::string format; // what exactly was recognised: "FCS 3.0", "gzip'd CSV", "PNG image"
};

// One line of what a file holds (`svi info`): a count, a number, a flag, a text or a list under
// a key (the JSON key) and a label (the text's). The front ends render the lines without
// knowing the kind.
struct InfoLine
{
    using Value = std::variant<std::int64_t, double, bool, std::string, std::vector<std::string>,
                               std::vector<double>>;
    std::string key;   // "rows", "byte_order"
    std::string label; // "rows", "byte order"
    Value value;
    std::string note; // after a value outside a table in the text: a unit ("events"), a remark
    // Lists with the same table name are the columns of one table in the text, a row per item
    // (a file's channels: names, markers, bits); in JSON each stays a list under its key. ""
    // for a line of its own.
    std::string table;
};

// What a file holds, as its kind tells: the format, the counts a person checks, the names.
struct DataReport
{
    std::vector<InfoLine> lines; // keys unique, none "path" or "kind" (the front ends add them)
};

struct DataKindSpec
{
    std::string key;     // "image": the JSON value, --kind, the registry entries' dataKinds
    std::string label;   // "Image"
    std::string task;    // "inpainting: removed pixels are restored and scored by PSNR"
    std::string formats; // "PNG, JPEG, BMP, TIFF, … (any image Qt reads)", for help and messages
    std::vector<ParamSpec> settings; // the task settings
    // Settings that change what read() returns (the rest only change build()).
    std::vector<std::string> readSettings;
    bool severalFiles = false; // whether several files make one data set (FCS runs)
    std::string defaultModel;  // a registry model key
    std::vector<DataView> views;

    // Whether the probed file is of this kind (by its content; the probe says what it is).
    std::function<bool(const FileProbe& probe)> recognise;
    // Whether it can read the probed file when asked for by name (--kind, the window's "Read
    // as"), beyond the files it recognises (a CSV with a label column is a table unless read as
    // labelled data); unset: only those it recognises.
    std::function<bool(const FileProbe& probe)> reads;
    // Reads the files. Throws DataError naming the file (and line, field) on bad input.
    std::function<std::shared_ptr<const RawData>(const DataDescription&)> read;
    // For a distributed run: reads only this rank's part of the files, where their format
    // allows it (one document per line, …), returning nullptr where it does not (read() then
    // reads them whole); build() then builds the same split as from the whole files, the data
    // holding only this rank's rows (CountData::heldRows). Collective: every rank calls it, and
    // build() after it. Unset for a kind that reads its files whole.
    std::function<std::shared_ptr<const RawData>(const DataDescription&, Communicator& ranks)>
        readPart;
    // Builds the data set (selection, transforms, held-out split) from what read() returned.
    // Throws DataError / std::invalid_argument naming the field on settings that do not fit.
    std::function<BuiltData(const RawData&, const DataDescription&)> build;
    // Says what the one file of the description holds (`svi info`), read as read() would with
    // the same settings, down to the last byte so that a truncated file is reported. Throws as
    // read().
    std::function<DataReport(const DataDescription&)> inspect;
    // Writes the built data's held-out split into the folder `dir` in formats other tools
    // read (`svi split`), returning a line on what was written; unset when the kind has none.
    std::function<std::string(const BuiltData&, const std::string& dir)> writeSplit;
    // For a kind that draws its data from its settings: the memory read() and build() will
    // take (core/run/memory_need.h), checked before they run. Unset when files decide it.
    std::function<std::vector<MemoryTerm>(const DataDescription&)> memory;
};

// The list of kinds, in the order recognition tries them.
class DataKinds
{
public:
    void add(DataKindSpec kind);
    const std::vector<DataKindSpec>& all() const { return m_kinds; }
    // nullptr when absent.
    const DataKindSpec* find(const std::string& key) const;
    // "image, table, corpus, ratings".
    std::string keys() const;

private:
    std::vector<DataKindSpec> m_kinds;
};

} // namespace svi
