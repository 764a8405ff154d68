// The window and run folders (the layout `svi run --out` writes): a folder another process
// writes, charted as it grows; a run saved mid-way and resumed by the window (and by `svi run
// --resume`); a session whose runs come back from their folders, and fall back to running
// again when a folder is missing or damaged. Runs are real (BPFA on a small crop).

#include "core/io/checkpoint_file.h"
#include "core/io/run_files.h"
#include "core/io/run_json.h"
#include "core/io/run_resume.h"
#include "core/models/builtin.h"
#include "core/run/run_checkpoint.h"
#include "tests/app/cli_testing.h"
#include "tests/ui/run_folder_testing.h"
#include "tests/ui/window_testing.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/run_manager.h"
#include "ui/runs_table.h"
#include "ui/trace_plot.h"

#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

QByteArray readAll(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A trace row as trace.csv holds it, without the clock (the one thing a resumed run does not
// repeat): rows read back from a file compare equal to those they were written from.
QStringList traceText(const std::vector<Snapshot>& trace)
{
    QStringList rows;
    for (const Snapshot& s : trace) {
        QStringList cells = {QString::number(s.step), metricText(s.epochs), metricText(s.rho),
                             metricText(s.elbo)};
        for (const auto& [k, v] : s.metrics)
            cells << QString::fromStdString(k) + "=" + metricText(v);
        rows << cells.join(',');
    }
    return rows;
}

// The run the window read from `folder`, 0 when none.
int runReadFrom(MainWindow& w, const QString& folder)
{
    for (int id : w.runs()->ids())
        if (w.runs()->record(id)->readFrom == folder)
            return id;
    return 0;
}

// The table's text for run `id` in `column`.
QString cell(MainWindow& w, int id, int column)
{
    auto* model = qobject_cast<RunsTableModel*>(w.runsView()->model());
    w.refreshNow();
    return model->data(model->index(model->rowOf(id), column)).toString();
}

// Pauses run `id` of `w` as its `n`-th snapshot comes in; waits until its worker is paused.
bool pauseAtSnapshot(MainWindow& w, int id, std::size_t n)
{
    RunManager* m = w.runs();
    QMetaObject::Connection c = QObject::connect(m, &RunManager::snapshotArrived, m, [=](int at) {
        if (at == id && m->record(id)->trace.size() == n)
            m->pause(id);
    });
    const bool paused = QTest::qWaitFor(
        [&] {
            m->pollPhases();
            return m->record(id)->phase == RunPhase::Paused ||
                   m->record(id)->status == RunStatus::Finished;
        },
        60000);
    QObject::disconnect(c);
    return paused && m->record(id)->status == RunStatus::Paused;
}

void setBudget(MainWindow& w, int steps, int everySteps)
{
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", QString::number(steps));
    w.budgetForm()->setText("eval_every_steps", QString::number(everySteps));
}

} // namespace

class TestWindowRuns : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void watchesARunFolderAsItIsWritten();
    void savesARunAndResumesIt();
    void sessionRunsComeBackFromTheirFolders();

private:
    bool openSmall(MainWindow& w);
    QTemporaryDir m_dir;
};

void TestWindowRuns::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("SviWorkbenchTests");
    QCoreApplication::setApplicationName("test_window_runs");
    QVERIFY(m_dir.isValid());
}

void TestWindowRuns::init()
{
    QSettings().clear();
}

bool TestWindowRuns::openSmall(MainWindow& w)
{
    const QString path = m_dir.filePath("crop.png");
    if (!QFile::exists(path))
        QImage(QString(SVI_TEST_DATA_DIR) + "/coins.png").copy(150, 100, 36, 30).save(path);
    if (!waitForData(w))
        return false;
    w.openPath(path);
    useSmallSettings(w);
    return waitForData(w);
}

