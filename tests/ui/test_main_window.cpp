// The workbench window driven as a user would: load, edit, run, pause, stop, compare, export,
// re-open, close mid-run. Runs are real (BPFA on a small crop) with tiny budgets.

#include "core/run/registry.h"
#include "tests/test_files.h"
#include "tests/ui/window_testing.h"
#include "ui/image_panel.h"
#include "ui/loadings_view.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/recommendations_view.h"
#include "ui/run_manager.h"
#include "ui/topics_view.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>
#include <set>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

// An LDA-C corpus of 60 documents over 30 words w0 … w29 in three planted groups (w0–w9,
// w10–w19, w20–w29): document d draws its 40 tokens from group d mod 3 only. Fixed seed.
// Returns the counts file; vocab.txt is written beside it.
QString writePlantedCorpus(const QString& folder)
{
    QFile vocab(folder + "/vocab.txt");
    if (!vocab.open(QIODevice::WriteOnly))
        return {};
    for (int w = 0; w < 30; ++w)
        vocab.write(QString("w%1\n").arg(w).toUtf8());
    QFile docs(folder + "/planted.ldac");
    if (!docs.open(QIODevice::WriteOnly))
        return {};
    std::uint32_t state = 12345;
    auto next = [&state] { return (state = state * 1664525u + 1013904223u) >> 16; };
    for (int d = 0; d < 60; ++d) {
        int counts[10] = {};
        for (int t = 0; t < 40; ++t)
            ++counts[next() % 10];
        QStringList pairs;
        for (int i = 0; i < 10; ++i)
            if (counts[i] > 0)
                pairs << QString("%1:%2").arg((d % 3) * 10 + i).arg(counts[i]);
        docs.write((QString::number(pairs.size()) + " " + pairs.join(' ') + "\n").toUtf8());
    }
    return docs.fileName();
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void startsWithTheDefaultImage();
    void parameterFormReflectsTheRegistry();
    void outOfRangeValueKeepsRunDisabled();
    void badFilesAreReportedAndNothingIsLost();
    void taskThatDoesNotFitTheImage();
    void runStreamsSnapshotsIntoChartsAndPanels();
    void pauseResumeStop();
    void twoRunsAtOnce();
    void compareExportAndReopenTheSession();
    void fcsFilesChannelsLoadingsAndSession();
    void corpusTopicsExportAndSession();
    void rawTextTokenizerAndSubset();
    void ratingsRecommendationsAndSession();

private:
    QString smallImage();
    // Waits for the default image, then opens the small crop with small settings.
    bool openSmall(MainWindow& w);
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // settings go to a test location
    QCoreApplication::setOrganizationName("SviWorkbenchTests");
    QCoreApplication::setApplicationName("test_main_window");
    QVERIFY(m_dir.isValid());
}

void TestMainWindow::init()
{
    QSettings().clear();
}

QString TestMainWindow::smallImage()
{
    const QString path = m_dir.filePath("crop.png");
    if (!QFile::exists(path)) {
        QImage img(QString(SVI_TEST_DATA_DIR) + "/coins.png");
        img.copy(150, 100, 36, 30).save(path);
    }
    return path;
}

bool TestMainWindow::openSmall(MainWindow& w)
{
    if (!waitForData(w))
        return false;
    w.openPath(smallImage());
    useSmallSettings(w);
    return waitForData(w);
}

void TestMainWindow::startsWithTheDefaultImage()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    QVERIFY(w.dataReady());
    QCOMPARE(w.currentSource().path, QString(MainWindow::kDefaultImage));
    ImagePanel* original = w.images()->find("original");
    ImagePanel* corrupted = w.images()->find("corrupted");
    QVERIFY(original && corrupted);
    QCOMPARE(original->image().size(), QSize(512, 512));
    // 80 % of the pixels are missing (black) in the corrupted panel.
    const QImage c = corrupted->image();
    qint64 black = 0;
    for (int y = 0; y < c.height(); ++y)
        for (int x = 0; x < c.width(); ++x)
            black += qGray(c.pixel(x, y)) == 0;
    QVERIFY2(std::abs(double(black) / (512.0 * 512.0) - 0.8) < 0.01,
             qPrintable(QString::number(black)));
    // Ready to inpaint with Gibbs-SSVI in one click.
    QCOMPARE(w.algorithmPicker()->currentData().toString(), QString("gibbs-ssvi"));
    QVERIFY(w.runAction()->isEnabled());
}

void TestMainWindow::parameterFormReflectsTheRegistry()
{
    MainWindow w;
    for (int i = 0; i < w.algorithmPicker()->count(); ++i) {
        w.algorithmPicker()->setCurrentIndex(i);
        const AlgorithmEntry* e = Registry::builtin().find(
            "bpfa", w.algorithmPicker()->itemData(i).toString().toStdString());
        QVERIFY(e);
        QCOMPARE(w.algorithmPicker()->itemText(i), QString::fromStdString(e->label));
        for (const ParamSpec& p : e->params) {
            QWidget* editor = w.algorithmForm()->editor(p.key);
            if (p.key == "patch") { // set by the task
                QVERIFY(!editor);
                continue;
            }
            QVERIFY2(editor, p.key.c_str());
            QVERIFY(editor->toolTip().contains(QString::fromStdString(p.help).toHtmlEscaped()));
            if (p.type == ParamType::Choice) {
                auto* combo = qobject_cast<QComboBox*>(editor);
                QVERIFY(combo);
                QCOMPARE(combo->count(), int(p.choices.size()));
                QCOMPARE(combo->currentText(), QString::fromStdString(p.defaultChoice));
            } else if (p.type != ParamType::Bool) {
                auto* line = qobject_cast<QLineEdit*>(editor);
                QVERIFY(line);
                QCOMPARE(line->text(), QString::fromStdString(defaultText(p)));
            }
        }
    }
}

