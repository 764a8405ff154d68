// Parameter declarations: parsing, range checks and the messages that name the field; and what
// the registry declares about data and comparison.

#include "core/base/param_fields.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"

#include <QtTest>
#include <cmath>
#include <limits>

using namespace svi;

Q_DECLARE_METATYPE(svi::ParamValue)

namespace {

std::vector<ParamSpec> specs()
{
    return {
        ParamSpec{"minibatch", "Minibatch", "items per step", ParamType::Int, 256, 1, 1e9, {}, {}},
        ParamSpec{"kappa", "κ", "forgetting rate", ParamType::Real, 0.75, 0.5, 1.0, {}, {}},
        ParamSpec{"c",
                  "c",
                  "shape",
                  ParamType::Real,
                  1,
                  1e-12,
                  std::numeric_limits<double>::max(),
                  {},
                  {}},
        ParamSpec{"init",
                  "Init",
                  "how to start",
                  ParamType::Choice,
                  0,
                  0,
                  0,
                  {"gibbs", "random"},
                  "gibbs"},
        ParamSpec{"verbose", "Verbose", "talk more", ParamType::Bool, 0, 0, 1, {}, {}},
        // As the registry declares them: "no upper limit" is the largest double.
        ParamSpec{"K",
                  "Features K",
                  "atoms",
                  ParamType::Int,
                  64,
                  1,
                  std::numeric_limits<double>::max(),
                  {},
                  {}},
        ParamSpec{"seedish", "S", "int64 bounds", ParamType::Int, 0, -0x1p63, 0x1p63, {}, {}},
        ParamSpec{"start",
                  "Start",
                  "initialisation",
                  ParamType::Choice,
                  0,
                  0,
                  0,
                  {"random", "gibbs"},
                  "random"},
    };
}

// A message as the files a run writes give it: each setting it names by its key.
QString plain(const std::string& message)
{
    return QString::fromStdString(plainSettingRefs(message));
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
    void helpSaysWhenAFieldApplies();
    void parsesValid_data();
    void parsesValid();
    void rejectsWithFieldMessage_data();
    void rejectsWithFieldMessage();
    void resolveFillsDefaultsAndRejectsUnknown();
    void formatRoundTrips();
    void typedGetters();
    void checkValues_data();
    void checkValues();
    void defaultsAreTyped();
    void registryDeclaresDataAndComparison();
    void positiveExcludesZero();
    void fieldsReadAndWriteAStruct();
    void firstInvalidNamesTheFirstBadField();
    void mergeKeepsTheFirstDeclaration();
    void declaredOptionsComeFromTheirDeclarations();
    void settingsAreNamedByEachFrontEnd();
};

void TestParams::parsesValid_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("formatted");
    QTest::newRow("int") << "minibatch"
                         << "512"
                         << "512";
    QTest::newRow("int at lower bound") << "minibatch"
                                        << "1"
                                        << "1";
    QTest::newRow("real") << "kappa"
                          << "0.6"
                          << "0.6";
    QTest::newRow("real bound") << "kappa"
                                << "1"
                                << "1";
    QTest::newRow("real exponent") << "c"
                                   << "1e-06"
                                   << "1e-06";
    QTest::newRow("choice") << "init"
                            << "random"
                            << "random";
    QTest::newRow("bool yes") << "verbose"
                              << "yes"
                              << "true";
    QTest::newRow("bool 0") << "verbose"
                            << "0"
                            << "false";
    QTest::newRow("bool On") << "verbose"
                             << "On"
                             << "true";
    QTest::newRow("bool off") << "verbose"
                              << "off"
                              << "false";
    QTest::newRow("bool TRUE") << "verbose"
                               << "TRUE"
                               << "true";
    QTest::newRow("bool no") << "verbose"
                             << "no"
                             << "false";
    QTest::newRow("negative int") << "seedish"
                                  << "-42"
                                  << "-42";
    QTest::newRow("int64 max") << "seedish"
                               << "9223372036854775807"
                               << "9223372036854775807";
    QTest::newRow("real integer text") << "kappa"
                                       << "1"
                                       << "1";
    QTest::newRow("unbounded above") << "K"
                                     << "1000000"
                                     << "1000000";
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
    QTest::newRow("below minimum") << "minibatch"
                                   << "0"
                                   << "minibatch = 0, but must be in [1, 1000000000]";
    QTest::newRow("not an integer") << "minibatch"
                                    << "2.5"
                                    << "minibatch = 2.5, but must be an integer";
    QTest::newRow("garbage int") << "minibatch"
                                 << "abc"
                                 << "minibatch = abc, but must be an integer";
    QTest::newRow("out of range real") << "kappa"
                                       << "1.5"
                                       << "kappa = 1.5, but must be in [0.5, 1]";
    QTest::newRow("one-sided bound") << "c"
                                     << "0"
                                     << "c = 0, but must be ≥ 1e-12";
    QTest::newRow("nan") << "kappa"
                         << "nan"
                         << "kappa = nan, but must be finite";
    QTest::newRow("empty real") << "kappa"
                                << ""
                                << "kappa = , but must be a number";
    QTest::newRow("unknown choice") << "init"
                                    << "magic"
                                    << "init = magic, but must be one of: gibbs, random";
    QTest::newRow("bad bool") << "verbose"
                              << "maybe"
                              << "verbose = maybe, but must be true or false";
    // The forms quoted in the design notes.
    QTest::newRow("≥ form") << "K"
                            << "0"
                            << "K = 0, but must be ≥ 1";
    QTest::newRow("K garbage") << "K"
                               << "abc"
                               << "K = abc, but must be an integer";
    QTest::newRow("K real") << "K"
                            << "2.5"
                            << "K = 2.5, but must be an integer";
    QTest::newRow("K trailing") << "K"
                                << "12x"
                                << "K = 12x, but must be an integer";
    QTest::newRow("K empty") << "K"
                             << ""
                             << "K = , but must be an integer";
    QTest::newRow("K too long") << "K"
                                << "99999999999999999999"
                                << "K = 99999999999999999999, but must be ≥ 1";
    QTest::newRow("int64 bounds are no bounds")
        << "seedish"
        << "99999999999999999999"
        << "seedish = 99999999999999999999, but must be a 64-bit integer";
    QTest::newRow("choice order as declared") << "start"
                                              << "foo"
                                              << "start = foo, but must be one of: random, gibbs";
    QTest::newRow("choice is case-sensitive") << "start"
                                              << "Gibbs"
                                              << "start = Gibbs, but must be one of: random, gibbs";
    QTest::newRow("real garbage") << "kappa"
                                  << "0.7x"
                                  << "kappa = 0.7x, but must be a number";
    QTest::newRow("inf") << "c"
                         << "inf"
                         << "c = inf, but must be finite";
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
    QCOMPARE(plain(e.message), message);
    // The field is named by a reference to the setting, for each front end to name its way.
    QVERIFY(e.message.rfind(settingRef(e.key), 0) == 0);
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
    QVERIFY(QString::fromStdString(std::get<ParamError>(r).message)
                .startsWith("unknown parameter 'tau' (known: minibatch, kappa"));

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
        QVERIFY2(std::stod(text) == v, text.c_str()); // exact: QCOMPARE on doubles is fuzzy
    }
    // And back through the parser, as a saved configuration is read ("c" accepts any v > 0).
    for (double v : {0.75, 1e-6, 1.0 / 3.0, 123456.789, 1e-10}) {
        const auto back = parseParam(spec("c"), formatParam(v));
        QVERIFY(std::holds_alternative<ParamValue>(back));
        QVERIFY(std::get<double>(std::get<ParamValue>(back)) == v);
    }
    // Shortest text, not printf's six digits.
    QCOMPARE(formatParam(0.75), std::string("0.75"));
    QCOMPARE(formatParam(1e-6), std::string("1e-06"));
    QCOMPARE(formatParam(256.0), std::string("256"));
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