// A folder written step by step with the writers `svi run` uses, opened through File ▸ Open:
// its run is shown at once, its trace follows the file, and summary.json ends it with the
// folder's termination. A folder without a run, and a trace that cannot be read, are reported
// naming them; a compare folder gives each of its runs.
void TestWindowRuns::watchesARunFolderAsItIsWritten()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    QSignalSpy errors(&w, &MainWindow::errorShown);
    const QString folder = m_dir.filePath("live");
    QVERIFY(QDir().mkpath(folder));
    RunDescription spec = w.runDescription(); // the default image, the pickers' run
    spec.seconds = 0;
    spec.steps = 100;
    writeFileAtomically(folder + "/run.json", QJsonDocument(runToJson(spec)).toJson());
    std::vector<Snapshot> rows = psnrTrace(4, 25, 1000.0);
    // Large values in full in the table, not as "3e+03" epochs or a "-1.02283e+06" ELBO.
    rows.back().epochs = 3000.0;
    rows.back().elbo = -1022830.4;
    const auto writeTrace = [&](std::size_t n) { writeTracePrefix(folder, rows, n); };
    writeTrace(2);
    w.openPath(folder); // a folder with a trace.csv: its run, not data
    QTRY_VERIFY_WITH_TIMEOUT(runReadFrom(w, folder) > 0, 20000);
    const int id = runReadFrom(w, folder);
    const RunRecord* r = w.runs()->record(id);
    QCOMPARE(r->status, RunStatus::Watching);
    QCOMPARE(r->trace.size(), std::size_t(2));
    QCOMPARE(r->spec.algorithm, spec.algorithm);
    QCOMPARE(cell(w, id, RunsTableModel::Status), QString("watching folder"));
    w.refreshNow();
    QCOMPARE(w.elboChart()->drawnPoints(id), 2);
    QCOMPARE(w.runs()->activeCount(), 0); // nothing to stop or to wait for when closing

    writeTrace(4); // replaced by a rename, as svi run does
    QTRY_COMPARE_WITH_TIMEOUT(w.runs()->record(id)->trace.size(), std::size_t(4), 20000);
    w.refreshNow();
    QCOMPARE(w.elboChart()->drawnPoints(id), 4);
    QCOMPARE(w.runs()->record(id)->status, RunStatus::Watching);

    Summary end;
    end.reason = TerminationReason::BudgetReached;
    end.message = "budget reached: 100 steps";
    end.steps = 100;
    end.last = rows.back();
    writeFileAtomically(folder + "/summary.json",
                        QJsonDocument(runSummaryJson(spec, "run", end)).toJson());
    QTRY_COMPARE_WITH_TIMEOUT(w.runs()->record(id)->status, RunStatus::Finished, 20000);
    QCOMPARE(w.runs()->record(id)->summary->reason, TerminationReason::BudgetReached);
    auto* model = qobject_cast<RunsTableModel*>(w.runsView()->model());
    QCOMPARE(cell(w, id, model->terminationColumn()), QString("budget"));
    QCOMPARE(cell(w, id, RunsTableModel::Status), QString("from folder"));
    QCOMPARE(cell(w, id, RunsTableModel::Epochs), QString("3000"));
    QCOMPARE(cell(w, id, RunsTableModel::Elbo), QString("-1022830"));

    // Not a run folder; a trace that cannot be read: each named.
    const QString empty = m_dir.filePath("empty");
    QVERIFY(QDir().mkpath(empty));
    w.openRunFolder(empty);
    QTRY_COMPARE_WITH_TIMEOUT(errors.size(), 1, 20000);
    QVERIFY2(errors.last().at(0).toString().contains(empty) &&
                 errors.last().at(0).toString().contains("trace.csv"),
             qPrintable(errors.last().at(0).toString()));
    const QString broken = m_dir.filePath("broken");
    QVERIFY(QDir().mkpath(broken));
    writeFileAtomically(broken + "/trace.csv", "step,epochs,train_seconds,rho,elbo\n1,x,0,0,0\n");
    w.openRunFolder(broken);
    QTRY_COMPARE_WITH_TIMEOUT(errors.size(), 2, 20000);
    QVERIFY2(errors.last().at(0).toString().contains(broken + "/trace.csv"),
             qPrintable(errors.last().at(0).toString()));

    // A compare folder: both its runs, finished.
    const QString compared = m_dir.filePath("compared");
    for (const char* sub : {"bpfa-mf-svi", "bpfa-gibbs-ssvi"}) {
        const QString d = compared + "/" + sub;
        QVERIFY(QDir().mkpath(d));
        writeFileAtomically(d + "/trace.csv", traceCsv(rows, metricKeys(rows)));
        writeFileAtomically(d + "/summary.json",
                            QJsonDocument(runSummaryJson(spec, sub, end)).toJson());
    }
    const int before = int(w.runs()->ids().size());
    w.openPath(compared);
    QTRY_COMPARE_WITH_TIMEOUT(int(w.runs()->ids().size()), before + 2, 20000);
    for (const char* sub : {"bpfa-mf-svi", "bpfa-gibbs-ssvi"}) {
        const int c = runReadFrom(w, compared + "/" + sub);
        QVERIFY(c > 0);
        QCOMPARE(w.runs()->record(c)->status, RunStatus::Finished);
        QCOMPARE(w.runs()->record(c)->trace.size(), std::size_t(4));
    }
    // Its two runs of one algorithm (the same spec here) are repeats started together: one
    // colour, in the runs table as in the charts, and one legend entry naming both.
    const int first = runReadFrom(w, compared + "/bpfa-mf-svi"),
              second = runReadFrom(w, compared + "/bpfa-gibbs-ssvi");
    QCOMPARE(w.runs()->record(first)->color, w.runs()->record(second)->color);
    QVERIFY(w.runs()->record(first)->color != runColor(std::max(first, second)));
    const QString both =
        QString("#%1, #%2 ").arg(std::min(first, second)).arg(std::max(first, second)) +
        QString::fromStdString(builtinRegistry().find(spec.model, spec.algorithm)->label);
    QTRY_VERIFY2_WITH_TIMEOUT(w.elboChart()->legendNames().contains(both),
                              qPrintable(w.elboChart()->legendNames().join(" | ")), 10000);
    QCOMPARE(errors.size(), 2);

    // An LDA run's folder opened over the image: its held-out metric joins the picker (which
    // offered the image's only) and its curve is charted.
    const QString topics = m_dir.filePath("topics");
    QVERIFY(QDir().mkpath(topics));
    RunDescription lda = spec;
    lda.model = "lda";
    lda.algorithm = "svi";
    lda.data.kind = "corpus";
    lda.data.files = {"docs.ldac"};
    lda.params.clear();
    writeFileAtomically(topics + "/run.json", QJsonDocument(runToJson(lda)).toJson());
    std::vector<Snapshot> ldaRows = rows;
    for (Snapshot& s : ldaRows)
        s.metrics = {{"perplexity", 3000.0 - s.step}};
    writeFileAtomically(topics + "/trace.csv", traceCsv(ldaRows, metricKeys(ldaRows)));
    QCOMPARE(w.metricPicker()->findData("perplexity"), -1);
    const int psnrAt = w.metricPicker()->findData("psnr");
    QVERIFY(psnrAt >= 0);
    w.openPath(topics);
    QTRY_VERIFY_WITH_TIMEOUT(runReadFrom(w, topics) > 0, 20000);
    const int perplexityAt = w.metricPicker()->findData("perplexity");
    QVERIFY(perplexityAt >= 0);
    QCOMPARE(w.metricPicker()->findData("psnr"), psnrAt); // the data's own stay first
    w.metricPicker()->setCurrentIndex(perplexityAt);
    w.refreshNow();
    QCOMPARE(w.metricChart()->drawnPoints(runReadFrom(w, topics)), 4);
    QCOMPARE(w.metricChart()->drawnPoints(id), 0); // the image run has no perplexity
    QCOMPARE(errors.size(), 2);

    // Runs read from folders are not the session's: they stay in their own folders.
    const QString session = m_dir.filePath("watched.json");
    QVERIFY(w.saveSession(session));
    QCOMPARE(QJsonDocument::fromJson(readAll(session)).object().value("runs").toArray().size(), 0);
}