void TestMainWindow::outOfRangeValueKeepsRunDisabled()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    QVERIFY(w.runAction()->isEnabled());
    auto* k = qobject_cast<QLineEdit*>(w.algorithmForm()->editor("K"));
    QVERIFY(k);
    k->selectAll();
    QTest::keyClicks(k, "0");
    QVERIFY(!w.algorithmForm()->isValid());
    QVERIFY(!w.runAction()->isEnabled());
    QVERIFY(k->property("invalid").toBool());
    QVERIFY2(w.algorithmForm()->errorText("K").startsWith("K = 0, but"),
             qPrintable(w.algorithmForm()->errorText("K")));
    QVERIFY(w.runBlockedReason()->text().contains("K = 0"));
    QCOMPARE(w.startRun(), 0);
    QVERIFY(w.runs()->ids().isEmpty());
    // Text that is not a number is refused the same way.
    w.algorithmForm()->setText("kappa", "fast");
    QVERIFY(!w.algorithmForm()->errorText("kappa").isEmpty());
    // Restoring the defaults makes the form valid again.
    w.algorithmForm()->restoreDefaults();
    QVERIFY(w.algorithmForm()->isValid());
    QVERIFY(w.runAction()->isEnabled());
    QVERIFY(!k->property("invalid").toBool());
    // A budget of neither seconds nor steps is refused too.
    w.budgetForm()->setText("seconds", "0");
    QVERIFY(!w.runAction()->isEnabled());
}

void TestMainWindow::badFilesAreReportedAndNothingIsLost()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    const DenseDataPtr before = w.currentData();
    QSignalSpy errors(&w, &MainWindow::errorShown);
    const QString missing = m_dir.filePath("no-such-image.png");
    w.openPath(missing);
    QVERIFY(errors.wait(10000));
    QVERIFY2(errors.last().at(0).toString().contains("no-such-image.png"),
             qPrintable(errors.last().at(0).toString()));
    const QString junk = m_dir.filePath("junk.png");
    {
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a PNG file");
    }
    w.openPath(junk);
    QVERIFY(errors.wait(10000));
    QVERIFY(errors.last().at(0).toString().contains("junk.png"));
    const QString badSession = m_dir.filePath("bad-session.json");
    {
        QFile f(badSession);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"format": "svi-workbench-session", "version": 1, "data": ":/images/default.png",
                   "task": {"missing": 0.5}, "runs": [{"model": "bpfa", "algorithm": "gibbs-ssvi",
                   "params": {"K": 0}, "seed": 1, "budget": {"seconds": 1}}]})");
    }
    w.openPath(badSession);
    QCOMPARE(errors.size(), 3);
    QVERIFY2(errors.last().at(0).toString().contains("runs[0].params: K = 0"),
             qPrintable(errors.last().at(0).toString()));
    // The data loaded before is still there and usable.
    QVERIFY(w.dataReady());
    QCOMPARE(w.currentData(), before);
    QVERIFY(w.runAction()->isEnabled());
}

void TestMainWindow::taskThatDoesNotFitTheImage()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    w.openPath(smallImage());
    QVERIFY(waitForData(w));
    w.taskForm()->setText("patch", "32");
    QVERIFY(!w.runAction()->isEnabled()); // while the data are rebuilt
    QSignalSpy ready(&w, &MainWindow::dataReadyChanged);
    QVERIFY(ready.wait(10000));
    QCOMPARE(ready.last().at(0).toBool(), false);
    QVERIFY(!w.runAction()->isEnabled());
    QVERIFY(w.findChild<QLabel*>("runBlocked")->text().contains("does not fit"));
    w.taskForm()->setText("patch", "6");
    QVERIFY(waitForData(w));
    QVERIFY(w.runAction()->isEnabled());
}

