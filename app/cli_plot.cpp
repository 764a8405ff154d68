// 'svi plot' (the program svi-plot, which links the window's widgets so that svi need not): the
// ELBO or a metric of finished runs (run folders, or every run of a compare folder) against
// training seconds, steps or epochs, written as PNG or SVG by the window's own chart
// (ui/plot_view) and series (ui/trace_plot), offscreen.

#include "app/cli_parts.h"
#include "app/plot_command.h"
#include "core/io/run_folder.h"
#include "core/io/run_resume.h"
#include "core/io/table_file.h"
#include "core/models/builtin.h"
#include "ui/loadings_view.h" // divergingColor
#include "ui/matrix_view.h"
#include "ui/plot_view.h"
#include "ui/trace_plot.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLayout>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>

namespace svi::cli::detail {

namespace {

constexpr int kMinSide = 100, kMaxSide = 10000;

struct PlotArgs
{
    std::vector<std::string> folders;
    std::string out;
    std::string metric = "elbo";
    ui::TraceAxis axis = ui::TraceAxis::Seconds;
    bool logX = false;
    double yLo = std::numeric_limits<double>::quiet_NaN();
    double yHi = std::numeric_limits<double>::quiet_NaN();
    QSize size{900, 560};
    double scale = 2.0;
    std::optional<std::string> title;
    std::string table, yTitle, matrix;
    double range = 0.0; // --matrix: 0 = from the values
    bool quiet = false;
};

QSize parseSize(const std::string& text)
{
    const QString t = QString::fromStdString(text);
    const QStringList parts = t.split(QRegularExpression("[x×X]"));
    bool okW = false, okH = false;
    const int w = parts.size() == 2 ? parts[0].trimmed().toInt(&okW) : 0;
    const int h = parts.size() == 2 ? parts[1].trimmed().toInt(&okH) : 0;
    if (!okW || !okH || w < kMinSide || w > kMaxSide || h < kMinSide || h > kMaxSide)
        throw UsageError("--size = " + text + ", but must be WxH with whole W and H in [" +
                         std::to_string(kMinSide) + ", " + std::to_string(kMaxSide) +
                         "] (e.g. 900x560)");
    return {w, h};
}

PlotArgs parsePlotArgs(const std::vector<std::string>& args)
{
    PlotArgs a;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        const auto value = [&]() -> const std::string& {
            if (i + 1 >= args.size())
                throw UsageError("plot: " + arg + " needs a value");
            return args[++i];
        };
        if (arg == "--out") {
            a.out = value();
        } else if (arg == "--metric") {
            a.metric = value();
        } else if (arg == "--x") {
            const std::string& key = value();
            const auto axis = ui::traceAxisOf(key);
            if (!axis) {
                std::string keys;
                for (const ui::TraceAxisInfo& x : ui::traceAxes())
                    keys += (keys.empty() ? "" : ", ") + std::string(x.key);
                throw UsageError("--x = " + key + ", but must be one of " + keys);
            }
            a.axis = *axis;
        } else if (arg == "--log-x") {
            a.logX = true;
        } else if (arg == "--y-range") {
            // "LO,HI", either end may be left empty (",0.5": the lower end from the data).
            const std::string& text = value();
            const auto comma = text.find(',');
            if (comma == std::string::npos)
                throw UsageError("--y-range = " + text +
                                 ", but must be LO,HI (an end may be "
                                 "empty, e.g. 0.3,0.4 or ,0.5)");
            const std::string lo = text.substr(0, comma), hi = text.substr(comma + 1);
            if (!lo.empty())
                a.yLo = parseNumber("--y-range", lo);
            if (!hi.empty())
                a.yHi = parseNumber("--y-range", hi);
            if (std::isfinite(a.yLo) && std::isfinite(a.yHi) && !(a.yHi > a.yLo))
                throw UsageError("--y-range = " + text + ", but HI must be above LO");
        } else if (arg == "--size") {
            a.size = parseSize(value());
        } else if (arg == "--scale") {
            a.scale = parseNumber("--scale", value());
            if (!(a.scale >= 0.25 && a.scale <= 8))
                throw UsageError("--scale = " + args[i] + ", but must be in [0.25, 8]");
        } else if (arg == "--title") {
            a.title = value();
        } else if (arg == "--matrix") {
            a.matrix = value();
        } else if (arg == "--range") {
            a.range = parseNumber("--range", value());
            if (!(a.range > 0))
                throw UsageError("plot: --range must be > 0");
        } else if (arg == "--table") {
            a.table = value();
        } else if (arg == "--y-title") {
            a.yTitle = value();
        } else if (arg == "--quiet") {
            a.quiet = true;
        } else if (arg.size() > 1 && arg[0] == '-') {
            throw UsageError("plot: unknown option '" + arg + "' (see svi help plot)");
        } else {
            a.folders.push_back(arg);
        }
    }
    if (!a.matrix.empty() && (!a.folders.empty() || !a.table.empty()))
        throw UsageError("plot: --matrix draws one matrix; give no FOLDER or --table with it");
    if (!a.matrix.empty())
        return a;
    if (!a.table.empty() && !a.folders.empty())
        throw UsageError("plot: --table draws one table; give no FOLDER with it");
    if (a.folders.empty() && a.table.empty())
        throw UsageError("plot: no FOLDER given (a folder written by 'svi run --out' or "
                         "'svi compare --out'; see svi help plot)");
    if (a.out.empty())
        throw UsageError("plot: no --out FILE given (FILE.png or FILE.svg)");
    const QString suffix = QFileInfo(QString::fromStdString(a.out)).suffix().toLower();
    if (suffix != "png" && suffix != "svg")
        throw UsageError("--out '" + a.out + "': the figure is written as .png or .svg");
    if (a.metric.empty())
        throw UsageError("--metric needs a key (or elbo)");
    return a;
}

// A run to draw and how the legend may call it.
struct PlotRun
{
    RunFolder folder;
    QString shownPath;     // the folder as the user named it (a compare folder's run below it)
    QString compareFolder; // the compare folder as the user named it; empty for a run folder
};

// Runs drawn under one legend entry in one colour: the repeats (seeds) of one algorithm in a
// compare folder, or a run alone.
struct PlotGroup
{
    std::vector<std::size_t> runs; // indices into the runs
    QString shownPath;             // the compare folder, or the run's folder
};

// The runs of every FOLDER argument, each folder once.
std::vector<PlotRun> collectRuns(const std::vector<std::string>& folders)
{
    std::vector<PlotRun> runs;
    std::set<QString> seen;
    const auto add = [&](RunFolder&& f, const QString& shown, const QString& compare) {
        if (seen.insert(QFileInfo(f.path).canonicalFilePath()).second)
            runs.push_back({std::move(f), shown, compare});
    };
    for (const std::string& arg : folders) {
        QString path = QDir::cleanPath(QString::fromStdString(arg));
        const QFileInfo info(path);
        if (!info.exists())
            throw DataError("'" + arg + "': no such folder");
        if (info.isFile() && info.fileName() == kTraceFile)
            path = info.path();
        else if (!info.isDir())
            throw DataError("'" + arg +
                            "' is not a folder (give a folder written by 'svi run --out' or "
                            "'svi compare --out', or a run's trace.csv)");
        if (isRunFolder(path)) {
            add(readRunFolder(path), path, {});
            continue;
        }
        std::vector<RunFolder> compared = readCompareFolder(path);
        if (compared.empty())
            throw DataError("'" + arg +
                            "' holds no trace.csv and no run folder that does: not a folder "
                            "written by 'svi run --out' or 'svi compare --out'");
        for (RunFolder& f : compared) {
            const QString shown = path + "/" + QFileInfo(f.path).fileName();
            add(std::move(f), shown, path);
        }
    }
    return runs;
}

MetricSpec undeclared(const std::string& key, const std::string& label)
{
    MetricSpec m;
    m.key = key;
    m.label = label;
    return m;
}

// The declaration of `key`: the first run's registry entry that declares it, else any entry's,
// else the bare key (a trace column no model declares any more).
MetricSpec metricSpec(const std::string& key, const std::vector<PlotRun>& runs)
{
    for (const PlotRun& r : runs)
        if (const AlgorithmEntry* e = builtinRegistry().find(r.folder.model, r.folder.algorithm))
            if (const MetricSpec* m = e->metric(key))
                return *m;
    for (const MetricSpec& m : builtinRegistry().metricsOf(builtinRegistry().models()))
        if (m.key == key)
            return m;
    return undeclared(key, key);
}

// "elbo, mse (Held-out MSE), psnr (PSNR, full pass (dB))": what the traces hold, for messages.
std::string heldMetrics(const std::vector<PlotRun>& runs)
{
    std::set<std::string> keys;
    for (const PlotRun& r : runs) {
        const std::set<std::string> k = metricKeys(r.folder.trace);
        keys.insert(k.begin(), k.end());
    }
    std::string out = "elbo";
    for (const std::string& k : keys)
        out += ", " + k + " (" + metricTitle(metricSpec(k, runs)) + ")";
    return out;
}

// The repeats of one algorithm in one compare folder form a group; every other run is a group
// of its own. In the runs' order.
std::vector<PlotGroup> groupRuns(const std::vector<PlotRun>& runs)
{
    std::vector<PlotGroup> groups;
    std::map<QString, std::size_t> byKey;
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const PlotRun& r = runs[i];
        if (r.compareFolder.isEmpty() || r.folder.repeats <= 1) {
            groups.push_back({{i}, r.shownPath});
            continue;
        }
        const QString key = r.compareFolder + '\n' + QString::fromStdString(r.folder.model) + '\n' +
                            QString::fromStdString(r.folder.algorithm);
        const auto [it, added] = byKey.emplace(key, groups.size());
        if (added)
            groups.push_back({{}, r.compareFolder});
        groups[it->second].runs.push_back(i);
    }
    return groups;
}

