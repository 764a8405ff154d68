// Compare in the window for every model (BPFA on an image with repeats, LDA and HDP on a
// corpus, HPF and PMF on ratings), its exports, the session's round trip and re-run, and the
// window and `svi run` describing and running the same run alike.

#include "core/io/run_json.h"
#include "core/run/registry.h"
#include "tests/test_files.h"
#include "tests/ui/window_testing.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/run_manager.h"
#include "ui/topics_view.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QListWidget>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

// The column of `header` in the results table; −1 when absent.
int column(const QStandardItemModel& m, const QString& header)
{
    for (int c = 0; c < m.columnCount(); ++c)
        if (m.headerData(c, Qt::Horizontal).toString() == header)
            return c;
    return -1;
}

QStringList tickedAlgorithms(const MainWindow& w)
{
    QStringList out;
    for (int i = 0; i < w.compareList()->count(); ++i)
        if (w.compareList()->item(i)->checkState() == Qt::Checked)
            out << w.compareList()->item(i)->data(Qt::UserRole).toString();
    return out;
}

// Runs Compare and waits for it; the results table's algorithm names, in order.
QStringList compareAndWait(MainWindow& w)
{
    QSignalSpy done(&w, &MainWindow::compareFinished);
    if (w.compare() == 0 || !done.wait(180000))
        return {};
    w.refreshNow();
    QStringList rows;
    for (int r = 0; r < w.resultsModel()->rowCount(); ++r)
        rows << w.resultsModel()->item(r, 0)->text();
    return rows;
}

// The mean of a "mean ± sd" cell (or of a lone value).
double meanOf(const QString& cell)
{
    bool ok = false;
    const double v = cell.section(" ± ", 0, 0).toDouble(&ok);
    return ok ? v : std::nan("");
}

} // namespace

class TestWindowCompare : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void imageRepeatsExportsAndTheSession();
    void corpusLdaAndHdp();
    void ratingsHpfAndPmf();
    void windowAndCommandLineDescribeAndRunAlike();

private:
    QString smallImage();
    QTemporaryDir m_dir;
};

void TestWindowCompare::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("SviWorkbenchTests");
    QCoreApplication::setApplicationName("test_window_compare");
    QVERIFY(m_dir.isValid());
}

QString TestWindowCompare::smallImage()
{
    const QString path = m_dir.filePath("crop.png");
    if (!QFile::exists(path))
        QImage(QString(SVI_TEST_DATA_DIR) + "/coins.png").copy(150, 100, 36, 30).save(path);
    return path;
}

