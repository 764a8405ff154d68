// svi-workbench: the desktop window. Only command-line parsing lives here; the window is ui/.

#include "ui/main_window.h"
#include "ui/param_form.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QIcon>
#include <QTimer>
#include <cstring>

namespace {

struct Options
{
    QCommandLineOption run{
        "run", "Start a run with the remembered settings as soon as the data are ready."};
    QCommandLineOption compare{
        "compare",
        "Run Compare (the ticked algorithms of the model, one after another) once the data are "
        "ready."};
    QCommandLineOption seconds{"seconds", "Training-seconds budget of each run (sets the form).",
                               "S"};
};

void describe(QCommandLineParser& parser, const Options& o)
{
    parser.setApplicationDescription(
        "SVI Workbench: stochastic variational inference on your own data.");
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument("files",
                                 "An image, a table (CSV/TSV), one or more FCS files (stacked), a "
                                 "text corpus (LDA-C, UCI, Reuters-21578 SGML, a .tar.gz of text "
                                 "files), ratings, labelled examples, a graph, a folder of one "
                                 "kind of these, or a saved session (.json) to open instead of "
                                 "the default image.",
                                 "[file...]");
    parser.addOptions({o.run, o.compare, o.seconds});
}

// Whether the command line asks only for the help or the version, which need no display.
bool onlyText(int argc, char** argv)
{
    for (int i = 1; i < argc; ++i)
        for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
            if (std::strcmp(argv[i], flag) == 0)
                return true;
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication::setOrganizationName("SviWorkbench");
    QCoreApplication::setApplicationName("svi-workbench");
    QCoreApplication::setApplicationVersion(SVI_VERSION);
    Options options;

    // The help and the version are printed by a QCoreApplication, before any window system is
    // asked for: `svi-workbench --help` works on a machine without a display.
    if (onlyText(argc, argv)) {
        QCoreApplication core(argc, argv);
        QCommandLineParser parser;
        describe(parser, options);
        parser.process(core); // prints and exits
        return 0;
    }

    QApplication::setHighDpiScaleFactorRoundingPolicy(
        Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    // The installed desktop entry and its icon (resources/svi-workbench.*), which the desktop
    // pairs with the window by this name.
    QGuiApplication::setDesktopFileName("svi-workbench");
    QApplication::setWindowIcon(QIcon(":/svi-workbench.svg"));
    QCommandLineParser parser;
    describe(parser, options);
    parser.process(app);

    svi::ui::MainWindow window;
    if (!parser.positionalArguments().isEmpty())
        window.openPaths(parser.positionalArguments());
    if (parser.isSet(options.seconds))
        window.budgetForm()->setText("seconds", parser.value(options.seconds));
    if (parser.isSet(options.run) || parser.isSet(options.compare)) {
        // Once, when the data asked for (the file given, else the default image) are ready.
        const bool doCompare = parser.isSet(options.compare);
        auto startOnce = std::make_shared<QMetaObject::Connection>();
        *startOnce = QObject::connect(
            &window, &svi::ui::MainWindow::dataReadyChanged, &window,
            [&window, startOnce, doCompare](bool ready) {
                if (ready && (doCompare ? window.compare() : window.startRun()) != 0)
                    QObject::disconnect(*startOnce);
            });
    }
    window.show();
    return app.exec();
}
