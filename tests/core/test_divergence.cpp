// Every (model, algorithm) of the registry, driven into numerical divergence by an absurd but
// accepted setting, ends its run as Diverged — with the step and the reason, the snapshot that
// showed it as the last — and not as Failed, a crash, an endless run or a budget "reached"
// with NaN in the results. The same run without that setting reaches its budget, so it is the
// setting that breaks it.
//
// The step sizes cannot be made absurd (ρ_t = (t + τ0)^(−κ) ≤ 1 with κ ∈ [0.5, 1], τ0 ≥ 0, and
// the adaptive rate stays in (0, 1]); a prior of 1e308, which every model's declarations
// accept ((0, ∞)), overflows the sums and the bound instead.

#include "core/data/ratings.h"
#include "core/math/random.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/models/lda/lda_synthetic.h"
#include "core/run/registry.h"
#include "core/run/runner.h"
#include "tests/core/epm_testing.h"

#include <QtTest>
#include <cmath>
#include <map>
#include <set>

using namespace svi;

namespace {

// What drives one model into divergence, and small settings so that every algorithm of it
// takes a fraction of a second, also under the sanitizers.
struct Case
{
    ParamValues small;  // applied where the algorithm declares the key
    ParamValues absurd; // the setting that makes it diverge
};

ParamValue real(double v)
{
    return ParamValue(v);
}
ParamValue integer(std::int64_t v)
{
    return ParamValue(v);
}

// One entry per model of the registry. A model added without an entry here fails
// everyModelHasACase: its divergence must be shown, not assumed.
const std::map<std::string, Case>& cases()
{
    static const std::map<std::string, Case> c = {
        {"bpfa",
         {{{"K", integer(8)},
           {"minibatch", integer(40)},
           {"init", ParamValue(std::string("random"))},
           {"eval_items", integer(40)},
           {"eval_burnin", integer(1)},
           {"eval_kept", integer(1)},
           {"eval_samples", integer(2)}},
          {{"c", real(1e308)}}}}, // γ_obs ~ Gamma(c, d): lgamma(c) overflows the bound
        {"lda",
         {{{"K", integer(4)}, {"minibatch", integer(20)}, {"eval_docs", integer(20)}},
          {{"eta", real(1e308)}}}}, // Σ_w λ_kw overflows: E[log β] is NaN
        {"hdp",
         {{{"T", integer(8)},
           {"K", integer(4)},
           {"minibatch", integer(20)},
           {"eval_docs", integer(20)}},
          {{"eta", real(1e308)}}}},
        // A mean's rate of 1e308: the first AdaGrad step sends a document's mean to ±1e308, whose
        // KL to the prior is infinite.
        {"ctm",
         {{{"K", integer(3)},
           {"samples", integer(2)},
           {"local_iters", integer(2)},
           {"eval_docs", integer(10)}},
          {{"adagrad_rate", real(1e308)}}}},
        {"hpf",
         {{{"K", integer(4)}, {"minibatch", integer(10)}, {"eval_users", integer(20)}},
          {{"a", real(1e308)}}}}, // θ shapes overflow the item rates
        {"pmf",
         {{{"K", integer(4)}, {"minibatch", integer(10)}, {"eval_users", integer(20)}},
          {{"c", real(1e308)}}}},
        {"gmf", {{{"K", integer(3)}, {"eval_users", integer(20)}}, {{"a0", real(1e308)}}}},
        // A start of variance 1e308: uᵀSu overflows, the likelihood's derivatives are NaN.
        {"gpmf",
         {{{"D", integer(3)}, {"eval_users", integer(20)}, {"eval_entries", integer(50)}},
          {{"init_variance", real(1e308)}}}},
        // The natural-gradient steps forget any start (ρ_1 = 1) and any prior scale gives a
        // finite bound; a Gaussian noise of 1e-300, kept fixed, has a variance that underflows
        // to 0 (learnt, its M-step would set it right at the first step).
        {"glm",
         {{{"minibatch", integer(50)},
           {"eval_rows", integer(50)},
           {"likelihood", ParamValue(std::string("gaussian"))},
           {"learn_noise", ParamValue(false)}},
          {{"noise_sd", real(1e-300)}}}},
        // A prior scale τ of 1e-300 overflows σ²/τ² in KL(q(w2) ‖ p(w2)).
        {"gme",
         {{{"minibatch", integer(50)},
           {"eval_rows", integer(50)},
           {"samples", integer(2)},
           {"inner_nodes", integer(4)}},
          {{"tau", real(1e-300)}}}},
        // A noise variance of 1e-310 (subnormal) makes 1/σ² overflow.
        {"sgp",
         {{{"minibatch", integer(50)},
           {"eval_rows", integer(50)},
           {"inducing", integer(5)},
           {"hyperparameters", ParamValue(std::string("given"))}},
          {{"noise_variance", real(1e-310)}}}},
        // A noise prior shape of 1e308: log Γ(a_τ) overflows the log joint (the SGVB algorithms);
        // one training row: the baselines' estimate is singular (rank 1), its precision infinite.
        {"gpfa",
         {{{"K", integer(3)}, {"cov_draws", integer(5)}, {"elbo_samples", integer(2)}},
          {{"noise_a", real(1e308)}, {"train_rows", integer(1)}}}},
        // A prior shape of a_i of 1e308: its normaliser overflows the log joint (SGVB), and a
        // Gibbs draw of a_i is infinite.
        {"epm",
         {{{"K", integer(3)},
           {"eval_draws", integer(2)},
           {"elbo_samples", integer(2)},
           {"burnin", integer(2)},
           {"samples", integer(100)}},
          {{"a_shape", real(1e308)}}}},
    };
    return c;
}

DataSet denseData()
{
    BpfaSyntheticOptions o;
    o.N = 400;
    o.D = 10;
    o.K = 6;
    o.seed = 3;
    return makeBpfaSynthetic(o).data;
}

DataSet corpusData()
{
    LdaSyntheticOptions o;
    o.documents = 120;
    o.V = 60;
    o.K = 4;
    o.wordsPerDocument = 30;
    o.seed = 4;
    return makeLdaSynthetic(o).data;
}

// 40 users × 30 items, each pair rated 1–5 with probability 0.3.
DataSet ratingsData()
{
    Ratings r;
    for (std::int64_t u = 1; u <= 40; ++u)
        r.userIds.push_back(u);
    for (std::int64_t i = 1; i <= 30; ++i)
        r.itemIds.push_back(i);
    Rng rng(5);
    for (int u = 0; u < 40; ++u)
        for (int i = 0; i < 30; ++i)
            if (rng.uniform() < 0.3 || i == u % 30)
                r.entries.push_back({u, i, float(1 + int(rng.uniform() * 5.0) % 5), 0});
    r.source = "ratings in memory";
    return makeRatingsData(r, RatingsOptions{});
}

// 300 labelled rows of 3 features, binary labels from a logistic model; 60 test rows.
DataSet labelledData()
{
    auto d = std::make_shared<LabelledData>();
    Rng rng(6);
    d->x.resize(300, 3);
    d->y.resize(300);
    for (int i = 0; i < 300; ++i) {
        for (int j = 0; j < 3; ++j)
            d->x(i, j) = rng.normal();
        const double f = d->x(i, 0) - 0.5 * d->x(i, 1);
        d->y[i] = rng.uniform() < 1.0 / (1.0 + std::exp(-f)) ? 1.0 : 0.0;
        (i < 240 ? d->trainingRows : d->testRows).push_back(i);
    }
    d->labelKind = LabelKind::Binary;
    d->source = "labelled rows in memory";
    return DataSet(LabelledDataPtr(d));
}

// 40 nodes in 2 planted communities, a fifth of the pairs held out.
DataSet graphData()
{
    return DataSet(test_support::plantedGraph(40, 2, 0.4, 0.05, 0.2, 7).data);
}

// Data of the kind the entry accepts: its own kind for counts models (ratings for the
// recommenders, a corpus for topic models), told apart by what their parameters ask for.
DataSet dataFor(const AlgorithmEntry& e)
{
    if (e.fits("table"))
        return denseData();
    if (e.fits("labelled"))
        return labelledData();
    if (e.fits("graph"))
        return graphData();
    for (const ParamSpec& p : e.params)
        if (p.key == "eval_users")
            return ratingsData();
    return corpusData();
}

Summary runEntry(const AlgorithmEntry& e, const DataSet& data, bool absurd)
{
    const Case& c = cases().at(e.model);
    ParamValues given;
    for (const ParamSpec& p : e.params) {
        if (c.small.count(p.key))
            given[p.key] = c.small.at(p.key);
        if (absurd && c.absurd.count(p.key))
            given[p.key] = c.absurd.at(p.key);
    }
    auto resolved = resolveParams(e.params, given);
    if (auto* err = std::get_if<ParamError>(&resolved))
        qFatal("%s/%s: %s", e.model.c_str(), e.algorithm.c_str(), err->message.c_str());
    auto trainer = e.make(data, std::get<ParamValues>(resolved), 7);
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
        QVERIFY2(cases().count(model), qPrintable(QString::fromStdString(
                                           "no divergence case for model '" + model + "'")));
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
    if (!cases().count(e->model))
        QSKIP("no case (everyModelHasACase fails)");
    bool touched = false;
    for (const auto& [key, value] : cases().at(e->model).absurd)
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