void TestMainWindow::runStreamsSnapshotsIntoChartsAndPanels()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", "4000");
    w.budgetForm()->setText("eval_every", "0.05");
    QSignalSpy snapshots(w.runs(), &RunManager::snapshotArrived);
    QSignalSpy finished(w.runs(), &RunManager::runFinished);
    const int id = w.startRun();
    QVERIFY(id > 0);
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 30000);
    w.refreshNow();
    const int pointsEarly = w.elboChart()->drawnPoints(id);
    ImagePanel* panel = w.images()->find(QString("run:%1").arg(id));
    QVERIFY(panel);
    const QImage early = panel->image();
    QVERIFY(!early.isNull());
    QVERIFY(panel->caption().contains("PSNR"));
    QTRY_VERIFY_WITH_TIMEOUT(finished.size() == 1, 60000);
    w.refreshNow();
    const RunRecord* r = w.runs()->record(id);
    QCOMPARE(r->summary->reason, TerminationReason::BudgetReached);
    QCOMPARE(r->summary->steps, std::int64_t(4000));
    QVERIFY2(w.elboChart()->drawnPoints(id) > pointsEarly,
             qPrintable(QString("%1 → %2").arg(pointsEarly).arg(w.elboChart()->drawnPoints(id))));
    QVERIFY(w.metricChart()->drawnPoints(id) > 1);
    QVERIFY(w.elboChart()->legendNames().contains(r->label));
    // The reconstruction changed while the run trained, and ended on a full pass.
    QVERIFY(panel->image() != early);
    QVERIFY(panel->caption().contains("full pass"));
    QVERIFY(r->preview->reconstructionFull);
    // The table row says what happened.
    QTableView* table = w.runsView();
    QCOMPARE(table->model()->rowCount(), 1);
    QCOMPARE(table->model()->index(0, 10).data().toString(), QString("budget"));
    QCOMPARE(table->model()->index(0, 4).data().toLongLong(), 4000LL);
    // The atoms of the selected run are shown, p×p tiles.
    w.runsView()->selectRow(0);
    QVERIFY(!w.atomsPanel()->image().isNull());
    QVERIFY(w.atomsPanel()->caption().contains("E[π_k]"));
    // Switching the x axis to steps, then epochs (as svi plot --x), redraws the same points.
    QComboBox* xAxis = w.findChild<QComboBox*>("xAxisPicker");
    for (const char* x : {"steps", "epochs"}) {
        xAxis->setCurrentIndex(xAxis->findData(x));
        QVERIFY(xAxis->currentIndex() > 0 && w.elboChart()->drawnPoints(id) > 1);
    }
}

void TestMainWindow::pauseResumeStop()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "120");
    w.budgetForm()->setText("eval_every", "0.05");
    QSignalSpy snapshots(w.runs(), &RunManager::snapshotArrived);
    const int id = w.startRun();
    QTRY_VERIFY_WITH_TIMEOUT(snapshots.size() >= 2, 30000);
    QVERIFY(w.findChild<QAction*>("actionPause")->isEnabled());
    w.findChild<QAction*>("actionPause")->trigger();
    QCOMPARE(w.runs()->record(id)->status, RunStatus::Paused);
    QTRY_VERIFY_WITH_TIMEOUT(
        (w.runs()->pollPhases(), w.runs()->record(id)->phase == RunPhase::Paused), 10000);
    QTest::qWait(100); // a snapshot already queued may still arrive
    const auto steps = w.runs()->record(id)->trace.size();
    QTest::qWait(400);
    QCOMPARE(w.runs()->record(id)->trace.size(), steps);
    QVERIFY(w.findChild<QAction*>("actionResume")->isEnabled());
    w.findChild<QAction*>("actionResume")->trigger();
    QCOMPARE(w.runs()->record(id)->status, RunStatus::Running);
    QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(id)->trace.size() > steps + 1, 20000);
    QSignalSpy finished(w.runs(), &RunManager::runFinished);
    w.findChild<QAction*>("actionStop")->trigger();
    QVERIFY(finished.wait(60000));
    const RunRecord* r = w.runs()->record(id);
    QCOMPARE(r->summary->reason, TerminationReason::Cancelled);
    QVERIFY(r->summary->trainSeconds < 120);
}

void TestMainWindow::twoRunsAtOnce()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "120");
    const int a = w.startRun();
    w.algorithmPicker()->setCurrentIndex(w.algorithmPicker()->findData("mf-svi"));
    const int b = w.startRun();
    QVERIFY(a > 0 && b > 0 && a != b);
    QTRY_VERIFY_WITH_TIMEOUT(w.runs()->record(a)->status == RunStatus::Running &&
                                 w.runs()->record(b)->status == RunStatus::Running &&
                                 !w.runs()->record(a)->trace.empty() &&
                                 !w.runs()->record(b)->trace.empty(),
                             30000);
    QCOMPARE(w.runs()->activeCount(), 2);
    w.refreshNow();
    QCOMPARE(w.elboChart()->seriesCount(), 2);
    QVERIFY(w.images()->find(QString("run:%1").arg(a)) &&
            w.images()->find(QString("run:%1").arg(b)));
    w.findChild<QAction*>("actionStopAll")->trigger();
    QTRY_COMPARE_WITH_TIMEOUT(w.runs()->activeCount(), 0, 60000);
    QCOMPARE(w.runs()->record(a)->summary->reason, TerminationReason::Cancelled);
    QCOMPARE(w.runs()->record(b)->summary->reason, TerminationReason::Cancelled);
}