// The legend: the algorithm's label for each group, and the folder where two groups would
// otherwise share a name.
std::vector<QString> legendNames(const std::vector<PlotRun>& runs,
                                 const std::vector<PlotGroup>& groups)
{
    const auto alike = [](const std::vector<QString>& names, std::size_t i) {
        return std::count(names.begin(), names.end(), names[i]) > 1;
    };
    const auto model = [&](std::size_t g) -> const std::string& {
        return runs[groups[g].runs.front()].folder.model;
    };
    std::vector<QString> names;
    names.reserve(groups.size());
    for (const PlotGroup& g : groups)
        names.push_back(QString::fromStdString(runs[g.runs.front()].folder.label));
    // Groups of different models with alike names: the model first ("GME H-MC-SSVI").
    std::vector<QString> out = names;
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (alike(names, i) && !model(i).empty())
            for (std::size_t j = 0; j < groups.size(); ++j)
                if (names[j] == names[i] && model(j) != model(i)) {
                    out[i] = QString::fromStdString(model(i)).toUpper() + " " + names[i];
                    break;
                }
    // Still alike: the shortest tail of the folder's path, as the user named it, that tells
    // them apart ("simple" for simple/gme-h-mc-ssvi beside optimal/gme-h-mc-ssvi), else all of it.
    const std::vector<QString> named = out;
    const auto tail = [&](std::size_t i, int parts) {
        const QString& shown = groups[i].shownPath;
        const QStringList p = QDir::cleanPath(shown).split('/', Qt::SkipEmptyParts);
        return p.size() <= parts ? shown : p.mid(p.size() - parts).join('/');
    };
    for (std::size_t i = 0; i < groups.size(); ++i) {
        if (!alike(named, i))
            continue;
        QString best = groups[i].shownPath;
        for (int parts = 1; parts <= 3; ++parts) {
            bool distinct = true;
            for (std::size_t j = 0; j < groups.size() && distinct; ++j)
                distinct = j == i || named[j] != named[i] || tail(j, parts) != tail(i, parts);
            if (distinct) {
                // The folder's own name alone, or its parent's when the name is shared.
                best = parts == 1 ? tail(i, 1) : tail(i, parts).section('/', 0, 0);
                break;
            }
        }
        out[i] += " (" + best + ")";
    }
    return out;
}

} // namespace

