// The run description and the data kinds: recognition by content with one message for a file
// no kind takes, the settings the data suggest, the resolver's field names, the JSON codec's
// round trip, and files of version 1 (svi's run.json and the window's sessions) read the same.

#include "core/io/data_error.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"
#include "core/io/run_json.h"
#include "core/models/builtin.h"
#include "tests/core/data_testing.h"

#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>
#include <map>
#include <set>

using namespace svi;
using namespace data_testing;

class TestRunDescription : public QObject
{
    Q_OBJECT

private slots:
    void recognisesByContentAndListsKinds();
    void suggestionsFillOnlyWhatWasNotGiven();
    void resolverNamesTheField();
    void settingKeysMeanOneThingAcrossKinds();
    void everyKindInspects();
    void modelsRegisterTheDataTheyDraw();
    void jsonRoundTrip();
    void readsVersionOneRunJsonAndSessionRuns();
    void memoryIsRefusedWithItsLargestPart();

private:
    QTemporaryDir m_dir;
};

void TestRunDescription::recognisesByContentAndListsKinds()
{
    const QString fcs = dataFile("fcs/Data23_Panel3_base_NR4_Patient9.fcs");
    const QString b08 = m_dir.filePath("cells.B08");
    QVERIFY(QFile::copy(fcs, b08));
    const Recognised r = recogniseData({std8(b08)});
    QCOMPARE(str(r.kind->key), QString("table"));
    QVERIFY2(str(r.format).contains("FCS"), r.format.c_str());
    QCOMPARE(str(recogniseData({std8(dataFile("coins.png"))}).kind->key), QString("image"));
    QCOMPARE(str(recogniseData({"synthetic"}).kind->key), QString("synthetic"));

    const QString junk = m_dir.filePath("junk.bin");
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray("\x01\x02\x03\xff\xfe\x00\x07", 7).repeated(40));
    f.close();
    const QString message = errorOf([&] { recogniseData({std8(junk)}); });
    QVERIFY2(message.contains("junk.bin") && message.contains("not a file of any kind"),
             qPrintable(message));
    for (const DataKindSpec& k : builtinDataKinds().all())
        QVERIFY2(message.contains(str("\n  " + k.key + ": ")), qPrintable(message));
    // A missing file says so, rather than listing kinds.
    QVERIFY(errorOf([&] {
                recogniseData({std8(m_dir.filePath("gone.png"))});
            }).contains("does not exist"));
    // FCS files stack; a table and an image do not mix.
    QVERIFY(errorOf([&] {
                recogniseData({std8(b08), std8(dataFile("coins.png"))});
            }).contains("is not Table data"));
}

void TestRunDescription::suggestionsFillOnlyWhatWasNotGiven()
{
    const std::string fcs = std8(dataFile("fcs/Data23_Panel3_base_NR4_Patient9.fcs"));
    const PreparedData d = prepareData({{fcs}, "", {}});
    QCOMPARE(str(d.data.kind), QString("table"));
    QCOMPARE(getReal(d.data.settings, "arcsinh"), 5.0); // mass cytometry
    QCOMPARE(getReal(d.data.settings, "heldout"), 0.05);
    // Every declared setting is present once prepared.
    for (const ParamSpec& p : kindOf(d.data).settings)
        QVERIFY2(d.data.settings.count(p.key), p.key.c_str());
    const PreparedData given = prepareData({{fcs}, "", {{"arcsinh", 0.0}, {"heldout", 0.2}}});
    QCOMPARE(getReal(given.data.settings, "arcsinh"), 0.0);
    QCOMPARE(getReal(given.data.settings, "heldout"), 0.2);
    QVERIFY(given.built.data.dense->values != d.built.data.dense->values); // untransformed
    // No suggestion may change what was read: the data would not be what the settings say.
    for (const DataKindSpec& k : builtinDataKinds().all())
        for (const std::string& key : k.readSettings)
            QVERIFY2(key != "arcsinh" && key != "heldout" && key != "channels", key.c_str());
}

