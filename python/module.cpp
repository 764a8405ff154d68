// The Python module `svi._svi`: the declarations (as the JSON `svi list --json` prints), runs
// and comparisons (python/run.h), run folders read back, and the image files the module writes
// for data given as arrays. The package svi (python/svi/__init__.py) builds the public API on
// it; nothing here names a model or a data kind.

#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/declarations_json.h"
#include "core/io/image_file.h"
#include "core/io/output_folder.h"
#include "core/io/run_folder.h"
#include "core/io/run_json.h"
#include "core/io/run_request.h"
#include "core/io/samples.h"
#include "core/io/tokenizer.h"
#include "core/models/builtin.h"
#include "core/run/run_description.h"
#include "python/convert.h"
#include "python/run.h"

#include <QCoreApplication>
#include <QImage>
#include <QJsonDocument>
#include <cstring>
#include <memory>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace svi;
using namespace svi::python;

namespace {

// Qt's image plugins and the cache folder the samples are copied to are found through a
// QCoreApplication, as in `svi`; one is made (named svi, so the cache is svi's) unless the
// process has one (a Qt application embedding Python).
void ensureApplication()
{
    if (QCoreApplication::instance())
        return;
    static int argc = 1;
    static char name[] = "svi";
    static char* argv[] = {name, nullptr};
    static QCoreApplication* app = new QCoreApplication(argc, argv);
    (void)app;
}

RunRequest requestOf(const std::vector<std::string>& files, const std::string& kind,
                     const std::string& model, const std::string& algorithm,
                     const std::string& preset,
                     const std::vector<std::pair<std::string, std::string>>& values)
{
    return RunRequest{files.empty() ? std::vector<std::string>{kDefaultImage} : files,
                      kind,
                      model,
                      algorithm,
                      preset,
                      values};
}

// The description a run of `request` gets, its data read and built.
PreparedRun prepared(const RunRequest& request)
{
    const RunDescription given = describeRun(request);
    const py::gil_scoped_release released;
    return prepareRun(given);
}

// An 8-bit (uint8) or 16-bit (uint16) grey image, or an 8-bit RGB one (height × width × 3),
// written as PNG for the image kind to read.
void writeImage(const py::array& array, const std::string& path)
{
    const py::buffer_info b = array.request();
    if (b.ndim != 2 && !(b.ndim == 3 && b.shape[2] == 3))
        throw std::invalid_argument("image: shape must be (height, width) or (height, width, 3)");
    const int h = int(b.shape[0]), w = int(b.shape[1]);
    QImage img;
    if (b.ndim == 2 && b.itemsize == 2) {
        img = QImage(w, h, QImage::Format_Grayscale16);
        const auto a = array.cast<py::array_t<std::uint16_t, py::array::c_style>>();
        for (int r = 0; r < h; ++r)
            std::memcpy(img.scanLine(r), a.data(r, 0), std::size_t(w) * 2);
    } else {
        const auto a = array.cast<py::array_t<std::uint8_t, py::array::c_style>>();
        img = QImage(w, h, b.ndim == 2 ? QImage::Format_Grayscale8 : QImage::Format_RGB888);
        const std::size_t row = std::size_t(w) * (b.ndim == 2 ? 1 : 3);
        for (int r = 0; r < h; ++r)
            std::memcpy(img.scanLine(r), a.data(r, 0), row);
    }
    if (!img.save(QString::fromStdString(path), "PNG"))
        throw DataError("cannot write '" + path + "'");
}

// The words of `text` as the corpus kind's reader of raw text finds them, with its settings
// (lowercase, min_length, stop_words, strip_headers, keep_subject) given as text.
std::vector<std::string> tokenize(const py::bytes& text,
                                  const std::vector<std::pair<std::string, std::string>>& values)
{
    const Tokenizer tokenizer(TokenizerOptions::fromParams(
        typedSettings(TokenizerOptions::allParams(), values, "a setting of the tokenizer")));
    const std::string_view bytes = text;
    const py::gil_scoped_release released;
    return tokenizer.tokenize(bytes);
}

py::object json(const QJsonArray& a)
{
    return pythonOf(QJsonDocument(a));
}

} // namespace

