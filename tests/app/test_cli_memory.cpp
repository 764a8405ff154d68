// The memory a run declares (AlgorithmEntry::memory, DataKindSpec::memory) against what it takes:
// - runs that would not fit are refused before anything grows (data drawn too large, K too
//   large for a corpus, GPFA's columns² on a table read transposed), with the size, the
//   largest part and the setting to lower, and no output folder left behind;
// - for one entry of every model family, on data generated here so that the model's memory
//   dominates, the growth of the peak resident memory over a small run of the same data is
//   within a factor of 2 of the growth of the estimate (not under the sanitizers, whose shadow
//   memory is not the program's).

#include "tests/app/cli_testing.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <random>
#include <set>

using test_support::runCli;

namespace {

QJsonObject summaryOf(const QString& dir)
{
    QFile f(dir + "/summary.json");
    return f.open(QIODevice::ReadOnly) ? QJsonDocument::fromJson(f.readAll()).object()
                                       : QJsonObject();
}

bool writeText(const QString& path, const QByteArray& text)
{
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(text) == text.size();
}

// An LDA-C corpus: 40 documents of 200 distinct words out of 20,000 (few documents: the work
// of a step is small, the V × K arrays large).
QByteArray corpus()
{
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> word(0, 19999), count(1, 3);
    QByteArray out;
    for (int d = 0; d < 40; ++d) {
        std::set<int> words;
        while (words.size() < 200)
            words.insert(word(rng));
        out += "200";
        for (int w : words)
            out += " " + QByteArray::number(w) + ":" + QByteArray::number(count(rng));
        out += "\n";
    }
    return out;
}

// MovieLens u.data: 4,000 users and 4,000 items, 20 ratings each user.
QByteArray ratings()
{
    std::mt19937 rng(8);
    std::uniform_int_distribution<int> item(1, 4000), stars(1, 5);
    QByteArray out;
    for (int u = 1; u <= 4000; ++u) {
        std::set<int> items;
        while (items.size() < 20)
            items.insert(item(rng));
        for (int i : items)
            out += QByteArray::number(u) + "\t" + QByteArray::number(i) + "\t" +
                   QByteArray::number(stars(rng)) + "\t881250949\n";
    }
    return out;
}

// LIBSVM regression: `rows` rows of `features` features.
QByteArray labelled(int rows, int features)
{
    std::mt19937 rng(9);
    std::normal_distribution<double> z;
    QByteArray out;
    for (int r = 0; r < rows; ++r) {
        out += QByteArray::number(z(rng), 'g', 6);
        for (int f = 1; f <= features; ++f)
            out += " " + QByteArray::number(f) + ":" + QByteArray::number(z(rng), 'g', 4);
        out += "\n";
    }
    return out;
}

// A network of 100 nodes and 600 edges, as a CSV edge list.
QByteArray network()
{
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> node(0, 99);
    std::set<std::pair<int, int>> edges;
    while (edges.size() < 600) {
        const int a = node(rng), b = node(rng);
        if (a != b)
            edges.insert({std::min(a, b), std::max(a, b)});
    }
    QByteArray out = "source,target\n";
    for (const auto& [a, b] : edges)
        out += "n" + QByteArray::number(a) + ",n" + QByteArray::number(b) + "\n";
    return out;
}

} // namespace

class TestCliMemory : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void runsThatWouldNotFitAreRefusedFirst();
    void estimateAgainstPeakMemory_data();
    void estimateAgainstPeakMemory();

private:
    QTemporaryDir m_dir;
    QString m_corpus, m_ratings, m_wide, m_long, m_network;
};

void TestCliMemory::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_corpus = m_dir.filePath("corpus.ldac");
    m_ratings = m_dir.filePath("u.data");
    m_wide = m_dir.filePath("wide.svm");
    m_long = m_dir.filePath("long.svm");
    m_network = m_dir.filePath("network.csv");
    QVERIFY(writeText(m_corpus, corpus()));
    QVERIFY(writeText(m_ratings, ratings()));
    QVERIFY(writeText(m_wide, labelled(400, 600)));
    QVERIFY(writeText(m_long, labelled(3000, 20)));
    QVERIFY(writeText(m_network, network()));
}

void TestCliMemory::runsThatWouldNotFitAreRefusedFirst()
{
    const auto refused = [&](QStringList args, const QStringList& says) {
        const QString out = m_dir.filePath("refused");
        args << "--steps"
             << "5"
             << "--quiet"
             << "--out" << out;
        const auto r = runCli(args);
        QVERIFY2(r.exitCode == 2, qPrintable(r.err));
        for (const QString& s : says)
            QVERIFY2(r.err.contains(s), qPrintable(r.err));
        QVERIFY2(r.err.contains(" are available"), qPrintable(r.err));
        QVERIFY(!QFileInfo::exists(out)); // refused before anything was written
    };
    // 10⁶ × 10⁵ drawn entries: refused before they are drawn.
    refused({"run", "synthetic", "--rows", "1000000", "--cols", "100000"},
            {"the Synthetic data asked for would need about 1.6 TB", "lower --rows"});
    // K = 100,000 topics (inside K's range) over ~500,000 words: λ alone is terabytes.
    std::mt19937 rng(10);
    std::uniform_int_distribution<int> word(0, 999999);
    QByteArray wide;
    for (int d = 0; d < 2000; ++d) {
        std::set<int> words;
        while (words.size() < 300)
            words.insert(word(rng));
        wide += "300";
        for (int w : words)
            wide += " " + QByteArray::number(w) + ":1";
        wide += "\n";
    }
    const QString wideCorpus = m_dir.filePath("wide.ldac");
    QVERIFY(writeText(wideCorpus, wide));
    refused({"run", wideCorpus, "--set", "K=100000"}, {"λ and exp E[log β]", "lower --set K"});
    // GPFA on 50,000 columns: its columns² matrices.
    refused({"run", "synthetic", "--rows", "20", "--cols", "50000", "--model", "gpfa"},
            {"columns² doubles", "lower the table's columns (--channels, or --transpose)"});
}