void TestMainWindow::compareExportAndReopenTheSession()
{
    auto w = std::make_unique<MainWindow>();
    QVERIFY(openSmall(*w));
    w->budgetForm()->setText("seconds", "0");
    w->budgetForm()->setText("steps", "30");
    w->budgetForm()->setText("eval_every", "0.05");
    QSignalSpy done(w.get(), &MainWindow::compareFinished);
    QVERIFY(w->compare(false) > 0);
    QVERIFY(done.wait(180000));
    w->refreshNow();

    // The results table: one row per algorithm, numbers in every column.
    QStandardItemModel* results = w->resultsModel();
    QCOMPARE(results->rowCount(), 5);
    QStringList algorithms;
    for (int row = 0; row < 5; ++row) {
        algorithms << results->item(row, 1)->text();
        for (int c : {2, 3, 5, 6})
            QVERIFY2(std::isfinite(results->item(row, c)->text().toDouble()) &&
                         !results->item(row, c)->text().isEmpty(),
                     qPrintable(QString("row %1 col %2: '%3'")
                                    .arg(row)
                                    .arg(c)
                                    .arg(results->item(row, c)->text())));
        QVERIFY(results->item(row, 4)->text().toDouble() < 0); // a log-likelihood
        QCOMPARE(results->item(row, 7)->text(), QString("30"));
        QCOMPARE(results->item(row, 9)->text(), QString("budget"));
    }
    QCOMPARE(algorithms,
             QStringList({"MF-SVI", "MF-SSVI", "Titsias-SSVI", "Mimno-SVI", "Gibbs-SSVI"}));

    // Exports.
    const QString png = m_dir.filePath("elbo.png"), svg = m_dir.filePath("psnr.svg");
    QVERIFY(w->exportChart(w->elboChart(), png));
    QVERIFY(w->exportChart(w->metricChart(), svg));
    const QImage chart(png);
    QCOMPARE(chart.size(), QSize(1800, 1120));
    const QByteArray svgText = readAll(svg);
    QVERIFY(svgText.contains("<svg"));
    QVERIFY(svgText.contains("PSNR"));
    QSignalSpy errors(w.get(), &MainWindow::errorShown);
    QVERIFY(!w->exportChart(w->elboChart(), m_dir.filePath("chart.gif")));
    QCOMPARE(errors.size(), 1);

    const QString traces = m_dir.filePath("traces.csv");
    QVERIFY(w->exportTraces(traces));
    const QList<QByteArray> lines = readAll(traces).trimmed().split('\n');
    QVERIFY(lines[0].startsWith("run,algorithm,seed,step,epochs,train_seconds,rho,elbo,"));
    QVERIFY(lines[0].contains("psnr_running"));
    qsizetype expectedRows = 0;
    for (int id : w->runs()->ids())
        expectedRows += qsizetype(w->runs()->record(id)->trace.size());
    QCOMPARE(lines.size() - 1, expectedRows);
    // The last row is Gibbs-SSVI's final snapshot: run, algorithm, seed 1, step 30.
    QVERIFY2(lines.last().contains(",gibbs-ssvi,1,30,"), lines.last().constData());

    const QString table = m_dir.filePath("results.csv");
    QVERIFY(w->exportResults(table));
    const QList<QByteArray> rows = readAll(table).trimmed().split('\n');
    QCOMPARE(rows.size(), 6);
    QVERIFY(rows[0].startsWith(
        "Run,Algorithm,PSNR all (dB),PSNR missing (dB),Held-out LL,Held-out MSE,s/step"));
    QVERIFY(rows[5].contains("Gibbs-SSVI"));

    QVERIFY(w->exportReconstructions(m_dir.path()));
    QVERIFY(QFile::exists(m_dir.filePath("original.png")));
    QVERIFY(QFile::exists(m_dir.filePath("corrupted.png")));
    const int firstId = w->runs()->ids().front();
    QCOMPARE(QImage(m_dir.filePath(QString("run-%1-mf-svi.png").arg(firstId))).size(),
             QSize(36, 30));

    const QString session = m_dir.filePath("session.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject json = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(json.value("format").toString(), QString("svi-workbench-session"));
    QCOMPARE(json.value("data").toString(), smallImage());
    QCOMPARE(json.value("task").toObject().value("patch").toInt(), 6);
    const QJsonArray runs = json.value("runs").toArray();
    QCOMPARE(runs.size(), 5);
    QCOMPARE(runs[4].toObject().value("algorithm").toString(), QString("gibbs-ssvi"));
    QCOMPARE(runs[4].toObject().value("params").toObject().value("K").toInt(), 12);
    QCOMPARE(runs[4].toObject().value("budget").toObject().value("steps").toInt(), 30);
    std::map<std::string, double> before;
    for (int id : w->runs()->ids()) {
        const RunRecord* r = w->runs()->record(id);
        before[r->spec.algorithm] = r->summary->last->metrics.at("psnr");
    }
    w.reset();

    // A new window re-opens the session and re-runs it: identical results (step budget).
    QSettings().clear();
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QCOMPARE(again.sessionRunCount(), 5);
    QVERIFY(waitForData(again));
    QCOMPARE(again.currentSource().path, smallImage());
    QCOMPARE(again.currentSource().task.patch, 6);
    QCOMPARE(again.algorithmForm()->text("K"), QString("12"));
    QVERIFY(again.findChild<QAction*>("actionRerunSession")->isEnabled());
    QVERIFY(again.rerunSession());
    QTRY_VERIFY_WITH_TIMEOUT(again.runs()->ids().size() == 5 && again.runs()->activeCount() == 0 &&
                                 again.runs()->record(again.runs()->ids().back())->summary,
                             180000);
    for (int id : again.runs()->ids()) {
        const RunRecord* r = again.runs()->record(id);
        QCOMPARE(r->summary->steps, std::int64_t(30));
        QCOMPARE(r->summary->last->metrics.at("psnr"), before.at(r->spec.algorithm));
    }
}

// Two CyTOF files of one panel opened together: rows stacked, channels picked by marker,
// held-out scores charted, loadings shown with marker names and exported, the session
// re-opened with the same channels.
void TestMainWindow::fcsFilesChannelsLoadingsAndSession()
{
    const QString a = QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_NR4_Patient9.fcs";
    const QString b = QString(SVI_TEST_DATA_DIR) + "/fcs/Data23_Panel3_base_R5_Patient15.fcs";
    auto w = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*w));
    w->openPaths({a, b});
    QVERIFY(waitForData(*w));
    QVERIFY(w->tableMode());
    QCOMPARE(w->currentData()->rows(), std::int64_t(234 + 339));
    QCOMPARE(w->channelList()->count(), 30);
    QCOMPARE(w->channelList()->item(0)->text(), QString("209Bi_CD11b (Bi209Di)"));
    QCOMPARE(w->currentData()->cols(), 30); // every channel has a marker name here
    QCOMPARE(w->metricPicker()->currentData().toString(), QString("heldout_loglik"));
    QCOMPARE(w->tableForm()->text("arcsinh"), QString("5")); // mass cytometry: the usual cofactor

    // No channel: Run is disabled with the reason; then four markers by hand.
    for (int i = 0; i < 30; ++i)
        w->channelList()->item(i)->setCheckState(Qt::Unchecked);
    QTRY_VERIFY(w->runBlockedReason()->text().contains("Select at least one channel"));
    QVERIFY(!w->runAction()->isEnabled());
    QStringList picked;
    for (int i : {26, 27, 28, 29}) { // CD45, CD3, CD56, HLA-DR
        w->channelList()->item(i)->setCheckState(Qt::Checked);
        picked << w->channelList()->item(i)->text();
    }
    w->tableForm()->setText("arcsinh", "2");
    w->tableForm()->setText("heldout", "0.1");
    QVERIFY(waitForData(*w));
    QCOMPARE(w->currentData()->cols(), 4);
    QCOMPARE(QString::fromStdString(w->currentData()->columnNames[1]), QString("170Yb_CD3"));
    const auto held = (w->currentData()->roles.array() == std::uint8_t(EntryRole::HeldOut)).count();
    QVERIFY2(held > 573 * 4 * 0.05 && held < 573 * 4 * 0.15, qPrintable(QString::number(held)));

    // A real run: held-out scores in the chart, loadings with the marker names.
    useSmallSettings(*w);
    w->budgetForm()->setText("seconds", "0");
    w->budgetForm()->setText("steps", "40");
    w->budgetForm()->setText("eval_every", "0.05");
    const int id = w->startRun();
    QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
    QSignalSpy finished(w->runs(), &RunManager::runFinished);
    QVERIFY(finished.wait(60000));
    w->refreshNow();
    const RunRecord* r = w->runs()->record(id);
    QVERIFY(r->summary && r->summary->reason == TerminationReason::BudgetReached);
    QVERIFY(r->summary->last->metrics.at("heldout_loglik") < 0);
    QVERIFY(w->metricChart()->drawnPoints(id) > 1);
    LoadingsView* lv = w->loadingsView();
    QVERIFY(lv->shownFeatures() > 0);
    QCOMPARE(lv->channels(), QStringList({"89Y_CD45", "170Yb_CD3", "173Yb_CD56", "174Yb_HLA-DR"}));
    QVERIFY(lv->scale() > 0);

    // Export: loadings as CSV (header with the markers, one row per feature) and as PNG.
    QTemporaryDir out;
    QVERIFY(w->exportReconstructions(out.path()));
    const QString stem = out.filePath(QString("run-%1-gibbs-ssvi-loadings").arg(id));
    const QList<QByteArray> lines = readAll(stem + ".csv").trimmed().split('\n');
    QCOMPARE(lines[0], QByteArray("feature,weight,89Y_CD45,170Yb_CD3,173Yb_CD56,174Yb_HLA-DR"));
    QCOMPARE(lines.size(), 1 + 12); // K = 12
    QVERIFY(!QImage(stem + ".png").isNull());

    // The session keeps both files and the channels.
    const QString session = out.filePath("cytof.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject saved = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(saved["data"].toArray().size(), 2);
    QCOMPARE(saved["task"].toObject()["channels"].toArray().size(), 4);
    w.reset();
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QVERIFY(waitForData(again));
    QVERIFY(again.tableMode());
    QCOMPARE(again.currentData()->cols(), 4);
    QCOMPARE(again.currentData()->rows(), std::int64_t(573));
    QCOMPARE(again.tableForm()->text("arcsinh"), QString("2")); // the session's, not the suggestion
    QCOMPARE(again.sessionRunCount(), 1);
}