void TestRunDescription::resolverNamesTheField()
{
    auto error = [](RunDescription r) {
        auto res = resolveRun(r, builtinDataKinds(), builtinRegistry());
        return std::holds_alternative<ParamError>(res) ? str(std::get<ParamError>(res).key)
                                                       : QString();
    };
    RunDescription r;
    r.data = {{std8(dataFile("coins.png"))}, "image", {}};
    r.steps = 3;
    QCOMPARE(error(r), QString());
    auto resolved = std::get<RunDescription>(resolveRun(r, builtinDataKinds(), builtinRegistry()));
    QCOMPARE(str(resolved.model), QString("bpfa")); // the kind's default model
    QCOMPARE(str(resolved.algorithm), str(builtinRegistry().algorithms("bpfa").front()->algorithm));
    QCOMPARE(getInt(resolved.data.settings, "patch"), std::int64_t(8));

    // A model that declares its default algorithm runs it when none is named: the edge partition
    // model's Gibbs sampler, not its first-registered algorithm.
    RunDescription graph;
    graph.data = {{"graph.csv"}, "graph", {}};
    graph.model = "epm";
    graph.steps = 1;
    const auto epm =
        std::get<RunDescription>(resolveRun(graph, builtinDataKinds(), builtinRegistry()));
    QCOMPARE(str(epm.algorithm), QString("gibbs"));
    QVERIFY(builtinRegistry().algorithms("epm").front()->algorithm != "gibbs");

    RunDescription bad = r;
    bad.data.settings["missing"] = 2.0;
    QCOMPARE(error(bad), QString("data.settings.missing"));
    bad = r;
    bad.model = "lda";
    QCOMPARE(error(bad), QString("model")); // LDA does not model images
    bad = r;
    bad.algorithm = "magic";
    QCOMPARE(error(bad), QString("algorithm"));
    bad = r;
    bad.params["K"] = std::int64_t(0);
    QCOMPARE(error(bad), QString("params.K"));
    bad = r;
    bad.data.files.clear();
    QCOMPARE(error(bad), QString("data.files"));
    // No budget at all: the default one, as the window's and svi run's.
    RunDescription none = r;
    none.steps = 0;
    none.seconds = 0;
    const auto withDefault = resolveRun(none, builtinDataKinds(), builtinRegistry());
    QVERIFY(std::holds_alternative<RunDescription>(withDefault));
    QCOMPARE(std::get<RunDescription>(withDefault).seconds, kDefaultBudgetSeconds);
    QCOMPARE(std::get<RunDescription>(withDefault).steps, std::int64_t(0));
    bad = r;
    bad.data.kind = "movie";
    QCOMPARE(error(bad), QString("data.kind"));
}

// The command line makes a flag of every setting key: a key two kinds declare must mean the
// same type in both, or one flag would parse two ways.
void TestRunDescription::settingKeysMeanOneThingAcrossKinds()
{
    std::map<std::string, ParamType> seen;
    for (const DataKindSpec& k : builtinDataKinds().all())
        for (const ParamSpec& p : k.settings) {
            const auto [it, fresh] = seen.emplace(p.key, p.type);
            QVERIFY2(fresh || it->second == p.type, p.key.c_str());
            for (const ParamSpec& run : runSettings())
                QVERIFY2(run.key != p.key, p.key.c_str()); // a run setting is not a data one
        }
    // Every kind's default model exists and fits it.
    for (const DataKindSpec& k : builtinDataKinds().all()) {
        const auto entries = builtinRegistry().algorithms(k.defaultModel);
        QVERIFY2(!entries.empty() && entries.front()->fits(k.key), k.key.c_str());
    }
}

