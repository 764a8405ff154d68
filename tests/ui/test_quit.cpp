// Closing the window never loses what is on screen: with runs going it asks once (continue, or
// stop them and quit); with runs no session file holds it offers to save the session; with
// nothing to lose it closes at once. Closing mid-run never leaves a thread behind.

#include "tests/test_files.h"
#include "tests/ui/window_testing.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/run_manager.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

// Answers the modal dialogs of a close as a user would: clicks `button` in the quit question
// and, when `savePath` is set, types it into the save dialog that follows. Counts the
// questions and keeps the last one's text. Lives as long as the test holds it.
class Answerer : public QObject
{
public:
    explicit Answerer(QString button, QString savePath = {})
        : m_button(std::move(button)), m_savePath(std::move(savePath))
    {
        connect(&m_timer, &QTimer::timeout, this, &Answerer::poll);
        m_timer.start(20);
    }
    int questions = 0;
    int fileDialogs = 0;
    QString text;

private:
    void poll()
    {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* box = qobject_cast<QMessageBox*>(modal);
            box && box->objectName() == "quitQuestion" && box != m_answered) {
            m_answered = box;
            ++questions;
            text = box->text() + "\n" + box->informativeText();
            auto* b = box->findChild<QPushButton*>(m_button);
            if (!b)
                qFatal("no button %s in the quit question", qPrintable(m_button));
            b->click();
        } else if (auto* dlg = qobject_cast<QFileDialog*>(modal); dlg && dlg != m_answeredFile) {
            m_answeredFile = dlg;
            ++fileDialogs;
            if (m_savePath.isEmpty()) {
                dlg->reject();
            } else {
                // As a user: the name typed into the dialog's file name field, then Save.
                auto* name = dlg->findChild<QLineEdit*>("fileNameEdit");
                if (!name)
                    qFatal("no file name field in the save dialog");
                name->setText(m_savePath);
                QMetaObject::invokeMethod(dlg, "accept");
            }
        }
    }

    QString m_button, m_savePath;
    QTimer m_timer;
    QMessageBox* m_answered = nullptr;
    QFileDialog* m_answeredFile = nullptr;
};

// Runs one small run of `steps` steps to its end; its id, or 0 when it did not end.
int runToTheEnd(MainWindow& w, int steps)
{
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", QString::number(steps));
    QSignalSpy finished(w.runs(), &RunManager::runFinished);
    const int id = w.startRun();
    return !finished.isEmpty() || finished.wait(60000) ? id : 0;
}

} // namespace

class TestQuit : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init();
    void nothingToLoseClosesAtOnce();
    void runsGoingAskOnceContinueOrStop();
    void quitActionAsksTheSameQuestion();
    void unsavedRunsOfferToSaveTheSession();
    void cancellingTheSaveKeepsTheWindow();
    void savedSessionClosesAndNewRunsAskAgain();
    void savingWithRunsGoingClosesOnceTheyAreSaved();
    void closingMidRunJoinsTheWorkers();

private:
    // Waits for the default image, then opens a small crop with small settings.
    bool openSmall(MainWindow& w);
    QTemporaryDir m_dir;
};

void TestQuit::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("SviWorkbenchTests");
    QCoreApplication::setApplicationName("test_quit");
    QVERIFY(m_dir.isValid());
    QImage img(QString(SVI_TEST_DATA_DIR) + "/coins.png");
    QVERIFY(img.copy(150, 100, 36, 30).save(m_dir.filePath("crop.png")));
}

void TestQuit::init()
{
    QSettings().clear();
}

bool TestQuit::openSmall(MainWindow& w)
{
    if (!waitForData(w))
        return false;
    w.openPath(m_dir.filePath("crop.png"));
    useSmallSettings(w);
    return waitForData(w);
}

void TestQuit::nothingToLoseClosesAtOnce()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    Answerer a("quitContinue");
    QVERIFY(w.close());
    QCOMPARE(a.questions, 0);
}

void TestQuit::runsGoingAskOnceContinueOrStop()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "600");
    QSignalSpy snapshots(w.runs(), &RunManager::snapshotArrived);
    const int a = w.startRun();
    const int b = w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 60000);
    {
        Answerer stay("quitContinue");
        QVERIFY(!w.close()); // the window stays, the runs go on
        QCOMPARE(stay.questions, 1);
        QVERIFY2(stay.text.contains("2 runs still going") &&
                     stay.text.contains(w.runs()->record(a)->label) &&
                     stay.text.contains(w.runs()->record(b)->label),
                 qPrintable(stay.text));
        QVERIFY2(stay.text.contains("not saved"), qPrintable(stay.text));
    }
    QCOMPARE(w.runs()->activeCount(), 2);
    const std::size_t before = w.runs()->record(a)->trace.size();
    QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(a)->trace.size() > before, 30000);
    {
        Answerer stop("quitStop");
        QVERIFY(w.close());
        QCOMPARE(stop.questions, 1);
        QCOMPARE(stop.fileDialogs, 0); // nothing is saved or exported unasked
    }
    // Both runs were told to end at once, without a final full pass.
    QTRY_COMPARE_WITH_TIMEOUT(w.runs()->activeCount(), 0, 30000);
    for (int id : {a, b})
        QCOMPARE(w.runs()->record(id)->summary->reason, TerminationReason::Cancelled);
}

