// `mpirun -np 2 svi run …`: a run on two ranks gives the trace of the same run on one rank, to
// rounding (the ranks' partial sums are added in another order); a run checkpointed on two
// ranks resumes on one (and the other way round) as if it had never stopped; a model that does
// not distribute is refused with a message, not run twice; `svi compare` on two ranks gives
// the one-rank comparison's runs and tables; each rank reads only its part of an LDA-C
// corpus, and a bad line in one part fails every rank with the line's number in the file. Built
// when MPI is found (MPIEXEC and SVI_CLI are the launcher's and the tool's paths).

#include "tests/app/cli_testing.h"

#include <QDir>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using test_support::CliResult;
using test_support::runCli;

namespace {

// The launcher's environment: Open MPI refuses root (CI runs as root) unless told, and the
// test machine may have fewer cores than ranks.
QProcessEnvironment mpiEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("OMPI_ALLOW_RUN_AS_ROOT", "1");
    env.insert("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    env.insert("OMPI_MCA_rmaps_base_oversubscribe", "1");
    // No network probing on a test machine: the ranks share memory.
    env.insert("OMPI_MCA_btl", "self,vader");
    // Under AddressSanitizer, no leak check in the ranks: Open MPI keeps its components'
    // allocations past MPI_Finalize and unloads their libraries, so LeakSanitizer reports them
    // with frames it cannot name or suppress. The same runs on one rank (every other test) are
    // leak-checked.
    if (env.contains("ASAN_OPTIONS"))
        env.insert("ASAN_OPTIONS", env.value("ASAN_OPTIONS") + ":detect_leaks=0");
    return env;
}

CliResult runMpi(int ranks, const QStringList& args)
{
    return test_support::runProgram(
        MPIEXEC, QStringList{"-np", QString::number(ranks), "--oversubscribe", SVI_CLI} + args,
        300000, {}, mpiEnvironment());
}

QString corpus()
{
    return QString(SVI_TEST_DATA_DIR) + "/text/news_sample.tar.gz";
}

// LDA on the sample corpus, to `steps` (the output folder is added by the caller).
QStringList ldaArgs(int steps)
{
    return {"run",
            corpus(),
            "--model",
            "lda",
            "--set",
            "K=8",
            "--set",
            "minibatch=12",
            "--steps",
            QString::number(steps),
            "--eval-every-steps",
            "10",
            "--threads",
            "1",
            "--quiet"};
}

QStringList out(const QString& dir)
{
    return {"--out", dir};
}

// trace.csv as numbers by column name, one vector per column.
QMap<QString, QVector<double>> trace(const QString& dir)
{
    QFile f(dir + "/trace.csv");
    QMap<QString, QVector<double>> columns;
    if (!f.open(QIODevice::ReadOnly))
        return columns;
    const QList<QByteArray> lines = f.readAll().trimmed().split('\n');
    const QList<QByteArray> header = lines.value(0).split(',');
    for (qsizetype l = 1; l < lines.size(); ++l) {
        const QList<QByteArray> cells = lines[l].split(',');
        for (qsizetype c = 0; c < header.size() && c < cells.size(); ++c)
            columns[QString::fromUtf8(header[c])].push_back(cells[c].toDouble());
    }
    return columns;
}

// Every column but the clock agrees to a relative 1e-9 (rounding of sums taken in another
// order; the runs' numbers move by far more than that from one row to the next).
void compareTraces(const QString& a, const QString& b)
{
    const auto ta = trace(a), tb = trace(b);
    QVERIFY(!ta.isEmpty());
    QCOMPARE(ta.keys(), tb.keys());
    for (const QString& key : ta.keys()) {
        if (key == "train_seconds" || key == "wall_seconds")
            continue;
        const QVector<double>&x = ta[key], &y = tb[key];
        QCOMPARE(x.size(), y.size());
        for (qsizetype i = 0; i < x.size(); ++i)
            QVERIFY2(std::abs(x[i] - y[i]) <= 1e-9 * std::max(1.0, std::abs(x[i])),
                     qPrintable(QString("%1, row %2: %3 against %4")
                                    .arg(key)
                                    .arg(i + 1)
                                    .arg(x[i], 0, 'g', 17)
                                    .arg(y[i], 0, 'g', 17)));
    }
}

// The summary's data facts of a run folder (empty when unreadable).
QJsonObject factsOf(const QString& dir)
{
    QFile f(dir + "/summary.json");
    if (!f.open(QIODevice::ReadOnly))
        return QJsonObject{};
    return QJsonDocument::fromJson(f.readAll()).object().value("facts").toObject();
}

// Runs `args` on one rank into `one`, then on two ranks into `two`, which must read the data
// in parts; both must succeed.
void runOnOneAndInTwoParts(const QStringList& args, const QString& one, const QString& two)
{
    const auto a = runCli(args + out(one) + QStringList{"--quiet"});
    QVERIFY2(a.exitCode == 0, qPrintable(a.err));
    const auto b = runMpi(2, args + out(two));
    QVERIFY2(b.exitCode == 0, qPrintable(b.err));
    QVERIFY2(b.err.contains("read in 2 parts"), qPrintable(b.err));
}

} // namespace