// Every kind says what its files hold (svi info renders the report without knowing the kind):
// keys unique and not the front end's own, every line labelled, the lists of one table as long
// as each other.
void TestRunDescription::everyKindInspects()
{
    std::set<std::string> kinds;
    for (const DataKindSpec& k : builtinDataKinds().all()) {
        QVERIFY2(bool(k.inspect), k.key.c_str());
        kinds.insert(k.key);
    }
    const std::vector<std::string> files = {
        std8(dataFile("coins.png")),
        std8(dataFile("fcs/Data23_Panel3_base_NR4_Patient9.fcs")),
        std8(dataFile("levine32_H1_sub200.csv")),
        std8(dataFile("text/news_sample.tar.gz")),
        std8(dataFile("ratings/ml1m_style/ratings.dat")),
        std8(dataFile("labelled/a9a_head200")),
        std8(dataFile("graphs/karate_newman.gml")),
        "synthetic",
        "synthetic-ratings"};
    for (const std::string& file : files) {
        const DataReport report = inspectData({{file}, "", {}});
        kinds.erase(recogniseData({file}).kind->key);
        QVERIFY2(!report.lines.empty(), file.c_str());
        std::set<std::string> keys;
        std::map<std::string, std::size_t> tableRows;
        for (const InfoLine& l : report.lines) {
            QVERIFY2(keys.insert(l.key).second, (file + ": " + l.key).c_str());
            QVERIFY2(l.key != "path" && l.key != "kind" && !l.key.empty(), l.key.c_str());
            QVERIFY2(!l.label.empty(), l.key.c_str());
            if (l.table.empty())
                continue;
            const auto* names = std::get_if<std::vector<std::string>>(&l.value);
            const auto* numbers = std::get_if<std::vector<double>>(&l.value);
            QVERIFY2(names || numbers, l.key.c_str()); // only lists make tables
            const std::size_t n = names ? names->size() : numbers->size();
            QVERIFY2(tableRows.emplace(l.table, n).first->second == n, l.key.c_str());
        }
    }
    QVERIFY2(kinds.empty(), kinds.empty() ? "" : kinds.begin()->c_str()); // each kind was seen
    QVERIFY(errorOf([&] {
                inspectData({{std8(dataFile("coins.png")), std8(dataFile("coins.png"))}, "", {}});
            }).contains("one file at a time"));
}

void TestRunDescription::jsonRoundTrip()
{
    RunDescription r;
    r.data = {
        {std8(dataFile("coins.png"))}, "image", {{"missing", 0.5}, {"patch", std::int64_t(6)}}};
    r.model = "bpfa";
    r.algorithm = "mf-svi";
    r.params = {{"K", std::int64_t(12)}};
    r.seed = 7;
    r.steps = 4;
    r.threads = 2;
    const RunDescription a = runFromJson(runToJson(r), "a.json");
    QCOMPARE(getInt(a.params, "K"), std::int64_t(12));
    QCOMPARE(getInt(a.data.settings, "patch"), std::int64_t(6));
    QCOMPARE(a.seed, std::uint64_t(7));
    QVERIFY(runFromJson(runToJson(a), "b.json") == a);
    // Every error names the file and the field.
    QJsonObject j = runToJson(a);
    QJsonObject params = j["params"].toObject();
    params["K"] = "many";
    j["params"] = params;
    const QString message = errorOf([&] { runFromJson(j, "dir/c.json"); });
    QVERIFY2(message.startsWith("c.json: params.K: K = many"), qPrintable(message));
}