// A table's columns: the header's names, and per line after the first its points (x, y).
struct PlotTable
{
    std::vector<QString> names; // names[0] is x's
    std::vector<QVector<QPointF>> lines;
};

// Reads a table with the project's CSV reader (errors name the file, line and column); an
// empty cell is a missing point.
PlotTable readTable(const std::string& path)
{
    TableReadOptions o;
    o.delimiter = ',';
    o.rowNames = 0;
    const Table t = readTableFile(path, o);
    if (t.cols() < 2)
        throw UsageError("--table '" + path +
                         "': the header needs x's name and at least one "
                         "line's");
    PlotTable out;
    for (const std::string& c : t.columns)
        out.names.push_back(QString::fromStdString(c));
    out.lines.resize(std::size_t(t.cols() - 1));
    for (std::int64_t r = 0; r < t.rows(); ++r)
        for (int c = 1; c < t.cols(); ++c)
            if (std::isfinite(t.values(r, c)) && std::isfinite(t.values(r, 0)))
                out.lines[std::size_t(c - 1)].push_back(QPointF(t.values(r, 0), t.values(r, c)));
    return out;
}

// Lays the view out at the figure's size and writes it.
void saveView(ui::PlotView& view, const PlotArgs& a)
{
    const QString out = QString::fromStdString(a.out);
    const QString folder = QFileInfo(out).path();
    if (!QFileInfo(folder).isDir())
        makeFolder(folder);
    view.save(out, a.size, a.scale);
}

