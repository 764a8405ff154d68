// The window on labelled data, as a user meets it: a9a's first 200 lines (LIBSVM) are
// recognised, the labelled settings and the GLM's form appear, a run of H-MC-SSVI streams its
// test NLL and error into the chart and the posterior over the weights into the centre, and the
// export writes the weights as CSV and PNG.

#include "core/data/data_set.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "tests/ui/window_testing.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/run_manager.h"
#include "ui/slice_view.h"
#include "ui/weights_page.h"
#include "ui/weights_view.h"

#include <QComboBox>
#include <QFile>
#include <QGroupBox>
#include <QImage>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

class TestWindowLabelled : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("SviWorkbenchTests");
        QCoreApplication::setApplicationName("test_window_labelled");
        QSettings().remove("run/model"); // left by a run of this test that failed midway
        QSettings().remove("run/algorithm");
    }

    void aCsvIsReadAsLabelledDataWhenAsked()
    {
        // cbpp.csv is a table by its content; "Read as" offers labelled data too, and choosing
        // it brings the labelled task, its models and the count label y.
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        QVERIFY(!w->readAsPicker()->isVisibleTo(w->settingsBox())); // an image: no choice
        w->openPath(QString(SVI_TEST_DATA_DIR) + "/labelled/cbpp.csv");
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("table"));
        QComboBox* readAs = w->readAsPicker();
        QVERIFY(readAs->isVisibleTo(w->settingsBox()));
        QCOMPARE(readAs->currentData().toString(), QString("table"));
        const int labelled = readAs->findData(QString("labelled"));
        QVERIFY(labelled >= 0);
        readAs->setCurrentIndex(labelled);
        emit readAs->activated(labelled);
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("labelled"));
        QCOMPARE(w->modelPicker()->currentData().toString(), QString("glm"));
        QVERIFY(w->modelPicker()->findData("gme") >= 0);
        QVERIFY2(w->dataLabel()->text().contains("count label y"),
                 qPrintable(w->dataLabel()->text()));
        QCOMPARE(readAs->currentData().toString(), QString("labelled"));
        QVERIFY(w->settingsForm()->editor("label"));
    }

    void glmRunShowsTheWeightsPosterior()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(QString(SVI_TEST_DATA_DIR) + "/labelled/a9a_head200");
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("labelled"));
        QVERIFY(w->settingsForm()->editor("test_share"));
        QVERIFY(!w->settingsForm()->editor("patch"));
        QCOMPARE(w->modelPicker()->currentData().toString(), QString("glm"));
        QCOMPARE(w->modelPicker()->findData("bpfa"), -1);
        QCOMPARE(w->metricPicker()->currentData().toString(), QString("test_nll"));
        QVERIFY2(w->dataLabel()->text().contains("160 train + 40 test"),
                 qPrintable(w->dataLabel()->text()));
        QCOMPARE(w->centrePage(), int(DataView::Weights));

        // A bad setting keeps Run disabled with the reason, and the data stay.
        w->algorithmForm()->setText("samples", "0");
        QTRY_VERIFY(w->runBlockedReason()->text().contains("Samples per row = 0"));
        QVERIFY(!w->runAction()->isEnabled());
        QVERIFY(w->algorithmForm()->setText("samples", "10"));
        QVERIFY(w->algorithmForm()->setText("minibatch", "50"));
        const int id = runSteps(*w, 300, "0.02");
        QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
        const RunRecord* r = w->runs()->record(id);
        QVERIFY(r->summary && r->summary->reason == TerminationReason::BudgetReached);
        QCOMPARE(r->spec.model, std::string("glm"));
        QCOMPARE(r->spec.algorithm, builtinRegistry().defaultAlgorithm("glm")->algorithm);
        // 40 test rows of a9a: far better than the 50 % of a coin, and a finite NLL.
        const double error = r->summary->last->metrics.at("test_error");
        QVERIFY2(error < 35.0, qPrintable(QString::number(error)));
        QVERIFY(std::isfinite(r->summary->last->metrics.at("test_nll")));
        QVERIFY(w->metricChart()->drawnPoints(id) > 1);

        // The forest plot: the 30 largest of the 104 weights (103 features and the intercept)
        // by |mean|, as many as the height allows, with the data's feature names.
        WeightsView* wv = w->weightsView();
        QCOMPARE(w->weightsPage()->shown(), static_cast<QWidget*>(wv));
        QVERIFY(!w->sliceView()->slice()); // a GLM publishes weights, no slice
        QCOMPARE(int(wv->shownFeatures().size()), WeightsView::kMaxRows);
        QVERIFY(wv->visibleRows() >= 1 && wv->visibleRows() <= WeightsView::kMaxRows);
        wv->resize(600, int(60 + 10.5 * WeightsView::kRowHeight)); // 26 + 34 px of title, axis
        QCOMPARE(wv->visibleRows(), 10);
        const auto& weights = *r->preview->weights;
        QCOMPARE(weights.mean.size(), Eigen::Index(104));
        QCOMPARE(weights.names.back(), std::string("1"));
        const int first = wv->shownFeatures().front();
        for (Eigen::Index j = 0; j < weights.mean.size(); ++j)
            QVERIFY(std::abs(weights.mean[j]) <= std::abs(weights.mean[first]));
        QVERIFY(wv->axisMin() < 0 && wv->axisMax() > 0);
        QVERIFY2(w->weightsTitle()->text().contains("of 104 weights"),
                 qPrintable(w->weightsTitle()->text()));

        // Export: the weights as CSV (a row per feature) and the plot as PNG.
        QTemporaryDir out;
        QVERIFY(w->exportReconstructions(out.path()));
        const QString stem = out.filePath(
            QString("run-%1-%2-weights").arg(id).arg(QString::fromStdString(r->spec.algorithm)));
        QFile csv(stem + ".csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        const QList<QByteArray> lines = csv.readAll().trimmed().split('\n');
        QCOMPARE(lines.front(), QByteArray("feature,mean,sd"));
        QCOMPARE(lines.size(), 1 + 104);
        QVERIFY(!QImage(stem + ".png").isNull());
        QVERIFY(!QFile::exists(stem.chopped(8) + "-slice.csv"));
    }

    void sgpRunShowsItsPredictiveSlice()
    {
        // The model last used comes back when it fits the data opened (remembered at close), and
        // the algorithm last used with it.
        QSettings().setValue("run/model", "sgp");
        QSettings().setValue("run/algorithm", "mc-ssvi");
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(QString(SVI_TEST_DATA_DIR) + "/labelled/cadata_head300");
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("labelled"));
        QCOMPARE(w->modelPicker()->currentData().toString(), QString("sgp"));
        // House values are whole dollars with a mean far above 1,000: read as real values, and
        // so standardised, without being asked.
        QVERIFY2(w->dataLabel()->text().contains("real label"), qPrintable(w->dataLabel()->text()));
        QCOMPARE(w->algorithmPicker()->currentData().toString(), QString("mc-ssvi"));
        w->algorithmPicker()->setCurrentIndex(w->algorithmPicker()->findData("closed-form"));
        QVERIFY(w->algorithmForm()->setText("inducing", "20"));
        const int id = runSteps(*w, 50, "0.01");
        QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
        const RunRecord* r = w->runs()->record(id);
        QVERIFY(r->summary && r->summary->reason == TerminationReason::Converged);
        QCOMPARE(r->summary->steps, std::int64_t(2));
        QVERIFY(std::isfinite(r->summary->last->metrics.at("test_nll")));

        // The centre shows the predictive along median income (x1, the feature most correlated
        // with the value), in dollars.
        QCOMPARE(w->weightsPage()->shown(), static_cast<QWidget*>(w->sliceView()));
        const PredictionSlice* slice = w->sliceView()->slice();
        QVERIFY(slice);
        QCOMPARE(slice->feature, std::string("x1"));
        QVERIFY(slice->mean.maxCoeff() > 1e5 && slice->mean.minCoeff() < 5e5);
        QVERIFY(slice->mean[slice->mean.size() - 1] > slice->mean[0]); // richer, dearer
        QVERIFY2(w->weightsTitle()->text().contains("x1"), qPrintable(w->weightsTitle()->text()));

        QTemporaryDir out;
        QVERIFY(w->exportReconstructions(out.path()));
        const QString stem = out.filePath(QString("run-%1-closed-form-slice").arg(id));
        QFile csv(stem + ".csv");
        QVERIFY(csv.open(QIODevice::ReadOnly));
        QCOMPARE(csv.readLine().trimmed(), QByteArray("x1,mean,sd,lower,upper"));
        QVERIFY(!QImage(stem + ".png").isNull());
        QSettings().remove("run/model");
        QSettings().remove("run/algorithm");
    }
};

QTEST_MAIN(TestWindowLabelled)
#include "test_window_labelled.moc"