void TestParams::checkValues_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<ParamValue>("value");
    QTest::addColumn<QString>("message"); // empty: valid
    QTest::newRow("int ok") << "minibatch" << ParamValue(std::int64_t(1000000000)) << "";
    QTest::newRow("int above") << "minibatch" << ParamValue(std::int64_t(1000000001))
                               << "minibatch = 1000000001, but must be in [1, 1000000000]";
    QTest::newRow("int below, unbounded above")
        << "K" << ParamValue(std::int64_t(-2)) << "K = -2, but must be ≥ 1";
    QTest::newRow("real for int") << "K" << ParamValue(2.0) << "K = 2, but must be an integer";
    QTest::newRow("real ok") << "kappa" << ParamValue(0.5) << "";
    QTest::newRow("int for real") << "kappa" << ParamValue(std::int64_t(1)) << "";
    QTest::newRow("real above") << "kappa" << ParamValue(1.0000001)
                                << "kappa = 1.0000001, but must be in [0.5, 1]";
    QTest::newRow("real nan") << "c" << ParamValue(std::nan("")) << "c = nan, but must be finite";
    QTest::newRow("string for real")
        << "kappa" << ParamValue(std::string("x")) << "kappa = x, but must be a number";
    QTest::newRow("bool ok") << "verbose" << ParamValue(true) << "";
    QTest::newRow("int for bool") << "verbose" << ParamValue(std::int64_t(1))
                                  << "verbose = 1, but must be true or false";
    QTest::newRow("choice ok") << "init" << ParamValue(std::string("random")) << "";
    QTest::newRow("choice bad") << "init" << ParamValue(std::string(""))
                                << "init = , but must be one of: gibbs, random";
}