int plotTable(const PlotArgs& a)
{
    const PlotTable t = readTable(a.table);
    ui::PlotView view;
    view.resize(a.size);
    view.layout()->activate();
    view.setTitle(QString::fromStdString(a.title ? *a.title : std::string()));
    view.setAxisTitles(t.names[0], QString::fromStdString(a.yTitle));
    view.setLogX(a.logX);
    view.setYRange(a.yLo, a.yHi);
    int drawn = 0;
    view.beginUpdate();
    for (std::size_t c = 0; c < t.lines.size(); ++c) {
        if (t.lines[c].isEmpty())
            continue;
        ++drawn;
        view.setSeries(int(c) + 1, t.names[c + 1], ui::runColor(int(c) + 1), t.lines[c], {});
    }
    view.endUpdate();
    if (drawn == 0)
        throw UsageError("--table '" + a.table + "': no line has a value");
    saveView(view, a);
    if (!a.quiet)
        std::fprintf(stderr, "%s: %d line%s of '%s'\n", a.out.c_str(), drawn, drawn == 1 ? "" : "s",
                     a.table.c_str());
    return 0;
}

// A matrix CSV as a heatmap: the window's MatrixView with the loadings' diverging colours.
int plotMatrix(const PlotArgs& a)
{
    if (QFileInfo(QString::fromStdString(a.out)).suffix().toLower() != "png")
        throw UsageError("--matrix draws a PNG: --out must end in .png");
    TableReadOptions o;
    o.delimiter = ',';
    o.rowNames = 1;
    const Table t = readTableFile(a.matrix, o);
    if (t.rows() == 0 || t.cols() == 0)
        throw UsageError("--matrix '" + a.matrix + "': no values");
    double range = a.range;
    for (std::int64_t r = 0; r < t.rows() && !(a.range > 0); ++r)
        for (int c = 0; c < t.cols(); ++c)
            if (std::isfinite(t.values(r, c)) && (t.rows() != t.cols() || r != c))
                range = std::max(range, double(std::abs(t.values(r, c))));
    if (!(range > 0))
        range = 1.0;
    QImage cells(t.cols(), int(t.rows()), QImage::Format_RGB32);
    for (std::int64_t r = 0; r < t.rows(); ++r)
        for (int c = 0; c < t.cols(); ++c)
            cells.setPixelColor(c, int(r),
                                std::isfinite(t.values(r, c))
                                    ? ui::divergingColor(t.values(r, c) / range)
                                    : QColor(200, 200, 200));
    QStringList rows, cols;
    for (const std::string& n : t.rowNames)
        rows << QString::fromStdString(n);
    for (const std::string& n : t.columns)
        cols << QString::fromStdString(n);
    ui::MatrixView view;
    view.setCells(cells);
    view.setLabels(rows, cols);
    view.setTitle(QString::fromStdString(
        a.title ? *a.title
                : QFileInfo(QString::fromStdString(a.matrix)).completeBaseName().toStdString()));
    view.setColourBar([](double t) { return ui::divergingColor(2.0 * t - 1.0); },
                      QString::number(-range, 'g', 3), QString::number(range, 'g', 3));
    view.resize(a.size);
    const QString out = QString::fromStdString(a.out);
    if (!QFileInfo(QFileInfo(out).path()).isDir())
        makeFolder(QFileInfo(out).path());
    QByteArray png;
    QBuffer buffer(&png);
    buffer.open(QIODevice::WriteOnly);
    view.render(a.scale).save(&buffer, "PNG");
    writeFileAtomically(out, png);
    if (!a.quiet)
        std::fprintf(stderr, "%s: %lld × %d matrix of '%s'\n", a.out.c_str(),
                     static_cast<long long>(t.rows()), t.cols(), a.matrix.c_str());
    return 0;
}