void TestWindowCompare::imageRepeatsExportsAndTheSession()
{
    auto w = std::make_unique<MainWindow>();
    QVERIFY(waitForData(*w));
    w->openPath(smallImage());
    useSmallSettings(*w);
    QVERIFY(waitForData(*w));
    w->budgetForm()->setText("seconds", "0");
    w->budgetForm()->setText("steps", "30");
    w->budgetForm()->setText("eval_every", "0.05");
    // BPFA's comparison group ticked, in the paper's order; its batch sampler and streaming VB
    // offered unticked.
    QCOMPARE(tickedAlgorithms(*w),
             QStringList({"mf-svi", "mf-ssvi", "titsias-ssvi", "mimno-svi", "gibbs-ssvi"}));
    QCOMPARE(w->compareList()->count(), 7);
    w->repeatsBox()->setValue(2);
    const QStringList rows = compareAndWait(*w);
    QCOMPARE(rows, QStringList({"MF-SVI", "MF-SSVI", "Titsias-SSVI", "Mimno-SVI", "Gibbs-SSVI"}));
    QCOMPARE(w->runs()->ids().size(), 10);
    // The charts: the two seeds of an algorithm share one legend entry naming both (Compare
    // queues the first seed of every algorithm, then the second).
    const QList<int> ids = w->runs()->ids();
    const QStringList entries = w->elboChart()->legendNames();
    QCOMPARE(entries.size(), 5);
    QCOMPARE(entries.front(), QString("#%1, #%2 MF-SVI").arg(ids[0]).arg(ids[5]));
    QCOMPARE(entries.back(), QString("#%1, #%2 Gibbs-SSVI").arg(ids[4]).arg(ids[9]));
    QCOMPARE(w->metricChart()->legendNames(), entries);
    // The runs table shows each repeat in its chart colour, the first seed's.
    QCOMPARE(w->runs()->record(ids[5])->color, w->runs()->record(ids[0])->color);
    QVERIFY(w->runs()->record(ids[5])->color != w->runs()->record(ids[4])->color);

    // Mean ± sd over the two seeds of every declared metric, s/step, the steps.
    QStandardItemModel* results = w->resultsModel();
    const int psnr = column(*results, "PSNR, full pass (dB)");
    const int heldOut = column(*results, "Held-out log-likelihood per entry (nats)");
    const int perStep = column(*results, "s/step");
    QVERIFY(psnr > 0 && heldOut > 0 && perStep > 0);
    QCOMPARE(column(*results, "Perplexity, held-out words"), -1); // not BPFA's
    int spread = 0;
    for (int r = 0; r < 5; ++r) {
        QCOMPARE(results->item(r, 1)->text(), QString("2/2"));
        const QString cell = results->item(r, psnr)->text();
        QVERIFY2(meanOf(cell) > 10 && cell.contains(" ± "), qPrintable(cell));
        spread += cell.section(" ± ", 1).toDouble() > 0; // the repeats differ by their seed
        QVERIFY(meanOf(results->item(r, heldOut)->text()) < 0);
        QVERIFY(meanOf(results->item(r, perStep)->text()) > 0);
        QVERIFY(results->item(r, column(*results, "Steps"))->text().startsWith("30"));
        QCOMPARE(results->item(r, column(*results, "Termination"))->text(), QString("budget ×2"));
    }
    QVERIFY(spread >= 4);

    // Exports: the results as `svi compare` writes them, the traces, the reconstructions.
    const QString csv = m_dir.filePath("results.csv"), tex = m_dir.filePath("results.tex");
    QVERIFY(w->exportResults(csv));
    QVERIFY(w->exportResults(tex));
    const QList<QByteArray> lines = readAll(csv).trimmed().split('\n');
    QCOMPARE(lines.size(), 6);
    QVERIFY2(lines[0].startsWith("model,algorithm,label,runs,"), lines[0].constData());
    QVERIFY(lines[0].contains("psnr_mean,psnr_sd"));
    QVERIFY(lines[5].startsWith("bpfa,gibbs-ssvi,Gibbs-SSVI,2,"));
    const QByteArray table = readAll(tex);
    QVERIFY(table.contains("\\toprule") && table.contains("\\bottomrule"));
    QCOMPARE(table.count("\\\\"), 6); // the header and five rows
    const QString traces = m_dir.filePath("traces.csv");
    QVERIFY(w->exportTraces(traces));
    // The last queued run is Gibbs-SSVI's second repeat: seed 2, step 30.
    QVERIFY(readAll(traces).trimmed().split('\n').last().contains(",gibbs-ssvi,2,30,"));
    QVERIFY(w->exportReconstructions(m_dir.path()));
    const int firstId = w->runs()->ids().front();
    QCOMPARE(QImage(m_dir.filePath(QString("run-%1-mf-svi.png").arg(firstId))).size(),
             QSize(36, 30));

    // The session: the data and every run in the one run form, each in its run folder.
    const QString session = m_dir.filePath("session.json");
    QVERIFY(w->saveSession(session));
    const QJsonObject json = QJsonDocument::fromJson(readAll(session)).object();
    QCOMPARE(json.value("format").toString(), QString("svi-workbench-session"));
    QCOMPARE(json.value("version").toInt(), 3);
    QCOMPARE(json["data"].toObject()["files"].toArray()[0].toString(), smallImage());
    QCOMPARE(json["data"].toObject()["settings"].toObject()["patch"].toInt(), 6);
    const QJsonArray runs = json.value("runs").toArray();
    QCOMPARE(runs.size(), 10);
    QCOMPARE(runs[4].toObject().value("algorithm").toString(), QString("gibbs-ssvi"));
    QCOMPARE(runs[4].toObject()["params"].toObject()["K"].toInt(), 12);
    QCOMPARE(runs[9].toObject()["seed"].toInt(), 2);
    QCOMPARE(runs[4].toObject()["budget"].toObject()["steps"].toInt(), 30);
    std::map<std::pair<std::string, std::uint64_t>, double> before;
    for (int id : w->runs()->ids()) {
        const RunRecord* r = w->runs()->record(id);
        before[{r->spec.algorithm, r->spec.seed}] = r->summary->last->metrics.at("psnr");
    }
    w.reset();

    // A new window re-opens the session: its runs come back finished from their folders (the
    // values as trace.csv holds them, to 10 digits); re-run, they give identical results (step
    // budget).
    QSettings().clear();
    MainWindow again;
    QVERIFY(waitForData(again));
    again.openPath(session);
    QCOMPARE(again.sessionRunCount(), 10);
    QVERIFY(waitForData(again));
    QCOMPARE(again.dataDescription().files.front(), smallImage().toStdString());
    QCOMPARE(again.settingsForm()->text("patch"), QString("6"));
    QCOMPARE(again.algorithmForm()->text("K"), QString("12"));
    QTRY_COMPARE_WITH_TIMEOUT(again.runs()->ids().size(), 10, 60000);
    for (int id : again.runs()->ids()) {
        const RunRecord* r = again.runs()->record(id);
        QCOMPARE(r->status, RunStatus::Finished);
        QCOMPARE(r->summary->steps, std::int64_t(30));
        const double psnr = before.at({r->spec.algorithm, r->spec.seed});
        QVERIFY(std::abs(r->summary->last->metrics.at("psnr") - psnr) <= 1e-8 * std::abs(psnr));
    }
    QCOMPARE(again.runs()->activeCount(), 0); // none runs again by itself
    QVERIFY(again.rerunSession());
    QTRY_VERIFY_WITH_TIMEOUT(again.runs()->ids().size() == 20 && again.runs()->activeCount() == 0 &&
                                 again.runs()->record(again.runs()->ids().back())->summary,
                             300000);
    for (int id : again.runs()->ids().mid(10)) {
        const RunRecord* r = again.runs()->record(id);
        QCOMPARE(r->summary->steps, std::int64_t(30));
        QCOMPARE(r->summary->last->metrics.at("psnr"),
                 before.at({r->spec.algorithm, r->spec.seed}));
    }
}

