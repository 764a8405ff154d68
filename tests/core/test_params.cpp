// Parameter declarations: parsing, range checks and the messages that name the field.

#include "core/run/params.h"

#include <QtTest>

#include <limits>

using namespace svi;

namespace {

std::vector<ParamSpec> specs()
{
    return {
        ParamSpec{"minibatch", "Minibatch", "items per step", ParamType::Int, 256, 1, 1e9, {}, {}},
        ParamSpec{"kappa", "κ", "forgetting rate", ParamType::Real, 0.75, 0.5, 1.0, {}, {}},
        ParamSpec{"c", "c", "shape", ParamType::Real, 1, 1e-12, std::numeric_limits<double>::max(), {}, {}},
        ParamSpec{"init", "Init", "how to start", ParamType::Choice, 0, 0, 0, {"gibbs", "random"}, "gibbs"},
        ParamSpec{"verbose", "Verbose", "talk more", ParamType::Bool, 0, 0, 1, {}, {}},
    };
}

const ParamSpec& spec(const std::string& key)
{
    static const std::vector<ParamSpec> s = specs();
    for (const auto& p : s)
        if (p.key == key)
            return p;
    throw std::logic_error(key);
}

} // namespace

class TestParams : public QObject
{
    Q_OBJECT

private slots:
    void parsesValid_data();
    void parsesValid();
    void rejectsWithFieldMessage_data();
    void rejectsWithFieldMessage();
    void resolveFillsDefaultsAndRejectsUnknown();
    void formatRoundTrips();
    void typedGetters();
};

void TestParams::parsesValid_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("formatted");
    QTest::newRow("int") << "minibatch" << "512" << "512";
    QTest::newRow("int at lower bound") << "minibatch" << "1" << "1";
    QTest::newRow("real") << "kappa" << "0.6" << "0.6";
    QTest::newRow("real bound") << "kappa" << "1" << "1";
    QTest::newRow("real exponent") << "c" << "1e-06" << "1e-06";
    QTest::newRow("choice") << "init" << "random" << "random";
    QTest::newRow("bool yes") << "verbose" << "yes" << "true";
    QTest::newRow("bool 0") << "verbose" << "0" << "false";
}

void TestParams::parsesValid()
{
    QFETCH(QString, key);
    QFETCH(QString, text);
    QFETCH(QString, formatted);
    const auto r = parseParam(spec(key.toStdString()), text.toStdString());
    QVERIFY2(std::holds_alternative<ParamValue>(r),
             std::holds_alternative<ParamError>(r) ? std::get<ParamError>(r).message.c_str() : "");
    QCOMPARE(QString::fromStdString(formatParam(std::get<ParamValue>(r))), formatted);
}

void TestParams::rejectsWithFieldMessage_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("below minimum") << "minibatch" << "0" << "minibatch = 0, but must be in [1, 1000000000]";
    QTest::newRow("not an integer") << "minibatch" << "2.5" << "minibatch = 2.5, but must be an integer";
    QTest::newRow("garbage int") << "minibatch" << "abc" << "minibatch = abc, but must be an integer";
    QTest::newRow("out of range real") << "kappa" << "1.5" << "kappa = 1.5, but must be in [0.5, 1]";
    QTest::newRow("one-sided bound") << "c" << "0" << "c = 0, but must be ≥ 1e-12";
    QTest::newRow("nan") << "kappa" << "nan" << "kappa = nan, but must be finite";
    QTest::newRow("empty real") << "kappa" << "" << "kappa = , but must be a number";
    QTest::newRow("unknown choice") << "init" << "magic" << "init = magic, but must be one of: gibbs, random";
    QTest::newRow("bad bool") << "verbose" << "maybe" << "verbose = maybe, but must be true or false";
}

void TestParams::rejectsWithFieldMessage()
{
    QFETCH(QString, key);
    QFETCH(QString, text);
    QFETCH(QString, message);
    const auto r = parseParam(spec(key.toStdString()), text.toStdString());
    QVERIFY(std::holds_alternative<ParamError>(r));
    const ParamError& e = std::get<ParamError>(r);
    QCOMPARE(QString::fromStdString(e.key), key);
    QCOMPARE(QString::fromStdString(e.message), message);
}

void TestParams::resolveFillsDefaultsAndRejectsUnknown()
{
    const auto s = specs();
    auto r = resolveParams(s, {{"kappa", 0.9}, {"minibatch", std::int64_t(64)}});
    QVERIFY(std::holds_alternative<ParamValues>(r));
    const ParamValues v = std::get<ParamValues>(r);
    QCOMPARE(getReal(v, "kappa"), 0.9);
    QCOMPARE(getInt(v, "minibatch"), std::int64_t(64));
    QCOMPARE(getChoice(v, "init"), std::string("gibbs"));
    QCOMPARE(getBool(v, "verbose"), false);
    QCOMPARE(getReal(v, "c"), 1.0);
    // An integer is accepted for a real parameter.
    r = resolveParams(s, {{"kappa", std::int64_t(1)}});
    QVERIFY(std::holds_alternative<ParamValues>(r));
    QCOMPARE(getReal(std::get<ParamValues>(r), "kappa"), 1.0);

    r = resolveParams(s, {{"tau", 1.0}});
    QVERIFY(std::holds_alternative<ParamError>(r));
    QCOMPARE(std::get<ParamError>(r).key, std::string("tau"));
    QVERIFY(QString::fromStdString(std::get<ParamError>(r).message).startsWith("unknown parameter 'tau' (known: minibatch, kappa"));

    r = resolveParams(s, {{"minibatch", std::int64_t(-3)}});
    QVERIFY(std::holds_alternative<ParamError>(r));
    QCOMPARE(std::get<ParamError>(r).key, std::string("minibatch"));
    r = resolveParams(s, {{"minibatch", 2.0}}); // a real where an integer is required
    QVERIFY(std::holds_alternative<ParamError>(r));
}

void TestParams::formatRoundTrips()
{
    for (double v : {0.75, 1e-6, 0.1, 1.0 / 3.0, 123456.789, -2.5}) {
        const std::string text = formatParam(v);
        QCOMPARE(std::stod(text), v);
    }
    QCOMPARE(formatParam(std::int64_t(-7)), std::string("-7"));
    QCOMPARE(formatParam(true), std::string("true"));
    QCOMPARE(formatParam(std::string("gibbs")), std::string("gibbs"));
}

void TestParams::typedGetters()
{
    const ParamValues v{{"K", std::int64_t(4)}, {"name", std::string("x")}};
    QCOMPARE(getReal(v, "K"), 4.0);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, getInt(v, "missing"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, getInt(v, "name"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, getBool(v, "K"));
}

QTEST_GUILESS_MAIN(TestParams)
#include "test_params.moc"
