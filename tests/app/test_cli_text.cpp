// What the `svi` command says, read as a user reads it: --version, the help of every declared
// flag (a negated flag says what it does, the columns line up), svi list's columns, the progress
// lines in a log, a metric's caveat beside its figure, the embedded samples and the presets.

#include "core/io/data_kinds.h"
#include "core/io/samples.h"
#include "core/models/builtin.h"
#include "core/run/run_description.h"
#include "tests/app/cli_testing.h"
#include "tests/data_writers.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <set>

using namespace svi;
using test_support::CliResult;
using test_support::runCli;

namespace {

QString text(const std::string& s)
{
    return QString::fromStdString(s);
}

// Every setting a flag of svi run sets: each data kind's and the run's (a key several kinds
// declare, such as standardise, is a line of each kind's part of the help).
std::vector<ParamSpec> flagSettings()
{
    std::vector<ParamSpec> out;
    for (const DataKindSpec& k : builtinDataKinds().all())
        out.insert(out.end(), k.settings.begin(), k.settings.end());
    for (const ParamSpec& p : runSettings())
        out.push_back(p);
    return out;
}

// "--no-lowercase" for a Bool on by default, "--missing" otherwise.
QString flagOf(const ParamSpec& p)
{
    QString key = text(p.key).replace('_', '-');
    return p.type == ParamType::Bool && p.defaultValue != 0 ? "--no-" + key : "--" + key;
}

// The lines of `help` that start with `flag` and the line after each (the help of a flag too
// wide for its column is there).
QList<QPair<QString, QString>> flagLines(const QStringList& help, const QString& flag)
{
    QList<QPair<QString, QString>> out;
    const QRegularExpression start("^  " + QRegularExpression::escape(flag) + "(\\s|$)");
    for (qsizetype i = 0; i < help.size(); ++i)
        if (start.match(help[i]).hasMatch())
            out.append({help[i], help.value(i + 1)});
    return out;
}

// A flag line's help: what follows the flag (and its metavariable) at the help's column, on the
// same line or, for a flag too wide (`nextLine`), the next; its column is returned in `column`
// (in UTF-16 units, which are characters here). Empty when the help is not set apart.
QString helpOf(const QPair<QString, QString>& lines, qsizetype& column, bool* nextLine = nullptr)
{
    static const QRegularExpression usage(
        QString::fromUtf8("^  --[a-z0-9-]+( (N|X|TEXT|CHOICE|A,B,…))?"));
    const QRegularExpressionMatch m = usage.match(lines.first);
    const QString rest = lines.first.mid(m.capturedEnd());
    if (nextLine)
        *nextLine = rest.trimmed().isEmpty();
    if (rest.trimmed().isEmpty()) {
        column = lines.second.size() - lines.second.trimmed().size();
        return lines.second.trimmed();
    }
    column = lines.first.size() - rest.trimmed().size();
    // The metavariable stands apart from the help: at least two spaces.
    return rest.startsWith("  ") ? rest.trimmed() : QString();
}

} // namespace

class TestCliText : public QObject
{
    Q_OBJECT
private slots:
    void versionIsTheProjectVersion();
    void negatedFlagsSayWhatTheyDo();
    void everyFlagsHelpStartsAtItsColumn();
    void listColumnsAreAlignedByWhatAReaderSees();
    void listJsonMarksEachModelsDefault();
    void progressInALogIsWholeLinesAtAModestCadence();
    void poissonRmseCarriesItsCaveat();
    void samplesOpenAsEachKindWithItsModel();
    void presetFillsWhatTheRunLeavesUnset();
};

void TestCliText::versionIsTheProjectVersion()
{
    const CliResult r = runCli({"--version"});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QString("svi " SVI_VERSION "\n"));
    QVERIFY(runCli({"--help"}).out.contains("--version"));
}

