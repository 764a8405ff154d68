// Every (model, algorithm) of the registry, driven into numerical divergence by an absurd but
// accepted setting, ends its run as Diverged — with the step and the reason, the snapshot that
// showed it as the last — and not as Failed, a crash, an endless run or a budget "reached"
// with NaN in the results. The same run without that setting reaches its budget, so it is the
// setting that breaks it.
//
// The step sizes cannot be made absurd (ρ_t = (t + τ0)^(−κ) ≤ 1 with κ ∈ [0.5, 1], τ0 ≥ 0, and
// the adaptive rate stays in (0, 1]); a prior of 1e308, which every model's declarations
// accept ((0, ∞)), overflows the sums and the bound instead.

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

// What drives each model into divergence: the setting that breaks it.
const std::map<std::string, ParamValues>& absurdSettings()
{
    static const std::map<std::string, ParamValues> c = {
        {"bpfa", {{"c", real(1e308)}}},  // γ_obs ~ Gamma(c, d): lgamma(c) overflows the bound
        {"lda", {{"eta", real(1e308)}}}, // Σ_w λ_kw overflows: E[log β] is NaN
        {"hdp", {{"eta", real(1e308)}}},
        // A mean's rate of 1e308: the first AdaGrad step sends a document's mean to ±1e308, whose
        // KL to the prior is infinite.
        {"ctm", {{"adagrad_rate", real(1e308)}}},
        {"hpf", {{"a", real(1e308)}}}, // θ shapes overflow the item rates
        {"pmf", {{"c", real(1e308)}}},
        {"gmf", {{"a0", real(1e308)}}},
        // A start of variance 1e308: uᵀSu overflows, the likelihood's derivatives are NaN.
        {"gpmf", {{"init_variance", real(1e308)}}},
        // The natural-gradient steps forget any start (ρ_1 = 1) and any prior scale gives a
        // finite bound; a Gaussian noise of 1e-300, kept fixed, has a variance that underflows
        // to 0 (learnt, its M-step would set it right at the first step).
        {"glm", {{"noise_sd", real(1e-300)}}},
        // A prior scale τ of 1e-300 overflows σ²/τ² in KL(q(w2) ‖ p(w2)).
        {"gme", {{"tau", real(1e-300)}}},
        // A noise variance of 1e-310 (subnormal) makes 1/σ² overflow.
        {"sgp", {{"noise_variance", real(1e-310)}}},
        // A noise prior shape of 1e308: log Γ(a_τ) overflows the log joint (the SGVB algorithms);
        // one training row: the baselines' estimate is singular (rank 1), its precision infinite.
        {"gpfa", {{"noise_a", real(1e308)}, {"train_rows", integer(1)}}},
        // A prior shape of a_i of 1e308: its normaliser overflows the log joint (SGVB), and a
        // Gibbs draw of a_i is infinite.
        {"epm", {{"a_shape", real(1e308)}}},
    };
    return c;
}

Summary runEntry(const AlgorithmEntry& e, const DataSet& data, bool absurd)
{
    auto trainer =
        e.make(data, smallParams(e, absurd ? absurdSettings().at(e.model) : ParamValues{}), 7);
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
    void everyModelHasACase();
    void everyAlgorithmReportsDivergence_data();
    void everyAlgorithmReportsDivergence();
};

void TestDivergence::everyModelHasACase()
{
    for (const std::string& model : Registry::builtin().models())
        QVERIFY2(
            absurdSettings().count(model) && smallSettings().count(model),
            qPrintable(QString::fromStdString("no divergence case for model '" + model + "'")));
}

void TestDivergence::everyAlgorithmReportsDivergence_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    for (const AlgorithmEntry& e : Registry::builtin().entries())
        QTest::newRow((e.model + "/" + e.algorithm).c_str())
            << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm);
}

void TestDivergence::everyAlgorithmReportsDivergence()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    const AlgorithmEntry* e =
        Registry::builtin().find(model.toStdString(), algorithm.toStdString());
    QVERIFY(e);
    if (!absurdSettings().count(e->model) || !smallSettings().count(e->model))
        QSKIP("no case (everyModelHasACase fails)");
    bool touched = false;
    for (const auto& [key, value] : absurdSettings().at(e->model))
        for (const ParamSpec& p : e->params)
            touched = touched || p.key == key;
    QVERIFY2(touched, "the absurd setting is not a parameter of this algorithm");
    const DataSet data = dataFor(*e);

    const Summary sane = runEntry(*e, data, false);
    // A closed form may reach its solution before the budget.
    QVERIFY2(sane.reason == TerminationReason::BudgetReached ||
                 sane.reason == TerminationReason::Converged,
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
