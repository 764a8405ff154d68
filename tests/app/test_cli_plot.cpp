// 'svi plot' as a user runs it: real run and compare folders made by 'svi run' and
// 'svi compare', drawn as PNG and SVG by the window's chart code, offscreen; and bad input.

#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "tests/app/cli_testing.h"
#include "ui/trace_plot.h"

#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <cstdlib>
#include <set>
#include <tuple>

namespace {

using Result = test_support::CliResult;

// Runs svi in `dir` (relative paths keep the legend's folder names short), with `env` when
// given.
Result runSvi(const QStringList& args, const QString& dir,
              const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    return test_support::runCli(args, 120000, dir, env);
}

// The texts an SVG draws (titles, tick labels, legend), in drawing order.
QStringList svgTexts(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QString svg = QString::fromUtf8(f.readAll());
    QStringList out;
    static const QRegularExpression text("<text[^>]*>([^<]*)</text>");
    for (auto it = text.globalMatch(svg); it.hasNext();)
        out << it.next().captured(1);
    return out;
}

// Pixels of `img` within 40 of `c` in each channel.
int pixelsNear(const QImage& img, const QColor& c)
{
    int n = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor p = img.pixelColor(x, y);
            n += std::abs(p.red() - c.red()) < 40 && std::abs(p.green() - c.green()) < 40 &&
                 std::abs(p.blue() - c.blue()) < 40;
        }
    return n;
}

} // namespace

class TestCliPlot : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void help();
    void pngOfOneRun();
    void svgNamesTheMetricAndTheAxes();
    void severalFoldersAndACompareFolder();
    void columnWidthCutsNothing();
    void runsOfTwoModelsAreNamedByTheirModel();
    void runWithoutTheMetricIsLeftOut();
    void badInput_data();
    void badInput();
    void needsNoDisplay();
    void tableDrawsItsColumns();
    void matrixDrawsAHeatmap();

private:
    QString path(const QString& name) const { return m_dir.filePath(name); }
    QTemporaryDir m_dir;
};

