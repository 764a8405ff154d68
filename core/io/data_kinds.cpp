#include "core/io/data_kinds.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/data_folder.h"
#include "core/io/kinds/kinds.h"
#include "core/io/sniff.h"
#include "core/models/builtin.h"

#include <QLocale>
#include <QString>
#include <algorithm>
#include <stdexcept>

namespace svi {

const DataKinds& builtinDataKinds()
{
    static const DataKinds kinds = [] {
        DataKinds k;
        // Recognition tries them in this order: the names of data drawn by the models first
        // (no file has them), then the most specific content first.
        const Registry& models = builtinRegistry();
        k.add(kinds::synthetic(models.generators()));
        for (const DataKindSpec& drawn : models.dataKinds())
            k.add(drawn);
        // The kinds read from files read folders by what the folder holds (data_folder.h).
        k.add(readingFolders(kinds::ratings()));
        k.add(readingFolders(kinds::corpus()));
        k.add(readingFolders(kinds::labelled()));
        k.add(readingFolders(kinds::graph())); // before table: a square 0/1 matrix is a graph
        k.add(readingFolders(kinds::table()));
        k.add(readingFolders(kinds::image()));
        return k;
    }();
    return kinds;
}

namespace {

std::string contentName(const FileFormat& f)
{
    switch (f.kind) {
    case DataFileKind::Fcs:
        return "fcs";
    case DataFileKind::Delimited:
        return f.graph != GraphLayout::None ? "graph" : "delimited";
    case DataFileKind::Gml:
        return "graph";
    case DataFileKind::Corpus:
        return "corpus";
    case DataFileKind::Ratings:
        return "ratings";
    case DataFileKind::Image:
        return "image";
    case DataFileKind::Libsvm:
        return "libsvm";
    case DataFileKind::Unknown:
        break;
    }
    return {};
}

// The file read once (recogniseFile); `error` holds why it could not be read, if it could not.
FileProbe probe(const std::string& path, std::string* error)
{
    FileProbe p{path, {}, {}};
    if (path == kStandardInput) { // read once, by the reader: it cannot be sniffed first
        if (error)
            *error = "'-' is standard input, which is read once: give its kind (--kind corpus)";
        return p;
    }
    try {
        const FileFormat f = recogniseFile(path);
        p.content = contentName(f);
        p.format = f.name;
    } catch (const DataError& e) {
        if (error)
            *error = e.what();
    }
    return p;
}

const DataKindSpec* kindOfProbe(const FileProbe& p, const DataKinds& kinds)
{
    for (const DataKindSpec& kind : kinds.all())
        if (kind.recognise(p))
            return &kind;
    return nullptr;
}

} // namespace

Recognised recogniseData(const std::vector<std::string>& files, const DataKinds& kinds)
{
    if (files.empty())
        throw DataError("no data file given");
    std::string error;
    const FileProbe first = probe(files.front(), &error);
    Recognised out{kindOfProbe(first, kinds), first.format};
    if (!out.kind && !error.empty())
        throw DataError(error); // cannot be read, and no kind takes it by its name
    if (!out.kind) {
        std::string list;
        for (const DataKindSpec& kind : kinds.all())
            list += "\n  " + kind.key + ": " + kind.formats;
        throw DataError("'" + files.front() +
                        "' is not a file of any kind the workbench reads; the kinds are:" + list);
    }
    if (out.format.empty())
        out.format = out.kind->label;
    if (files.size() > 1 && !out.kind->severalFiles)
        throw DataError("one " + out.kind->label + " file at a time ('" + files[1] + "' is extra)");
    for (std::size_t i = 1; i < files.size(); ++i) {
        const FileProbe other = probe(files[i], &error);
        if (!error.empty())
            throw DataError(error);
        if (!out.kind->recognise(other))
            throw DataError("'" + files[i] + "' is not " + out.kind->label + " data like '" +
                            files.front() + "' (" + out.format + ")");
    }
    return out;
}

std::vector<const DataKindSpec*> kindsThatRead(const std::vector<std::string>& files,
                                               const DataKinds& kinds)
{
    std::vector<const DataKindSpec*> out;
    if (files.empty())
        return out;
    std::string error;
    const FileProbe first = probe(files.front(), &error);
    if (!error.empty())
        return out;
    if (const DataKindSpec* k = kindOfProbe(first, kinds))
        out.push_back(k);
    for (const DataKindSpec& kind : kinds.all())
        if (std::find(out.begin(), out.end(), &kind) == out.end() && kind.reads &&
            kind.reads(first) && (files.size() == 1 || kind.severalFiles))
            out.push_back(&kind);
    return out;
}

DataDescription withKind(DataDescription d, const DataKinds& kinds)
{
    if (d.kind.empty())
        d.kind = recogniseData(d.files, kinds).kind->key;
    return d;
}

namespace {

// Whether `model` (its `algorithm`, or any of its algorithms) takes data of kind `kind`.
bool modelTakes(const Registry& registry, const std::string& model, const std::string& algorithm,
                const std::string& kind)
{
    for (const AlgorithmEntry* e : registry.algorithms(model))
        if ((algorithm.empty() || e->algorithm == algorithm) && e->fits(kind))
            return true;
    return false;
}

} // namespace

DataDescription withKindFor(DataDescription d, const std::string& model,
                            const std::string& algorithm, const DataKinds& kinds,
                            const Registry& registry)
{
    if (!d.kind.empty() || model.empty() || registry.algorithms(model).empty())
        return withKind(std::move(d), kinds);
    const DataKindSpec* recognised = recogniseData(d.files, kinds).kind;
    d.kind = recognised->key;
    if (modelTakes(registry, model, algorithm, d.kind))
        return d;
    for (const DataKindSpec* k : kindsThatRead(d.files, kinds))
        if (k != recognised && modelTakes(registry, model, algorithm, k->key)) {
            d.kind = k->key;
            break;
        }
    return d;
}

DataDescription withKindFor(DataDescription d, const std::string& model,
                            const std::string& algorithm)
{
    return withKindFor(std::move(d), model, algorithm, builtinDataKinds(), builtinRegistry());
}

std::string kindNote(const DataDescription& d, const std::string& model,
                     const std::string& algorithm)
{
    const Registry& registry = builtinRegistry();
    const DataKindSpec* chosen = builtinDataKinds().find(d.kind);
    const auto entries = registry.algorithms(model);
    if (!chosen || entries.empty() || d.files.empty())
        return {};
    std::string error;
    const DataKindSpec* content = kindOfProbe(probe(d.files.front(), &error), builtinDataKinds());
    if (!content || content == chosen || modelTakes(registry, model, algorithm, content->key))
        return {};
    return "read as " + chosen->label + " data: " + entries.front()->modelLabel +
           " does not model " + content->label + " data";
}

ParamValues withSuggestions(const RawData& raw, ParamValues given)
{
    for (const auto& [key, value] : raw.suggestedSettings())
        given.emplace(key, value);
    return given;
}

const DataKindSpec& kindOf(const DataDescription& d, const DataKinds& kinds)
{
    const DataKindSpec* kind = kinds.find(d.kind);
    if (!kind)
        throw std::invalid_argument(fieldError("data.kind", d.kind.empty() ? "\"\"" : d.kind,
                                               "must be one of: " + kinds.keys()));
    return *kind;
}

namespace {

ParamValues resolvedSettings(const DataKindSpec& kind, const ParamValues& given)
{
    auto resolved = resolveParams(kind.settings, given);
    if (auto* e = std::get_if<ParamError>(&resolved))
        throw std::invalid_argument("data.settings." + e->message);
    return std::get<ParamValues>(resolved);
}

// `d` with its kind recognised when empty, and that kind, checked to take as many files.
const DataKindSpec& recognisedKind(DataDescription& d, const DataKinds& kinds)
{
    d = withKind(std::move(d), kinds);
    const DataKindSpec& kind = kindOf(d, kinds);
    if (d.files.size() > 1 && !kind.severalFiles)
        throw DataError("one " + kind.label + " file at a time ('" + d.files[1] + "' is extra)");
    return kind;
}

} // namespace

PreparedData prepareData(const DataDescription& given, const DataKinds& kinds, Communicator* ranks)
{
    PreparedData out;
    out.data = given;
    const DataKindSpec& kind = recognisedKind(out.data, kinds);
    const ParamValues asGiven = out.data.settings;
    out.data.settings = resolvedSettings(kind, asGiven);
    if (kind.memory) { // data drawn from settings: checked before they are drawn
        const std::string why = memoryRefusal(kind.memory(out.data), availableMemory(),
                                              "the " + kind.label + " data asked for");
        if (!why.empty())
            throw DataError(why);
    }
    if (ranks && ranks->distributed() && kind.readPart)
        out.raw = kind.readPart(out.data, *ranks);
    if (!out.raw)
        out.raw = kind.read(out.data);
    out.data.settings = resolvedSettings(kind, withSuggestions(*out.raw, asGiven));
    out.built = kind.build(*out.raw, out.data);
    return out;
}

DataReport inspectData(const DataDescription& given, const DataKinds& kinds)
{
    if (given.files.size() > 1)
        throw DataError("one file at a time ('" + given.files[1] + "' is extra)");
    DataDescription d = given;
    const DataKindSpec& kind = recognisedKind(d, kinds);
    d.settings = resolvedSettings(kind, d.settings);
    return kind.inspect(d);
}

std::string groupedNumber(std::int64_t n)
{
    return QLocale(QLocale::English).toString(qlonglong(n)).toStdString();
}

} // namespace svi