void TestCliMemory::estimateAgainstPeakMemory_data()
{
    QTest::addColumn<QStringList>("run");
    QTest::addColumn<QStringList>("small");
    const QStringList topics = {m_corpus, "--set", "eval_docs=4", "--set", "local_iters=2"};
    const QStringList table = {"synthetic", "--rows", "2000", "--cols", "340"};
    const QStringList bpfa = {"--model", "bpfa", "--algorithm", "mf-svi", "--set", "init=random"};
    const QStringList drawn = {"synthetic-ratings", "--rows", "1000", "--cols", "1000",
                               "--true-d",          "5"};
    const QStringList epm = {m_network,      "--algorithm",    "gamma-sgvb",
                             "--set",        "elbo_samples=1", "--set",
                             "eval_draws=1", "--set",          "variance_repeats=0"};
    const auto with = [](QStringList args, const QStringList& more) { return args + more; };
    QTest::newRow("lda") << with(topics, {"--set", "K=200", "--set", "minibatch=4"})
                         << with(topics, {"--set", "K=2", "--set", "minibatch=4"});
    QTest::newRow("hdp") << with(topics,
                                 {"--model", "hdp", "--set", "T=170", "--set", "minibatch=4"})
                         << with(topics,
                                 {"--model", "hdp", "--set", "T=2", "--set", "minibatch=4"});
    QTest::newRow("ctm") << with(topics, {"--model", "ctm", "--set", "K=150", "--set", "samples=2"})
                         << with(topics, {"--model", "ctm", "--set", "K=2", "--set", "samples=2"});
    QTest::newRow("hpf") << QStringList{m_ratings, "--model", "hpf", "--set", "K=200"}
                         << QStringList{m_ratings, "--model", "hpf", "--set", "K=1"};
    QTest::newRow("gmf") << QStringList{m_ratings, "--model", "gmf", "--set", "K=33"}
                         << QStringList{m_ratings, "--model", "hpf", "--set", "K=1"};
    QTest::newRow("gpmf") << with(drawn, {"--set", "D=50"}) << with(drawn, {"--set", "D=1"});
    QTest::newRow("epm") << with(epm, {"--set", "K=4000"}) << with(epm, {"--set", "K=1"});
    QTest::newRow("bpfa") << (table + bpfa + QStringList{"--set", "K=300"})
                          << (table + bpfa + QStringList{"--set", "K=1"});
    QTest::newRow("gpfa") << (table + QStringList{"--model", "gpfa"})
                          << (table + bpfa + QStringList{"--set", "K=1"});
    QTest::newRow("glm") << QStringList{m_wide, "--model", "glm", "--set", "likelihood=gaussian"}
                         << QStringList{m_wide,
                                        "--model",
                                        "glm",
                                        "--set",
                                        "likelihood=gaussian",
                                        "--set",
                                        "covariance=diagonal"};
    QTest::newRow("sgp") << QStringList{m_long, "--model", "sgp", "--set", "inducing=450"}
                         << QStringList{m_long, "--model", "sgp", "--set", "inducing=2"};
}

void TestCliMemory::estimateAgainstPeakMemory()
{
#ifdef SVI_SANITIZED
    QSKIP("the sanitizers' shadow memory is not the program's");
#endif
    QFETCH(QStringList, run);
    QFETCH(QStringList, small);
    const auto measure = [&](const QStringList& args, const QString& name, double& peak,
                             double& estimate) {
        const QString out = m_dir.filePath(name);
        const auto r = runCli(
            QStringList{"run"} + args +
                QStringList{"--steps", "2", "--threads", "2", "--quiet", "--force", "--out", out},
            600000);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject s = summaryOf(out);
        peak = s["peak_rss_mb"].toDouble();
        estimate = s["memory_estimate_mb"].toDouble();
    };
    double peak = 0, estimate = 0, peak0 = 0, estimate0 = 0;
    measure(run, QTest::currentDataTag(), peak, estimate);
    measure(small, QString(QTest::currentDataTag()) + "-small", peak0, estimate0);
    const double grown = peak - peak0, declared = estimate - estimate0;
    const QString figures = QString("peak %1 MB over %2 MB; estimate %3 MB over %4 MB")
                                .arg(peak, 0, 'f', 0)
                                .arg(peak0, 0, 'f', 0)
                                .arg(estimate, 0, 'f', 0)
                                .arg(estimate0, 0, 'f', 0);
    qInfo("%s: %s", QTest::currentDataTag(), qPrintable(figures));
    QVERIFY2(declared >= 50, qPrintable("too small to measure: " + figures));
    QVERIFY2(grown >= declared / 2 && grown <= declared * 2, qPrintable(figures));
}

QTEST_GUILESS_MAIN(TestCliMemory)
#include "test_cli_memory.moc"