// A ratings file in MovieLens' u.data layout (user, item, rating, time; tab-separated): 80
// users rating 8–20 of 50 items each, seeded — enough users with test ratings for the cheap
// evaluation's subset to be a part of them, and for each rank to score several.
QString writeRatings(const QString& dir)
{
    QFile f(dir + "/u.data");
    if (!f.open(QIODevice::WriteOnly))
        return {};
    std::uint64_t state = 99;
    const auto next = [&state](int n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return int((state >> 33) % std::uint64_t(n));
    };
    for (int u = 1; u <= 80; ++u) {
        QList<int> items;
        const int n = 8 + next(13);
        while (items.size() < n) {
            // Two groups of users favour two halves of the items.
            const int i = 1 + (u % 2) * 25 + (next(4) == 0 ? (next(50) + 25) % 50 : next(25));
            if (!items.contains(i))
                items.push_back(i);
        }
        for (int i : items)
            f.write(QByteArray::number(u) + '\t' + QByteArray::number(i) + '\t' +
                    QByteArray::number(1 + next(5)) + '\t' + QByteArray::number(880000000 + u) +
                    '\n');
    }
    return f.fileName();
}

class TestCliMpi : public QObject
{
    Q_OBJECT
    QTemporaryDir m_data; // data files the rows of a data-driven test share

private slots:
    void twoRanksGiveTheOneRankTrace_data();
    void twoRanksGiveTheOneRankTrace();
    void resumesOnAnotherNumberOfRanks();
    void compareOnTwoRanks();
    void eachRankReadsItsPartOfAnLdacCorpus();
    void aBadLineInOneRanksPartFailsEveryRank();
    void aModelThatDoesNotDistributeIsRefused();
    void eachRankReadsItsPartOfARatingsFile();
    void compareReadsWholeWhenARunNeedsEveryRow();
    void eachRankReadsItsPartOfATable();
};

void TestCliMpi::twoRanksGiveTheOneRankTrace_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("lda") << ldaArgs(60);
    QTest::newRow("hdp") << QStringList{"run",     corpus(),    "--model",
                                        "hdp",     "--set",     "minibatch=12",
                                        "--steps", "40",        "--eval-every-steps",
                                        "10",      "--threads", "1",
                                        "--quiet"};
    QTest::newRow("hpf") << QStringList{"run",
                                        writeRatings(m_data.path()),
                                        "--set",
                                        "eval_users=12",
                                        "--model",
                                        "hpf",
                                        "--set",
                                        "K=6",
                                        "--set",
                                        "minibatch=8",
                                        "--steps",
                                        "60",
                                        "--eval-every-steps",
                                        "10",
                                        "--threads",
                                        "1",
                                        "--quiet"};
    for (const char* algorithm : {"mf-svi", "mf-ssvi", "titsias-ssvi", "mimno-svi", "gibbs-ssvi"})
        QTest::newRow((std::string("bpfa/") + algorithm).c_str())
            << QStringList{"run",
                           "synthetic",
                           "--rows",
                           "600",
                           "--cols",
                           "12",
                           "--true-k",
                           "5",
                           "--model",
                           "bpfa",
                           "--algorithm",
                           algorithm,
                           "--set",
                           "K=8",
                           "--set",
                           "minibatch=40",
                           "--steps",
                           "30",
                           "--eval-every-steps",
                           "10",
                           "--threads",
                           "1",
                           "--quiet"};
    // The overlap consensus and the neighbour coupling on a small image (48×48 PGM: the final
    // pass stays cheap under the sanitizers): every rank applies every record of the minibatch
    // (predictions, then expectations), in its order.
    QByteArray pgm = "P5\n48 48\n255\n";
    for (int r = 0; r < 48; ++r)
        for (int c = 0; c < 48; ++c)
            pgm.append(char(40 + 3 * c + ((r / 4) % 2 ? 50 : 0)));
    const QString path = m_data.filePath("stripes.pgm");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly) && file.write(pgm) == pgm.size());
    file.close();
    QTest::newRow("bpfa/gibbs-ssvi, overlap from the second visit, coupling")
        << QStringList{"run",
                       path,
                       "--model",
                       "bpfa",
                       "--set",
                       "K=8",
                       "--set",
                       "minibatch=40",
                       "--set",
                       "overlap_weight=0.25",
                       "--set",
                       "overlap_ramp=1",
                       "--set",
                       "neighbour_coupling=1",
                       "--steps",
                       "20",
                       "--eval-every-steps",
                       "10",
                       "--threads",
                       "1",
                       "--quiet"};
}

