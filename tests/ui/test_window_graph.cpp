// The window on a graph and on a table with the models of paper 003: a GML file opens as a
// graph on the Graph page (its adjacency in file order); a real edge partition model fit orders
// the nodes by its communities and shows its predicted links, its AUC in the runs table; the
// optimizer picker shows AdaDelta's settings only while AdaDelta is chosen. On a table, gamma
// process factor analysis shows its covariance beside the loadings, and a BPFA run selected
// after it hides it.

#include "core/io/data_kinds.h"
#include "core/io/samples.h"
#include "tests/test_files.h"
#include "tests/ui/window_testing.h"
#include "ui/covariance_view.h"
#include "ui/graph_page.h"
#include "ui/loadings_view.h"
#include "ui/main_window.h"
#include "ui/matrix_view.h"
#include "ui/param_form.h"
#include "ui/plot_view.h"
#include "ui/run_manager.h"

#include <QComboBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QtTest>
#include <cmath>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

namespace {

bool selectAlgorithm(MainWindow& w, const char* key)
{
    const int i = w.algorithmPicker()->findData(key);
    if (i < 0)
        return false;
    w.algorithmPicker()->setCurrentIndex(i);
    return true;
}

} // namespace

class TestWindowGraph : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("SviWorkbenchTests");
        QCoreApplication::setApplicationName("test_window_graph");
        QSettings().clear();
    }

    void epmRunOrdersTheGraphByCommunity()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(QString(SVI_TEST_DATA_DIR) + "/graphs/karate_newman.gml");
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("graph"));
        QCOMPARE(w->centrePage(), int(DataView::Graph));
        GraphPage* page = w->graphPage();
        QCOMPARE(page->adjacencyView()->rowCount(), 34);
        QCOMPARE(page->predictionView()->rowCount(), 0); // nothing fitted yet
        QVERIFY(page->order().front() == 0 && page->order().back() == 33);
        QCOMPARE(w->modelPicker()->currentData().toString(), QString("epm"));

        // The sampler (EPM's default) has no ELBO: its chart says so instead of empty axes.
        QCOMPARE(w->algorithmPicker()->currentData().toString(), QString("gibbs"));
        QVERIFY(w->algorithmForm()->setText("K", "4"));
        QVERIFY(runSteps(*w, 20) > 0);
        QTRY_VERIFY2_WITH_TIMEOUT(
            w->elboChart()->emptyNoteShown().startsWith("No ELBO for Gibbs sampler"),
            qPrintable(w->elboChart()->emptyNoteShown()), 10000);

        // The optimizer's own settings follow the picker.
        QVERIFY(selectAlgorithm(*w, "gamma-sgvb"));
        ParamForm* f = w->algorithmForm();
        QVERIFY(f->applies("adadelta_rho"));
        QVERIFY(!f->applies("adam_beta1"));
        auto* optimizer = qobject_cast<QComboBox*>(f->editor("optimizer"));
        QVERIFY(optimizer);
        optimizer->setCurrentText("adam");
        QVERIFY(f->applies("adam_beta1"));
        QVERIFY(!f->applies("adadelta_rho"));
        QCOMPARE(getChoice(w->runDescription().params, "optimizer"), std::string("adam"));
        optimizer->setCurrentText("adadelta");

        QVERIFY(f->setText("K", "4"));
        const int id = runSteps(*w, 300);
        QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
        const RunRecord* r = w->runs()->record(id);
        QVERIFY(r->summary);
        QVERIFY2(r->summary->reason == TerminationReason::BudgetReached,
                 r->summary->message.c_str());
        QTRY_VERIFY_WITH_TIMEOUT(w->elboChart()->emptyNoteShown().isEmpty(), 10000); // an ELBO
        QVERIFY(r->preview && r->preview->graph);
        const GraphSummary& s = *r->preview->graph;
        QCOMPARE(int(s.order.size()), 34);
        QCOMPARE(s.linkProbability.rows(), Eigen::Index(34));
        // The page shows that fit: the run's order, its probabilities, a caption naming it.
        QCOMPARE(page->order(), s.order);
        QCOMPARE(page->predictionView()->rowCount(), 34);
        QVERIFY2(page->caption()->text().contains("step 300"), qPrintable(page->caption()->text()));
        // Karate's two factions are found: held-out pairs are ranked far better than chance.
        const auto& last = r->trace.back();
        QVERIFY(last.metrics.count("auc_roc"));
        QVERIFY2(last.metrics.at("auc_roc") > 0.7,
                 qPrintable(QString::number(last.metrics.at("auc_roc"))));
    }

    // File ▸ Open Sample: every embedded sample opens as the kind its content (or its
    // declaration) says, with that kind's model picked and Run ready.
    void samplesOpenFromTheFileMenu()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        for (const SampleData& s : sampleData()) {
            auto* open =
                w->findChild<QAction*>(QString::fromStdString("actionOpenSample_" + s.key));
            QVERIFY2(open, s.key.c_str());
            QVERIFY(!open->text().isEmpty() && !open->toolTip().isEmpty());
            const DataDescription d = withKind({sampleFiles(s), s.kind, {}});
            const DataKindSpec& kind = kindOf(d);
            open->trigger();
            QTRY_VERIFY2_WITH_TIMEOUT(w->dataKind() == QString::fromStdString(kind.key) &&
                                          w->dataReady() && w->dataDescription().files == d.files,
                                      s.key.c_str(), 60000);
            QCOMPARE(w->modelPicker()->currentData().toString(),
                     QString::fromStdString(kind.defaultModel));
            QTRY_VERIFY2(
                w->findChild<QAction*>("actionRun")->isEnabled(),
                qPrintable(QString::fromStdString(s.key) + ": " + w->runBlockedReason()->text()));
        }
    }

    void gpfaShowsItsCovarianceBesideTheLoadings()
    {
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(QString(SVI_TEST_DATA_DIR) + "/levine32_H1_sub200.csv");
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("table"));
        QCOMPARE(w->centrePage(), int(DataView::Loadings));
        CovarianceView* cov = w->covarianceView();
        QVERIFY(cov->isHidden());

        const int gpfa = w->modelPicker()->findData("gpfa");
        QVERIFY(gpfa >= 0);
        w->modelPicker()->setCurrentIndex(gpfa);
        QVERIFY(selectAlgorithm(*w, "gamma-sgvb"));
        QVERIFY(w->algorithmForm()->setText("K", "5"));
        const int id = runSteps(*w, 200);
        QVERIFY2(id > 0, qPrintable(w->runBlockedReason()->text()));
        const RunRecord* r = w->runs()->record(id);
        QVERIFY(r->preview && r->preview->covariance);
        QVERIFY(!cov->isHidden());
        const int d = int(r->data.dense->cols());
        QCOMPARE(cov->modelView()->rowCount(), d);
        QCOMPARE(cov->empiricalView()->rowCount(), d);
        QVERIFY(w->loadingsView()->shownFeatures() > 0);

        // A BPFA run has no covariance: selecting it hides the view.
        const int bpfa = w->modelPicker()->findData("bpfa");
        w->modelPicker()->setCurrentIndex(bpfa);
        useSmallSettings(*w);
        const int other = runSteps(*w, 20);
        QVERIFY(other > 0);
        QVERIFY(cov->isHidden());
    }
};

QTEST_MAIN(TestWindowGraph)
#include "test_window_graph.moc"
