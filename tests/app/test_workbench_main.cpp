// svi-workbench's command line without a display: --help and --version print and exit 0 with no
// window system at all (no DISPLAY, no WAYLAND_DISPLAY, no QT_QPA_PLATFORM), as on a server.

#include "tests/app/cli_testing.h"

#include <QProcessEnvironment>
#include <QtTest>

using namespace test_support;

class TestWorkbenchMain : public QObject
{
    Q_OBJECT

private:
    static QProcessEnvironment withoutDisplay()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
            env.remove(name);
        return env;
    }

private slots:
    void helpWithoutDisplay_data()
    {
        QTest::addColumn<QString>("flag");
        QTest::newRow("--help") << "--help";
        QTest::newRow("-h") << "-h";
    }

    void helpWithoutDisplay()
    {
        QFETCH(QString, flag);
        const CliResult r = runProgram(SVI_WORKBENCH, {flag}, 30000, {}, withoutDisplay());
        QVERIFY2(r.exitCode == 0, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        QVERIFY2(r.out.contains("Usage: "), qPrintable(r.out));
        for (const char* option : {"--run", "--compare", "--seconds <S>", "--version", "file"})
            QVERIFY2(r.out.contains(option), qPrintable(option + QString("\n") + r.out));
        QVERIFY2(!r.err.contains("qt.qpa"), qPrintable(r.err)); // no platform plugin was loaded
    }

    void versionWithoutDisplay()
    {
        const CliResult r = runProgram(SVI_WORKBENCH, {"--version"}, 30000, {}, withoutDisplay());
        QVERIFY2(r.exitCode == 0, qPrintable(QString::number(r.exitCode) + ": " + r.err));
        QCOMPARE(r.out.trimmed(), QString("svi-workbench " SVI_VERSION));
    }
};

QTEST_GUILESS_MAIN(TestWorkbenchMain)
#include "test_workbench_main.moc"