void TestCliMpi::twoRanksGiveTheOneRankTrace()
{
    QFETCH(QStringList, args);
    QTemporaryDir tmp;
    const auto one = runCli(args + QStringList{"--out", tmp.filePath("one")});
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    const auto two = runMpi(2, args + QStringList{"--out", tmp.filePath("two")});
    QVERIFY2(two.exitCode == 0, qPrintable(two.err));
    compareTraces(tmp.filePath("one"), tmp.filePath("two"));
    // Rank 0 says how many ranks ran and what they sent.
    QFile summary(tmp.filePath("two") + "/summary.json");
    QVERIFY(summary.open(QIODevice::ReadOnly));
    const QByteArray s = summary.readAll();
    QVERIFY2(s.contains("\"ranks\": 2"), s.constData());
    QVERIFY2(!s.contains("\"bytes_sent_per_step\": 0,"), s.constData());
}

void TestCliMpi::resumesOnAnotherNumberOfRanks()
{
    QTemporaryDir tmp;
    const QString whole = tmp.filePath("whole"), split = tmp.filePath("split");
    QVERIFY(runCli(ldaArgs(80) + out(whole)).exitCode == 0);
    // Two ranks to step 40 (a checkpoint at its end), one rank from there to 80.
    const auto first =
        runMpi(2, ldaArgs(40) + out(split) + QStringList{"--checkpoint-every", "20"});
    QVERIFY2(first.exitCode == 0, qPrintable(first.err));
    const auto rest = runCli({"run", "--resume", split, "--steps", "80", "--quiet"});
    QVERIFY2(rest.exitCode == 0, qPrintable(rest.err));
    compareTraces(whole, split);
    // And back: two ranks from the one rank's last checkpoint (step 80) to 120.
    const auto more = runMpi(2, {"run", "--resume", split, "--steps", "120", "--quiet"});
    QVERIFY2(more.exitCode == 0, qPrintable(more.err));
    QVERIFY(runCli(ldaArgs(120) + out(whole) + QStringList{"--force"}).exitCode == 0);
    compareTraces(whole, split);
}

// `mpirun -np 2 svi compare`: every run of the comparison on both ranks, each run's trace that
// of the one-rank comparison, and the tables written once, by the lead, with the same rows.
void TestCliMpi::compareOnTwoRanks()
{
    QTemporaryDir tmp;
    const QStringList args = {"compare",   corpus(),  "--model",   "lda",   "--set",
                              "K=6",       "--steps", "30",        "--set", "minibatch=12",
                              "--threads", "1",       "--repeats", "2",     "--quiet"};
    const auto one = runCli(args + out(tmp.filePath("one")));
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    const auto two = runMpi(2, args + out(tmp.filePath("two")));
    QVERIFY2(two.exitCode == 0, qPrintable(two.err));
    const QStringList runs =
        QDir(tmp.filePath("one")).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QVERIFY2(runs.size() >= 2, qPrintable(runs.join(", "))); // two repeats at least
    QCOMPARE(QDir(tmp.filePath("two")).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name),
             runs);
    for (const QString& run : runs)
        compareTraces(tmp.filePath("one/" + run), tmp.filePath("two/" + run));
    const auto rowsOf = [](const QString& file) {
        QFile f(file);
        if (!f.open(QIODevice::ReadOnly))
            return QList<QByteArray>{};
        QList<QByteArray> keys;
        for (const QByteArray& line : f.readAll().split('\n'))
            keys.push_back(line.left(line.indexOf(',')));
        return keys;
    };
    QCOMPARE(rowsOf(tmp.filePath("two/results.csv")), rowsOf(tmp.filePath("one/results.csv")));
}

