// Every registry entry's options against its declarations, through the entry itself
// (readOptions: the struct make() builds, checked as the trainer checks it, read back by key), so
// that the test needs no list of models and a new model is held to it by being registered:
// the declared defaults are what the struct holds; each key has a field of its own (changing one
// key changes that value alone); and the struct's check refuses exactly what the declaration
// refuses, with the same message.

#include "core/base/param_fields.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "tests/core/registry_testing.h"

#include <QtTest>
#include <cmath>
#include <set>

using namespace svi;

Q_DECLARE_METATYPE(svi::ParamValue)

namespace {

const AlgorithmEntry& entryNamed(const QString& model, const QString& algorithm)
{
    const AlgorithmEntry* e = builtinRegistry().find(model.toStdString(), algorithm.toStdString());
    if (!e)
        qFatal("no entry %s/%s", qPrintable(model), qPrintable(algorithm));
    return *e;
}

// A bound a value can cross (as the declarations write "no limit": the largest double).
bool meaningful(const ParamSpec& s, double bound)
{
    return std::isfinite(bound) && std::abs(bound) < (s.type == ParamType::Int ? 0x1p62 : 1e300);
}

// A value `s` accepts other than its default; nullopt when it has no other (a one-choice list).
std::optional<ParamValue> anotherValue(const ParamSpec& s)
{
    switch (s.type) {
    case ParamType::Int: {
        const auto def = std::int64_t(s.defaultValue);
        const std::int64_t up = def + 1, down = def - 1;
        if (double(up) <= s.maxValue)
            return ParamValue(up);
        if (double(down) >= s.minValue && !(s.minExclusive && double(down) <= s.minValue))
            return ParamValue(down);
        return std::nullopt;
    }
    case ParamType::Real: {
        const double hi = meaningful(s, s.maxValue) ? s.maxValue : s.defaultValue * 2.0 + 1.0;
        const double v = 0.5 * (s.defaultValue + hi);
        return v != s.defaultValue ? std::optional<ParamValue>(v) : std::nullopt;
    }
    case ParamType::Bool:
        return ParamValue(!(s.defaultValue != 0.0));
    case ParamType::Choice:
        for (const std::string& c : s.choices)
            if (c != s.defaultChoice)
                return ParamValue(c);
        return std::nullopt;
    case ParamType::Text:
    case ParamType::Names:
        return ParamValue(std::string("x"));
    }
    return std::nullopt;
}

void entryRows()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        QTest::newRow((e.model + "/" + e.algorithm).c_str())
            << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm);
}

// The readOptions of `e` on `values`, or the test's failure.
ParamValues readBack(const AlgorithmEntry& e, const ParamValues& values)
{
    try {
        return e.readOptions(values);
    } catch (const std::exception& x) {
        qFatal("%s/%s refused %s", e.model.c_str(), e.algorithm.c_str(), x.what());
    }
}

} // namespace

class TestModelOptions : public QObject
{
    Q_OBJECT

private slots:
    void everyEntryDeclaresItsTestSettings_data() { entryRows(); }
    void everyEntryDeclaresItsTestSettings();
    void declaredDefaultsAreTheStructs_data() { entryRows(); }
    void declaredDefaultsAreTheStructs();
    void eachKeyHasAFieldOfItsOwn_data() { entryRows(); }
    void eachKeyHasAFieldOfItsOwn();
    void checksAreTheDeclaredRanges_data();
    void checksAreTheDeclaredRanges();
};

void TestModelOptions::everyEntryDeclaresItsTestSettings()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    const AlgorithmEntry& e = entryNamed(model, algorithm);
    QVERIFY2(e.readOptions, "no readOptions (optionsReader<Options>())");
    // Its memory (AlgorithmEntry::memory; test_cli_memory holds it to the measured peak): on
    // small data of its kind, a finite size of named parts.
    QVERIFY2(e.memory, "no memory declaration");
    const std::vector<MemoryTerm> need =
        e.memory(svi::test_support::dataFor(e), svi::test_support::smallParams(e));
    QVERIFY(!need.empty());
    for (const MemoryTerm& t : need) {
        QVERIFY2(std::isfinite(t.bytes) && t.bytes >= 0, t.what.c_str());
        QVERIFY2(!t.what.empty() && !t.setting.empty(), t.what.c_str());
    }
    QVERIFY2(!e.smallSettings.empty(), "no small settings for the registry-wide tests");
    QVERIFY2(!e.divergentSettings.empty(), "no setting that drives it to divergence");
    // Each setting is a key some entry of the model declares, and a value it accepts.
    std::vector<std::vector<ParamSpec>> lists;
    for (const AlgorithmEntry* a : builtinRegistry().algorithms(e.model))
        lists.push_back(a->params);
    const std::vector<ParamSpec> declared = mergeParams(lists);
    for (const ParamValues* settings : {&e.smallSettings, &e.divergentSettings})
        for (const auto& [key, value] : *settings) {
            const std::string name = key; // (a structured binding cannot be captured in C++20)
            const auto it = std::find_if(declared.begin(), declared.end(),
                                         [&](const ParamSpec& s) { return s.key == name; });
            QVERIFY2(it != declared.end(), key.c_str());
            const auto problem = checkParam(*it, value);
            QVERIFY2(!problem, problem ? problem->message.c_str() : "");
        }
}

