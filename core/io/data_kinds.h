#pragma once
// The built-in data kinds (images, tables, synthetic data, corpora, ratings: core/io/kinds/)
// and what both front ends do with a data description: recognise the kind of its files by
// their content, read them, and build the data set. Any thread.

#include "core/run/data_kinds.h"
#include "core/run/registry.h"

#include <memory>
#include <string>
#include <vector>

namespace svi {

// Every built-in kind, in the order recognition tries them. Built once; immutable.
const DataKinds& builtinDataKinds();

struct Recognised
{
    const DataKindSpec* kind = nullptr;
    std::string format; // "FCS 3.1", "PNG image", …
};

// The kind of `files` (the first decides; the others must be of the same kind, and several
// files only where the kind takes several). Throws DataError naming the file, and listing the
// kinds with their formats when none recognises it.
Recognised recogniseData(const std::vector<std::string>& files,
                         const DataKinds& kinds = builtinDataKinds());

// The kinds that can read `files` when asked for (the first file decides): the one recognising
// it first, then every other whose reads() accepts it, in recognition order; empty when none or
// when the file cannot be probed. For the window's "Read as" choice.
std::vector<const DataKindSpec*> kindsThatRead(const std::vector<std::string>& files,
                                               const DataKinds& kinds = builtinDataKinds());

// `description` with its kind recognised when empty. Throws as recogniseData.
DataDescription withKind(DataDescription description, const DataKinds& kinds = builtinDataKinds());

// `description` with its kind chosen, when empty, for a run of `model` (with `algorithm`; any
// of the model's when empty): the recognised kind when the model takes it; else the first
// other kind that reads the files (kindsThatRead) and that the model takes (a CSV with a label
// column, a table by its content, read as Labelled data for the Bayesian GLM); else the
// recognised kind, which resolveRun then refuses saying what to do. A kind already set is kept
// (it was chosen), and an unknown or empty model changes nothing. Throws as recogniseData.
DataDescription withKindFor(DataDescription description, const std::string& model,
                            const std::string& algorithm, const DataKinds& kinds,
                            const Registry& registry);
// With the built-in kinds and registry.
DataDescription withKindFor(DataDescription description, const std::string& model,
                            const std::string& algorithm = {});

// What a run of `model` on `data` says of its kind: when the files' content is recognised as a
// kind the model does not take and `data` is read as another, "read as Labelled data: Bayesian
// GLM does not model Table data" (withKindFor chose it); "" otherwise. Any front end shows it
// with the data's summary.
std::string kindNote(const DataDescription& data, const std::string& model,
                     const std::string& algorithm = {});

// `given` completed with what `raw` suggests for the settings it does not hold (a CyTOF file's
// arcsinh cofactor, the held-out share usual for such data).
ParamValues withSuggestions(const RawData& raw, ParamValues given);

struct PreparedData
{
    DataDescription data; // kind set, every setting present
    std::shared_ptr<const RawData> raw;
    BuiltData built;
};

// Reads the files of `given` (its kind recognised when empty; the settings it holds, the
// declared defaults for the rest), completes the settings with what the data suggest for those
// not given, and builds the data set. Both front ends prepare data so. Throws DataError /
// std::invalid_argument naming the file or the setting ("data.settings.missing = 2, but …").
// With `ranks` of several ranks (a distributed run; collective), each reads only its part of
// the files where the kind and the format allow it (DataKindSpec::readPart).
PreparedData prepareData(const DataDescription& given, const DataKinds& kinds = builtinDataKinds(),
                         Communicator* ranks = nullptr);

// What the one file of `given` holds (`svi info`): its kind recognised when empty, the settings
// it holds and the declared defaults for the rest, then the kind's inspect(). Throws as
// prepareData, and DataError when several files are given.
DataReport inspectData(const DataDescription& given, const DataKinds& kinds = builtinDataKinds());

// The kind of a resolved description; throws std::invalid_argument when it is unknown.
const DataKindSpec& kindOf(const DataDescription& description,
                           const DataKinds& kinds = builtinDataKinds());

// "1,234,567", for summaries.
std::string groupedNumber(std::int64_t n);

} // namespace svi
