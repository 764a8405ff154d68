// The models' options structs against their declarations (the registry entries' ParamSpec
// lists, the only place that states a default or a range): every entry's declared defaults,
// read as the entry's make() reads them, give the default-constructed struct, field by field;
// every field is declared; and the check a trainer makes of a struct built in code rejects
// exactly what the declaration rejects, with the same message.

#include "core/models/bpfa/bpfa_trainer.h"
#include "core/models/ctm/ctm.h"
#include "core/models/epm/epm_trainer.h"
#include "core/models/glm/glm_trainer.h"
#include "core/models/glm/gme.h"
#include "core/models/gmf/gmf_trainer.h"
#include "core/models/gpfa/gpfa_trainer.h"
#include "core/models/gpmf/gpmf.h"
#include "core/models/hdp/hdp_trainer.h"
#include "core/models/lda/lda_trainer.h"
#include "core/models/pf/pf_trainer.h"
#include "core/models/sgp/sgp.h"
#include "core/run/registry.h"

#include <QRegularExpression>
#include <QtTest>
#include <cmath>
#include <functional>
#include <set>

using namespace svi;

Q_DECLARE_METATYPE(svi::ParamValue)

namespace {

// The fields of `a` and `b` that differ, by name. Written out here, field by field, so that
// the comparison does not rest on the structs' own bindings (ParamFields).
#define SVI_SAME(field)                                                                            \
    if (!(a.field == b.field))                                                                     \
    diff << QStringLiteral(#field)

QStringList differences(const StepSizeOptions& a, const StepSizeOptions& b)
{
    QStringList diff;
    SVI_SAME(schedule);
    SVI_SAME(kappa);
    SVI_SAME(tau0);
    SVI_SAME(adaptiveInit);
    return diff;
}

QStringList differences(const BpfaOptions& a, const BpfaOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    SVI_SAME(minibatch);
    SVI_SAME(kappa);
    SVI_SAME(tau0);
    SVI_SAME(schedule);
    SVI_SAME(adaptiveInit);
    SVI_SAME(burnin);
    SVI_SAME(samples);
    SVI_SAME(localIters);
    SVI_SAME(localTol);
    SVI_SAME(init);
    SVI_SAME(initItems);
    SVI_SAME(initSweeps);
    SVI_SAME(prior.a);
    SVI_SAME(prior.b);
    SVI_SAME(prior.c);
    SVI_SAME(prior.d);
    SVI_SAME(prior.e);
    SVI_SAME(prior.f);
    SVI_SAME(evalItems);
    SVI_SAME(evalSamples);
    SVI_SAME(evalBurnin);
    SVI_SAME(evalKept);
    return diff;
}

QStringList differences(const LdaOptions& a, const LdaOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    SVI_SAME(alpha);
    SVI_SAME(eta);
    SVI_SAME(kappa);
    SVI_SAME(tau0);
    SVI_SAME(schedule);
    SVI_SAME(adaptiveInit);
    SVI_SAME(minibatch);
    SVI_SAME(localIters);
    SVI_SAME(localTol);
    SVI_SAME(evalDocs);
    SVI_SAME(topWords);
    return diff;
}

QStringList differences(const HdpOptions& a, const HdpOptions& b)
{
    QStringList diff;
    SVI_SAME(T);
    SVI_SAME(K);
    SVI_SAME(alpha);
    SVI_SAME(gamma);
    SVI_SAME(eta);
    SVI_SAME(kappa);
    SVI_SAME(tau0);
    SVI_SAME(minibatch);
    SVI_SAME(localIters);
    SVI_SAME(localTol);
    SVI_SAME(sortTopics);
    SVI_SAME(evalDocs);
    SVI_SAME(topWords);
    return diff;
}

QStringList differences(const PfOptions& a, const PfOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    SVI_SAME(priors.hierarchical);
    SVI_SAME(priors.a);
    SVI_SAME(priors.aPrime);
    SVI_SAME(priors.bPrime);
    SVI_SAME(priors.b);
    SVI_SAME(priors.c);
    SVI_SAME(priors.cPrime);
    SVI_SAME(priors.dPrime);
    SVI_SAME(priors.d);
    SVI_SAME(minibatch);
    SVI_SAME(localIters);
    SVI_SAME(localTol);
    SVI_SAME(evalUsers);
    SVI_SAME(topN);
    diff << differences(a.stepSize, b.stepSize)
                .replaceInStrings(QRegularExpression("^"), "stepSize.");
    return diff;
}

QStringList differences(const GmfOptions& a, const GmfOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    SVI_SAME(priors.lambdaU);
    SVI_SAME(priors.lambdaV);
    SVI_SAME(priors.a0);
    SVI_SAME(priors.b0);
    SVI_SAME(evalUsers);
    SVI_SAME(topN);
    return diff;
}

QStringList differences(const GlmOptions& a, const GlmOptions& b)
{
    QStringList diff;
    SVI_SAME(likelihood);
    SVI_SAME(lgm.covariance);
    SVI_SAME(lgm.minibatch);
    SVI_SAME(samples);
    SVI_SAME(estimator);
    SVI_SAME(lgm.kappa);
    SVI_SAME(lgm.tau0);
    SVI_SAME(lgm.adagradRate);
    SVI_SAME(lgm.priorVariance);
    SVI_SAME(lgm.initVariance);
    SVI_SAME(noiseSd);
    SVI_SAME(learnNoise);
    SVI_SAME(lgm.evalRows);
    return diff;
}

QStringList differences(const GmeOptions& a, const GmeOptions& b)
{
    QStringList diff;
    SVI_SAME(likelihood);
    SVI_SAME(bound);
    SVI_SAME(samples);
    SVI_SAME(innerNodes);
    SVI_SAME(estimator);
    SVI_SAME(tau);
    SVI_SAME(initSigma);
    SVI_SAME(noiseSd);
    SVI_SAME(lgm.covariance);
    SVI_SAME(lgm.minibatch);
    SVI_SAME(lgm.kappa);
    SVI_SAME(lgm.tau0);
    SVI_SAME(lgm.adagradRate);
    SVI_SAME(lgm.priorVariance);
    SVI_SAME(lgm.initVariance);
    SVI_SAME(lgm.evalRows);
    return diff;
}

QStringList differences(const GpmfOptions& a, const GpmfOptions& b)
{
    QStringList diff;
    SVI_SAME(D);
    SVI_SAME(likelihood);
    SVI_SAME(categories);
    SVI_SAME(halfStars);
    SVI_SAME(slope);
    SVI_SAME(delta);
    SVI_SAME(covariance);
    SVI_SAME(subsample);
    SVI_SAME(unobserved);
    SVI_SAME(zeroSamples);
    SVI_SAME(samples);
    SVI_SAME(outerSamples);
    SVI_SAME(estimator);
    SVI_SAME(kappa);
    SVI_SAME(tau0);
    SVI_SAME(adagradRate);
    SVI_SAME(priorVariance);
    SVI_SAME(learnPrior);
    SVI_SAME(initVariance);
    SVI_SAME(evalEntries);
    SVI_SAME(evalUsers);
    SVI_SAME(topN);
    return diff;
}

QStringList differences(const CtmOptions& a, const CtmOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    SVI_SAME(bound);
    SVI_SAME(covariance);
    SVI_SAME(samples);
    SVI_SAME(kappa);
    SVI_SAME(tau0);
    SVI_SAME(adagradRate);
    SVI_SAME(topicsRate);
    SVI_SAME(topicsBatch);
    SVI_SAME(learnPrior);
    SVI_SAME(localIters);
    SVI_SAME(evalDocs);
    SVI_SAME(topWords);
    return diff;
}

QStringList differences(const SgpOptions& a, const SgpOptions& b)
{
    QStringList diff;
    SVI_SAME(bound);
    SVI_SAME(inducing);
    SVI_SAME(trainRows);
    SVI_SAME(setupSeed);
    SVI_SAME(hyperparameters);
    SVI_SAME(lengthScale);
    SVI_SAME(kernelVariance);
    SVI_SAME(noiseVariance);
    SVI_SAME(gridRows);
    SVI_SAME(gridPoints);
    SVI_SAME(tolerance);
    SVI_SAME(sliceFeature);
    SVI_SAME(lgm.covariance);
    SVI_SAME(lgm.minibatch);
    SVI_SAME(lgm.damping);
    SVI_SAME(lgm.kappa);
    SVI_SAME(lgm.tau0);
    SVI_SAME(lgm.adagradRate);
    SVI_SAME(lgm.initVariance);
    SVI_SAME(lgm.evalRows);
    return diff;
}

// The SGVB engine's settings, shared by the models of paper 003 (named as their fields are).
QStringList differences(const SgvbOptions& a, const SgvbOptions& b)
{
    QStringList diff;
    SVI_SAME(optimizer.kind);
    SVI_SAME(optimizer.rate);
    SVI_SAME(optimizer.rateKappa);
    SVI_SAME(optimizer.rateTau);
    SVI_SAME(optimizer.momentum);
    SVI_SAME(optimizer.rmspropDecay);
    SVI_SAME(optimizer.adadeltaRho);
    SVI_SAME(optimizer.adadeltaEpsilon);
    SVI_SAME(optimizer.adamBeta1);
    SVI_SAME(optimizer.adamBeta2);
    SVI_SAME(entropy);
    SVI_SAME(elboSamples);
    for (QString& field : diff)
        field.prepend("sgvb.");
    return diff;
}

QStringList differences(const EpmOptions& a, const EpmOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    SVI_SAME(priors.aShape);
    SVI_SAME(priors.aRate);
    SVI_SAME(priors.e0);
    SVI_SAME(priors.f0);
    diff << differences(a.sgvb, b.sgvb);
    SVI_SAME(init);
    SVI_SAME(evalDraws);
    SVI_SAME(burnin);
    SVI_SAME(thin);
    SVI_SAME(samples);
    return diff;
}

QStringList differences(const GpfaOptions& a, const GpfaOptions& b)
{
    QStringList diff;
    SVI_SAME(K);
    diff << differences(a.sgvb, b.sgvb);
    SVI_SAME(prior.noiseShape);
    SVI_SAME(prior.noiseRate);
    SVI_SAME(covDraws);
    SVI_SAME(minibatch);
    SVI_SAME(trainRows);
    return diff;
}

#undef SVI_SAME

// What the tests need of one model's options struct, as its entries' make() uses it.
struct Model
{
    // The fields of fromParams(values) that differ from a default-constructed struct.
    std::function<QStringList(const ParamValues&)> differsFromDefault;
    // A default-constructed struct's values, by key (toParams).
    std::function<ParamValues()> defaults;
    // fromParams(values).check().
    std::function<void(const ParamValues&)> check;
};

template <typename Options> Model modelOf()
{
    return {[](const ParamValues& v) { return differences(Options::fromParams(v), Options()); },
            [] { return Options().toParams(); },
            [](const ParamValues& v) { Options::fromParams(v).check(); }};
}

Model pfModel(bool hierarchical)
{
    const auto plain = [hierarchical] {
        PfOptions o;
        o.priors.hierarchical = hierarchical;
        return o;
    };
    return {[=](const ParamValues& v) {
                return differences(PfOptions::fromParams(v, hierarchical), plain());
            },
            [=] { return plain().toParams(); },
            [=](const ParamValues& v) { PfOptions::fromParams(v, hierarchical).check(); }};
}

// The options struct of every model of the registry. A model added without one here fails
// everyModelHasAnOptionsStruct.
const std::map<std::string, Model>& models()
{
    static const std::map<std::string, Model> m = {
        {"bpfa", modelOf<BpfaOptions>()}, {"lda", modelOf<LdaOptions>()},
        {"hdp", modelOf<HdpOptions>()},   {"hpf", pfModel(true)},
        {"pmf", pfModel(false)},          {"gmf", modelOf<GmfOptions>()},
        {"glm", modelOf<GlmOptions>()},   {"gme", modelOf<GmeOptions>()},
        {"sgp", modelOf<SgpOptions>()},   {"gpmf", modelOf<GpmfOptions>()},
        {"ctm", modelOf<CtmOptions>()},   {"epm", modelOf<EpmOptions>()},
        {"gpfa", modelOf<GpfaOptions>()},
    };
    return m;
}

// Every parameter any entry of `model` declares, each key once.
std::vector<ParamSpec> declaredBy(const std::string& model)
{
    std::vector<std::vector<ParamSpec>> lists;
    for (const AlgorithmEntry* e : Registry::builtin().algorithms(model))
        lists.push_back(e->params);
    return mergeParams(lists);
}

// A bound a value can cross (as the declarations write "no limit": the largest double).
bool meaningful(const ParamSpec& s, double bound)
{
    return std::isfinite(bound) && std::abs(bound) < (s.type == ParamType::Int ? 0x1p63 : 1e300);
}

} // namespace

class TestModelOptions : public QObject
{
    Q_OBJECT

private slots:
    void everyModelHasAnOptionsStruct();
    void declaredDefaultsAreTheStructs_data();
    void declaredDefaultsAreTheStructs();
    void everyFieldIsDeclared_data();
    void everyFieldIsDeclared();
    void checksAreTheDeclaredRanges_data();
    void checksAreTheDeclaredRanges();
    void stepSizeDefaultsAreDeclared();
};

void TestModelOptions::everyModelHasAnOptionsStruct()
{
    for (const std::string& model : Registry::builtin().models())
        QVERIFY2(models().count(model),
                 qPrintable(QString::fromStdString("no options struct for model '" + model + "'")));
}

void TestModelOptions::declaredDefaultsAreTheStructs_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    for (const AlgorithmEntry& e : Registry::builtin().entries())
        QTest::newRow((e.model + "/" + e.algorithm).c_str())
            << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm);
}