void TestModelOptions::declaredDefaultsAreTheStructs()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    const AlgorithmEntry& e = entryNamed(model, algorithm);
    const ParamValues defaults = defaultValues(e.params);
    const ParamValues held = readBack(e, defaults);
    for (const auto& [key, value] : defaults) {
        QVERIFY2(held.count(key), qPrintable(QString::fromStdString("no field holds " + key)));
        QVERIFY2(held.at(key) == value, qPrintable(QString::fromStdString(
                                            key + ": declared " + formatParam(value) +
                                            ", the struct holds " + formatParam(held.at(key)))));
    }
}

void TestModelOptions::eachKeyHasAFieldOfItsOwn()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    const AlgorithmEntry& e = entryNamed(model, algorithm);
    const ParamValues defaults = defaultValues(e.params);
    const ParamValues before = readBack(e, defaults);
    int changed = 0;
    for (const ParamSpec& s : e.params) {
        const std::optional<ParamValue> other = anotherValue(s);
        if (!other)
            continue;
        ParamValues values = defaults;
        values[s.key] = *other;
        const ParamValues after = readBack(e, values);
        QVERIFY2(after.at(s.key) == *other, qPrintable(QString::fromStdString(
                                                s.key + " = " + formatParam(*other) +
                                                " reads back as " + formatParam(after.at(s.key)))));
        for (const auto& [key, value] : before)
            QVERIFY2(key == s.key || after.at(key) == value,
                     qPrintable(QString::fromStdString("setting " + s.key + " also changed " + key +
                                                       ": one field bound to both")));
        ++changed;
    }
    QVERIFY(changed > 0);
}

void TestModelOptions::checksAreTheDeclaredRanges_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    QTest::addColumn<ParamValue>("value");
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("message");
    int rows = 0;
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        for (const ParamSpec& s : e.params) {
            if (s.type != ParamType::Int && s.type != ParamType::Real)
                continue;
            const auto value = [&](double v) {
                return s.type == ParamType::Int ? ParamValue(std::int64_t(v)) : ParamValue(v);
            };
            std::vector<ParamValue> outside;
            if (meaningful(s, s.minValue))
                outside.push_back(value(s.minExclusive ? s.minValue : s.minValue - 1));
            if (meaningful(s, s.maxValue))
                outside.push_back(value(s.maxValue + 1));
            for (const ParamValue& v : outside) {
                const std::optional<ParamError> problem = checkParam(s, v);
                QVERIFY2(problem, "a value outside the range must be refused by the declaration");
                QTest::addRow("%s/%s %s = %s", e.model.c_str(), e.algorithm.c_str(), s.key.c_str(),
                              formatParam(v).c_str())
                    << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm) << v
                    << QString::fromStdString(s.key) << QString::fromStdString(problem->message);
                ++rows;
            }
        }
    QVERIFY(rows > 100); // every model has ranged fields
}

void TestModelOptions::checksAreTheDeclaredRanges()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    QFETCH(ParamValue, value);
    QFETCH(QString, key);
    QFETCH(QString, message);
    const AlgorithmEntry& e = entryNamed(model, algorithm);
    ParamValues values = defaultValues(e.params);
    values[key.toStdString()] = value;
    try {
        e.readOptions(values);
        QFAIL("the struct's check accepted a value its declaration refuses");
    } catch (const std::invalid_argument& x) {
        QCOMPARE(QString::fromUtf8(x.what()), message);
    }
}

QTEST_GUILESS_MAIN(TestModelOptions)
#include "test_model_options.moc"
