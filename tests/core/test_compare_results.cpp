// Compare's results: one row per algorithm, means and sample sds worked out by hand, NaN values
// left out but counted, the best row by each metric's direction, and the three files' shapes.

#include "core/io/compare_results.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <cmath>
#include <limits>

using namespace svi;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

CompareRun run(const std::string& algorithm, const std::string& label, int repeat,
               std::map<std::string, double> metrics, double secondsPerStep,
               const std::string& termination = "budget")
{
    CompareRun r;
    r.model = "bpfa";
    r.algorithm = algorithm;
    r.label = label;
    r.repeat = repeat;
    r.seed = 100 + std::uint64_t(repeat);
    r.metrics = std::move(metrics);
    r.secondsPerStep = secondsPerStep;
    r.steps = 1000 + repeat;
    r.epochs = 0.5 * (repeat + 1);
    r.termination = termination;
    return r;
}

// PSNR (higher is better), MSE (lower is better), and a diagnostic that is not compared.
std::vector<MetricSpec> specs()
{
    return {{"psnr", "PSNR", "dB", true, true},
            {"mse", "MSE", "", false},
            {"features_used", "Features in use", "", true, false, false},
            {"never_reported", "Absent", "", true}};
}

// Three algorithms: "gibbs-ssvi" with three repeats (one diverged), "mf-svi" with one run, and
// "A&B_c" (a label LaTeX must escape) with two.
std::vector<CompareRun> runs()
{
    return {
        run("gibbs-ssvi", "Gibbs-SSVI", 0, {{"psnr", 26.0}, {"mse", 0.30}, {"features_used", 40}},
            0.010),
        run("mf-svi", "MF-SVI", 0, {{"psnr", 24.5}, {"mse", 0.20}}, 0.004),
        run("gibbs-ssvi", "Gibbs-SSVI", 1, {{"psnr", 27.0}, {"mse", 0.40}}, 0.012),
        run("gibbs-ssvi", "Gibbs-SSVI", 2, {{"psnr", kNaN}, {"mse", kNaN}}, 0.011, "diverged"),
        run("abc", "A&B_c", 0, {{"psnr", 20.0}, {"mse", 0.5}}, 0.002),
        run("abc", "A&B_c", 1, {{"psnr", 22.0}, {"mse", 0.7}}, 0.004),
    };
}

QList<QByteArray> lines(const QByteArray& text)
{
    QList<QByteArray> out = text.split('\n');
    while (!out.isEmpty() && out.back().isEmpty())
        out.pop_back();
    return out;
}

} // namespace

class TestCompareResults : public QObject
{
    Q_OBJECT
private slots:
    void summaryByHand();
    void rowsInFirstSeenOrderWithComparedColumns();
    void bestRowFollowsTheDirection();
    void csvHasOneRowPerAlgorithm();
    void jsonKeepsEveryRunsValues();
    void texFragmentHasTheBooktabsShape();
    void latexSpecialCharactersAreEscaped();
};

void TestCompareResults::summaryByHand()
{
    // 1, 2, 3, 6: mean 3, squared deviations 4 + 1 + 0 + 9 = 14, sd = sqrt(14/3).
    MeanSd s = summarize({1, 2, kNaN, 3, 6});
    QCOMPARE(s.n, 4);
    QCOMPARE(s.excluded, 1);
    QCOMPARE(s.mean, 3.0);
    QVERIFY(std::abs(s.sd - std::sqrt(14.0 / 3.0)) < 1e-12);

    // One value: its mean, no sd.
    s = summarize({2.5});
    QCOMPARE(s.n, 1);
    QCOMPARE(s.mean, 2.5);
    QVERIFY(std::isnan(s.sd));

    // Only non-finite values: nothing to average, every one counted.
    s = summarize({kNaN, std::numeric_limits<double>::infinity()});
    QCOMPARE(s.n, 0);
    QCOMPARE(s.excluded, 2);
    QVERIFY(std::isnan(s.mean));

    // Large, close values: a one-pass E[x²] − E[x]² would lose the sd entirely.
    s = summarize({-1.2e7 - 1, -1.2e7 + 1});
    QVERIFY(std::abs(s.sd - std::sqrt(2.0)) < 1e-6);
}