void TestParams::checkValues()
{
    QFETCH(QString, key);
    QFETCH(ParamValue, value);
    QFETCH(QString, message);
    const auto e = checkParam(spec(key.toStdString()), value);
    if (message.isEmpty()) {
        QVERIFY2(!e, e ? e->message.c_str() : "");
        return;
    }
    QVERIFY(e);
    QCOMPARE(QString::fromStdString(e->key), key);
    QCOMPARE(plain(e->message), message);
}

void TestParams::defaultsAreTyped()
{
    const ParamValues v = defaultValues(specs());
    QCOMPARE(v.size(), specs().size());
    QVERIFY(std::holds_alternative<std::int64_t>(v.at("minibatch")));
    QCOMPARE(getInt(v, "minibatch"), std::int64_t(256));
    QVERIFY(std::holds_alternative<double>(v.at("kappa")));
    QCOMPARE(getReal(v, "kappa"), 0.75);
    QCOMPARE(getChoice(v, "start"), std::string("random"));
    QCOMPARE(getBool(v, "verbose"), false);
    // Every default passes its own check.
    for (const ParamSpec& s : specs())
        QVERIFY2(!checkParam(s, v.at(s.key)), s.key.c_str());
}

// What the front ends used to spell as model keys is declared in the registry: the default
// model for each kind of data, which models read counts as ratings, and Compare's set in the
// paper's order. Every entry of a model agrees on the data it fits.
void TestParams::registryDeclaresDataAndComparison()
{
    const Registry& r = builtinRegistry();
    auto list = [](const std::vector<std::string>& v) {
        QStringList out;
        for (const std::string& s : v)
            out << QString::fromStdString(s);
        return out;
    };
    QCOMPARE(list(r.modelsFor("ratings")), QStringList({"hpf", "pmf", "gmf", "gpmf"}));
    QCOMPARE(list(r.modelsFor("corpus")), QStringList({"lda", "hdp", "ctm", "hpf", "pmf"}));
    QCOMPARE(list(r.modelsFor("image")), QStringList({"bpfa"}));
    // Every entry of a model declares the same metrics, and fits data its model's first entry
    // fits (HPF's BBVI fits ratings only; the model, corpora too).
    for (const AlgorithmEntry& e : r.entries()) {
        const AlgorithmEntry* first = r.algorithms(e.model).front();
        for (const std::string& kind : e.dataKinds)
            QVERIFY2(first->fits(kind), (e.model + " " + e.algorithm + " " + kind).c_str());
        QCOMPARE(e.metrics.size(), first->metrics.size());
        QVERIFY2(!e.metrics.empty(), e.model.c_str());
    }
    auto group = [&](const std::string& model, bool baselines) {
        QStringList out;
        for (const AlgorithmEntry* e : r.comparisonGroup(model, baselines))
            out << QString::fromStdString(e->algorithm);
        return out;
    };
    QCOMPARE(group("bpfa", false),
             QStringList({"mf-svi", "mf-ssvi", "titsias-ssvi", "mimno-svi", "gibbs-ssvi"}));
    QCOMPARE(group("bpfa", true), QStringList({"mf-svi", "mf-ssvi", "titsias-ssvi", "mimno-svi",
                                               "gibbs-ssvi", "gibbs", "streaming"}));
    QCOMPARE(group("lda", false), QStringList({"svi", "batch", "streaming"}));
    QCOMPARE(group("gmf", false), QStringList({"batch"}));
    // The headline: PSNR on an image, the held-out likelihood on a table.
    const AlgorithmEntry* bpfa = r.find("bpfa", "mf-svi");
    QCOMPARE(QString::fromStdString(bpfa->headline({{"psnr", 30.0}, {"mse", 0.1}})->key),
             QString("psnr"));
    QCOMPARE(QString::fromStdString(bpfa->headline({{"heldout_loglik", -1.0}, {"mse", 0.1}})->key),
             QString("heldout_loglik"));
    QVERIFY(!bpfa->headline({{"unknown", 1.0}}));
}