void TestCliText::negatedFlagsSayWhatTheyDo()
{
    const CliResult r = runCli({"help", "run"});
    QCOMPARE(r.exitCode, 0);
    const QStringList help = r.out.split('\n');
    int negated = 0;
    for (const ParamSpec& p : flagSettings()) {
        if (p.type != ParamType::Bool || p.defaultValue == 0)
            continue;
        ++negated;
        const QString flag = flagOf(p);
        QVERIFY2(!p.offHelp.empty(), qPrintable(flag + " declares no offHelp"));
        const auto lines = flagLines(help, flag);
        QVERIFY2(!lines.isEmpty(), qPrintable(flag));
        // Its line leads with what the flag does (off), not with the on-phrase as an order.
        bool found = false;
        for (const auto& l : lines) {
            qsizetype column = 0;
            const QString says = helpOf(l, column);
            found = found || says.startsWith(text(p.offHelp));
            QVERIFY2(!says.startsWith(text(p.help)), qPrintable(l.first));
            QVERIFY2(!says.contains("on by default"), qPrintable(l.first));
        }
        QVERIFY2(found, qPrintable(flag + ": " + text(p.offHelp)));
    }
    QVERIFY(negated >= 5); // lowercase, stop_words, keep_subject, standardise, intercept, …

    // An algorithm's Bool on by default is set by --set KEY=false: svi list says what false does.
    const QString list = runCli({"list"}).out;
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        for (const ParamSpec& p : e.params)
            if (p.type == ParamType::Bool && p.defaultValue != 0) {
                QVERIFY2(!p.offHelp.empty(), qPrintable(text(e.model + "/" + p.key)));
                QVERIFY2(list.contains(text("; false: " + p.offHelp)), qPrintable(text(p.key)));
            }
}

void TestCliText::everyFlagsHelpStartsAtItsColumn()
{
    const QStringList help = runCli({"help", "run"}).out.split('\n');
    std::set<qsizetype> columns;
    int wide = 0;
    for (const ParamSpec& p : flagSettings()) {
        const auto lines = flagLines(help, flagOf(p));
        QVERIFY2(!lines.isEmpty(), qPrintable(flagOf(p)));
        for (const auto& l : lines) {
            qsizetype column = 0;
            bool nextLine = false;
            const QString says = helpOf(l, column, &nextLine);
            QVERIFY2(!says.isEmpty(), qPrintable(l.first)); // "CHOICEp(y | f)" fails here
            columns.insert(column);
            wide += nextLine ? 1 : 0;
        }
    }
    // One column for all, counted in characters ("A,B,…" is five, seven bytes).
    QCOMPARE(columns.size(), std::size_t(1));
    QVERIFY(wide >= 1); // --synthetic-likelihood CHOICE has its help on the next line
}

void TestCliText::listColumnsAreAlignedByWhatAReaderSees()
{
    const QStringList list = runCli({"list"}).out.split('\n');
    // Each parameter's line, in declaration order: the help starts at one column for every
    // line whose cells fit their columns, whether the range holds '∞' (three bytes) or not.
    std::set<qsizetype> columns;
    int infinite = 0;
    qsizetype at = 0;
    for (const AlgorithmEntry& e : builtinRegistry().entries())
        for (const ParamSpec& p : e.params) {
            const QString start = "      " + text(p.key) + " ";
            while (at < list.size() && !list[at].startsWith(start))
                ++at;
            QVERIFY2(at < list.size(), qPrintable(start));
            const QString line = list[at++];
            const qsizetype column = line.indexOf(text(helpWithOffText(p)));
            QVERIFY2(column > 0, qPrintable(line));
            const QString range = text(rangeText(p));
            if (p.key.size() < 14 && defaultText(p).size() < 9 && range.size() < 15) {
                columns.insert(column);
                infinite += range.contains(QString::fromUtf8("∞")) ? 1 : 0;
            }
        }
    QVERIFY(infinite > 0);
    QCOMPARE(columns.size(), std::size_t(1));
}