void TestWindowCompare::corpusLdaAndHdp()
{
    QTemporaryDir dir;
    const QString corpus = writePlantedCorpus(dir.path());
    MainWindow w;
    QVERIFY(waitForData(w));
    w.openPath(corpus);
    QVERIFY(waitForData(w));
    QCOMPARE(w.modelPicker()->currentData().toString(), QString("lda"));
    QCOMPARE(tickedAlgorithms(w), QStringList({"svi", "batch", "streaming"}));
    w.algorithmForm()->setText("K", "3");
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", "20");
    // Streaming VB ends with its one pass, before the budget.
    QCOMPARE(compareAndWait(w), QStringList({"SVI (Hoffman et al. 2013)", "Batch variational Bayes",
                                             "Streaming VB (Broderick et al. 2013)"}));
    const int perplexity = column(*w.resultsModel(), "Perplexity, held-out words");
    QVERIFY(perplexity > 0);
    QCOMPARE(column(*w.resultsModel(), "PSNR, full pass (dB)"), -1);
    for (int r = 0; r < 3; ++r) { // uniform over 30 words would be 30
        const double p = meanOf(w.resultsModel()->item(r, perplexity)->text());
        QVERIFY2(p > 3 && p < 30, qPrintable(QString::number(p)));
    }

    // HDP: its own group, on the same split; a truncation to suit 30 words (the default, 150
    // topics, costs a minute under the sanitizers and checks nothing more here).
    w.modelPicker()->setCurrentIndex(w.modelPicker()->findData("hdp"));
    QVERIFY(!tickedAlgorithms(w).isEmpty());
    w.algorithmForm()->setText("T", "12");
    w.algorithmForm()->setText("K", "4");
    const QStringList hdp = compareAndWait(w);
    QCOMPARE(hdp.size(), tickedAlgorithms(w).size());
    const int again = column(*w.resultsModel(), "Perplexity, held-out words");
    QVERIFY(std::isfinite(meanOf(w.resultsModel()->item(0, again)->text())));

    // HPF on the same corpus (Poisson factorization of text): only its algorithms that fit a
    // corpus are offered (not BBVI), its perplexity in LDA's column, its factors' top words on
    // the Topics page.
    w.modelPicker()->setCurrentIndex(w.modelPicker()->findData("hpf"));
    QStringList offered;
    for (int i = 0; i < w.compareList()->count(); ++i)
        offered << w.compareList()->item(i)->data(Qt::UserRole).toString();
    QCOMPARE(offered, QStringList({"svi", "batch", "streaming"}));
    w.algorithmForm()->setText("K", "3");
    QCOMPARE(compareAndWait(w).size(), 3);
    const int hpf = column(*w.resultsModel(), "Perplexity, held-out words");
    QVERIFY(hpf > 0);
    for (int r = 0; r < 3; ++r) {
        const double p = meanOf(w.resultsModel()->item(r, hpf)->text());
        QVERIFY2(p > 3 && p < 30, qPrintable(QString::number(p)));
    }
    QCOMPARE(column(*w.resultsModel(), "RMSE, held-out ratings"), -1); // not on words
    w.refreshNow();
    QVERIFY(w.topicsView()->topicCount() > 0);
}

