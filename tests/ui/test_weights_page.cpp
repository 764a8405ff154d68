// Labelled data's centre page with hand-built previews (no model run): the weights' posterior
// when the preview has weights, the predictive slice when it has a slice instead, the line
// above saying what is shown, and nothing changed by a preview that holds neither.

#include "ui/slice_view.h"
#include "ui/weights_page.h"
#include "ui/weights_view.h"

#include <QLabel>
#include <QtTest>
#include <cmath>
#include <limits>
#include <memory>

using namespace svi;
using namespace svi::ui;

namespace {

std::shared_ptr<const PredictionSlice> slice(int points)
{
    auto s = std::make_shared<PredictionSlice>();
    s->feature = "MedInc";
    s->label = "MedHouseVal";
    s->x = Eigen::VectorXd::LinSpaced(50, -2.0, 3.0);
    s->mean = s->x.array().sin();
    s->sd = Eigen::VectorXd::Constant(50, 0.2);
    s->pointX = Eigen::VectorXd::LinSpaced(points, -2.0, 3.0);
    s->pointY = s->pointX.array().cos();
    return s;
}

std::shared_ptr<const WeightSummary> weights()
{
    auto w = std::make_shared<WeightSummary>();
    w->names = {"a", "b", "c"};
    w->mean = Eigen::Vector3d(0.5, -1.0, 2.0);
    w->sd = Eigen::Vector3d(0.1, 0.2, 0.3);
    return w;
}

} // namespace

class TestWeightsPage : public QObject
{
    Q_OBJECT
private slots:
    void startsOnTheWeights()
    {
        WeightsPage page;
        QCOMPARE(page.shown(), static_cast<QWidget*>(page.weightsView()));
        QVERIFY(!page.sliceView()->slice());
    }

    void aSliceShowsThePredictive()
    {
        WeightsPage page;
        page.resize(700, 500);
        page.show();
        QVERIFY(QTest::qWaitForWindowExposed(&page));
        Preview preview;
        preview.slice = slice(120);
        QVERIFY(page.showPreview("#4 SGP SVI", 1500, preview));
        QCOMPARE(page.shown(), static_cast<QWidget*>(page.sliceView()));
        QVERIFY(page.sliceView()->isVisible());
        QVERIFY(!page.weightsView()->isVisible());
        QCOMPARE(page.sliceView()->slice(), preview.slice.get());
        QCOMPARE(page.sliceView()->title(),
                 QString("Predictive of #4 SGP SVI along MedInc (mean ± 2 sd; the other "
                         "features at their mean)"));
        const QString caption = page.caption()->text();
        QVERIFY2(caption.contains("#4 SGP SVI") && caption.contains("120 test row") &&
                     caption.contains("against MedInc") && caption.contains("hover"),
                 qPrintable(caption));
        QVERIFY2(caption.contains(QLocale().toString(1500)), qPrintable(caption));

        // A later preview of a run with weights brings the forest plot back.
        Preview glm;
        glm.weights = weights();
        QVERIFY(page.showPreview("#5 GLM", 10, glm));
        QCOMPARE(page.shown(), static_cast<QWidget*>(page.weightsView()));
        QVERIFY(page.weightsView()->isVisible() && !page.sliceView()->isVisible());
        QVERIFY2(page.caption()->text().contains("of 3 weights"),
                 qPrintable(page.caption()->text()));
    }

    void weightsComeFirst()
    {
        WeightsPage page;
        Preview both;
        both.weights = weights();
        both.slice = slice(10);
        QVERIFY(page.showPreview("#1", 1, both));
        QCOMPARE(page.shown(), static_cast<QWidget*>(page.weightsView()));
        QCOMPARE(page.weightsView()->title(), WeightsPage::weightsTitle("#1"));
    }

    void aPreviewWithNeitherChangesNothing()
    {
        WeightsPage page;
        Preview preview;
        preview.slice = slice(7);
        QVERIFY(page.showPreview("#2", 5, preview));
        const QString caption = page.caption()->text();
        QVERIFY2(caption.contains("7 test row"), qPrintable(caption));
        QVERIFY(!page.showPreview("#3", 6, Preview{}));
        QCOMPARE(page.caption()->text(), caption);
        QCOMPARE(page.shown(), static_cast<QWidget*>(page.sliceView()));
    }

    void aBrokenSliceIsSaidSo()
    {
        WeightsPage page;
        auto bad = std::make_shared<PredictionSlice>(*slice(5));
        bad->mean[2] = std::numeric_limits<double>::quiet_NaN();
        Preview preview;
        preview.slice = bad;
        QVERIFY(page.showPreview("#6", 9, preview));
        QCOMPARE(page.shown(), static_cast<QWidget*>(page.sliceView()));
        QVERIFY(!page.sliceView()->problem().isEmpty());
        QVERIFY2(page.caption()->text().contains("cannot be drawn"),
                 qPrintable(page.caption()->text()));
    }
};

QTEST_MAIN(TestWeightsPage)
#include "test_weights_page.moc"