// A parameter that must be positive declares (0, ∞): zero is refused, the smallest positive
// double is not, and an infinity is outside the range like any other too-large value.
void TestParams::positiveExcludesZero()
{
    const ParamSpec eta = positiveParam("eta", "η", "Dirichlet parameter", 0.01);
    QCOMPARE(QString::fromStdString(rangeText(eta)), QString("(0, ∞)"));
    QCOMPARE(plain(checkParam(eta, 0.0)->message), QString("eta = 0, but must be > 0"));
    QCOMPARE(plain(checkParam(eta, -1.0)->message), QString("eta = -1, but must be > 0"));
    QCOMPARE(plain(checkParam(eta, std::numeric_limits<double>::infinity())->message),
             QString("eta = inf, but must be > 0"));
    QCOMPARE(plain(checkParam(eta, std::nan(""))->message),
             QString("eta = nan, but must be finite"));
    QVERIFY(!checkParam(eta, std::numeric_limits<double>::denorm_min()));
    QVERIFY(std::holds_alternative<ParamError>(parseParam(eta, "0")));
    QVERIFY(std::holds_alternative<ParamValue>(parseParam(eta, "1e-300")));
    // A bounded real: an infinity names the range.
    QCOMPARE(plain(checkParam(spec("kappa"), -std::numeric_limits<double>::infinity())->message),
             QString("kappa = -inf, but must be in [0.5, 1]"));
}

namespace {
enum class Start { Random, Gibbs };
std::string startName(Start s)
{
    return s == Start::Gibbs ? "gibbs" : "random";
}
Start startFromName(const std::string& name)
{
    if (name == "gibbs")
        return Start::Gibbs;
    if (name == "random")
        return Start::Random;
    throw std::invalid_argument("start = " + name);
}
struct Inner
{
    double c = 0.0;
};
struct Settings
{
    int K = 0;
    std::int64_t minibatch = 0;
    double kappa = 0.0;
    bool verbose = false;
    Start start = Start::Random;
    Inner inner;
};
} // namespace

// One list of declarations bound to fields reads a struct from values and writes it back: ints,
// 64-bit ints, reals, booleans, choices kept as enums and the fields of a member, each under its
// key; and it gives the declarations themselves.
void TestParams::fieldsReadAndWriteAStruct()
{
    const ParamFields<Inner> inner = ParamFields<Inner>().add(spec("c"), &Inner::c);
    const ParamFields<Settings> fields =
        ParamFields<Settings>()
            .add(spec("K"), &Settings::K)
            .add(spec("minibatch"), &Settings::minibatch)
            .add(spec("kappa"), &Settings::kappa)
            .add(spec("verbose"), &Settings::verbose)
            .add(spec("start"), &Settings::start, startName, startFromName)
            .add(&Settings::inner, inner);
    QStringList keys;
    for (const ParamSpec& p : fields.specs())
        keys << QString::fromStdString(p.key);
    QCOMPARE(keys, QStringList({"K", "minibatch", "kappa", "verbose", "start", "c"}));
    Settings s;
    fields.read(s, defaultValues(fields.specs()));
    QCOMPARE(s.K, 64);
    QCOMPARE(s.minibatch, std::int64_t(256));
    QCOMPARE(s.kappa, 0.75);
    QCOMPARE(s.verbose, false);
    QVERIFY(s.start == Start::Random);
    QCOMPARE(s.inner.c, 1.0);
    // Absent keys keep their field; present ones replace it.
    fields.read(s, {{"start", std::string("gibbs")}, {"c", 2.5}});
    QVERIFY(s.start == Start::Gibbs);
    QCOMPARE(s.inner.c, 2.5);
    QCOMPARE(s.K, 64);
    // Written back, every field under its key, typed as declared.
    const ParamValues v = fields.values(s);
    QCOMPARE(v.size(), std::size_t(6));
    QVERIFY(v.at("K") == ParamValue(std::int64_t(64)));
    QVERIFY(v.at("start") == ParamValue(std::string("gibbs")));
    QVERIFY(v.at("c") == ParamValue(2.5));
    QVERIFY(v.at("verbose") == ParamValue(false));
    // An integer too large for an int field names the field; a wrong type too.
    try {
        fields.read(s, {{"K", std::int64_t(1) << 40}});
        QFAIL("accepted 2^40 for an int");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString::fromUtf8(e.what()),
                 QString("K = 1099511627776, but must be ≤ 2147483647"));
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, fields.read(s, {{"kappa", std::string("x")}}));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             fields.read(s, {{"start", std::string("fast")}}));
}