void TestRunDescription::readsVersionOneRunJsonAndSessionRuns()
{
    // svi's run.json of version 1: the patch among BPFA's parameters, the run's seed also the
    // corruption's, the tokenizer's cap as vocabulary_cap.
    const QByteArray image = dataFile("coins.png").toUtf8();
    const QJsonObject cli = QJsonDocument::fromJson(QByteArray(R"({"version": 1,
        "data": "@IMAGE@",
        "task": {"kind": "inpaint", "missing": 0.6, "noise": 5},
        "model": "bpfa", "algorithm": "mf-svi", "params": {"K": 9, "patch": 6},
        "seed": 4, "budget": {"seconds": 0, "steps": 3}, "threads": 1})")
                                                        .replace("@IMAGE@", image))
                                .object();
    const RunDescription a = runFromJson(cli, "run.json");
    QCOMPARE(str(a.data.kind), QString("image"));
    QCOMPARE(getReal(a.data.settings, "missing"), 0.6);
    QCOMPARE(getInt(a.data.settings, "patch"), std::int64_t(6));
    QCOMPARE(getInt(a.data.settings, "split_seed"), std::int64_t(4));
    QCOMPARE(a.seed, std::uint64_t(4));
    QVERIFY(!a.params.count("patch"));

    // One run of a version-1 session: data and task from the session; the task's own seed.
    const QJsonObject session =
        QJsonDocument::fromJson(QByteArray(R"({"format": "svi-workbench-session",
        "version": 1, "data": "@IMAGE@",
        "task": {"kind": "inpaint", "missing": 0.7, "noise": 0, "patch": 8, "seed": 11},
        "runs": [{"model": "bpfa", "algorithm": "gibbs-ssvi", "params": {"K": 5}, "seed": 2,
                  "budget": {"seconds": 0, "steps": 2}, "eval_every": 0.5, "full_every": 0}]})")
                                    .replace("@IMAGE@", image))
            .object();
    const QJsonObject run =
        upgradeRunJson(session["runs"].toArray()[0].toObject(), session["data"], session["task"]);
    const RunDescription b = runFromJson(run, "session.json", "runs[0].");
    QCOMPARE(getReal(b.data.settings, "missing"), 0.7);
    QCOMPARE(getInt(b.data.settings, "split_seed"), std::int64_t(11));
    QCOMPARE(b.seed, std::uint64_t(2));
    QCOMPARE(getInt(b.params, "K"), std::int64_t(5));
    // Its corpus tokenizer's "vocabulary" was the size cap.
    const QJsonObject corpusTask{{"kind", "corpus"},
                                 {"tokenizer", QJsonObject{{"vocabulary", 500}}}};
    const QJsonObject upgraded =
        upgradeRunJson(QJsonObject{{"model", "lda"}}, QJsonValue("x"), corpusTask);
    QCOMPARE(upgraded["data"].toObject()["settings"].toObject()["vocab_cap"].toInt(), 500);
}

