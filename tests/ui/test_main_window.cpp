// The workbench window driven as a user would: load, edit, run, pause, stop, compare, export,
// re-open, close mid-run. Runs are real (BPFA on a small crop) with tiny budgets.

#include "core/io/run_json.h"
#include "core/models/builtin.h"
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
#include "ui/runs_table.h"
#include "ui/topics_view.h"

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QGroupBox>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QThreadPool>
#include <QtTest>
#include <cmath>
#include <memory>
#include <set>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

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
    void aLoadShowsItsBytesAndCancelStopsItsReader();
    void taskThatDoesNotFitTheImage();
    void runStreamsSnapshotsIntoChartsAndPanels();
    void pauseResumeStop();
    void twoRunsAtOnce();
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
    QCOMPARE(w.dataDescription().files, std::vector<std::string>{MainWindow::kDefaultImage});
    QCOMPARE(w.dataKind(), QString("image"));
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
        const AlgorithmEntry* e = builtinRegistry().find(
            "bpfa", w.algorithmPicker()->itemData(i).toString().toStdString());
        QVERIFY(e);
        QCOMPARE(w.algorithmPicker()->itemText(i), QString::fromStdString(e->label));
        for (const ParamSpec& p : e->params) {
            QWidget* editor = w.algorithmForm()->editor(p.key);
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
    QVERIFY2(w.algorithmForm()->errorText("K").startsWith("Features K = 0, but"),
             qPrintable(w.algorithmForm()->errorText("K")));
    QVERIFY(w.runBlockedReason()->text().contains("Features K = 0"));
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

// A large table: the status bar's bar follows the bytes read; Cancel stops the reader (the
// pool has no thread left within a second) and the data already there stay. 200 MB here;
// SVI_TEST_LOAD_MB=1024 times the cancel of a 1 GB load (it prints how long it took).
void TestMainWindow::aLoadShowsItsBytesAndCancelStopsItsReader()
{
    QTemporaryDir tmp;
    const QString big = tmp.filePath("big.csv");
    const int megabytes = qEnvironmentVariableIsSet("SVI_TEST_LOAD_MB")
                              ? qEnvironmentVariableIntValue("SVI_TEST_LOAD_MB")
                              : 200;
    {
        QFile f(big);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a,b,c,d,e,f,g,h\n");
        const QByteArray rows = QByteArray("1.5,2.5,3.5,4.5,5.5,6.5,7.5,8.5\n").repeated(1 << 16);
        for (qint64 written = 0; written < qint64(megabytes) << 20; written += rows.size())
            QVERIFY(f.write(rows) == rows.size());
    }
    MainWindow w;
    QVERIFY(waitForData(w));
    auto* bar = w.findChild<QProgressBar*>("busyProgress");
    auto* cancel = w.findChild<QPushButton*>("busyCancel");
    QVERIFY(bar && cancel);
    w.openPath(big);
    // Cancelled a third of the way in, mid-parse.
    QTRY_VERIFY_WITH_TIMEOUT(bar->maximum() == 1000 && bar->value() >= 300, 20000);
    QVERIFY(bar->value() < 1000);
    const int reached = bar->value();
    QElapsedTimer clock;
    clock.start();
    cancel->click();
    QVERIFY(QThreadPool::globalInstance()->waitForDone(1000));
    qInfo("a %d MB load cancelled at %.0f %%: the reader stopped %lld ms after Cancel", megabytes,
          reached / 10.0, static_cast<long long>(clock.elapsed()));
    QVERIFY(!bar->isVisible());
    QCOMPARE(w.dataKind(), QString("image"));
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
    QVERIFY2(errors.last().at(0).toString().contains("runs[0].params.K: K = 0"),
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
    w.settingsForm()->setText("patch", "32");
    QVERIFY(!w.runAction()->isEnabled()); // while the data are rebuilt
    QSignalSpy ready(&w, &MainWindow::dataReadyChanged);
    QVERIFY(ready.wait(10000));
    QCOMPARE(ready.last().at(0).toBool(), false);
    QVERIFY(!w.runAction()->isEnabled());
    QVERIFY2(w.findChild<QLabel*>("runBlocked")->text().contains("smaller than the 32×32 patch"),
             qPrintable(w.findChild<QLabel*>("runBlocked")->text()));
    w.settingsForm()->setText("patch", "6");
    QVERIFY(waitForData(w));
    QVERIFY(w.runAction()->isEnabled());
}

void TestMainWindow::runStreamsSnapshotsIntoChartsAndPanels()
{
    MainWindow w;
    QVERIFY(openSmall(w));
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", "4000");
    // Snapshots by steps, not training seconds: twenty of them on any machine (every 0.05 s
    // made a thousand full evaluations of the run under the sanitizers).
    w.budgetForm()->setText("eval_every_steps", "200");
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
    auto* runsModel = qobject_cast<RunsTableModel*>(table->model());
    QVERIFY(runsModel);
    QCOMPARE(table->model()->index(0, runsModel->terminationColumn()).data().toString(),
             QString("budget"));
    QCOMPARE(table->model()->index(0, RunsTableModel::Steps).data().toLongLong(), 4000LL);
    // The metric columns are those BPFA declares for images, with their units.
    const int psnrColumn = runsModel->metricColumn("psnr");
    QVERIFY(psnrColumn > 0 && runsModel->metricColumn("heldout_loglik") > 0);
    QCOMPARE(runsModel->headerData(psnrColumn, Qt::Horizontal).toString().simplified(),
             QString("PSNR, full pass (dB)"));
    QVERIFY(table->model()->index(0, psnrColumn).data().toDouble() > 10);
    QCOMPARE(runsModel->metricColumn("precision_at_20"), -1);
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
    QCOMPARE(w->dataKind(), QString("table"));
    QCOMPARE(w->currentData()->rows(), std::int64_t(234 + 339));
    QCOMPARE(w->namesList()->count(), 30);
    QCOMPARE(w->namesList()->item(0)->text(), QString("209Bi_CD11b (Bi209Di)"));
    QCOMPARE(w->currentData()->cols(), 30); // every channel has a marker name here
    QCOMPARE(w->metricPicker()->currentData().toString(), QString("heldout_loglik"));
    QCOMPARE(w->settingsForm()->text("arcsinh"),
             QString("5")); // mass cytometry: the usual cofactor

    // No channel: Run is disabled with the reason; then four markers by hand.
    for (int i = 0; i < 30; ++i)
        w->namesList()->item(i)->setCheckState(Qt::Unchecked);
    QTRY_VERIFY(w->runBlockedReason()->text().contains("Select at least one of the channels"));
    QVERIFY(!w->runAction()->isEnabled());
    QStringList picked;
    for (int i : {26, 27, 28, 29}) { // CD45, CD3, CD56, HLA-DR
        w->namesList()->item(i)->setCheckState(Qt::Checked);
        picked << w->namesList()->item(i)->text();
    }
    w->settingsForm()->setText("arcsinh", "2");
    w->settingsForm()->setText("heldout", "0.1");
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
    const QJsonObject data = saved["data"].toObject();
    QCOMPARE(data["files"].toArray().size(), 2);
    QCOMPARE(data["kind"].toString(), QString("table"));
    QCOMPARE(splitNames(data["settings"].toObject()["channels"].toString().toStdString()).size(),
             std::size_t(4));
    w.reset();
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QVERIFY(waitForData(again));
    QCOMPARE(again.dataKind(), QString("table"));
    QCOMPARE(again.currentData()->cols(), 4);
    QCOMPARE(again.currentData()->rows(), std::int64_t(573));
    QCOMPARE(again.settingsForm()->text("arcsinh"),
             QString("2")); // the session's, not the suggestion
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
    // BPFA's Gibbs-SSVI picked: LDA has a gibbs-ssvi too, but another algorithm, so the corpus
    // brings LDA's default, not the key that both models use.
    w->algorithmPicker()->setCurrentIndex(w->algorithmPicker()->findData("gibbs-ssvi"));
    QCOMPARE(w->algorithmPicker()->currentData().toString(), QString("gibbs-ssvi"));

    // Corpus mode: its box, topic models only, perplexity, the counts in the data label.
    w->openPath(corpus);
    QVERIFY(waitForData(*w));
    QCOMPARE(w->dataKind(), QString("corpus"));
    QVERIFY(w->settingsBox()->title().startsWith("Corpus"));
    QVERIFY(w->settingsForm()->editor("heldout"));
    QVERIFY(!w->settingsForm()->editor("patch"));            // the image's settings are gone
    QVERIFY(!w->settingsForm()->editor("min_df"));           // counts files are not tokenized
    QVERIFY(w->settingsForm()->editor("vocab"));             // but may name their vocabulary
    QVERIFY(!w->namesList()->isVisibleTo(w->settingsBox())); // no names to pick
    QCOMPARE(w->modelPicker()->currentData().toString(), QString("lda"));
    QCOMPARE(w->algorithmPicker()->currentData().toString(), QString("svi"));
    QCOMPARE(w->modelPicker()->findData("bpfa"), -1);
    // LDA's own defaults, not BPFA's values of the shared keys (K = 256 atoms, minibatch).
    QCOMPARE(
        w->algorithmForm()->text("K"),
        QString::fromStdString(defaultText(builtinRegistry().find("lda", "svi")->params.front())));
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
    w->settingsForm()->setText("heldout", "0.25");
    QVERIFY(waitForData(*w));
    QCOMPARE(w->currentCounts()->testRows.size(), std::size_t(15));
    QVERIFY2(w->dataLabel()->text().contains("15 test documents"),
             qPrintable(w->dataLabel()->text()));
    // A bad value keeps Run disabled with the reason; the data stay.
    w->settingsForm()->setText("heldout", "1.5");
    QTRY_VERIFY(w->runBlockedReason()->text().contains("Test documents = 1.5"));
    QVERIFY(!w->runAction()->isEnabled());
    QCOMPARE(w->currentCounts()->testRows.size(), std::size_t(15));
    w->settingsForm()->setText("heldout", "0.25");
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
        QCOMPARE(w->dataKind(), QString("corpus"));
        QCOMPARE(w->runs()->ids().size(), 1);
        QVERIFY(w->runAction()->isEnabled());
    }

    // The session keeps the corpus settings.
    const QString session = out.filePath("corpus.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject saved = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(saved["data"].toObject()["kind"].toString(), QString("corpus"));
    QCOMPARE(saved["data"].toObject()["settings"].toObject()["heldout"].toDouble(), 0.25);
    w.reset();
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QVERIFY(waitForData(again));
    QCOMPARE(again.dataKind(), QString("corpus"));
    QCOMPARE(again.settingsForm()->text("heldout"), QString("0.25"));
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
    QCOMPARE(w.dataKind(), QString("corpus"));
    QVERIFY(w.settingsForm()->editor("min_df")); // raw text: the words can be set
    QVERIFY(!w.settingsForm()->editor("vocab")); // its vocabulary is its words
    const std::int64_t docs = w.currentCounts()->rows();
    const std::int64_t words = w.currentCounts()->cols();
    QVERIFY(docs > 2 && words > 0);

    // Keeping the one-off words reads the archive again with a larger vocabulary.
    w.settingsForm()->setText("min_df", "1");
    QVERIFY(waitForData(w));
    QVERIFY2(w.currentCounts()->cols() > words,
             qPrintable(QString::number(w.currentCounts()->cols())));
    // Only the training folder: fewer documents.
    w.settingsForm()->setText("subset", "train");
    QVERIFY(waitForData(w));
    QVERIFY2(w.currentCounts()->rows() < docs,
             qPrintable(QString::number(w.currentCounts()->rows())));
    QCOMPARE(getChoice(w.dataDescription().settings, "subset"), std::string("train"));
    QCOMPARE(getInt(w.dataDescription().settings, "min_df"), std::int64_t(1));

    // The session keeps the tokenizer settings and the subset.
    QTemporaryDir out;
    const QString session = out.filePath("news.json");
    QVERIFY(w.saveSession(session));
    const QJsonObject settings = QJsonDocument::fromJson(readAll(session))
                                     .object()["data"]
                                     .toObject()["settings"]
                                     .toObject();
    QCOMPARE(settings["subset"].toString(), QString("train"));
    QCOMPARE(settings["min_df"].toInt(), 1);
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QVERIFY(waitForData(again));
    QCOMPARE(again.currentCounts()->rows(), w.currentCounts()->rows());
    QCOMPARE(again.currentCounts()->cols(), w.currentCounts()->cols());
    QCOMPARE(again.settingsForm()->text("subset"), QString("train"));
}

// Ratings as a user meets them: a MovieLens u.data with its u.item titles (Latin-1) opens in
// ratings mode with recommenders only; HPF runs; any user's top 20 list names titles, leaves out
// what the user rated in training and hits their held-out items; a broken file is reported
// without losing the data; the session keeps the split settings.
void TestMainWindow::ratingsRecommendationsAndSession()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QVERIFY(writeTasteGroups(dir.path()));

    auto w = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*w));
    w->openPath(dir.filePath("u.data"));
    QVERIFY(waitForData(*w));
    QCOMPARE(w->dataKind(), QString("ratings"));
    QVERIFY(w->settingsForm()->editor("test_fraction"));
    QVERIFY(!w->settingsForm()->editor("heldout")); // the corpus's settings are gone
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
    QCOMPARE(w->dataKind(), QString("ratings"));
    QCOMPARE(w->runs()->ids().size(), 1);

    // A new test fraction re-splits; the session keeps it.
    w->settingsForm()->setText("test_fraction", "0.4");
    QVERIFY(waitForData(*w));
    QCOMPARE(w->currentCounts()->heldOut.nonZeros(), std::int64_t(120 * 4)); // round(0.4 · 9)
    const QString session = out.filePath("ratings.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject saved = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(saved["data"].toObject()["kind"].toString(), QString("ratings"));
    QCOMPARE(saved["data"].toObject()["settings"].toObject()["test_fraction"].toDouble(), 0.4);
    auto again = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*again));
    again->openPath(session);
    QVERIFY(waitForData(*again));
    QCOMPARE(again->dataKind(), QString("ratings"));
    QCOMPARE(again->currentCounts()->heldOut.nonZeros(), std::int64_t(120 * 4));
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