void TestCliPlot::initTestCase()
{
    QVERIFY(m_dir.isValid());
    // A small crop of the test image, 6×6 patches, 8 features: each run takes a fraction of a
    // second; a snapshot every millisecond gives each trace several points.
    QImage coins(QString(SVI_TEST_DATA_DIR) + "/coins.png");
    QVERIFY(!coins.isNull());
    QVERIFY(coins.copy(100, 80, 48, 40).save(path("small.png")));
    const QStringList small = {"small.png", "--patch",      "6",     "--set",         "K=8",
                               "--set",     "minibatch=64", "--set", "eval_items=50", "--steps",
                               "30",        "--eval-every", "0.001", "--quiet"};
    for (const auto& [out, algorithm, seed] :
         {std::tuple{"run1", "mf-ssvi", "3"}, std::tuple{"run2", "mf-ssvi", "4"}}) {
        const Result r =
            runSvi(QStringList{"run"} + small +
                       QStringList{"--algorithm", algorithm, "--seed", seed, "--out", out},
                   m_dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
    // Compare's order (mf-svi first) is not the folders' name order (bpfa-mf-ssvi first).
    Result r =
        runSvi(QStringList{"compare"} + small +
                   QStringList{"--algorithms", "mf-svi,mf-ssvi", "--repeats", "2", "--out", "cmp"},
               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(QFile::exists(path("cmp/bpfa-mf-svi-r2/trace.csv")));
    // The batch sampler has no ELBO.
    r = runSvi({"run", "small.png", "--patch", "6", "--algorithm", "gibbs", "--set", "K=8",
                "--steps", "3", "--out", "gibbs", "--quiet"},
               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // The GLM's and GME's H-MC-SSVI on the first lines of a9a: alike labels of two models.
    const QString a9a = QString(SVI_TEST_DATA_DIR) + "/labelled/a9a_head200";
    for (const char* model : {"glm", "gme"}) {
        r = runSvi({"run", a9a, "--model", model, "--algorithm", "h-mc-ssvi", "--set",
                    "minibatch=50", "--set", "samples=2", "--steps", "20", "--eval-every", "0.001",
                    "--out", QString("lab-%1").arg(model), "--quiet"},
                   m_dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    }
}

void TestCliPlot::help()
{
    for (const QStringList& args : {QStringList{"help", "plot"}, QStringList{"plot", "--help"}}) {
        const Result r = runSvi(args, m_dir.path());
        QCOMPARE(r.exitCode, 0);
        for (const char* option : {"--metric", "--x", "--log-x", "--size", "--scale", "--out"})
            QVERIFY2(r.out.contains(option), option);
    }
    const Result r = runSvi({"--help"}, m_dir.path());
    QVERIFY(r.out.contains("svi plot FOLDER"));
}

void TestCliPlot::pngOfOneRun()
{
    Result r =
        runSvi({"plot", "run1", "--out", "figs/elbo.png", "--size", "640x400"}, m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.err.contains("figs/elbo.png")); // says what it wrote; the folder was made
    const QImage img(path("figs/elbo.png"));
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), QSize(1280, 800)); // two pixels per point by default
    // Not one colour: white ground, grey grid and text, and the run's line in the window's
    // colour for the first run.
    std::set<QRgb> colours;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2)
            colours.insert(img.pixel(x, y));
    QVERIFY2(colours.size() > 20, qPrintable(QString::number(colours.size())));
    QVERIFY(pixelsNear(img, Qt::white) > img.width() * img.height() / 2);
    const int line = pixelsNear(img, svi::ui::runColor(1));
    QVERIFY2(line > 300, qPrintable(QString::number(line)));

    // --scale 1: as many pixels as points; a run's trace.csv names its folder.
    r = runSvi({"plot", "run1/trace.csv", "--out", "elbo1.png", "--size", "500x300", "--scale", "1",
                "--quiet"},
               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.err.isEmpty());
    QCOMPARE(QImage(path("elbo1.png")).size(), QSize(500, 300));
}

void TestCliPlot::svgNamesTheMetricAndTheAxes()
{
    const Result r = runSvi({"plot", "run1", "--metric", "heldout_loglik", "--x", "steps", "--out",
                             "ll.svg", "--title", "Inpainting, 48×40"},
                            m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList texts = svgTexts(path("ll.svg"));
    // The y title is the registry's declaration of the metric: its label and unit.
    const svi::MetricSpec* m =
        svi::builtinRegistry().find("bpfa", "mf-ssvi")->metric("heldout_loglik");
    QVERIFY(m && !m->unit.empty());
    QVERIFY2(texts.contains(QString::fromStdString(svi::metricTitle(*m))),
             qPrintable(texts.join('|')));
    QVERIFY(texts.contains("training steps"));
    QVERIFY(texts.contains("Inpainting, 48×40"));
    QVERIFY(texts.contains("MF-SSVI"));
    QVERIFY(!texts.contains("ELBO"));

    // PSNR of the final full pass (one point per run), against epochs on a log axis; the
    // title defaults to the metric's label. The lone point is a marker with its value.
    const Result p = runSvi(
        {"plot", "run1", "--metric", "psnr", "--x", "epochs", "--log-x", "--out", "psnr.svg"},
        m_dir.path());
    QVERIFY2(p.exitCode == 0, qPrintable(p.err));
    QVERIFY2(p.err.contains("one 'psnr' value"), qPrintable(p.err));
    const QStringList psnr = svgTexts(path("psnr.svg"));
    QVERIFY2(psnr.contains("PSNR, full pass (dB)"), qPrintable(psnr.join('|')));
    QVERIFY(psnr.contains("PSNR, full pass"));
    QVERIFY(psnr.contains("epochs (passes over the data), log scale"));
    QFile trace(path("run1/trace.csv"));
    QVERIFY(trace.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(trace.readAll()).trimmed().split('\n');
    const qsizetype column = lines.front().split(',').indexOf("psnr");
    QVERIFY(column > 0);
    const double value = lines.back().split(',').value(column).toDouble();
    QVERIFY2(psnr.contains(QString::number(value, 'g', 4)), qPrintable(psnr.join('|')));

    // A y range: the axis's ticks run between its ends.
    const Result y =
        runSvi({"plot", "run1", "--y-range", "-20,-5", "--out", "y.svg"}, m_dir.path());
    QVERIFY2(y.exitCode == 0, qPrintable(y.err));
    const QStringList ticks = svgTexts(path("y.svg"));
    QVERIFY2(ticks.contains("-20") || ticks.contains("-20.0") || ticks.contains("-20.00"),
             qPrintable(ticks.join('|')));
}

void TestCliPlot::runsOfTwoModelsAreNamedByTheirModel()
{
    // The GLM's and GME's H-MC-SSVI on the first lines of a9a: alike labels of two models are
    // told apart by the model, not by their folders.
    const Result r =
        runSvi({"plot", "lab-glm", "lab-gme", "--metric", "test_nll", "--out", "models.svg"},
               m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    const QStringList texts = svgTexts(path("models.svg"));
    QVERIFY2(texts.contains("GLM H-MC-SSVI") && texts.contains("GME H-MC-SSVI"),
             qPrintable(texts.join('|')));
    QVERIFY(!texts.join('|').contains("lab-glm"));

    // The same run under two folders of one name: told apart by their parents' names.
    for (const char* parent : {"first", "second"}) {
        QVERIFY(QDir(m_dir.path()).mkpath(QString("%1/lab-gme").arg(parent)));
        for (const QString& f : QDir(path("lab-gme")).entryList(QDir::Files))
            QVERIFY(
                QFile::copy(path("lab-gme/" + f), path(QString("%1/lab-gme/").arg(parent) + f)));
    }
    const Result twice = runSvi(
        {"plot", "first/lab-gme", "second/lab-gme", "--metric", "test_nll", "--out", "twice.svg"},
        m_dir.path());
    QVERIFY2(twice.exitCode == 0, qPrintable(twice.err));
    const QStringList named = svgTexts(path("twice.svg"));
    QVERIFY2(named.contains("H-MC-SSVI (first)") && named.contains("H-MC-SSVI (second)"),
             qPrintable(named.join('|')));
}

void TestCliPlot::severalFoldersAndACompareFolder()
{
    const Result r = runSvi({"plot", "cmp", "run1", "run2", "--out", "all.svg"}, m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.err.contains("of 6 runs"));
    const QStringList texts = svgTexts(path("all.svg"));
    // One legend entry per algorithm of a compare folder (its repeats), in Compare's order; runs
    // of one algorithm from separate folders told apart by their folder.
    const QStringList legend = {"MF-SVI", "MF-SSVI (cmp)", "MF-SSVI (run1)", "MF-SSVI (run2)"};
    qsizetype previous = -1;
    for (const QString& name : legend) {
        const qsizetype at = texts.indexOf(name);
        QVERIFY2(at > previous, qPrintable(name + " in " + texts.join('|')));
        previous = at;
    }
    QVERIFY2(!texts.join('|').contains(" #"), qPrintable(texts.join('|')));
    QVERIFY(texts.contains("ELBO"));
    QVERIFY(texts.contains("training time (s)"));
    // One colour per entry: the two repeats of each algorithm share theirs.
    QFile f(path("all.svg"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString svg = QString::fromUtf8(f.readAll());
    for (int n = 1; n <= 6; ++n)
        QVERIFY2(svg.contains("stroke=\"" + svi::ui::runColor(n).name() + "\"") == (n <= 4),
                 qPrintable(QString::number(n)));
}

// A figure at a column's width: every title, tick label and legend entry drawn whole (Qt Charts
// would write "Test NL..." or "H-MC-..."), and nothing past the figure's edge.
void TestCliPlot::columnWidthCutsNothing()
{
    // Each figure's texts (SVG), and the widest legend's edges (PNG).
    const QList<std::pair<QStringList, QStringList>> figures = {
        {{"cmp"}, {"svg"}},
        {{"lab-glm", "lab-gme", "--metric", "test_nll"}, {"svg"}},
        {{"lab-glm", "lab-gme", "other/lab-gme", "--x", "steps"}, {"svg", "png"}},
    };
    QVERIFY(QDir(m_dir.path()).mkpath("other/lab-gme"));
    for (const QString& f : QDir(path("lab-gme")).entryList(QDir::Files))
        QFile::copy(path("lab-gme/" + f), path("other/lab-gme/" + f));
    for (const auto& [args, suffixes] : figures) {
        for (const QString& suffix : suffixes) {
            const QString out = "column." + suffix;
            const Result r = runSvi(
                QStringList{"plot"} + args +
                    QStringList{"--size", "320x200", "--scale", "1", "--quiet", "--out", out},
                m_dir.path());
            QVERIFY2(r.exitCode == 0, qPrintable(r.err));
            if (suffix == "png") {
                // Nothing drawn on the outermost pixels: no text runs off the figure.
                const QImage img(path(out));
                QCOMPARE(img.size(), QSize(320, 200));
                for (int x = 0; x < img.width(); ++x)
                    for (int y : {0, img.height() - 1})
                        QVERIFY2(qGray(img.pixel(x, y)) > 200, qPrintable(args.join(' ')));
                for (int y = 0; y < img.height(); ++y)
                    for (int x : {0, img.width() - 1})
                        QVERIFY2(qGray(img.pixel(x, y)) > 200, qPrintable(args.join(' ')));
                continue;
            }
            const QStringList texts = svgTexts(path(out));
            const QString all = texts.join('|');
            for (const QString& t : texts)
                QVERIFY2(!t.endsWith("...") && !t.contains(QChar(0x2026)), qPrintable(all));
            if (args.contains("lab-glm") && args.contains("--metric")) {
                QVERIFY2(texts.contains("GLM H-MC-SSVI") && texts.contains("GME H-MC-SSVI"),
                         qPrintable(all));
                // The declared short title where the full one does not fit.
                const svi::MetricSpec* m =
                    svi::builtinRegistry().find("glm", "h-mc-ssvi")->metric("test_nll");
                QVERIFY(m && !m->shortLabel.empty());
                QVERIFY2(texts.contains(QString::fromStdString(svi::metricTitle(*m))) ||
                             texts.contains(QString::fromStdString(svi::metricShortTitle(*m))),
                         qPrintable(all));
            } else if (args.contains("lab-glm")) {
                for (const char* name :
                     {"GLM H-MC-SSVI", "GME H-MC-SSVI (lab-gme)", "GME H-MC-SSVI (other)"})
                    QVERIFY2(texts.contains(name), qPrintable(QString(name) + " in " + all));
            } else {
                QVERIFY2(texts.contains("MF-SVI") && texts.contains("MF-SSVI"), qPrintable(all));
            }
        }
    }
}

void TestCliPlot::runWithoutTheMetricIsLeftOut()
{
    // Several runs: the one without an ELBO is left out, with a note naming it.
    Result r = runSvi({"plot", "gibbs", "run1", "--out", "mixed.svg"}, m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("'gibbs' has no 'elbo' values"), qPrintable(r.err));
    const QStringList texts = svgTexts(path("mixed.svg"));
    QVERIFY(texts.contains("MF-SSVI"));
    QVERIFY(!texts.contains("Batch Gibbs"));
    // Only such runs: nothing to draw, nothing written, and what there is instead.
    r = runSvi({"plot", "gibbs", "--out", "none.svg"}, m_dir.path());
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("nothing to draw") && r.err.contains("psnr"), qPrintable(r.err));
    QVERIFY(!QFile::exists(path("none.svg")));
    // Its PSNR is drawn.
    r = runSvi({"plot", "gibbs", "--metric", "psnr", "--out", "gibbs.svg"}, m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(svgTexts(path("gibbs.svg")).contains("Batch Gibbs"));
}

void TestCliPlot::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("out");
    QTest::addColumn<QStringList>("named"); // what the message must name
    QTest::newRow("no such folder")
        << QStringList{"nowhere"} << "e.png" << QStringList{"'nowhere'", "no such folder"};
    QTest::newRow("one good, one missing")
        << QStringList{"run1", "gone"} << "e.png" << QStringList{"'gone'"};
    QTest::newRow("folder without a trace")
        << QStringList{"empty"} << "e.png" << QStringList{"'empty'", "trace.csv"};
    QTest::newRow("a file") << QStringList{"small.png"} << "e.png"
                            << QStringList{"'small.png'", "not a folder"};
    QTest::newRow("broken trace") << QStringList{"broken"} << "e.svg"
                                  << QStringList{"broken/trace.csv", "no column 'step'"};
    QTest::newRow("unsupported suffix")
        << QStringList{"run1"} << "e.bmp" << QStringList{"e.bmp", ".png or .svg"};
    QTest::newRow("unknown metric") << QStringList{"run1", "--metric", "nope"} << "e.png"
                                    << QStringList{"nope", "heldout_loglik (", "psnr ("};
    QTest::newRow("bad size") << QStringList{"run1", "--size", "50x5000"} << "e.png"
                              << QStringList{"--size = 50x5000"};
    QTest::newRow("bad x") << QStringList{"run1", "--x", "minutes"} << "e.png"
                           << QStringList{"--x = minutes", "seconds, steps, epochs"};
    QTest::newRow("y range without comma") << QStringList{"run1", "--y-range", "1"} << "e.png"
                                           << QStringList{"--y-range = 1", "LO,HI"};
    QTest::newRow("y range upside down") << QStringList{"run1", "--y-range", "2,1"} << "e.png"
                                         << QStringList{"--y-range = 2,1", "above"};
    QTest::newRow("unknown option")
        << QStringList{"run1", "--colour", "red"} << "e.png" << QStringList{"--colour"};
    QTest::newRow("no folder") << QStringList{} << "e.png" << QStringList{"no FOLDER"};
    QTest::newRow("no out") << QStringList{"run1"} << "" << QStringList{"--out"};
    QTest::newRow("table with a bad cell") << QStringList{"--table", "bad.csv"} << "e.png"
                                           << QStringList{"'bad.csv' line 3", "'beta'", "'x1'"};
    QTest::newRow("table with a short row") << QStringList{"--table", "short.csv"} << "e.png"
                                            << QStringList{"'short.csv' line 2", "2 fields"};
    QTest::newRow("table and a folder")
        << QStringList{"run1", "--table", "bad.csv"} << "e.png" << QStringList{"no FOLDER"};
    QTest::newRow("no table") << QStringList{"--table", "none.csv"} << "e.png"
                              << QStringList{"'none.csv'", "cannot read"};
    QTest::newRow("matrix with a bad cell") << QStringList{"--matrix", "badm.csv"} << "e.png"
                                            << QStringList{"'badm.csv' line 3", "'b'"};
    QTest::newRow("matrix to svg")
        << QStringList{"--matrix", "badm.csv"} << "e.svg" << QStringList{".png"};
    QTest::newRow("matrix and a table") << QStringList{"--matrix", "badm.csv", "--table", "bad.csv"}
                                        << "e.png" << QStringList{"--matrix draws one matrix"};
    QTest::newRow("matrix range zero")
        << QStringList{"--matrix", "badm.csv", "--range", "0"} << "e.png" << QStringList{"--range"};
}

void TestCliPlot::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(QString, out);
    QFETCH(QStringList, named);
    QVERIFY(QDir(m_dir.path()).mkpath("empty"));
    QVERIFY(QDir(m_dir.path()).mkpath("broken"));
    QFile broken(path("broken/trace.csv"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("time,value\n1,2\n");
    broken.close();
    for (const auto& [name, text] : {std::pair{"bad.csv", "n,alpha,beta\n1,2,3\n2,3,x1\n"},
                                     std::pair{"short.csv", "n,alpha,beta\n1,2\n"},
                                     std::pair{"badm.csv", ",a,b\na,1,0.5\nb,0.5,x\n"}}) {
        QFile f(path(name));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
    }

    QStringList full = QStringList{"plot"} + args;
    if (!out.isEmpty())
        full << "--out" << out;
    const Result r = runSvi(full, m_dir.path());
    QCOMPARE(r.exitCode, 2);
    for (const QString& n : named)
        QVERIFY2(r.err.contains(n), qPrintable(n + " not in: " + r.err));
    QVERIFY(r.err.startsWith("svi: error: "));
    QVERIFY(r.err.count('\n') == 1); // one line
    if (!out.isEmpty())
        QVERIFY(!QFile::exists(path(out)));
}

void TestCliPlot::needsNoDisplay()
{
    // No display and no platform named: svi plot draws offscreen by itself.
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
        env.remove(v);
    Result r = runSvi({"plot", "cmp", "--out", "headless.png", "--quiet"}, m_dir.path(), env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(!QImage(path("headless.png")).isNull());
    // The other commands make no GUI application: a platform that does not exist is never
    // loaded (a QGuiApplication would abort on it).
    env.insert("QT_QPA_PLATFORM", "no-such-platform");
    r = runSvi({"list"}, m_dir.path(), env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    r = runSvi({"info", "small.png", "--json"}, m_dir.path(), env);
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
}

void TestCliPlot::tableDrawsItsColumns()
{
    QFile f(path("t.csv"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("training rows,alpha,beta,empty\n100,-0.5,0.25,\n200,,0.5,\n1000,-0.125,1,\n");
    f.close();
    const Result r = runSvi({"plot", "--table", "t.csv", "--log-x", "--y-title", "nats", "--title",
                             "Table", "--out", "t.svg"},
                            m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("2 lines"), qPrintable(r.err)); // the empty column is not drawn
    const QStringList texts = svgTexts(path("t.svg"));
    for (const char* t : {"alpha", "beta", "nats", "Table"})
        QVERIFY2(texts.contains(t), qPrintable(QString(t) + " not in " + texts.join('|')));
    QVERIFY(!texts.contains("empty"));
    QVERIFY2(std::any_of(texts.begin(), texts.end(),
                         [](const QString& t) { return t.startsWith("training rows"); }),
             qPrintable(texts.join('|')));
}

// A covariance as 'svi run' writes it: a PNG whose cells take the diverging colours on a scale
// set by the largest off-diagonal |value| (0.5 here: the diagonal saturates, -0.25 is half blue).
void TestCliPlot::matrixDrawsAHeatmap()
{
    QFile f(path("cov.csv"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(",CD3,CD4,CD8\nCD3,1,0.5,-0.25\nCD4,0.5,1,0\nCD8,-0.25,0,1\n");
    f.close();
    const Result r = runSvi(
        {"plot", "--matrix", "cov.csv", "--out", "cov.png", "--size", "400x400", "--scale", "1"},
        m_dir.path());
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(r.err.contains("3 × 3"), qPrintable(r.err));
    const QImage img(path("cov.png"));
    QCOMPARE(img.size(), QSize(400, 400));
    // The strongest red and a half-saturated blue are both drawn somewhere in the grid.
    bool red = false, halfBlue = false;
    const QColor fullRed(178, 24, 43), half = QColor(144, 178, 213);
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            const QColor c = img.pixelColor(x, y);
            red |= c == fullRed;
            halfBlue |= std::abs(c.red() - half.red()) <= 1 &&
                        std::abs(c.green() - half.green()) <= 1 &&
                        std::abs(c.blue() - half.blue()) <= 1;
        }
    QVERIFY(red);
    QVERIFY(halfBlue);
}

QTEST_GUILESS_MAIN(TestCliPlot)
#include "test_cli_plot.moc"