QTEST_GUILESS_MAIN(TestRunDescription)
// Data a model draws are registered with the model: the synthetic table's generators (its
// `generator` setting, the draw, the settings it ignores) and whole kinds (synthetic-ratings),
// which the built-in kinds then list; a key registered twice is refused.
void TestRunDescription::modelsRegisterTheDataTheyDraw()
{
    Registry r;
    r.addGenerator({.key = "ramp",
                    .help = "rows and columns summed",
                    .drawn = "drawn as a ramp",
                    .ignoredSettings = {"loading_var", "true_k"},
                    .draw = [](const SyntheticTableOptions& o) {
                        auto d = std::make_shared<DenseData>();
                        d->values.resize(o.rows, o.cols);
                        for (std::int64_t i = 0; i < o.rows; ++i)
                            for (int j = 0; j < o.cols; ++j)
                                d->values(i, j) = float(i + 10 * j);
                        d->trueLoadings = Eigen::MatrixXd::Constant(o.cols, 1, double(o.seed));
                        d->source = "a ramp";
                        return DenseDataPtr(d);
                    }});
    TableGenerator again = r.generators().front();
    again.help = "another";
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, r.addGenerator(again));
    DataKinds kinds;
    kinds.add(kinds::synthetic(r.generators()));
    const ParamSpec& generator = paramNamed(kinds.all().front().settings, "generator");
    QCOMPARE(generator.choices, std::vector<std::string>({"ramp"}));
    QCOMPARE(QString::fromStdString(generator.defaultChoice), QString("ramp"));
    QCOMPARE(QString::fromStdString(generator.help), QString("ramp: rows and columns summed"));
    const PreparedData p = prepareData({{"synthetic"},
                                        "synthetic",
                                        {{"rows", std::int64_t(4)},
                                         {"cols", std::int64_t(3)},
                                         {"heldout", 0.0},
                                         {"split_seed", std::int64_t(7)}}},
                                       kinds);
    QCOMPARE(p.raw->ignoredSettings(), std::vector<std::string>({"loading_var", "true_k"}));
    const DenseData& d = *p.built.data.dense;
    QCOMPARE(d.rows(), std::int64_t(4));
    QCOMPARE(d.values(3, 2), 23.0f); // as drawn, not standardised
    QCOMPARE(d.trueLoadings.rows(), 3);
    QCOMPARE(d.trueLoadings(0, 0), 7.0); // drawn with the split seed
    QCOMPARE(std::get<std::string>(kinds.all().front().inspect(p.data).lines.front().value),
             std::string("drawn as a ramp"));

    // The built-in kinds: the generators BPFA and GPFA register, and the kind GPMF brings.
    std::vector<std::string> keys;
    for (const TableGenerator& g : builtinRegistry().generators())
        keys.push_back(g.key);
    QCOMPARE(keys, std::vector<std::string>({"bpfa", "gpfa"}));
    QCOMPARE(paramNamed(builtinDataKinds().find("synthetic")->settings, "generator").choices, keys);
    for (const DataKindSpec& k : builtinRegistry().dataKinds())
        QVERIFY(builtinDataKinds().find(k.key));
    QVERIFY(builtinDataKinds().find("synthetic-ratings"));
    r.addDataKind(*builtinDataKinds().find("synthetic-ratings"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             r.addDataKind(*builtinDataKinds().find("synthetic-ratings")));
}

// core/run/memory_need.h: the refusal names the total, the largest part and its setting, and
// says nothing when the run fits or the machine's memory is unknown.
void TestRunDescription::memoryIsRefusedWithItsLargestPart()
{
    QCOMPARE(QString::fromStdString(bytesText(999)), QString("999 bytes"));
    QCOMPARE(QString::fromStdString(bytesText(1.5e6)), QString("1.5 MB"));
    QCOMPARE(QString::fromStdString(bytesText(24.1e9)), QString("24 GB"));
    const std::vector<MemoryTerm> need = {{"λ: V × K doubles", 19e9, "K"},
                                          {"the minibatch's statistics", 5e9, "minibatch"}};
    QCOMPARE(totalBytes(need), 24e9);
    QVERIFY(memoryRefusal(need, std::int64_t(25e9), "SVI").empty());
    QVERIFY(memoryRefusal(need, -1, "SVI").empty()); // unknown: not refused
    // The setting to lower is named by a reference to it, for each front end to name its way.
    const std::string refusal = memoryRefusal(need, std::int64_t(6e9), "SVI on these data");
    QCOMPARE(QString::fromStdString(plainSettingRefs(refusal)),
             QString("SVI on these data would need about 24 GB of memory (the largest part: λ: "
                     "V × K doubles, 19 GB — lower K), but 6.0 GB are available"));
    QVERIFY(refusal.find("lower " + settingRef("K")) != std::string::npos);
    QVERIFY(QString::fromStdString(memoryRefusal({{"the drawn table", 2e9, "data"}}, 1000, "x"))
                .contains("use fewer data"));
    // This machine says what it has; the process has used some.
    QVERIFY(availableMemory() > 0);
    QVERIFY(peakResidentBytes() > 0);
    QVERIFY(QString::fromStdString(plainSettingRefs(outOfMemoryMessage("at step 3", need)))
                .startsWith("out of memory at step 3: the run takes about 24 GB beyond its data, "
                            "most of it λ: V × K doubles (19 GB, scaled by K)"));
}

#include "test_run_description.moc"