int drawPlot(const std::vector<std::string>& args)
{
    const PlotArgs a = parsePlotArgs(args);
    if (!a.matrix.empty())
        return plotMatrix(a);
    if (!a.table.empty())
        return plotTable(a);
    std::vector<PlotRun> runs = collectRuns(a.folders);

    const bool elbo = a.metric == "elbo";
    MetricSpec spec = undeclared("elbo", "ELBO"); // a trace's own column, no metric
    if (!elbo) {
        const bool held = std::any_of(runs.begin(), runs.end(), [&](const PlotRun& r) {
            return metricKeys(r.folder.trace).count(a.metric) > 0;
        });
        if (!held)
            throw UsageError("--metric " + a.metric + ": no trace holds it; they hold " +
                             heldMetrics(runs));
        spec = metricSpec(a.metric, runs);
    }

    ui::PlotView view;
    // Laid out at the figure's size without being shown: long traces are thinned to the chart's
    // width (a few points per pixel column), as in the window.
    view.resize(a.size);
    view.layout()->activate();
    if (a.title)
        view.setTitle(QString::fromStdString(*a.title));
    else
        view.setTitle(QString::fromStdString(spec.label), QString::fromStdString(spec.shortLabel));
    const ui::TraceAxisInfo& x = ui::traceAxis(a.axis);
    view.setAxisTitles(QCoreApplication::translate("TracePlot", x.title),
                       QString::fromStdString(metricTitle(spec)),
                       QCoreApplication::translate("TracePlot", x.shortTitle),
                       QString::fromStdString(metricShortTitle(spec)));
    view.setXFromZero(true); // a run's clocks and counts start at 0
    view.setLogX(a.logX);
    view.setYRange(a.yLo, a.yHi);
    const std::vector<PlotGroup> groups = groupRuns(runs);
    const std::vector<QString> names = legendNames(runs, groups);
    int drawn = 0, lone = 0;
    view.beginUpdate();
    for (std::size_t g = 0; g < groups.size(); ++g) {
        for (std::size_t i : groups[g].runs) {
            const RunFolder& f = runs[i].folder;
            QString ending;
            if (f.termination == terminationName(TerminationReason::Diverged) ||
                f.termination == terminationName(TerminationReason::Failed))
                ending = QString::fromStdString(f.message.empty() ? f.termination : f.message);
            const ui::TraceSeries s =
                ui::traceSeries(f.trace, elbo ? std::string() : a.metric, a.axis, ending);
            if (s.empty()) {
                if (!a.quiet)
                    std::fprintf(stderr, "svi plot: note: '%s' has no '%s' values; not drawn\n",
                                 qPrintable(runs[i].shownPath), spec.key.c_str());
                continue;
            }
            ++drawn;
            lone += s.points.size() == 1;
            // One colour per group, by its place among the FOLDERs, drawn or not: the same
            // folders keep their colours from one metric's figure to the next. A repeat's
            // read-out says which seed it is.
            ui::PlotView::SeriesLook look{names[g], groups[g].runs.size() > 1};
            const QString name = look.thin ? names[g] + QString(" #%1").arg(f.repeat) : names[g];
            view.setSeries(int(i) + 1, name, ui::runColor(int(g) + 1), s.points, s.events, look);
        }
    }
    view.endUpdate();
    if (drawn == 0)
        throw UsageError("nothing to draw: no run has " + spec.key + " values (the traces hold " +
                         heldMetrics(runs) + ")");
    if (lone == drawn && !a.quiet)
        std::fprintf(stderr,
                     "svi plot: note: each run holds one '%s' value (a metric of the final "
                     "evaluation only, or a run of one snapshot): each is drawn as a marker "
                     "with its value\n",
                     spec.key.c_str());

    saveView(view, a);
    if (!a.quiet)
        std::fprintf(stderr, "%s: %s of %d run%s\n", a.out.c_str(), metricTitle(spec).c_str(),
                     drawn, drawn == 1 ? "" : "s");
    return 0;
}

} // namespace svi::cli::detail