// An LDA-C corpus of `documents` documents over 60 words (seeded), with blank lines and an
// empty document ("0") among them, and its vocabulary beside it.
QString writeLdac(const QString& dir, int documents, const QByteArray& lastLine = {})
{
    QFile vocab(dir + "/vocab.txt");
    if (!vocab.open(QIODevice::WriteOnly))
        return {};
    for (int w = 0; w < 60; ++w)
        vocab.write("word" + QByteArray::number(w) + "\n");
    QFile f(dir + "/docs.ldac");
    if (!f.open(QIODevice::WriteOnly))
        return {};
    std::uint64_t state = 12345;
    const auto next = [&state](int n) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return int((state >> 33) % std::uint64_t(n));
    };
    for (int d = 0; d < documents; ++d) {
        if (d % 17 == 5)
            f.write("\n"); // blank: no document
        if (d == 11) {
            f.write("0\n"); // an empty document
            continue;
        }
        // Words from one of three blocks of 20, so that there are topics to find.
        const int block = next(3), n = 3 + next(8);
        QList<int> words;
        while (words.size() < n) {
            const int w = block * 20 + next(20);
            if (!words.contains(w))
                words.push_back(w);
        }
        std::sort(words.begin(), words.end());
        QByteArray line = QByteArray::number(n);
        for (int w : words)
            line += " " + QByteArray::number(w) + ":" + QByteArray::number(1 + next(4));
        f.write(line + "\n");
    }
    f.write(lastLine);
    return f.fileName();
}

// Two ranks each read their half of an LDA-C file (the data summary says so) and run LDA and
// HDP to the one-rank trace, whose data facts (documents, vocabulary, tokens, test documents)
// they report, summed over the parts.
void TestCliMpi::eachRankReadsItsPartOfAnLdacCorpus()
{
    QTemporaryDir tmp;
    const QString corpus = writeLdac(tmp.path(), 400);
    QVERIFY(!corpus.isEmpty());
    for (const QString model : {"lda", "hdp"}) {
        const QStringList args = {"run",
                                  corpus,
                                  "--model",
                                  model,
                                  "--set",
                                  "eval_docs=15", // fewer than the 40 test documents
                                  "--set",
                                  "K=3",
                                  "--set",
                                  "minibatch=40",
                                  "--steps",
                                  "30",
                                  "--eval-every-steps",
                                  "10",
                                  "--threads",
                                  "1"};
        const QString one = tmp.filePath(model + "-one"), two = tmp.filePath(model + "-two");
        runOnOneAndInTwoParts(args, one, two);
        if (QTest::currentTestFailed())
            return;
        compareTraces(one, two);
        QVERIFY(!factsOf(one).isEmpty());
        for (const char* key : {"documents", "vocabulary", "tokens", "test_documents"})
            QVERIFY2(factsOf(one).value(key) == factsOf(two).value(key) &&
                         factsOf(one).value(key).toDouble() > 0,
                     key);
    }
}

// A bad line in the second rank's part: both ranks stop, and the message names the file and
// the line by its number in the whole file.
void TestCliMpi::aBadLineInOneRanksPartFailsEveryRank()
{
    QTemporaryDir tmp;
    const QString corpus = writeLdac(tmp.path(), 200, "2 3:1 x:2\n");
    QFile f(corpus);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const qsizetype lines = f.readAll().count('\n');
    const auto r = runMpi(2, {"run", corpus, "--model", "lda", "--steps", "5", "--quiet", "--out",
                              tmp.filePath("bad")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("docs.ldac") && r.err.contains("line " + QString::number(lines)) &&
                 r.err.contains("'x'"),
             qPrintable(r.err));
    QVERIFY(!QFile::exists(tmp.filePath("bad/summary.json")));
}

void TestCliMpi::aModelThatDoesNotDistributeIsRefused()
{
    QTemporaryDir tmp;
    // The batch Gibbs sampler (on the default image) sweeps every item each step: it does not
    // split among ranks.
    const auto r = runMpi(2, {"run", "--model", "bpfa", "--algorithm", "gibbs", "--set", "K=8",
                              "--steps", "1", "--quiet", "--out", tmp.filePath("gibbs")});
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains("does not run on several ranks"), qPrintable(r.err));
}