void TestModelOptions::declaredDefaultsAreTheStructs()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    const AlgorithmEntry* e =
        Registry::builtin().find(model.toStdString(), algorithm.toStdString());
    QVERIFY(e);
    if (!models().count(e->model))
        QSKIP("no options struct (everyModelHasAnOptionsStruct fails)");
    const Model& m = models().at(e->model);
    const QStringList diff = m.differsFromDefault(defaultValues(e->params));
    QVERIFY2(diff.isEmpty(), qPrintable("declared default ≠ the struct's: " + diff.join(", ")));
    // And each declared default, key by key, is the default-constructed struct's value.
    const ParamValues plain = m.defaults();
    for (const auto& [key, value] : defaultValues(e->params)) {
        QVERIFY2(plain.count(key), key.c_str());
        QVERIFY2(plain.at(key) == value,
                 qPrintable(QString::fromStdString(key + ": declared " + formatParam(value) +
                                                   ", struct " + formatParam(plain.at(key)))));
    }
}

void TestModelOptions::everyFieldIsDeclared_data()
{
    QTest::addColumn<QString>("model");
    for (const auto& [model, m] : models())
        QTest::newRow(model.c_str()) << QString::fromStdString(model);
}

void TestModelOptions::everyFieldIsDeclared()
{
    QFETCH(QString, model);
    const std::string name = model.toStdString();
    std::set<std::string> fields, declared;
    for (const auto& [key, value] : models().at(name).defaults())
        fields.insert(key);
    for (const ParamSpec& s : declaredBy(name))
        declared.insert(s.key);
    // PMF and HPF share one struct: the other model's priors are fields but not declared.
    if (name == "hpf" || name == "pmf")
        for (const ParamSpec& s : pf::Priors::params(name == "pmf"))
            declared.insert(s.key);
    QStringList undeclared, unbound;
    for (const std::string& k : fields)
        if (!declared.count(k))
            undeclared << QString::fromStdString(k);
    for (const std::string& k : declared)
        if (!fields.count(k))
            unbound << QString::fromStdString(k);
    QVERIFY2(undeclared.isEmpty(), qPrintable("fields nothing declares: " + undeclared.join(", ")));
    QVERIFY2(unbound.isEmpty(), qPrintable("declared keys no field holds: " + unbound.join(", ")));
}