void TestQuit::quitActionAsksTheSameQuestion()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "600");
    QSignalSpy snapshots(w.runs(), &RunManager::snapshotArrived);
    w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 1, 60000);
    auto* quit = w.findChild<QAction*>("actionQuit");
    QVERIFY(quit);
    QCOMPARE(quit->shortcut(), QKeySequence(QKeySequence::Quit));
    Answerer stay("quitContinue");
    quit->trigger();
    QCOMPARE(stay.questions, 1);
    QCOMPARE(w.runs()->activeCount(), 1);
    w.runs()->abortAll();
}

void TestQuit::unsavedRunsOfferToSaveTheSession()
{
    const QString path = m_dir.filePath("asked.json");
    QFile::remove(path);
    MainWindow w;
    QVERIFY(openSmall(w));
    const int id = runToTheEnd(w, 20);
    QVERIFY(id > 0);
    const double psnr = w.runs()->record(id)->metric("psnr");
    QVERIFY(std::isfinite(psnr));
    Answerer save("quitSave", path);
    QVERIFY(w.close());
    QCOMPARE(save.questions, 1);
    QVERIFY2(!save.text.contains("still going"), qPrintable(save.text));
    QCOMPARE(save.fileDialogs, 1); // never saved: where to?
    // The session holds the finished run with its result.
    const QJsonObject s = readJson(path);
    QCOMPARE(s.value("format").toString(), QString("svi-workbench-session"));
    const QJsonArray runs = s.value("runs").toArray();
    QCOMPARE(runs.size(), 1);
    const QJsonObject result = runs.at(0).toObject().value("result").toObject();
    QCOMPARE(result.value("termination").toString(), QString("budget"));
    QCOMPARE(result.value("metrics").toObject().value("psnr").toDouble(), psnr);
    QCOMPARE(w.sessionPath(), path);
}

void TestQuit::cancellingTheSaveKeepsTheWindow()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    QVERIFY(runToTheEnd(w, 10) > 0);
    {
        Answerer cancelTheFile("quitSave"); // no path: the file dialog is cancelled
        QVERIFY(!w.close());
        QCOMPARE(cancelTheFile.questions, 1);
        QCOMPARE(cancelTheFile.fileDialogs, 1);
        QCOMPARE(w.runs()->ids().size(), 1); // still there
    }
    Answerer discard("quitDiscard");
    QVERIFY(w.close());
    QCOMPARE(discard.questions, 1);
}

void TestQuit::savedSessionClosesAndNewRunsAskAgain()
{
    const QString path = m_dir.filePath("saved.json");
    MainWindow w;
    QVERIFY(openSmall(w));
    QVERIFY(runToTheEnd(w, 10) > 0);
    QVERIFY(w.saveSession(path));
    {
        Answerer none("quitContinue");
        QVERIFY(w.close()); // saved, nothing going: no question
        QCOMPARE(none.questions, 0);
    }
    // A run added after the save is not in the file: asked again, and saved to the same file
    // without a dialog.
    QVERIFY(runToTheEnd(w, 10) > 0);
    Answerer save("quitSave");
    QVERIFY(w.close());
    QCOMPARE(save.questions, 1);
    QVERIFY2(save.text.contains("1 run"), qPrintable(save.text)); // only the new one is unsaved
    QCOMPARE(save.fileDialogs, 0);
    QCOMPARE(readJson(path).value("runs").toArray().size(), 2);
}

// Save Session and Quit while a run is going: the window stays until the run's checkpoint is
// in its folder (unfinished, to go on from there), then closes by itself without asking again.
void TestQuit::savingWithRunsGoingClosesOnceTheyAreSaved()
{
    const QString path = m_dir.filePath("going.json");
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "600");
    QSignalSpy snapshots(w.runs(), &RunManager::snapshotArrived);
    const int id = w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 60000);
    {
        Answerer save("quitSave", path);
        QVERIFY(!w.close()); // not yet: the run's checkpoint is to come
        QCOMPARE(save.questions, 1);
        QCOMPARE(save.fileDialogs, 1);
    }
    Answerer none("quitContinue");
    // Closed once saved: the run was then stopped, and nothing was asked again.
    QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(id)->summary, 60000);
    QCOMPARE(w.runs()->record(id)->summary->reason, TerminationReason::Cancelled);
    QCOMPARE(none.questions, 0);
    QCOMPARE(w.runs()->pendingSaves(), 0);
    QVERIFY(QFile::exists(path));
    QVERIFY(QFile::exists(m_dir.filePath("going.runs/1/checkpoint.bin")));
    QVERIFY(!QFile::exists(m_dir.filePath("going.runs/1/summary.json")));
}

void TestQuit::closingMidRunJoinsTheWorkers()
{
    auto w = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*w));
    // The default image (255,025 patches): a full pass would take long; closing must not wait
    // for it.
    w->algorithmForm()->setText("K", "32");
    w->budgetForm()->setText("seconds", "600");
    w->budgetForm()->setText("full_every", "0.2");
    QSignalSpy snapshots(w->runs(), &RunManager::snapshotArrived);
    w->startRun();
    w->startRun();
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 1, 60000);
    QElapsedTimer timer;
    timer.start();
    {
        Answerer stop("quitStop");
        QVERIFY(w->close());
    }
    w.reset(); // joins both workers
    QVERIFY2(timer.elapsed() < 20000, qPrintable(QString("%1 ms").arg(timer.elapsed())));
}

QTEST_MAIN(TestQuit)
#include "test_quit.moc"
