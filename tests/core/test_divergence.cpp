// Every (model, algorithm) of the registry, driven into numerical divergence by an absurd but
// accepted setting, ends its run as Diverged — with the step and the reason, the snapshot that
// showed it as the last — and not as Failed, a crash, an endless run or a budget "reached"
// with NaN in the results. The same run without that setting reaches its budget, so it is the
// setting that breaks it.
//
// The setting is the model's own declaration (AlgorithmEntry::divergentSettings). The step sizes
// cannot be made absurd (ρ_t = (t + τ0)^(−κ) ≤ 1 with κ ∈ [0.5, 1], τ0 ≥ 0, and the adaptive
// rate stays in (0, 1]); a prior of 1e308, which every model's declarations accept ((0, ∞)),
// overflows the sums and the bound instead.

#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "core/run/runner.h"
#include "tests/core/registry_testing.h"

#include <QtTest>
#include <cmath>
#include <map>
#include <set>

using namespace svi;
using namespace svi::test_support;

namespace {

Summary runEntry(const AlgorithmEntry& e, const DataSet& data, bool absurd)
{
    auto trainer = e.make(data, smallParams(e, absurd ? e.divergentSettings : ParamValues{}), 7);
    RunOptions o;
    o.maxSteps = 15;
    o.evalEverySteps = 3;
    return Runner::runBlocking(*trainer, o, {});
}

} // namespace

class TestDivergence : public QObject
{
    Q_OBJECT

private slots:
    void everyAlgorithmReportsDivergence_data();
    void everyAlgorithmReportsDivergence();
};

void TestDivergence::everyAlgorithmReportsDivergence_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        QTest::newRow((e.model + "/" + e.algorithm).c_str())
            << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm);
}

void TestDivergence::everyAlgorithmReportsDivergence()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    const AlgorithmEntry* e = builtinRegistry().find(model.toStdString(), algorithm.toStdString());
    QVERIFY(e);
    bool touched = false;
    for (const auto& [key, value] : e->divergentSettings)
        for (const ParamSpec& p : e->params)
            touched = touched || p.key == key;
    QVERIFY2(touched, "the absurd setting is not a parameter of this algorithm");
    const DataSet data = dataFor(*e);

    const Summary sane = runEntry(*e, data, false);
    // A closed form may reach its solution before the budget, a stream its end.
    QVERIFY2(sane.reason == TerminationReason::BudgetReached ||
                 sane.reason == TerminationReason::Converged ||
                 sane.reason == TerminationReason::EndOfData,
             sane.message.c_str());
    if (sane.reason == TerminationReason::BudgetReached)
        QCOMPARE(sane.steps, std::int64_t(15));

    const Summary s = runEntry(*e, data, true);
    QVERIFY2(s.reason == TerminationReason::Diverged,
             qPrintable(QString("%1: %2").arg(terminationName(s.reason), s.message.c_str())));
    const QString message = QString::fromStdString(s.message);
    QVERIFY2(message.startsWith("diverged: ") && message.contains(QString("step %1").arg(s.steps)),
             qPrintable(message));
    QVERIFY(s.steps >= 1 && s.steps <= 15);
    QVERIFY(s.last && s.last->final);
    QCOMPARE(s.last->step, s.steps);
}

QTEST_GUILESS_MAIN(TestDivergence)
#include "test_divergence.moc"
