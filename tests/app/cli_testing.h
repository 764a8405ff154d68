#pragma once
// Running the `svi` command in tests (SVI_CLI is its path, defined by the test's target).

#include <QProcess>
#include <QString>
#include <QStringList>

namespace test_support {

struct CliResult
{
    int exitCode = -1; // −2 when it crashed, −1 when it timed out
    QString out, err;
};

// Runs svi with `args` in `dir` (the current folder when empty) and `env`.
inline CliResult runCli(const QStringList& args, int timeoutMs = 120000, const QString& dir = {},
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    QProcess p;
    if (!dir.isEmpty())
        p.setWorkingDirectory(dir);
    p.setProcessEnvironment(env);
    p.start(SVI_CLI, args);
    CliResult r;
    if (!p.waitForFinished(timeoutMs)) {
        p.kill();
        r.err = "timed out";
        return r;
    }
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
}

} // namespace test_support