// Run ▸ Save Run on a run paused mid-way writes the folder `svi run` would; File ▸ Resume Run
// goes on from it to the same trace as a run never interrupted, and `svi run --resume` goes on
// with a finished run the window saved. A damaged checkpoint ends the resumed run with a
// message naming the file.
void TestWindowRuns::savesARunAndResumesIt()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    QSignalSpy finished(w.runs(), &RunManager::runFinished);
    QSignalSpy saved(w.runs(), &RunManager::runSaved);
    QSignalSpy errors(&w, &MainWindow::errorShown);
    setBudget(w, 200, 5);
    const int whole = w.startRun();
    const int cut = w.startRun();
    QVERIFY(whole > 0 && cut > 0);
    QVERIFY(pauseAtSnapshot(w, cut, 2));
    auto* saveAction = w.findChild<QAction*>("actionSaveRun");
    QVERIFY(saveAction);
    w.runsView()->selectRow(qobject_cast<RunsTableModel*>(w.runsView()->model())->rowOf(cut));
    QVERIFY(saveAction->isEnabled());
    QVERIFY(w.runsView()->actions().contains(saveAction)); // in the table's context menu
    const QString folder = m_dir.filePath("paused");
    w.saveRun(cut, folder);
    QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 1, 30000);
    QVERIFY2(saved.last().at(2).toString().isEmpty(), qPrintable(saved.last().at(2).toString()));
    const std::vector<Snapshot> shown = w.runs()->record(cut)->trace;
    const RunProgress at = checkpointProgress(readCheckpointFile(folder + "/checkpoint.bin"));
    QCOMPARE(at.snapshots, std::int64_t(shown.size()));
    QVERIFY(!QFile::exists(folder + "/summary.json"));
    QVERIFY(readRunFile((folder + "/run.json").toStdString()) == w.runs()->record(cut)->spec);
    w.runs()->abort(cut);
    QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(whole)->summary && w.runs()->record(cut)->summary,
                             120000);

    // Resumed by the window: the trace so far, then on to the budget.
    const int count = int(w.runs()->ids().size());
    w.resumeRun(folder);
    QTRY_COMPARE_WITH_TIMEOUT(int(w.runs()->ids().size()), count + 1, 30000);
    const int resumed = w.runs()->ids().back();
    QCOMPARE(w.runs()->record(resumed)->resumeFrom, folder);
    QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(resumed)->summary, 120000);
    QCOMPARE(w.runs()->record(resumed)->summary->reason, TerminationReason::BudgetReached);
    const QStringList a = traceText(w.runs()->record(whole)->trace);
    QVERIFY(a.size() > int(shown.size()) + 5);
    QCOMPARE(traceText(w.runs()->record(resumed)->trace), a);

    // The command line goes on with a finished run the window saved.
    const QString done = m_dir.filePath("finished");
    w.saveRun(whole, done);
    QTRY_COMPARE_WITH_TIMEOUT(saved.size(), 2, 30000);
    QVERIFY(readAll(done + "/summary.json").contains("\"termination\": \"budget\""));
    const auto cli = runCli({"run", "--resume", done, "--steps", "230", "--quiet"});
    QVERIFY2(cli.exitCode == 0, qPrintable(cli.err));
    const std::vector<Snapshot> longer = parseTraceCsv(readAll(done + "/trace.csv"), "trace.csv");
    QCOMPARE(longer.back().step, std::int64_t(230));
    QCOMPARE(traceText({longer.begin(), longer.begin() + 10}), a.mid(0, 10));

    // A damaged checkpoint: that run ends, saying which file; the others are as they were.
    QByteArray bytes = readAll(folder + "/checkpoint.bin");
    bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x40);
    writeFileAtomically(folder + "/checkpoint.bin", bytes);
    const int errorsBefore = int(errors.size());
    w.resumeRun(folder);
    QTRY_VERIFY_WITH_TIMEOUT(int(errors.size()) > errorsBefore, 30000);
    QVERIFY2(errors.last().at(0).toString().contains(folder + "/checkpoint.bin"),
             qPrintable(errors.last().at(0).toString()));
    const RunRecord* bad = w.runs()->record(w.runs()->ids().back());
    QCOMPARE(bad->summary->reason, TerminationReason::InvalidInput);
    QCOMPARE(traceText(w.runs()->record(resumed)->trace), a);
}

