// svi-workbench: the desktop window. Only command-line parsing lives here; the window is ui/.

#include "ui/main_window.h"
#include "ui/param_form.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QTimer>

int main(int argc, char** argv)
{
    QApplication::setHighDpiScaleFactorRoundingPolicy(
        Qt::HighDpiScaleFactorRoundingPolicy::PassThrough);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("SviWorkbench");
    QApplication::setApplicationName("svi-workbench");
    QApplication::setApplicationVersion(SVI_VERSION);

    QCommandLineParser parser;
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
    QCommandLineOption run(
        "run", "Start a run with the remembered settings as soon as the data are ready.");
    QCommandLineOption compare(
        "compare",
        "Run Compare (the ticked algorithms of the model, one after another) once the data are "
        "ready.");
    QCommandLineOption seconds("seconds", "Training-seconds budget of each run (sets the form).",
                               "S");
    parser.addOptions({run, compare, seconds});
    parser.process(app);

    svi::ui::MainWindow window;
    if (!parser.positionalArguments().isEmpty())
        window.openPaths(parser.positionalArguments());
    if (parser.isSet(seconds))
        window.budgetForm()->setText("seconds", parser.value(seconds));
    if (parser.isSet(run) || parser.isSet(compare)) {
        // Once, when the data asked for (the file given, else the default image) are ready.
        const bool doCompare = parser.isSet(compare);
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