PYBIND11_MODULE(_svi, m)
{
    ensureApplication();
    m.doc() = "SVI Workbench's inference library (use the package svi)";
    m.attr("__version__") = SVI_VERSION;
    py::register_exception_translator([](std::exception_ptr e) {
        try {
            if (e)
                std::rethrow_exception(e);
        } catch (const DataError& x) {
            PyErr_SetString(PyExc_ValueError, plainSettingRefs(x.what()).c_str());
        } catch (const std::invalid_argument& x) {
            PyErr_SetString(PyExc_ValueError, plainSettingRefs(x.what()).c_str());
        }
    });

    m.def("registry", [] { return json(registryJson(builtinRegistry())); });
    m.def("data_kinds", [] { return json(dataKindsJson(builtinDataKinds())); });
    m.def("run_settings", [] { return json(paramsJson(runSettings())); });
    m.def("presets", [] { return json(presetsJson(builtinRegistry())); });
    m.def("samples", [] { return json(samplesJson()); });
    m.def("recognise", [](const std::vector<std::string>& files) {
        const Recognised r = recogniseData(files);
        return py::make_tuple(r.kind->key, r.format);
    });
    m.def(
        "describe",
        [](const std::vector<std::string>& files, const std::string& kind, const std::string& model,
           const std::string& algorithm, const std::string& preset,
           const std::vector<std::pair<std::string, std::string>>& values) {
            const PreparedRun p =
                prepared(requestOf(files, kind, model, algorithm, preset, values));
            py::dict d;
            d["run"] = pythonOf(QJsonDocument(runToJson(p.run)));
            d["data_summary"] = p.data.built.summary;
            return d;
        },
        "The run a call describes, resolved, with its data read (nothing is run).");
    m.def("run", [](const std::vector<std::string>& files, const std::string& kind,
                    const std::string& model, const std::string& algorithm,
                    const std::string& preset,
                    const std::vector<std::pair<std::string, std::string>>& values,
                    const std::string& out, const py::object& callback) {
        const PreparedRun p = prepared(requestOf(files, kind, model, algorithm, preset, values));
        return runPrepared(p, out, callback);
    });
    m.def("compare", [](const std::vector<std::string>& files, const std::string& kind,
                        const std::string& model, const std::string& preset,
                        const std::vector<std::pair<std::string, std::string>>& values,
                        const std::vector<std::string>& algorithms, bool baselines, int repeats,
                        const std::string& out, const py::object& callback) {
        return compareRuns(requestOf(files, kind, model, {}, preset, values), algorithms, baselines,
                           repeats, out, callback);
    });
    m.def("read_run_folder", [](const std::string& dir) {
        const RunFolder f = readRunFolder(QString::fromStdString(dir));
        py::dict d;
        d["trace"] = traceColumns(f.trace);
        d["model"] = f.model;
        d["algorithm"] = f.algorithm;
        d["label"] = f.label;
        d["termination"] = f.termination;
        d["message"] = f.message;
        return d;
    });
    m.def("compare_folder_runs", [](const std::string& dir) {
        std::vector<std::string> paths;
        for (const RunFolder& f : readCompareFolder(QString::fromStdString(dir)))
            paths.push_back(f.path.toStdString());
        return paths;
    });
    m.def("read_image", [](const std::string& path) { return numpyOf(loadGrayImage(path)); });
    m.def("write_image", &writeImage);
    m.def("tokenize", &tokenize);

    // A run folder claimed as `svi run --out` claims it (core/io/output_folder.h).
    py::class_<OutputFolder>(m, "OutputFolder")
        .def(py::init([](const std::string& dir, bool force) {
                 OutputFolder::Rules rules;
                 rules.force = force;
                 rules.hint = "choose another out=, or give force=True to replace it";
                 return std::make_unique<OutputFolder>(QString::fromStdString(dir), rules);
             }),
             py::arg("dir"), py::arg("force") = false)
        .def("start_writing", &OutputFolder::startWriting);
}