// File ▸ Save Session writes each run into <name>.runs/<n>/ (a paused run checkpointed there
// first) and refers to it; opening the session shows the finished run as it ended, without
// running it, and the paused one goes on from its checkpoint to its budget. With one folder
// missing and the other's checkpoint gone, both run again from the start, with a message.
void TestWindowRuns::sessionRunsComeBackFromTheirFolders()
{
    const QString path = m_dir.filePath("kept.json");
    QStringList finishedTrace, pausedTrace;
    std::vector<Snapshot> uninterrupted;
    {
        MainWindow w;
        QVERIFY(openSmall(w));
        QSignalSpy finished(w.runs(), &RunManager::runFinished);
        setBudget(w, 12, 3);
        const int a = w.startRun();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        setBudget(w, 150, 5);
        const int b = w.startRun();
        QVERIFY(pauseAtSnapshot(w, b, 2));
        QVERIFY(w.saveSession(path));
        QTRY_COMPARE_WITH_TIMEOUT(w.runs()->pendingSaves(), 0, 30000);
        finishedTrace = traceText(w.runs()->record(a)->trace);
        pausedTrace = traceText(w.runs()->record(b)->trace);
        const QJsonObject json = QJsonDocument::fromJson(readAll(path)).object();
        QCOMPARE(json.value("version").toInt(), 3);
        const QJsonArray runs = json.value("runs").toArray();
        QCOMPARE(runs.size(), 2);
        QCOMPARE(runs[0].toObject().value("folder").toString(), QString("kept.runs/1"));
        QCOMPARE(runs[1].toObject().value("folder").toString(), QString("kept.runs/2"));
        QVERIFY(QFile::exists(m_dir.filePath("kept.runs/1/summary.json")));
        QVERIFY(QFile::exists(m_dir.filePath("kept.runs/1/checkpoint.bin")));
        QVERIFY(!QFile::exists(m_dir.filePath("kept.runs/2/summary.json")));
        QVERIFY(QFile::exists(m_dir.filePath("kept.runs/2/checkpoint.bin")));
        // The paused run, had it gone on.
        w.runs()->resume(b);
        QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(b)->summary, 120000);
        uninterrupted = w.runs()->record(b)->trace;
    }
    {
        MainWindow w;
        QVERIFY(waitForData(w));
        QSignalSpy finished(w.runs(), &RunManager::runFinished);
        QSignalSpy errors(&w, &MainWindow::errorShown);
        std::map<int, QStringList> shownAtOnce; // each run's trace as it appears
        connect(w.runs(), &RunManager::runAdded, this,
                [&](int id) { shownAtOnce[id] = traceText(w.runs()->record(id)->trace); });
        w.openPath(path);
        QTRY_COMPARE_WITH_TIMEOUT(int(w.runs()->ids().size()), 2, 30000);
        const int a = w.runs()->ids()[0], b = w.runs()->ids()[1];
        QCOMPARE(w.runs()->record(a)->status, RunStatus::Finished);
        QCOMPARE(w.runs()->record(a)->summary->reason, TerminationReason::BudgetReached);
        QCOMPARE(traceText(w.runs()->record(a)->trace), finishedTrace);
        QCOMPARE(w.runs()->record(b)->resumeFrom, m_dir.filePath("kept.runs/2"));
        QCOMPARE(shownAtOnce[a], finishedTrace);
        QCOMPARE(shownAtOnce[b], pausedTrace);
        QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(b)->summary, 120000);
        QCOMPARE(w.runs()->record(b)->summary->steps, std::int64_t(150));
        QCOMPARE(traceText(w.runs()->record(b)->trace), traceText(uninterrupted));
        QCOMPARE(finished.size(), 1); // the finished run did not run again
        QCOMPARE(errors.size(), 0);
        // Saved to the same file, each run keeps its folder.
        QVERIFY(w.saveSession(path));
        const QJsonArray runs =
            QJsonDocument::fromJson(readAll(path)).object().value("runs").toArray();
        QCOMPARE(runs[0].toObject().value("folder").toString(), QString("kept.runs/1"));
        QCOMPARE(runs[1].toObject().value("folder").toString(), QString("kept.runs/2"));
        QVERIFY(QFile::exists(m_dir.filePath("kept.runs/2/summary.json")));
    }
    // Damaged: the first folder gone, the second without its checkpoint and unfinished.
    QVERIFY(QDir(m_dir.filePath("kept.runs/1")).removeRecursively());
    QVERIFY(QFile::remove(m_dir.filePath("kept.runs/2/summary.json")));
    QVERIFY(QFile::remove(m_dir.filePath("kept.runs/2/checkpoint.bin")));
    {
        MainWindow w;
        QVERIFY(waitForData(w));
        QSignalSpy errors(&w, &MainWindow::errorShown);
        w.openPath(path);
        QTRY_COMPARE_WITH_TIMEOUT(errors.size(), 1, 30000);
        const QString message = errors.at(0).at(0).toString();
        QVERIFY2(message.contains("kept.runs/1") && message.contains("kept.runs/2") &&
                     message.contains("checkpoint.bin"),
                 qPrintable(message));
        QCOMPARE(int(w.runs()->ids().size()), 2);
        const int a = w.runs()->ids()[0], b = w.runs()->ids()[1];
        for (int id : {a, b})
            QVERIFY(w.runs()->record(id)->resumeFrom.isEmpty());
        QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(a)->summary && w.runs()->record(b)->summary,
                                 180000);
        QCOMPARE(traceText(w.runs()->record(a)->trace), finishedTrace); // the same run again
        QCOMPARE(traceText(w.runs()->record(b)->trace), traceText(uninterrupted));
    }
}

QTEST_MAIN(TestWindowRuns)
#include "test_window_runs.moc"
