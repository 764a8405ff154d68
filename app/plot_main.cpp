// svi-plot: the drawing half of 'svi plot' (svi runs it with the command's arguments). It alone
// links the window's widgets and charts, so that the headless svi, on a cluster node, needs no
// GUI libraries.

#include "app/cli_flags.h"
#include "app/plot_command.h"

#include <QApplication>
#include <cstdio>
#include <string>
#include <vector>

namespace {

QtMessageHandler g_qtMessages = nullptr;

// Headless machines (CI, ssh without a login session) have no XDG_RUNTIME_DIR; Qt then says on
// every start which temporary folder it uses instead, which the figure does not care about.
// Every other message goes where it went.
void quietRuntimeDir(QtMsgType type, const QMessageLogContext& context, const QString& text)
{
    if (type == QtWarningMsg && text.startsWith("QStandardPaths: XDG_RUNTIME_DIR not set"))
        return;
    if (g_qtMessages)
        g_qtMessages(type, context, text);
}

} // namespace

int main(int argc, char** argv)
{
    using namespace svi::cli::detail;
    // The chart is drawn into an image or an SVG, never shown: the offscreen platform needs no
    // display and draws the same at 96 dpi wherever it runs.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    g_qtMessages = qInstallMessageHandler(quietRuntimeDir);
    QApplication app(argc, argv);
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (const std::string& a : args)
        if (a == "--help" || a == "-h") {
            std::fputs(plotHelp().c_str(), stdout);
            return 0;
        }
    return svi::cli::reportingErrors([&] { return drawPlot(args); });
}
