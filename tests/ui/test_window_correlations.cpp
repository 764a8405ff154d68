// The window on a corpus with the correlated topic model: a real CTM fit shows, beside its
// topics table, the correlations between the topics in use (the reference topic, which has
// none, left out); an LDA run selected after it hides them, and selecting the CTM run again
// brings them back.

#include "core/io/data_kinds.h"
#include "tests/ui/window_testing.h"
#include "ui/main_window.h"
#include "ui/param_form.h"
#include "ui/run_manager.h"
#include "ui/topic_correlations_view.h"
#include "ui/topics_view.h"

#include <QComboBox>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSettings>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <memory>

using namespace svi;
using namespace svi::ui;
using namespace test_support;

class TestWindowCorrelations : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName("SviWorkbenchTests");
        QCoreApplication::setApplicationName("test_window_correlations");
        QSettings().clear();
    }

    void ctmRunShowsTheTopicCorrelations()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString corpus = writePlantedCorpus(dir.path());
        QVERIFY(!corpus.isEmpty());
        auto w = std::make_unique<MainWindow>();
        QVERIFY(waitForData(*w));
        w->openPath(corpus);
        QVERIFY(waitForData(*w));
        QCOMPARE(w->dataKind(), QString("corpus"));
        QCOMPARE(w->centrePage(), int(DataView::Topics));
        TopicCorrelationsView* view = w->topicCorrelationsView();
        QVERIFY(view);
        QVERIFY(view->isHidden()); // no run yet

        // The correlated topic model, K = 4, small settings.
        const int ctm = w->modelPicker()->findData("ctm");
        QVERIFY(ctm >= 0);
        w->modelPicker()->setCurrentIndex(ctm);
        const int K = 4;
        ParamForm* f = w->algorithmForm();
        QVERIFY(f->setText("K", QString::number(K)));
        QVERIFY(f->setText("eval_docs", "20"));
        QVERIFY(f->setText("local_iters", "10"));
        const int ctmRun = runSteps(*w, 300);
        QVERIFY2(ctmRun > 0, qPrintable(w->runBlockedReason()->text()));
        const RunRecord* r = w->runs()->record(ctmRun);
        QVERIFY(r->summary);
        QVERIFY2(r->summary->reason == TerminationReason::BudgetReached,
                 r->summary->message.c_str());
        QCOMPARE(r->spec.model, std::string("ctm"));
        QVERIFY(r->preview && r->preview->correlations);
        const TopicCorrelations& c = *r->preview->correlations;
        QCOMPARE(c.matrix.rows(), Eigen::Index(K - 1)); // the free topics 0 … K − 2
        QCOMPARE(c.topics, (std::vector<int>{0, 1, 2}));

        // The view: every topic of the table but the reference topic K − 1, in the table's
        // order, with the run's correlations.
        QVERIFY(!view->isHidden());
        QVERIFY(view->hasCorrelations());
        std::vector<int> expected;
        for (const TopicSummary& t : r->preview->topics)
            if (t.index != K - 1)
                expected.push_back(t.index);
        QVERIFY(!expected.empty());
        QCOMPARE(w->topicsView()->topicCount(), int(r->preview->topics.size()));
        QCOMPARE(view->shownTopics(), int(expected.size()));
        QCOMPARE(view->heatmap()->topicCount(), int(expected.size()));
        for (int i = 0; i < view->shownTopics(); ++i) {
            QCOMPARE(view->topicAt(i), expected[std::size_t(i)]);
            for (int j = 0; j < view->shownTopics(); ++j)
                QCOMPARE(view->cellValue(i, j),
                         c.matrix(expected[std::size_t(i)], expected[std::size_t(j)]));
            QCOMPARE(view->cellValue(i, i), 1.0);
        }
        QVERIFY2(view->note().contains(expected.size() == 1
                                           ? QString("the one topic in use")
                                           : QString("the %1 topics in use").arg(expected.size())),
                 qPrintable(view->note()));
        QVERIFY(view->pairsText().startsWith("Most positively correlated\n"));

        // An LDA run, the newest and so the one shown: its topics are independent.
        w->modelPicker()->setCurrentIndex(w->modelPicker()->findData("lda"));
        QVERIFY(w->algorithmForm()->setText("K", "3"));
        QVERIFY(w->algorithmForm()->setText("minibatch", "8"));
        const int ldaRun = runSteps(*w, 200);
        QVERIFY(ldaRun > 0);
        QVERIFY(w->runs()->record(ldaRun)->preview);
        QVERIFY(!w->runs()->record(ldaRun)->preview->correlations);
        QVERIFY(w->topicsView()->topicCount() > 0);
        QVERIFY(view->isHidden());
        QVERIFY(!view->hasCorrelations());

        // Selecting the CTM run brings its correlations back.
        w->runsView()->selectRow(0);
        QVERIFY(!view->isHidden());
        QCOMPARE(view->shownTopics(), int(expected.size()));
    }
};

QTEST_MAIN(TestWindowCorrelations)
#include "test_window_correlations.moc"