namespace {

// An options struct of two variants whose defaults, reading and checks are its declarations'.
struct Declared : DeclaredOptions<Declared>
{
    Declared() { readDefaults(); }
    int K{};
    double share{};
    double rest{};
    std::uint64_t seed{};
    std::vector<std::string> names;

    static ParamFields<Declared> declare(bool wide)
    {
        ParamFields<Declared> f;
        f.add(intParam("K", "K", "", wide ? 9 : 4, 1, 10), &Declared::K);
        if (wide)
            f.add(realParam("share", "Share", "", 0.25, 0.0, 0.9), &Declared::share);
        return f.add(realParam("rest", "Rest", "", 0.5, 0.0, 0.9), &Declared::rest)
            .add(seedParam("the seed"), &Declared::seed)
            .add(namesParam("names", "Names", ""), &Declared::names);
    }
    static const ParamFields<Declared>& fields()
    {
        static const ParamFields<Declared> f = declare(false).merge(declare(true));
        return f;
    }
    std::optional<std::string> relations() const
    {
        if (!(share + rest < 1.0))
            return fieldError("rest", formatNumber(rest), "must leave some of the whole");
        return std::nullopt;
    }
    bool operator==(const Declared&) const = default;
};

} // namespace

// The variants merge with each key once, its first declaration giving the struct's default; the
// struct refuses exactly what its declarations refuse, with their message, then its relations.
void TestParams::declaredOptionsComeFromTheirDeclarations()
{
    QStringList keys;
    for (const ParamSpec& p : Declared::allParams())
        keys << QString::fromStdString(p.key);
    QCOMPARE(keys, QStringList({"K", "rest", "seed", "names", "share"}));
    const Declared d;
    QCOMPARE(d.K, 4); // the narrow variant's, declared first
    QCOMPARE(d.share, 0.25);
    QCOMPARE(d.seed, std::uint64_t(1));
    QVERIFY(d.names.empty());
    QVERIFY(!d.validate());
    QCOMPARE(Declared::fromParams(defaultValues(Declared::allParams())), d);
    // Names split at commas and are written back joined; a seed reads as an unsigned field.
    const Declared n = Declared::fromParams(
        {{"names", std::string(" CD3, CD4 ,,CD8")}, {"seed", std::int64_t(2147483647)}});
    QCOMPARE(n.names, (std::vector<std::string>{"CD3", "CD4", "CD8"}));
    QCOMPARE(n.seed, std::uint64_t(2147483647));
    QVERIFY(n.toParams().at("names") == ParamValue(std::string("CD3,CD4,CD8")));
    // Out of range: the declaration's own message, for each field, in declaration order.
    for (const auto& [key, value] :
         std::vector<std::pair<std::string, ParamValue>>{{"K", std::int64_t(11)},
                                                         {"share", 0.95},
                                                         {"rest", -0.1},
                                                         {"seed", std::int64_t(-1)}}) {
        Declared bad;
        Declared::fields().read(bad, {{key, value}});
        const auto problem = bad.validate();
        QVERIFY2(problem, key.c_str());
        ParamValues given{{key, value}};
        const auto resolved = resolveParams(Declared::allParams(), given);
        QVERIFY(std::holds_alternative<ParamError>(resolved));
        QCOMPARE(QString::fromStdString(*problem),
                 QString::fromStdString(std::get<ParamError>(resolved).message));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, bad.check());
    }
    // Each in range, together out of bounds: the relation speaks.
    Declared both;
    both.share = 0.6;
    both.rest = 0.5;
    QCOMPARE(plain(both.validate().value_or("")),
             QString("rest = 0.5, but must leave some of the whole"));
}