void TestMainWindow::corpusTopicsExportAndSession()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString corpus = writePlantedCorpus(dir.path());
    QVERIFY(!corpus.isEmpty());
    auto w = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*w));
    QCOMPARE(w->modelPicker()->currentData().toString(), QString("bpfa"));

    // Corpus mode: its box, topic models only, perplexity, the counts in the data label.
    w->openPath(corpus);
    QVERIFY(waitForData(*w));
    QVERIFY(w->corpusMode());
    QVERIFY(!w->tableMode());
    QVERIFY(!w->corpusBox()->isHidden());
    QVERIFY(w->taskForm()->parentWidget()->isHidden());        // the inpainting box
    QVERIFY(!w->tokenizerForm()->isVisibleTo(w->corpusBox())); // counts files are not tokenized
    QCOMPARE(w->modelPicker()->currentData().toString(), QString("lda"));
    QCOMPARE(w->modelPicker()->findData("bpfa"), -1);
    // LDA's own defaults, not BPFA's values of the shared keys (K = 256 atoms, minibatch).
    QCOMPARE(w->algorithmForm()->text("K"),
             QString::fromStdString(
                 defaultText(Registry::builtin().find("lda", "svi")->params.front())));
    QCOMPARE(w->metricPicker()->currentData().toString(), QString("perplexity"));
    QVERIFY(w->metricPicker()->findData("heldout_loglik_per_word") >= 0);
    QCOMPARE(w->metricPicker()->findData("psnr"), -1);
    QVERIFY(w->currentCounts());
    QCOMPARE(w->currentCounts()->rows(), std::int64_t(60));
    QCOMPARE(w->currentCounts()->cols(), std::int64_t(30));
    QCOMPARE(w->currentCounts()->testRows.size(), std::size_t(6)); // default 10 %
    const QString label = w->dataLabel()->text();
    QVERIFY2(label.contains("60 documents") && label.contains("30 words") &&
                 label.contains("2,400 tokens") && label.contains("6 test documents"),
             qPrintable(label));
    QVERIFY(w->compareButton()->isEnabled()); // Compare: LDA's SVI and batch side by side

    // A new held-out fraction rebuilds the split.
    w->corpusForm()->setText("heldout", "0.25");
    QVERIFY(waitForData(*w));
    QCOMPARE(w->currentCounts()->testRows.size(), std::size_t(15));
    QVERIFY2(w->dataLabel()->text().contains("15 test documents"),
             qPrintable(w->dataLabel()->text()));
    // A bad value keeps Run disabled with the reason; the data stay.
    w->corpusForm()->setText("heldout", "1.5");
    QTRY_VERIFY(w->runBlockedReason()->text().contains("heldout"));
    QVERIFY(!w->runAction()->isEnabled());
    QCOMPARE(w->currentCounts()->testRows.size(), std::size_t(15));
    w->corpusForm()->setText("heldout", "0.25");
    QVERIFY(waitForData(*w));

    // LDA with three topics on a small step budget.
    ParamForm* f = w->algorithmForm();
    QVERIFY(f->setText("K", "3"));
    QVERIFY(f->setText("minibatch", "8"));
    w->budgetForm()->setText("seconds", "0");
    w->budgetForm()->setText("steps", "4000");
    w->budgetForm()->setText("eval_every", "0.05");
    QSignalSpy finished(w->runs(), &RunManager::runFinished);
    const int id = w->startRun();
    QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
    QVERIFY(finished.wait(60000));
    w->refreshNow();
    const RunRecord* r = w->runs()->record(id);
    QVERIFY(r->summary);
    QVERIFY2(r->summary->reason == TerminationReason::BudgetReached, r->summary->message.c_str());
    QCOMPARE(r->spec.model, std::string("lda"));
    // Uniform over the 30 words is perplexity 30; the planted groups allow about 10.
    const double perplexity = r->summary->last->metrics.at("perplexity");
    QVERIFY2(perplexity > 5 && perplexity < 20, qPrintable(QString::number(perplexity)));
    QVERIFY(w->metricChart()->drawnPoints(id) > 1);
    TopicsView* topics = w->topicsView();
    QCOMPARE(topics->topicCount() > 0, true);
    QVERIFY(topics->topicCount() <= 3);
    QVERIFY(w->topicsTitle()->text().contains(QString("Topics of #%1 LDA").arg(id)));
    // The most used topic's five top words come from one planted group.
    const QStringList words = topics->wordsAt(0).split(' ');
    QVERIFY2(words.size() >= 5, qPrintable(topics->wordsAt(0)));
    std::set<int> groups;
    for (int i = 0; i < 5; ++i)
        groups.insert(words[i].mid(1).toInt() / 10);
    QVERIFY2(groups.size() == 1, qPrintable(topics->wordsAt(0)));

    // Export: the topics as CSV.
    QTemporaryDir out;
    QVERIFY(w->exportReconstructions(out.path()));
    const QList<QByteArray> lines =
        readAll(out.filePath(QString("run-%1-svi-topics.csv").arg(id))).trimmed().split('\n');
    QCOMPARE(lines[0], QByteArray("topic,weight,rank,word,probability"));
    QVERIFY2(lines.size() > 10, qPrintable(QString::number(lines.size())));
    QVERIFY(lines[1].contains(",1,w"));

    // A malformed corpus and an empty one: an error naming the file; the data and runs stay.
    QTemporaryDir badDir;
    QFile bad(badDir.filePath("broken.ldac"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("2 0:1 5x:2\n");
    bad.close();
    QFile empty(badDir.filePath("empty.ldac"));
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.write("0\n0\n");
    empty.close();
    const CountDataPtr before = w->currentCounts();
    for (const QString& name : {QString("broken.ldac"), QString("empty.ldac")}) {
        QSignalSpy errors(w.get(), &MainWindow::errorShown);
        w->openPath(badDir.filePath(name));
        QVERIFY(errors.wait(20000));
        QVERIFY2(errors.last().at(0).toString().contains(name),
                 qPrintable(errors.last().at(0).toString()));
        QCOMPARE(w->currentCounts(), before);
        QVERIFY(w->corpusMode());
        QCOMPARE(w->runs()->ids().size(), 1);
        QVERIFY(w->runAction()->isEnabled());
    }

    // The session keeps the corpus settings.
    const QString session = out.filePath("corpus.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject saved = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(saved["task"].toObject()["kind"].toString(), QString("corpus"));
    QCOMPARE(saved["task"].toObject()["heldout"].toDouble(), 0.25);
    w.reset();
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QVERIFY(waitForData(again));
    QVERIFY(again.corpusMode());
    QCOMPARE(again.corpusForm()->text("heldout"), QString("0.25"));
    QCOMPARE(again.currentCounts()->testRows.size(), std::size_t(15));
    QCOMPARE(again.modelPicker()->currentData().toString(), QString("lda"));
    QCOMPARE(again.algorithmForm()->text("K"), QString("3"));
    QCOMPARE(again.sessionRunCount(), 1);
}

void TestMainWindow::rawTextTokenizerAndSubset()
{
    const QString archive = QString(SVI_TEST_DATA_DIR) + "/text/news_sample.tar.gz";
    MainWindow w;
    QVERIFY(waitForData(w));
    w.openPath(archive);
    QVERIFY(waitForData(w));
    QVERIFY(w.corpusMode());
    QVERIFY(w.tokenizerForm()->isVisibleTo(w.corpusBox())); // raw text: the words can be set
    const std::int64_t docs = w.currentCounts()->rows();
    const std::int64_t words = w.currentCounts()->cols();
    QVERIFY(docs > 2 && words > 0);

    // Keeping the one-off words reads the archive again with a larger vocabulary.
    w.tokenizerForm()->setText("min_df", "1");
    QVERIFY(waitForData(w));
    QVERIFY2(w.currentCounts()->cols() > words,
             qPrintable(QString::number(w.currentCounts()->cols())));
    // Only the training folder: fewer documents.
    w.subsetEdit()->setText("train");
    emit w.subsetEdit()->textEdited("train");
    QVERIFY(waitForData(w));
    QVERIFY2(w.currentCounts()->rows() < docs,
             qPrintable(QString::number(w.currentCounts()->rows())));
    QCOMPARE(w.currentSource().subset, QString("train"));
    QCOMPARE(w.currentSource().tokenizer.minDocumentFrequency, std::int64_t(1));

    // The session keeps the tokenizer settings and the subset.
    QTemporaryDir out;
    const QString session = out.filePath("news.json");
    QVERIFY(w.saveSession(session));
    const QJsonObject task = QJsonDocument::fromJson(readAll(session)).object()["task"].toObject();
    QCOMPARE(task["subset"].toString(), QString("train"));
    QCOMPARE(task["tokenizer"].toObject()["min_df"].toInt(), 1);
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QVERIFY(waitForData(again));
    QCOMPARE(again.currentCounts()->rows(), w.currentCounts()->rows());
    QCOMPARE(again.currentCounts()->cols(), w.currentCounts()->cols());
    QCOMPARE(again.subsetEdit()->text(), QString("train"));
}

// Ratings as a user meets them: a MovieLens u.data with its u.item titles (Latin-1) opens in
// ratings mode with recommenders only; HPF runs; any user's top 20 list names titles, leaves out
// what the user rated in training and hits their held-out items; a broken file is reported
// without losing the data; the session keeps the split settings.
void TestMainWindow::ratingsRecommendationsAndSession()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // 120 users in 3 taste groups of 10 items each; every user rates 8 items of their group
    // (4 or 5 stars) and 1 other item (1 star).
    QByteArray data, items;
    for (int u = 1; u <= 120; ++u) {
        const int g = u % 3;
        for (int j = 0; j < 8; ++j) {
            const int item = 1 + g * 10 + (u * 7 + j * 3) % 10;
            data += QByteArray::number(u) + '\t' + QByteArray::number(item) + '\t' +
                    (j % 2 ? "5" : "4") + "\t881250949\n";
        }
        data += QByteArray::number(u) + '\t' + QByteArray::number(1 + ((g + 1) % 3) * 10 + u % 10) +
                "\t1\t881250950\n";
    }
    for (int i = 1; i <= 30; ++i)
        items += QByteArray::number(i) + "|Film " + QByteArray::number(i) +
                 (i == 1 ? " \xe9t\xe9" : "") +
                 " (1995)|01-Jan-1995||http://x|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0\n";
    QFile d(dir.filePath("u.data")), it(dir.filePath("u.item"));
    QVERIFY(d.open(QIODevice::WriteOnly) && d.write(data) == data.size());
    QVERIFY(it.open(QIODevice::WriteOnly) && it.write(items) == items.size());
    d.close();
    it.close();

    auto w = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*w));
    w->openPath(dir.filePath("u.data"));
    QVERIFY(waitForData(*w));
    QVERIFY(w->ratingsMode());
    QVERIFY(!w->corpusMode());
    QVERIFY(!w->ratingsBox()->isHidden());
    QVERIFY(w->corpusBox()->isHidden());
    QCOMPARE(w->modelPicker()->currentData().toString(), QString("hpf"));
    QCOMPARE(w->modelPicker()->findData("lda"), -1);
    QVERIFY(w->modelPicker()->findData("pmf") >= 0);
    QCOMPARE(w->metricPicker()->currentData().toString(), QString("precision_at_20"));
    QVERIFY(w->currentCounts());
    QCOMPARE(w->currentCounts()->rows(), std::int64_t(120));
    QCOMPARE(w->currentCounts()->cols(), std::int64_t(30));
    QCOMPARE(w->currentCounts()->heldOut.nonZeros(), std::int64_t(120 * 2)); // round(0.2 · 9)
    QCOMPARE(w->currentCounts()->columnNames[0], std::string("Film 1 \u00e9t\u00e9 (1995)"));
    const QString label = w->dataLabel()->text();
    QVERIFY2(label.contains("120 users") && label.contains("30 items") &&
                 label.contains("240 test"),
             qPrintable(label));

    // HPF, batch VB, three factors.
    w->algorithmPicker()->setCurrentIndex(w->algorithmPicker()->findData("batch"));
    ParamForm* f = w->algorithmForm();
    QVERIFY(f->setText("K", "3"));
    w->budgetForm()->setText("seconds", "0");
    w->budgetForm()->setText("steps", "60");
    w->budgetForm()->setText("eval_every", "0.05");
    QSignalSpy finished(w->runs(), &RunManager::runFinished);
    const int id = w->startRun();
    QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
    QVERIFY(finished.wait(60000));
    w->refreshNow();
    const RunRecord* r = w->runs()->record(id);
    QVERIFY(r->summary);
    QVERIFY2(r->summary->reason == TerminationReason::BudgetReached, r->summary->message.c_str());
    const auto& m = r->summary->last->metrics;
    QVERIFY2(
        m.at("recall_at_20") > m.at("popularity_recall_at_20"),
        qPrintable(
            QString("%1 vs %2").arg(m.at("recall_at_20")).arg(m.at("popularity_recall_at_20"))));

    // The recommendations of user row 4: 20 titles, none rated in training, held-out hits.
    RecommendationsView* rec = w->recommendationsView();
    rec->setUser(4);
    QCOMPARE(rec->recommendedTitles().size(), 20);
    QCOMPARE(rec->ratedTitles().size(), int(w->currentCounts()->train.rowNonZeros(4)));
    for (const QString& t : rec->ratedTitles())
        QVERIFY2(!rec->recommendedTitles().mid(0, 20).contains(t), qPrintable(t));
    QVERIFY(rec->recommendedTitles().front().startsWith("Film "));
    int hits = 0;
    for (int u = 0; u < 120; ++u) {
        rec->setUser(u);
        hits += rec->heldOutHits();
    }
    QVERIFY2(hits > 200, qPrintable(QString::number(hits))); // of 240 held-out ratings
    QTemporaryDir out;
    QVERIFY(w->exportReconstructions(out.path()));
    const QList<QByteArray> lines =
        readAll(out.filePath(QString("run-%1-batch-recommendations.csv").arg(id)))
            .trimmed()
            .split('\n');
    QCOMPARE(lines[0], QByteArray("user_id,rank,item_id,title,score,held_out"));
    QVERIFY2(lines[1].startsWith(
                 QByteArray::number(
                     w->currentCounts()->rowIds[std::size_t(w->recommendationsView()->user())]) +
                 ",1,"),
             lines[1].constData());
    QCOMPARE(lines.size(), 21);

    // A duplicated pair: an error naming the file and both lines; ratings and runs stay.
    QTemporaryDir badDir;
    QFile bad(badDir.filePath("u.data"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("1\t2\t3\t881250949\n1\t2\t4\t881250949\n");
    bad.close();
    const CountDataPtr before = w->currentCounts();
    QSignalSpy errors(w.get(), &MainWindow::errorShown);
    w->openPath(badDir.filePath("u.data"));
    QVERIFY(errors.wait(20000));
    const QString message = errors.last().at(0).toString();
    QVERIFY2(message.contains("u.data") && message.contains("line 2"), qPrintable(message));
    QCOMPARE(w->currentCounts(), before);
    QVERIFY(w->ratingsMode());
    QCOMPARE(w->runs()->ids().size(), 1);

    // A new test fraction re-splits; the session keeps it.
    w->ratingsForm()->setText("test_fraction", "0.4");
    QVERIFY(waitForData(*w));
    QCOMPARE(w->currentCounts()->heldOut.nonZeros(), std::int64_t(120 * 4)); // round(0.4 · 9)
    const QString session = out.filePath("ratings.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject saved = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(saved["task"].toObject()["kind"].toString(), QString("ratings"));
    QCOMPARE(saved["task"].toObject()["test_fraction"].toDouble(), 0.4);
    auto again = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*again));
    again->openPath(session);
    QVERIFY(waitForData(*again));
    QVERIFY(again->ratingsMode());
    QCOMPARE(again->currentCounts()->heldOut.nonZeros(), std::int64_t(120 * 4));
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