void TestCompareResults::rowsInFirstSeenOrderWithComparedColumns()
{
    const CompareTable t = aggregate(runs(), specs());
    QCOMPARE(t.rows.size(), std::size_t(3));
    QCOMPARE(t.rows[0].algorithm, std::string("gibbs-ssvi"));
    QCOMPARE(t.rows[1].algorithm, std::string("mf-svi"));
    QCOMPARE(t.rows[2].label, std::string("A&B_c"));

    // features_used is not compared; never_reported is reported by no run.
    QCOMPARE(t.columns.size(), std::size_t(2));
    QCOMPARE(t.columns[0].metric.key, std::string("psnr"));
    QCOMPARE(t.columns[1].metric.key, std::string("mse"));

    // Gibbs-SSVI: PSNR 26 and 27 (the diverged run's NaN left out): mean 26.5, sd sqrt(0.5).
    const CompareRow& g = t.rows[0];
    QCOMPARE(g.runs.size(), std::size_t(3));
    QCOMPARE(g.metrics[0].n, 2);
    QCOMPARE(g.metrics[0].excluded, 1);
    QCOMPARE(g.metrics[0].mean, 26.5);
    QVERIFY(std::abs(g.metrics[0].sd - std::sqrt(0.5)) < 1e-12);
    // MSE 0.3, 0.4: mean 0.35, sd sqrt(0.005).
    QVERIFY(std::abs(g.metrics[1].mean - 0.35) < 1e-12);
    QVERIFY(std::abs(g.metrics[1].sd - std::sqrt(0.005)) < 1e-12);
    // Seconds per step 0.010, 0.012, 0.011: mean 0.011, sd 0.001.
    QVERIFY(std::abs(g.secondsPerStep.mean - 0.011) < 1e-12);
    QVERIFY(std::abs(g.secondsPerStep.sd - 0.001) < 1e-12);
    QCOMPARE(g.steps.mean, 1001.0);
    QCOMPARE(g.terminations.at("budget"), 2);
    QCOMPARE(g.terminations.at("diverged"), 1);

    // MF-SVI ran once: a mean and no sd.
    QCOMPARE(t.rows[1].metrics[0].n, 1);
    QCOMPARE(t.rows[1].metrics[0].mean, 24.5);
    QVERIFY(std::isnan(t.rows[1].metrics[0].sd));
}

void TestCompareResults::bestRowFollowsTheDirection()
{
    const CompareTable t = aggregate(runs(), specs());
    QCOMPARE(t.columns[0].bestRow, 0); // PSNR: 26.5 > 24.5 > 21, higher is better
    QCOMPARE(t.columns[1].bestRow, 1); // MSE: 0.2 < 0.35 < 0.6, lower is better
    QCOMPARE(t.fastestRow, 2);         // 0.003 s per step

    // Flipping the direction flips the choice.
    std::vector<MetricSpec> flipped = specs();
    flipped[0].higherIsBetter = false;
    flipped[1].higherIsBetter = true;
    const CompareTable f = aggregate(runs(), flipped);
    QCOMPARE(f.columns[0].bestRow, 2);
    QCOMPARE(f.columns[1].bestRow, 2);
}

void TestCompareResults::csvHasOneRowPerAlgorithm()
{
    const QList<QByteArray> csv = lines(compareCsv(aggregate(runs(), specs())));
    QCOMPARE(csv.size(), 4);
    QCOMPARE(csv[0], QByteArray("model,algorithm,label,runs,psnr_mean,psnr_sd,mse_mean,mse_sd,"
                                "seconds_per_step_mean,seconds_per_step_sd,steps_mean,"
                                "terminations"));
    QVERIFY2(csv[1].startsWith("bpfa,gibbs-ssvi,Gibbs-SSVI,3,26.5,0.7071067812,0.35,"), csv[1]);
    QVERIFY2(csv[1].endsWith(",1001,budget:2;diverged:1"), csv[1]);
    // One run: the sd cells are empty.
    QVERIFY2(csv[2].startsWith("bpfa,mf-svi,MF-SVI,1,24.5,,0.2,,0.004,,1000,budget"), csv[2]);
    QVERIFY2(csv[3].startsWith("bpfa,abc,A&B_c,2,21,1.414213562,"), csv[3]);
}