// --- ratings read in parts ---

// writeRatings' lines in a seeded random order, as MovieLens' u.data comes (a part of the
// file then holds some ratings of most users), in `dir`/u.data.
QString writeShuffledRatings(const QString& dir)
{
    QTemporaryDir sorted;
    QFile in(writeRatings(sorted.path()));
    if (!in.open(QIODevice::ReadOnly))
        return {};
    QList<QByteArray> lines = in.readAll().trimmed().split('\n');
    std::uint64_t state = 7;
    for (qsizetype k = lines.size(); k > 1; --k) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        lines.swapItemsAt(k - 1, qsizetype((state >> 33) % std::uint64_t(k)));
    }
    QFile f(dir + "/u.data");
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(lines.join('\n') + '\n');
    return f.fileName();
}

// Two ranks each read their half of a ratings file in random order (the data summary says
// so; each ends with its users' ratings) and run HPF to the one-rank trace, whose data facts
// (users, items, the split's counts) they report, summed over the parts; and to the trace of
// two ranks that read the file whole (gzip'd: it cannot be read from an offset).
void TestCliMpi::eachRankReadsItsPartOfARatingsFile()
{
    QTemporaryDir tmp;
    const QString ratings = writeShuffledRatings(tmp.path());
    QVERIFY(!ratings.isEmpty());
    const QStringList args = {"run",
                              ratings,
                              "--model",
                              "hpf",
                              "--set",
                              "K=6",
                              "--set",
                              "minibatch=8",
                              "--set",
                              "eval_users=12",
                              "--steps",
                              "40",
                              "--eval-every-steps",
                              "10",
                              "--threads",
                              "1"};
    const QString one = tmp.filePath("one"), two = tmp.filePath("two");
    runOnOneAndInTwoParts(args, one, two);
    if (QTest::currentTestFailed())
        return;
    compareTraces(one, two);
    // Every user's recommendations leave out the items they rated in training, whichever rank
    // holds their rows: the same lists (user, rank, item, held out) and scores as one rank's.
    const auto recommendations = [](const QString& dir) {
        QFile f(dir + "/recommendations.csv");
        return f.open(QIODevice::ReadOnly) ? f.readAll().trimmed().split('\n')
                                           : QList<QByteArray>{};
    };
    const QList<QByteArray> wholeLists = recommendations(one), partLists = recommendations(two);
    QVERIFY(wholeLists.size() > 80); // a header and 80 users' lists
    QCOMPARE(partLists.size(), wholeLists.size());
    for (qsizetype i = 0; i < wholeLists.size(); ++i) {
        const QList<QByteArray> w = wholeLists[i].split(','), q = partLists[i].split(',');
        QCOMPARE(q.size(), w.size());
        const qsizetype score = w.size() - 2;
        for (qsizetype c = 0; c < w.size(); ++c)
            if (c != score || i == 0)
                QCOMPARE(q[c], w[c]);
            else
                QVERIFY2(std::abs(q[c].toDouble() - w[c].toDouble()) <=
                             1e-5 * std::abs(w[c].toDouble()),
                         wholeLists[i].constData());
    }
    QVERIFY(!factsOf(one).isEmpty());
    QCOMPARE(factsOf(two), factsOf(one));
    for (const char* key : {"users", "items", "train", "test"})
        QVERIFY2(factsOf(one).value(key).toDouble() > 0, key);

    QProcess gzip;
    gzip.setStandardOutputFile(ratings + ".gz");
    gzip.start("gzip", {"-c", ratings});
    QVERIFY(gzip.waitForFinished() && gzip.exitCode() == 0);
    QStringList wholeArgs = args;
    wholeArgs[1] = ratings + ".gz";
    const QString whole = tmp.filePath("whole");
    const auto c = runMpi(2, wholeArgs + out(whole));
    QVERIFY2(c.exitCode == 0 && !c.err.contains("read in 2 parts"), qPrintable(c.err));
    compareTraces(whole, two);
    QCOMPARE(factsOf(whole), factsOf(one));
}

