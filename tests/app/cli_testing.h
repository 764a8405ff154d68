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

// Runs `program` with `args` in `dir` (the current folder when empty) and `env`, `input` on
// its standard input.
inline CliResult runProgram(const QString& program, const QStringList& args, int timeoutMs,
                            const QString& dir, const QProcessEnvironment& env,
                            const QByteArray& input = {})
{
    QProcess p;
    if (!dir.isEmpty())
        p.setWorkingDirectory(dir);
    p.setProcessEnvironment(env);
    p.start(program, args);
    if (!input.isEmpty())
        p.write(input);
    p.closeWriteChannel();
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

#ifdef SVI_CLI // (a test of another program uses runProgram alone)
// Runs svi with `args` in `dir` (the current folder when empty) and `env`.
inline CliResult runCli(const QStringList& args, int timeoutMs = 120000, const QString& dir = {},
                        const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment())
{
    return runProgram(SVI_CLI, args, timeoutMs, dir, env);
}

// Runs svi with `args`, `input` on its standard input.
inline CliResult runCliWithInput(const QStringList& args, const QByteArray& input,
                                 int timeoutMs = 120000)
{
    return runProgram(SVI_CLI, args, timeoutMs, {}, QProcessEnvironment::systemEnvironment(),
                      input);
}
#endif

} // namespace test_support