void TestModelOptions::checksAreTheDeclaredRanges_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("key");
    QTest::addColumn<ParamValue>("value");
    QTest::addColumn<QString>("message");
    int rows = 0;
    for (const auto& [model, m] : models()) {
        for (const ParamSpec& s : declaredBy(model)) {
            if (s.type != ParamType::Int && s.type != ParamType::Real)
                continue;
            std::vector<ParamValue> outside;
            const auto value = [&](double v) {
                return s.type == ParamType::Int ? ParamValue(std::int64_t(v)) : ParamValue(v);
            };
            if (meaningful(s, s.minValue))
                outside.push_back(value(s.minExclusive ? s.minValue : s.minValue - 1));
            if (meaningful(s, s.maxValue))
                outside.push_back(value(s.maxValue + 1));
            for (const ParamValue& v : outside) {
                const std::optional<ParamError> e = checkParam(s, v);
                QVERIFY2(e, "a value outside the range must be refused by the declaration");
                QTest::addRow("%s %s = %s", model.c_str(), s.key.c_str(), formatParam(v).c_str())
                    << QString::fromStdString(model) << QString::fromStdString(s.key) << v
                    << QString::fromStdString(e->message);
                ++rows;
            }
        }
    }
    QVERIFY(rows > 40); // every model has ranged fields
}