void TestCliText::listJsonMarksEachModelsDefault()
{
    // The registry's default algorithm of each model, and only it, is "default": true (EPM's
    // Gibbs sampler is not its first entry).
    const QJsonArray entries =
        QJsonDocument::fromJson(runCli({"list", "--json"}).out.toUtf8()).array();
    QVERIFY(!entries.isEmpty());
    for (const auto& e : entries) {
        const QJsonObject o = e.toObject();
        const AlgorithmEntry* d =
            builtinRegistry().defaultAlgorithm(o["model"].toString().toStdString());
        QVERIFY(d);
        QCOMPARE(o["default"].toBool(), o["algorithm"].toString().toStdString() == d->algorithm);
        if (o["model"].toString() == "epm")
            QCOMPARE(o["default"].toBool(), o["algorithm"].toString() == "gibbs");
    }
}

void TestCliText::progressInALogIsWholeLinesAtAModestCadence()
{
    QTemporaryDir dir;
    // 40 snapshots; stderr is a pipe (QProcess), as in `svi run … 2>&1 | tee log`.
    const QStringList args = QString("run synthetic --rows 100 --cols 6 --true-k 2 --algorithm "
                                     "mf-ssvi --set K=3 --set init=random --steps 40 "
                                     "--eval-every-steps 1 --out")
                                 .split(' ');
    const CliResult r = runCli(args + QStringList{dir.filePath("run")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY2(!r.err.contains('\r'), qPrintable(r.err));
    QVERIFY(r.err.endsWith('\n'));
    // The first and last snapshot and one per tenth of the steps: about 11 lines, not 40.
    const qsizetype steps = r.err.count(
        QRegularExpression("^\\[mf-ssvi\\] step ", QRegularExpression::MultilineOption));
    QVERIFY2(steps >= 3 && steps <= 13, qPrintable(r.err));
    QVERIFY(r.err.contains("[mf-ssvi] step 40 "));
}

void TestCliText::poissonRmseCarriesItsCaveat()
{
    QTemporaryDir dir;
    QVERIFY(test_support::writeTasteGroups(dir.path()));
    const std::string caveat = [] {
        for (const MetricSpec& m : builtinRegistry().algorithms("hpf").front()->metrics)
            if (m.key == "rmse")
                return m.caveat;
        return std::string();
    }();
    QVERIFY(!caveat.empty());
    const CliResult r =
        runCli({"run", dir.filePath("u.data"), "--model", "hpf", "--algorithm", "batch", "--set",
                "K=3", "--steps", "3", "--out", dir.filePath("hpf")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // Beside the figures it qualifies, and said once.
    QCOMPARE(r.err.count(text(caveat)), 1);
    QVERIFY2(r.err.contains(QRegularExpression("\\n  rmse +[0-9.]+ \\[1\\]\\n")),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(QRegularExpression("\\n  accuracy +[0-9.]+ \\[1\\]\\n")),
             qPrintable(r.err));
    QVERIFY2(r.err.contains(QRegularExpression("\\n  precision_at_20 +[0-9.]+\\n")),
             qPrintable(r.err));

    // svi list names it with the model's metrics; --json carries it on the Poisson models
    // only (GMF's mean is on the stars' scale).
    QVERIFY(runCli({"list"}).out.contains(text(caveat)));
    const QJsonArray entries =
        QJsonDocument::fromJson(runCli({"list", "--json"}).out.toUtf8()).array();
    int seen = 0;
    for (const auto& e : entries) {
        const QString model = e.toObject()["model"].toString();
        for (const auto& m : e.toObject()["metrics"].toArray())
            if (m.toObject()["key"].toString() == "rmse") {
                ++seen;
                const bool poisson = model == "hpf" || model == "pmf";
                QCOMPARE(m.toObject()["caveat"].toString(), poisson ? text(caveat) : QString());
            }
    }
    QVERIFY(seen >= 5); // hpf, pmf (svi, batch), gmf
}

void TestCliText::samplesOpenAsEachKindWithItsModel()
{
    // The samples are copied into the cache folder: this test's own, not the user's.
    QTemporaryDir cache;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CACHE_HOME", cache.path());
    const CliResult list = runCli({"list", "--samples", "--json"}, 120000, {}, env);
    QVERIFY2(list.exitCode == 0, qPrintable(list.err));
    const QJsonArray samples = QJsonDocument::fromJson(list.out.toUtf8()).array();
    QCOMPARE(samples.size(), qsizetype(sampleData().size()));
    std::set<QString> kinds;
    for (const auto& v : samples) {
        const QJsonObject o = v.toObject();
        const QString key = o["key"].toString(), kind = o["kind"].toString();
        QVERIFY2(findSample(key.toStdString()), qPrintable(key));
        QVERIFY2(kinds.insert(kind).second, qPrintable(kind + " twice"));
        // Its model is the kind's default, and it models that kind.
        QCOMPARE(o["model"].toString(),
                 text(builtinDataKinds().find(kind.toStdString())->defaultModel));
        QVERIFY(builtinRegistry()
                    .algorithms(o["model"].toString().toStdString())
                    .front()
                    ->fits(kind.toStdString()));
        for (const auto& f : o["files"].toArray())
            QVERIFY2(QFileInfo(f.toString()).isFile() && f.toString().startsWith(cache.path()),
                     qPrintable(f.toString()));
        QVERIFY(!o["licence"].toString().isEmpty() && !o["about"].toString().isEmpty());
    }
    // One of each kind a user opens from files.
    QCOMPARE(kinds,
             (std::set<QString>{"image", "table", "corpus", "ratings", "labelled", "graph"}));

    // A run on a sample needs no file; a sample read as a kind its content does not say
    // (biopsy.csv as labelled data) is read so.
    QTemporaryDir out;
    for (const char* key : {"karate", "biopsy"}) {
        const CliResult r =
            runCli({"run", "--sample", key, "--steps", "2", "--quiet", "--out", out.filePath(key)},
                   120000, {}, env);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QFile json(out.filePath(QString(key) + "/run.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        const QJsonObject run = QJsonDocument::fromJson(json.readAll()).object();
        QCOMPARE(run["data"].toObject()["kind"].toString(),
                 QString(key == std::string("karate") ? "graph" : "labelled"));
    }
    const CliResult unknown = runCli({"run", "--sample", "nope", "--out", out.filePath("x")});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("--sample = nope") && unknown.err.contains("karate"),
             qPrintable(unknown.err));
}

void TestCliText::presetFillsWhatTheRunLeavesUnset()
{
    QTemporaryDir dir;
    QVERIFY(test_support::writeTasteGroups(dir.path()));
    const Preset* preset = builtinRegistry().preset("paper-002-fig4-6");
    QVERIFY(preset);
    const CliResult r =
        runCli({"run", dir.filePath("u.data"), "--preset", "paper-002-fig4-6", "--set", "D=3",
                "--test-fraction", "0.1", "--steps", "1", "--quiet", "--out", dir.filePath("run")});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QFile f(dir.filePath("run/run.json"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject run = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(run["preset"].toString(), QString("paper-002-fig4-6"));
    QCOMPARE(run["model"].toString(), QString("gpmf")); // the preset's model
    const QJsonObject params = run["params"].toObject();
    const QJsonObject settings = run["data"].toObject()["settings"].toObject();
    // What the run sets wins; the preset fills the rest, parameters and data settings.
    QCOMPARE(params["D"].toInt(), 3);
    QCOMPARE(settings["test_fraction"].toDouble(), 0.1);
    QCOMPARE(params["slope"].toDouble(), 100.0);
    QCOMPARE(params["learn_cuts"].toBool(), false);
    QCOMPARE(settings["validation_fraction"].toDouble(), 0.0); // the kind's default is 0.01
    // Without the preset, the defaults differ from the paper's.
    QVERIFY(getReal(defaultValues(builtinRegistry().find("gpmf", "h-mc-ssvi")->params), "slope") !=
            100.0);

    const CliResult unknown = runCli({"run", dir.filePath("u.data"), "--preset", "nope", "--steps",
                                      "1", "--out", dir.filePath("x")});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("preset = nope") && unknown.err.contains("paper-002-fig4-6"),
             qPrintable(unknown.err));
    QVERIFY(runCli({"list", "--presets"}).out.contains("--preset paper-002-fig4-6 (model gpmf)"));
}

QTEST_GUILESS_MAIN(TestCliText)
#include "test_cli_text.moc"