void TestCompareResults::jsonKeepsEveryRunsValues()
{
    const std::vector<CompareRun> input = runs();
    const QJsonObject doc =
        QJsonDocument::fromJson(compareJson(aggregate(input, specs()))).object();

    const QJsonArray metrics = doc["metrics"].toArray();
    QCOMPARE(metrics.size(), 2);
    QCOMPARE(metrics[0]["key"].toString(), QString("psnr"));
    QCOMPARE(metrics[0]["unit"].toString(), QString("dB"));
    QCOMPARE(metrics[1]["direction"].toString(), QString("lower"));

    // Every run comes back under its row, every value exactly (NaN as null).
    const QJsonArray rows = doc["rows"].toArray();
    QCOMPARE(rows.size(), 3);
    int seen = 0;
    for (const QJsonValue& rowValue : rows) {
        const QJsonObject row = rowValue.toObject();
        for (const QJsonValue& v : row["per_run"].toArray()) {
            const QJsonObject r = v.toObject();
            const auto match = std::find_if(input.begin(), input.end(), [&](const CompareRun& c) {
                return QString::fromStdString(c.algorithm) == row["algorithm"].toString() &&
                       c.repeat == r["repeat"].toInt();
            });
            QVERIFY(match != input.end());
            ++seen;
            QCOMPARE(std::uint64_t(r["seed"].toDouble()), match->seed);
            QCOMPARE(r["seconds_per_step"].toDouble(), match->secondsPerStep);
            QCOMPARE(std::int64_t(r["steps"].toDouble()), match->steps);
            QCOMPARE(r["epochs"].toDouble(), match->epochs);
            QCOMPARE(r["termination"].toString().toStdString(), match->termination);
            const QJsonObject m = r["metrics"].toObject();
            QCOMPARE(m.size(), qsizetype(match->metrics.size()));
            for (const auto& [key, value] : match->metrics) {
                const QJsonValue j = m[QString::fromStdString(key)];
                if (std::isnan(value))
                    QVERIFY(j.isNull());
                else
                    QCOMPARE(j.toDouble(), value);
            }
        }
    }
    QCOMPARE(seen, int(input.size()));

    const QJsonObject psnr = rows[0]["summary"]["psnr"].toObject();
    QCOMPARE(psnr["n"].toInt(), 2);
    QCOMPARE(psnr["excluded"].toInt(), 1);
    QCOMPARE(psnr["best"].toBool(), true);
    QVERIFY(rows[1]["summary"]["psnr"]["sd"].isNull());
    QCOMPARE(rows[0]["terminations"]["diverged"].toInt(), 1);
}

void TestCompareResults::texFragmentHasTheBooktabsShape()
{
    const QByteArray tex = compareTex(aggregate(runs(), specs()));
    QCOMPARE(tex.count("\\begin{tabular}"), 1);
    QCOMPARE(tex.count("\\end{tabular}"), 1);
    const qsizetype top = tex.indexOf("\\toprule"), mid = tex.indexOf("\\midrule"),
                    bottom = tex.indexOf("\\bottomrule");
    QVERIFY(tex.indexOf("\\begin{tabular}") < top);
    QVERIFY(top < mid && mid < bottom);
    QVERIFY(bottom < tex.indexOf("\\end{tabular}"));

    // The column spec: one label column, PSNR, MSE, s/step.
    const qsizetype specStart = tex.indexOf("\\begin{tabular}{") + 16;
    const QByteArray spec = tex.mid(specStart, tex.indexOf('}', specStart) - specStart);
    const int columns = int(spec.count('l') + spec.count('r'));
    QCOMPARE(columns, 4);

    // Header and the three rows: the same number of unescaped & each, ended by \\.
    const QList<QByteArray> all = lines(tex);
    QList<QByteArray> rows;
    bool inside = false;
    for (const QByteArray& line : all) {
        if (line.startsWith("\\toprule") || line.startsWith("\\midrule")) {
            inside = true;
            continue;
        }
        if (line.startsWith("\\bottomrule"))
            break;
        if (inside)
            rows.append(line);
    }
    QCOMPARE(rows.size(), 4);
    for (const QByteArray& row : rows) {
        const int ampersands = int(row.count('&') - row.count("\\&"));
        QVERIFY2(ampersands == columns - 1, row);
        QVERIFY2(row.endsWith(" \\\\"), row);
    }
    QVERIFY2(rows[0].contains("PSNR (dB) $\\uparrow$"), rows[0]);
    QVERIFY2(rows[0].contains("MSE $\\downarrow$"), rows[0]);
    // Gibbs-SSVI: mean ± sd, best PSNR in bold, 2 of 3 runs gave a value.
    QVERIFY2(rows[1].contains("\\textbf{26.50} $\\pm$ 0.71 ($n=2$)"), rows[1]);
    // MF-SVI ran once: the mean alone; best MSE in bold (decimals of the column: 0.6000).
    QVERIFY2(rows[2].contains("& 24.50 &"), rows[2]);
    QVERIFY2(rows[2].contains("\\textbf{0.2000} &"), rows[2]);
    QVERIFY2(!rows[2].contains("\\pm"), rows[2]);
    QVERIFY2(rows[3].startsWith("A\\&B\\_c & 21.00 $\\pm$ 1.41 &"), rows[3]);
}

void TestCompareResults::latexSpecialCharactersAreEscaped()
{
    QCOMPARE(latexEscape("A&B_c"), std::string("A\\&B\\_c"));
    QCOMPARE(latexEscape("50% of $x# {y}"), std::string("50\\% of \\$x\\# \\{y\\}"));
    QCOMPARE(latexEscape("a~b^c\\d"),
             std::string("a\\textasciitilde{}b\\textasciicircum{}c\\textbackslash{}d"));
    QCOMPARE(latexEscape("Learned noise σ"), std::string("Learned noise $\\sigma$"));
    QCOMPARE(latexEscape("Lázaro"), std::string("Lázaro"));
}

QTEST_GUILESS_MAIN(TestCompareResults)
#include "test_compare_results.moc"