// svi compare shares one reading of the data among its runs: with GMF among them (its item
// update reads every user's ratings) every rank reads the file whole, and each run gives its
// one-rank trace.
void TestCliMpi::compareReadsWholeWhenARunNeedsEveryRow()
{
    QTemporaryDir tmp;
    const QString ratings = writeShuffledRatings(tmp.path());
    QVERIFY(!ratings.isEmpty());
    const QStringList args = {"compare", ratings, "--model", "hpf", "--algorithms", "svi,gmf/batch",
                              "--set",   "K=4",   "--steps", "12",  "--threads",    "1"};
    const auto one = runCli(args + out(tmp.filePath("one")) + QStringList{"--quiet"});
    QVERIFY2(one.exitCode == 0, qPrintable(one.err));
    const auto two = runMpi(2, args + out(tmp.filePath("two")));
    QVERIFY2(two.exitCode == 0, qPrintable(two.err));
    QVERIFY2(!two.err.contains("read in 2 parts"), qPrintable(two.err));
    const QStringList runs =
        QDir(tmp.filePath("one")).entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    QCOMPARE(runs.size(), 2);
    for (const QString& run : runs)
        compareTraces(tmp.filePath("one/" + run), tmp.filePath("two/" + run));
}

// --- a table read in parts ---

// A CSV table of 240 cells × 6 channels after a comment line and the header, some cells
// missing, seeded.
QString writeCellTable(const QString& dir)
{
    QFile f(dir + "/cells.csv");
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write("# cells\nCD3,CD4,CD8,CD19,DNA,Time\n");
    std::uint64_t state = 17;
    const auto next = [&state] {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        return double((state >> 11) % 100000) / 100000.0;
    };
    for (int i = 0; i < 240; ++i) {
        const double group = i % 3;
        QByteArray line;
        for (int c = 0; c < 6; ++c) {
            const double v = c == 5 ? 1000.0 + i : (c == group ? 40.0 : 5.0) * next() + c;
            line += (c ? "," : "") + (next() < 0.02 ? QByteArray("NA") : QByteArray::number(v));
        }
        f.write(line + '\n');
    }
    return f.fileName();
}

// BPFA on two ranks each reading its half of a CSV table (the data summary says so) runs to
// the one-rank trace, and to that of two ranks reading the whole file, with the same facts:
// a subsample, a row split and standardisation drawn and computed over the whole table.
void TestCliMpi::eachRankReadsItsPartOfATable()
{
    QTemporaryDir tmp;
    const QString table = writeCellTable(tmp.path());
    QVERIFY(!table.isEmpty());
    const QStringList args = {"run",          table,         "--model",
                              "bpfa",         "--algorithm", "mf-ssvi",
                              "--split",      "rows",        "--heldout",
                              "0.2",          "--subsample", "200",
                              "--set",        "K=6",         "--set",
                              "minibatch=30", "--set",       "init_items=60",
                              "--steps",      "20",          "--eval-every-steps",
                              "10",           "--threads",   "1"};
    const QString one = tmp.filePath("one"), parts = tmp.filePath("parts"),
                  whole = tmp.filePath("whole");
    runOnOneAndInTwoParts(args, one, parts);
    if (QTest::currentTestFailed())
        return;
    // Rows tiled to their own number: the same table, read whole by every rank.
    const auto c = runMpi(2, args + out(whole) + QStringList{"--tile", "240"});
    QVERIFY2(c.exitCode == 0, qPrintable(c.err));
    QVERIFY2(!c.err.contains("read in 2 parts"), qPrintable(c.err));
    compareTraces(one, parts);
    compareTraces(whole, parts);
    QVERIFY(!factsOf(one).isEmpty());
    QCOMPARE(factsOf(parts), factsOf(one));
    QCOMPARE(factsOf(whole), factsOf(one));
    for (const char* key : {"rows", "channels", "training_rows", "heldout_entries"})
        QVERIFY2(factsOf(one).value(key).toDouble() > 0, key);
}

QTEST_GUILESS_MAIN(TestCliMpi)
#include "test_cli_mpi.moc"