void TestWindowCompare::ratingsHpfAndPmf()
{
    QTemporaryDir dir;
    QVERIFY(writeTasteGroups(dir.path()));
    MainWindow w;
    QVERIFY(waitForData(w));
    w.openPath(dir.filePath("u.data"));
    QVERIFY(waitForData(w));
    QCOMPARE(w.modelPicker()->currentData().toString(), QString("hpf"));
    QCOMPARE(tickedAlgorithms(w), QStringList({"svi", "batch", "streaming"}));
    w.algorithmForm()->setText("K", "3");
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", "30");
    QCOMPARE(compareAndWait(w).size(), 3);
    const int precision = column(*w.resultsModel(), "Precision@20, held-out ratings");
    QVERIFY(precision > 0);
    for (int r = 0; r < 3; ++r)
        QVERIFY(meanOf(w.resultsModel()->item(r, precision)->text()) > 0);

    // PMF: the other recommender, the same split.
    w.modelPicker()->setCurrentIndex(w.modelPicker()->findData("pmf"));
    QVERIFY(!tickedAlgorithms(w).isEmpty());
    QCOMPARE(compareAndWait(w).size(), tickedAlgorithms(w).size());
    const int rmse = column(*w.resultsModel(), "RMSE, held-out ratings");
    QVERIFY(rmse > 0);
    QVERIFY(meanOf(w.resultsModel()->item(0, rmse)->text()) > 0);
    // A Poisson mean's RMSE against stars carries its caveat, on the column and the figure.
    const QString caveat = w.resultsModel()->horizontalHeaderItem(rmse)->toolTip();
    QVERIFY2(caveat.contains("not a star rating"), qPrintable(caveat));
    QCOMPARE(w.resultsModel()->item(0, rmse)->toolTip(), caveat);
    QVERIFY(w.resultsModel()->horizontalHeaderItem(precision)->toolTip().isEmpty());
}

// The run the window would start and the same run asked of `svi run` by its flags: one
// description (the same JSON, field for field) and, with a step budget, the same figures.
void TestWindowCompare::windowAndCommandLineDescribeAndRunAlike()
{
    MainWindow w;
    QVERIFY(waitForData(w));
    w.openPath(smallImage());
    useSmallSettings(w);
    w.settingsForm()->setText("missing", "0.6");
    w.settingsForm()->setText("split_seed", "4");
    QVERIFY(waitForData(w));
    w.algorithmPicker()->setCurrentIndex(w.algorithmPicker()->findData("mf-ssvi"));
    w.budgetForm()->setText("seconds", "0");
    w.budgetForm()->setText("steps", "25");
    w.budgetForm()->setText("seed", "7");
    const RunDescription gui = w.runDescription();

    QTemporaryDir out;
    QProcess p;
    QStringList args = {"run",       smallImage(), "--model", "bpfa", "--algorithm",  "mf-ssvi",
                        "--missing", "0.6",        "--patch", "6",    "--split-seed", "4",
                        "--steps",   "25",         "--seed",  "7",    "--out",        out.path(),
                        "--quiet"};
    for (const auto& [key, value] : gui.params) // the form's parameters, as a user types them
        args << "--set" << QString::fromStdString(key + "=" + formatParam(value));
    p.start(SVI_CLI, args);
    QVERIFY(p.waitForFinished(120000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QJsonObject cli = QJsonDocument::fromJson(readAll(out.filePath("run.json"))).object();
    const QJsonObject fromWindow = runToJson(gui);
    QCOMPARE(fromWindow.keys(), cli.keys());
    for (const QString& key : cli.keys()) { // field by field, for a message that says which
        const auto text = [](const QJsonValue& v) {
            return v.isObject() ? QJsonDocument(v.toObject()).toJson(QJsonDocument::Compact)
                                : QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
        };
        QVERIFY2(fromWindow[key] == cli[key],
                 qPrintable(key + ": " + text(fromWindow[key]) + " vs " + text(cli[key])));
    }

    // The window runs it: the same PSNR as the command line's summary.
    QSignalSpy finished(w.runs(), &RunManager::runFinished);
    const int id = w.startRun();
    QVERIFY(id > 0);
    QVERIFY(finished.wait(120000));
    const double psnr = w.runs()->record(id)->summary->last->metrics.at("psnr");
    const QJsonObject summary =
        QJsonDocument::fromJson(readAll(out.filePath("summary.json"))).object();
    QCOMPARE(summary["metrics"].toObject()["psnr"].toDouble(), psnr);
}

QTEST_MAIN(TestWindowCompare)
#include "test_window_compare.moc"
