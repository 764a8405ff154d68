// 'svi plot' in svi: runs svi-plot, which draws with the window's charts, with the command's
// arguments, its output and exit status passed through.

#include "app/cli_parts.h"
#include "app/plot_command.h"

#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>

namespace svi::cli::detail {
namespace {

// The program that draws: svi-plot beside the running svi, else on the PATH; empty when neither
// exists.
std::string plotProgram()
{
    const QString beside = QCoreApplication::applicationDirPath() + "/svi-plot";
    if (QFileInfo(beside).isExecutable())
        return beside.toStdString();
    return QStandardPaths::findExecutable("svi-plot").toStdString();
}

} // namespace

int cmdPlot(const std::vector<std::string>& args)
{
    const std::string program = plotProgram();
    if (program.empty())
        throw UsageError("plot: its figures are drawn by svi-plot (with the window's charts), "
                         "which is neither beside svi nor on the PATH; build the svi-plot target");
    QStringList arguments;
    for (const std::string& a : args)
        arguments << QString::fromStdString(a);
    QProcess p;
    p.setProcessChannelMode(QProcess::ForwardedChannels);
    p.setInputChannelMode(QProcess::ForwardedInputChannel);
    p.start(QString::fromStdString(program), arguments);
    if (!p.waitForStarted(-1))
        throw UsageError("plot: cannot start " + program + ": " + p.errorString().toStdString());
    p.waitForFinished(-1);
    if (p.exitStatus() != QProcess::NormalExit)
        throw std::runtime_error("plot: " + program + " ended abnormally");
    return p.exitCode();
}

} // namespace svi::cli::detail