void TestModelOptions::checksAreTheDeclaredRanges()
{
    QFETCH(QString, model);
    QFETCH(QString, key);
    QFETCH(ParamValue, value);
    QFETCH(QString, message);
    const Model& m = models().at(model.toStdString());
    ParamValues values = m.defaults();
    m.check(values); // the defaults pass
    values[key.toStdString()] = value;
    try {
        m.check(values);
        QFAIL("the struct's check accepted a value its declaration refuses");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromUtf8(e.what()), message);
    }
}

void TestModelOptions::stepSizeDefaultsAreDeclared()
{
    // A bare StepSizeOptions holds the defaults of the declaration without a model's κ, τ0.
    StepSizeOptions declared;
    declared.read(defaultValues(StepSizeOptions::params()));
    QVERIFY2(differences(declared, StepSizeOptions()).isEmpty(),
             qPrintable(differences(declared, StepSizeOptions()).join(", ")));
    // A model's κ and τ0 reach a struct that reads its declaration.
    StepSizeOptions model;
    model.read(defaultValues(StepSizeOptions::params(0.6, 8.0)));
    QCOMPARE(model.kappa, 0.6);
    QCOMPARE(model.tau0, 8.0);
    QCOMPARE(model.adaptiveInit, StepSizeOptions().adaptiveInit);
}

QTEST_GUILESS_MAIN(TestModelOptions)
#include "test_model_options.moc"