void TestParams::firstInvalidNamesTheFirstBadField()
{
    ParamValues v = defaultValues(specs());
    QVERIFY(!firstInvalid(specs(), v)); // the defaults pass
    v["kappa"] = 2.0;
    v["K"] = std::int64_t(0);
    v.erase("minibatch"); // absent keys are not checked
    const std::optional<ParamError> e = firstInvalid(specs(), v);
    QVERIFY2(e, "accepted κ = 2 and K = 0");
    // kappa is declared before K.
    QCOMPARE(QString::fromStdString(e->key), QString("kappa"));
    QCOMPARE(plain(e->message), QString("kappa = 2, but must be in [0.5, 1]"));
    v["kappa"] = 0.75;
    QCOMPARE(QString::fromStdString(firstInvalid(specs(), v)->key), QString("K"));
}

void TestParams::mergeKeepsTheFirstDeclaration()
{
    const std::vector<ParamSpec> a{intParam("K", "K", "", 4, 1, 10),
                                   realParam("x", "x", "", 1, 0, 2)};
    const std::vector<ParamSpec> b{intParam("K", "K", "", 9, 1, 10), boolParam("y", "y", "", true)};
    const std::vector<ParamSpec> m = mergeParams({a, b});
    QCOMPARE(m.size(), std::size_t(3));
    QCOMPARE(m[0].key, std::string("K"));
    QCOMPARE(m[0].defaultValue, 4.0);
    QCOMPARE(m[1].key, std::string("x"));
    QCOMPARE(m[2].key, std::string("y"));
}

// A field declared for some choices only says so wherever its help is printed.
void TestParams::helpSaysWhenAFieldApplies()
{
    const ParamSpec always = realParam("rate", "Rate", "the step's scale", 0.0, 0.0, 1.0);
    QCOMPARE(helpText(always), std::string("the step's scale"));
    const ParamSpec one = onlyWhen(always, "optimizer", {"adadelta"});
    QCOMPARE(helpText(one), std::string("the step's scale; only when optimizer is adadelta"));
    const ParamSpec three = onlyWhen(always, "optimizer", {"sgd", "adagrad", "rmsprop"});
    QCOMPARE(helpText(three),
             std::string("the step's scale; only when optimizer is sgd, adagrad or rmsprop"));
    QVERIFY(three.appliesWhen("adagrad"));
    QVERIFY(!three.appliesWhen("adam"));
    QVERIFY(always.appliesWhen("anything"));
}

QTEST_GUILESS_MAIN(TestParams)
#include "test_params.moc"

// A message names a setting by a reference that each front end renders its own way: the window by
// the field's label, the command line by its flag, the files by the key; what is not a reference
// (a file name that looks like a key, a key unknown to the namer) is left as it is.
void TestParams::settingsAreNamedByEachFrontEnd()
{
    const auto r = parseParam(spec("kappa"), "1.5");
    QVERIFY(std::holds_alternative<ParamError>(r));
    const std::string message = std::get<ParamError>(r).message;
    QCOMPARE(QString::fromStdString(renderSettingRefs(message, labelsOf(specs()))),
             QString("κ = 1.5, but must be in [0.5, 1]"));
    const SettingNamer flags = [](const std::string& key) { return "--" + key; };
    QCOMPARE(QString::fromStdString(renderSettingRefs(message, flags)),
             QString("--kappa = 1.5, but must be in [0.5, 1]"));
    QCOMPARE(plain(message), QString("kappa = 1.5, but must be in [0.5, 1]"));

    // References among other text, several, at either end; unknown keys stay keys.
    const std::string text = "cannot read 'kappa.txt': " + settingRef("K") + " and " +
                             settingRef("minibatch") + " exceed " + settingRef("unknown_key");
    QCOMPARE(QString::fromStdString(renderSettingRefs(text, labelsOf(specs()))),
             QString("cannot read 'kappa.txt': Features K and Minibatch exceed unknown_key"));
    QCOMPARE(plain(text), QString("cannot read 'kappa.txt': K and minibatch exceed unknown_key"));
    // A mark with no key after it is dropped; text without references is unchanged.
    QCOMPARE(plain(std::string("a ") + kSettingMark + " b"), QString("a  b"));
    QCOMPARE(plain("K = 0"), QString("K = 0"));
    // Only keys are references; fieldError names what it is given as it is.
    QVERIFY(isSettingKey("eval_docs") && isSettingKey("K") && !isSettingKey("data.kind") &&
            !isSettingKey("") && !isSettingKey("a b"));
    QCOMPARE(QString::fromStdString(fieldError("data.kind", "x", "must be known")),
             QString("data.kind = x, but must be known"));
    QCOMPARE(QString::fromStdString(settingError("K", "0", "must be ≥ 1")),
             QString::fromStdString(settingRef("K") + " = 0, but must be ≥ 1"));
}
