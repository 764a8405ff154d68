// A ratings file read in parts (core/io/ratings_part.h) by R = 1…4 in-process ranks
// (ThreadedRanks): on every rank, the ids, the split's stats and the rows of the rank's own
// users are exactly those of the whole file read by loadRatings and split by makeRatingsData;
// the other users' rows are empty. Every registry entry that reads ratings in parts trains
// and evaluates on them as one rank on the whole file. A bad line or a (user, item) pair rated
// twice fails every rank with the whole file's message, naming the line by its number in the whole
// file. The recommenders' fixed evaluation (rating scale, users scored, popularity baseline) built
// from the parts is that of the whole file. And the Communicator's variable-length collectives.

#include "core/data/ratings.h"
#include "core/io/data_error.h"
#include "core/io/line_shard.h"
#include "core/io/ratings_files.h"
#include "core/io/ratings_part.h"
#include "core/math/random.h"
#include "core/metrics/ranking_metrics.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "core/run/runner.h"
#include "tests/core/registry_testing.h"
#include "tests/core/threaded_communicator.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <omp.h>
#include <set>

using namespace svi;
using namespace svi::test_support;

namespace {

// Lines of a u.data-like file: `users` users (ids 5, 9, 13, …) rating 3–14 of 30 items (ids
// 2, 5, 8, …) and one of 60 rare items each, a rare item rated by one to three users only (so that
// a held-out rating of such an item returns to training unless another user, perhaps on another
// rank, trains on it), 1–5 stars, the lines shuffled (a file is not sorted by user), from a fixed
// seed.
std::vector<std::string> ratingLines(int users, std::uint64_t seed, const char* separator = "\t")
{
    Rng rng = Rng::stream(seed, 0);
    std::vector<std::string> lines;
    for (int u = 0; u < users; ++u) {
        std::set<int> items;
        const int n = 3 + int(rng.below(12));
        while (int(items.size()) < n)
            items.insert(int(rng.below(30)));
        items.insert(30 + int(rng.below(60))); // a rare item: rated by a few users only
        for (int i : items)
            lines.push_back(std::to_string(5 + 4 * u) + separator + std::to_string(2 + 3 * i) +
                            separator + std::to_string(1 + rng.below(5)) + separator +
                            std::to_string(880000000 + u));
    }
    for (std::size_t k = lines.size(); k > 1; --k)
        std::swap(lines[k - 1], lines[rng.below(k)]);
    return lines;
}

QString writeFile(const QString& path, const std::vector<std::string>& lines,
                  const std::string& head = {}, const char* end = "\n")
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly))
        return {};
    f.write(head.data(), qint64(head.size()));
    for (const std::string& line : lines)
        f.write((line + end).c_str());
    return path;
}

// Every rank's result of reading `path` in parts and splitting it, or its DataError.
struct RankResult
{
    std::optional<RatingsPart> part;
    CountDataPtr data;
    RatingsSplitStats stats;
    std::string error;
    std::optional<RatingsEvaluation> evaluation;
};

std::vector<RankResult> readInParts(const QString& path, int R, const RatingsOptions& options,
                                    bool evaluate = false)
{
    ThreadedRanks ranks(R);
    std::vector<RankResult> out(static_cast<std::size_t>(R));
    ranks.run([&](int r) {
        RankResult& mine = out[std::size_t(r)];
        Communicator& c = ranks.communicator(r);
        try {
            mine.part = readRatingsPart(path.toStdString(), {}, c);
            if (!mine.part)
                return;
            mine.data = makeRatingsData(mine.part->ratings, options, &mine.stats, &mine.part->info);
            if (evaluate)
                mine.evaluation = RatingsEvaluation(*mine.data, 7, 5, 11, 3, c);
        } catch (const std::exception& e) { // DataError, or makeRatingsData's invalid_argument
            mine.error = e.what();
        }
    });
    return out;
}

std::string wholeError(const QString& path)
{
    try {
        loadRatings(path.toStdString());
    } catch (const DataError& e) {
        return e.what();
    }
    return {};
}

bool sameRow(const SparseRows& a, const SparseRows& b, std::int64_t u)
{
    const auto ac = a.rowCols(u), bc = b.rowCols(u);
    const auto ay = a.rowCounts(u), by = b.rowCounts(u);
    return std::equal(ac.begin(), ac.end(), bc.begin(), bc.end()) &&
           std::equal(ay.begin(), ay.end(), by.begin(), by.end());
}

// The parts of `path` on 1–4 ranks against the whole file.
void compareWithWhole(const QString& path, const RatingsOptions& options)
{
    const Ratings whole = loadRatings(path.toStdString());
    RatingsSplitStats wholeStats;
    const CountDataPtr w = makeRatingsData(whole, options, &wholeStats);
    QVERIFY(wholeStats.returnedToTraining > 0); // the item counts matter
    std::map<std::int64_t, Rating> byLine;
    for (const Rating& e : whole.entries)
        byLine[e.line] = e;

    for (int R = 1; R <= 4; ++R) {
        const std::vector<RankResult> ranks = readInParts(path, R, options);
        std::int64_t held = 0;
        for (int r = 0; r < R; ++r) {
            const RankResult& x = ranks[std::size_t(r)];
            const QString at = QString("R = %1, rank %2").arg(R).arg(r);
            QVERIFY2(x.error.empty(), (at + ": " + QString::fromStdString(x.error)).toUtf8());
            QVERIFY2(x.part && x.data, qPrintable(at));
            QCOMPARE(x.part->total, std::int64_t(whole.entries.size()));
            QVERIFY(x.part->ratings.userIds == whole.userIds);
            QVERIFY(x.part->ratings.itemIds == whole.itemIds);
            QVERIFY(x.part->ratings.itemTitles == whole.itemTitles);
            // Every rating read here is the whole file's of the same line, and of a user held.
            const Shard users = x.part->info.held;
            QCOMPARE(users, (Shard{whole.users() * r / R, whole.users() * (r + 1) / R}));
            std::int64_t previous = 0;
            for (const Rating& e : x.part->ratings.entries) {
                QVERIFY2(e.line > previous, qPrintable(at)); // file order
                previous = e.line;
                const Rating& o = byLine.at(e.line);
                QVERIFY2(e.user == o.user && e.item == o.item && e.value == o.value,
                         qPrintable(at + QString(", line %1").arg(e.line)));
                QVERIFY(users.contains(e.user));
            }
            held += std::int64_t(x.part->ratings.entries.size());
            // The data: same shape and names, the rows of the rank's users, the others empty.
            const CountData& d = *x.data;
            QVERIFY(d.heldRows && *d.heldRows == users);
            QCOMPARE(d.rows(), w->rows());
            QCOMPARE(d.cols(), w->cols());
            QVERIFY(d.rowIds == w->rowIds && d.columnIds == w->columnIds);
            QVERIFY(d.rowNames == w->rowNames && d.columnNames == w->columnNames);
            QCOMPARE(d.values, w->values);
            for (std::int64_t u = 0; u < d.rows(); ++u) {
                const QString row = at + QString(", user %1").arg(u);
                if (users.contains(u)) {
                    QVERIFY2(sameRow(d.train, w->train, u), qPrintable(row + ", train"));
                    QVERIFY2(sameRow(d.heldOut, w->heldOut, u), qPrintable(row + ", test"));
                    QVERIFY2(sameRow(d.validation, w->validation, u),
                             qPrintable(row + ", validation"));
                } else {
                    QVERIFY2(d.train.rowNonZeros(u) == 0 && d.heldOut.rowNonZeros(u) == 0 &&
                                 d.validation.rowNonZeros(u) == 0,
                             qPrintable(row));
                }
            }
            // The stats of every rank's users.
            const RatingsSplitStats& s = x.stats;
            QCOMPARE(s.users, wholeStats.users);
            QCOMPARE(s.items, wholeStats.items);
            QCOMPARE(s.train, wholeStats.train);
            QCOMPARE(s.test, wholeStats.test);
            QCOMPARE(s.validation, wholeStats.validation);
            QCOMPARE(s.droppedBelowThreshold, wholeStats.droppedBelowThreshold);
            QCOMPARE(s.usersWithoutTest, wholeStats.usersWithoutTest);
            QCOMPARE(s.returnedToTraining, wholeStats.returnedToTraining);
        }
        QCOMPARE(held, std::int64_t(whole.entries.size())); // each rating on one rank
    }
}

RatingsOptions splitOptions()
{
    RatingsOptions o;
    o.testFraction = 0.3;
    o.validationFraction = 0.05;
    o.seed = 4;
    return o;
}

} // namespace

class TestRatingsPart : public QObject
{
    Q_OBJECT

private slots:
    void collectivesExchangeVariableLengths();
    void everyRankHoldsItsUsersOfTheWholeSplit();
    void binarisedAndWithHeaderMarkAndCrlf();
    void theEvaluationOfThePartsIsTheWholeOne();
    void aBadLineInOnePartFailsEveryRank();
    void aPairRatedTwiceInTwoPartsFailsEveryRank();
    void aHeaderRepeatedAtThePartsBoundaryIsABadLine();
    void aGzipFileIsReadWhole();
    void binarisingAwayOneRanksUsers();
    void theModelsThatReadPartsRunAsOneRankOnTheWholeFile();
    void theOtherRatingsModelsRefuseParts();
};

// allGather hands every rank every rank's bytes, allToAll each rank's q-th buffer to rank q,
// both in rank order, empty buffers too; earliestMessage the message of the smallest key.
void TestRatingsPart::collectivesExchangeVariableLengths()
{
    for (int R = 1; R <= 4; ++R) {
        ThreadedRanks ranks(R);
        std::mutex lock;
        QStringList failures;
        ranks.run([&](int r) {
            Communicator& c = ranks.communicator(r);
            const auto fail = [&](const QString& what) {
                const std::scoped_lock guard(lock);
                failures << QString("R = %1, rank %2: %3").arg(R).arg(r).arg(what);
            };
            const std::vector<std::string> all =
                c.allGather(std::string(std::size_t(r), 'a' + char(r)));
            for (int q = 0; q < R; ++q)
                if (all.size() != std::size_t(R) ||
                    all[std::size_t(q)] != std::string(std::size_t(q), 'a' + char(q)))
                    fail("allGather");
            std::vector<std::string> out;
            for (int q = 0; q < R; ++q) // "r>q" repeated r + q times
                out.push_back(std::string(std::size_t(r + q), char('0' + r)) + char('A' + q));
            const std::vector<std::string> in = c.allToAll(out);
            for (int q = 0; q < R; ++q)
                if (in.size() != std::size_t(R) ||
                    in[std::size_t(q)] !=
                        std::string(std::size_t(q + r), char('0' + q)) + char('A' + r))
                    fail("allToAll");
            const std::vector<std::int64_t> mine(std::size_t(r), std::int64_t(100 + r));
            const std::vector<std::int64_t> values = c.allGatherValues<std::int64_t>(mine);
            std::vector<std::int64_t> expected;
            for (int q = 0; q < R; ++q)
                expected.insert(expected.end(), std::size_t(q), std::int64_t(100 + q));
            if (values != expected)
                fail("allGatherValues");
            // Ranks 1… report keys 50 − r (the last rank's is the smallest); rank 0 none.
            const std::string m = r > 0 ? "rank " + std::to_string(r) : std::string();
            const std::string e = c.earliestMessage(50.0 - r, m);
            if (e != (R > 1 ? "rank " + std::to_string(R - 1) : std::string()))
                fail("earliestMessage: " + QString::fromStdString(e));
        });
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    }
}

void TestRatingsPart::everyRankHoldsItsUsersOfTheWholeSplit()
{
    QTemporaryDir tmp;
    std::vector<std::string> lines = ratingLines(70, 3);
    lines.insert(lines.begin() + 40, ""); // blank lines count in the numbering
    lines.insert(lines.begin() + 300, "");
    const QString path = writeFile(tmp.filePath("u.data"), lines);
    compareWithWhole(path, splitOptions());
}

void TestRatingsPart::binarisedAndWithHeaderMarkAndCrlf()
{
    QTemporaryDir tmp;
    const QString path = writeFile(tmp.filePath("ratings.csv"), ratingLines(50, 8, ","),
                                   "\xEF\xBB\xBFuserId,movieId,rating,timestamp\r\n", "\r\n");
    RatingsOptions o = splitOptions();
    o.binarize = 3.0;
    compareWithWhole(path, o);
}

// The rating scale, the users with test ratings, the subsets and the popularity baseline: on
// the parts (each rank its users' rows) those of the whole file on one rank. The last user
// (on the last rank) alone rates in half stars, so that only the gathered scale has them.
void TestRatingsPart::theEvaluationOfThePartsIsTheWholeOne()
{
    QTemporaryDir tmp;
    std::vector<std::string> lines = ratingLines(90, 5);
    for (int i = 0; i < 6; ++i)
        lines.insert(lines.begin() + 7 * i, "100000\t" + std::to_string(2 + 3 * i) + "\t2.5\t1");
    const QString path = writeFile(tmp.filePath("u.data"), lines);
    const CountDataPtr whole = makeRatingsData(loadRatings(path.toStdString()), splitOptions());
    const RatingsEvaluation w(*whole, 7, 5, 11, 3);
    QVERIFY(w.popularityFull.users > 0 && w.popularityFull.precision > 0.0);
    QVERIFY(std::count(w.scale.begin(), w.scale.end(), 2.5) == 1);
    for (int R = 2; R <= 4; ++R) {
        const std::vector<RankResult> ranks = readInParts(path, R, splitOptions(), true);
        for (const RankResult& x : ranks) {
            QVERIFY2(x.evaluation, x.error.c_str());
            const RatingsEvaluation& e = *x.evaluation;
            QVERIFY(e.scale == w.scale);
            QVERIFY(e.scoredUsers == w.scoredUsers);
            QVERIFY(e.elboUsers == w.elboUsers);
            QVERIFY(e.cheapScoredUsers == w.cheapScoredUsers);
            for (const auto& [a, b] : {std::pair{e.popularityFull, w.popularityFull},
                                       std::pair{e.popularityCheap, w.popularityCheap}}) {
                QCOMPARE(a.users, b.users);
                QVERIFY(std::abs(a.precision - b.precision) < 1e-12);
                QVERIFY(std::abs(a.recall - b.recall) < 1e-12);
                QVERIFY(std::abs(a.normalizedPrecision - b.normalizedPrecision) < 1e-12);
            }
        }
    }
}

// A bad rating near the end (in the last rank's part): every rank throws the whole file's
// message, whose line number counts every part's lines (blank ones too).
void TestRatingsPart::aBadLineInOnePartFailsEveryRank()
{
    QTemporaryDir tmp;
    std::vector<std::string> lines = ratingLines(40, 6);
    lines.insert(lines.begin() + 10, "");
    const std::size_t bad = lines.size() - 3;
    lines[bad] = "17\t20\tx\t880000000";
    const QString path = writeFile(tmp.filePath("u.data"), lines);
    const std::string expected = wholeError(path);
    QVERIFY2(expected.find("line " + std::to_string(bad + 1) + ",") != std::string::npos &&
                 expected.find("'x'") != std::string::npos,
             expected.c_str());
    for (int R = 1; R <= 4; ++R)
        for (const RankResult& x : readInParts(path, R, splitOptions()))
            QCOMPARE(x.error, expected);
}

// Two pairs rated twice: user 1 (the first user, on rank 0) rates item 2 at lines 1 and the
// last, user 999 (the last user, on the last rank) rates item 5 at lines 20 and 30. The first
// repeat in the file is line 30's, found on the last rank; every rank reports it, as the
// whole file's reader does.
void TestRatingsPart::aPairRatedTwiceInTwoPartsFailsEveryRank()
{
    QTemporaryDir tmp;
    std::vector<std::string> lines = ratingLines(40, 7);
    lines.insert(lines.begin(), "1\t2\t3\t880000000");
    lines[19] = "999\t5\t4\t880000000";
    lines[29] = "999\t5\t1\t880000001";
    lines.push_back("1\t2\t5\t880000002");
    const QString path = writeFile(tmp.filePath("u.data"), lines);
    const std::string expected = wholeError(path);
    QVERIFY2(expected.find("line 30: user 999 rated item 5 again (first at line 20)") !=
                 std::string::npos,
             expected.c_str());
    for (int R = 1; R <= 4; ++R)
        for (const RankResult& x : readInParts(path, R, splitOptions()))
            QCOMPARE(x.error, expected);
}

// A ratings.csv's header again in the middle (two files joined), as the first line of the
// second of two parts: the whole file's reader takes it for a bad rating; so does that part,
// which knows that text came before it (no header, no byte-order mark there).
void TestRatingsPart::aHeaderRepeatedAtThePartsBoundaryIsABadLine()
{
    QTemporaryDir tmp;
    const std::string header = "userId,movieId,rating,timestamp";
    std::vector<std::string> lines = ratingLines(30, 12, ",");
    std::size_t size = 2 * (header.size() + 1); // the file's, both headers in it
    for (const std::string& l : lines)
        size += l.size() + 1;
    // The second part begins at the first line start at or after size / 2: the second header
    // goes there.
    std::size_t at = 0, offset = header.size() + 1;
    while (offset < size / 2)
        offset += lines[at++].size() + 1;
    lines.insert(lines.begin() + std::ptrdiff_t(at), header);
    lines.insert(lines.begin(), header);
    const QString path = writeFile(tmp.filePath("ratings.csv"), lines);
    QCOMPARE(lineShard(path, 1, 2).begin, std::int64_t(offset));
    const std::string expected = wholeError(path);
    QVERIFY2(expected.find("line " + std::to_string(at + 2) + ", field 1") != std::string::npos,
             expected.c_str());
    for (const RankResult& x : readInParts(path, 2, splitOptions()))
        QCOMPARE(x.error, expected);
}

// A gzip'd file cannot be read from an offset: every rank is told to read it whole.
void TestRatingsPart::aGzipFileIsReadWhole()
{
    QTemporaryDir tmp;
    QFile f(tmp.filePath("u.data.gz"));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("\x1f\x8b\x08\x00 not inflated here");
    f.close();
    for (const RankResult& x : readInParts(f.fileName(), 2, splitOptions())) {
        QVERIFY2(x.error.empty(), x.error.c_str());
        QVERIFY(!x.part);
    }
}

namespace {

struct Trace
{
    Summary summary;
    std::vector<Snapshot> snapshots;
};

RunOptions shortRun()
{
    RunOptions o;
    o.maxSteps = 6;
    o.evalEverySteps = 3;
    o.finalFullEvaluation = true;
    return o;
}

Trace runTrainer(Trainer& trainer)
{
    Trace t;
    t.summary = Runner::runBlocking(trainer, shortRun(), [&t](const Snapshot& s) {
        t.snapshots.push_back(s);
        return CallbackResult::Continue;
    });
    return t;
}

bool close(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(a)) || (std::isnan(a) && std::isnan(b));
}

} // namespace

// Each rank's trainer on its part (heldRows: its users' rows only) gives, on every rank, the
// evaluations of one trainer on the whole file, to rounding: the entries keep to their rows
// and gather or sum what depends on every user.
void TestRatingsPart::theModelsThatReadPartsRunAsOneRankOnTheWholeFile()
{
    QTemporaryDir tmp;
    const QString path = writeFile(tmp.filePath("u.data"), ratingLines(60, 9));
    const CountDataPtr whole = makeRatingsData(loadRatings(path.toStdString()), splitOptions());
    std::set<std::string> tested;
    for (const AlgorithmEntry& e : builtinRegistry().entries()) {
        if (!e.readsParts ||
            std::find(e.dataKinds.begin(), e.dataKinds.end(), "ratings") == e.dataKinds.end())
            continue;
        const std::string key = e.model + "/" + e.algorithm;
        tested.insert(key);
        const ParamValues params = smallParams(e);
        const Trace one = [&] {
            auto trainer = e.make(DataSet(whole), params, 11);
            return runTrainer(*trainer);
        }();
        QVERIFY2(one.snapshots.size() >= 3, key.c_str());
        for (int R = 2; R <= 3; ++R) {
            ThreadedRanks ranks(R);
            std::vector<Trace> traces(static_cast<std::size_t>(R));
            ranks.run([&](int r) {
                omp_set_num_threads(1); // the ranks share the cores
                Communicator& c = ranks.communicator(r);
                std::optional<RatingsPart> part = readRatingsPart(path.toStdString(), {}, c);
                const CountDataPtr data =
                    makeRatingsData(part->ratings, splitOptions(), nullptr, &part->info);
                auto trainer = e.make(DataSet(data), params, 11);
                trainer->setCommunicator(c);
                traces[std::size_t(r)] = runTrainer(*trainer);
            });
            for (int r = 0; r < R; ++r) {
                const Trace& t = traces[std::size_t(r)];
                const QString who = QString("%1, rank %2 of %3").arg(key.c_str()).arg(r).arg(R);
                QCOMPARE(t.summary.steps, one.summary.steps);
                QCOMPARE(t.snapshots.size(), one.snapshots.size());
                for (std::size_t k = 0; k < t.snapshots.size(); ++k) {
                    const Snapshot &a = one.snapshots[k], &b = t.snapshots[k];
                    const QString at = who + QString(", step %1").arg(a.step);
                    QVERIFY2(close(a.elbo, b.elbo),
                             qPrintable(at + QString(": ELBO %1, one rank %2")
                                                 .arg(b.elbo, 0, 'g', 17)
                                                 .arg(a.elbo, 0, 'g', 17)));
                    QVERIFY2(a.metrics.size() == b.metrics.size() && a.metrics.size() >= 6,
                             qPrintable(at));
                    for (const auto& [name, value] : a.metrics)
                        QVERIFY2(b.metrics.count(name) && close(value, b.metrics.at(name)),
                                 qPrintable(at + ": " + QString::fromStdString(name)));
                }
            }
        }
    }
    // The entries that read ratings in parts (a model enabled without a test here fails).
    QVERIFY(tested == (std::set<std::string>{"hpf/batch", "hpf/svi", "hpf/streaming", "pmf/batch",
                                             "pmf/svi", "pmf/streaming"}));
}

// The first half of the users rate 1 or 2 stars, the others 4 or 5: binarised at 3, the first
// rank's users keep no rating, which is fine since the others' do (the count is every rank's);
// binarised at 6, no rating is left anywhere, and every rank says so with the largest rating
// of every rank's (5).
void TestRatingsPart::binarisingAwayOneRanksUsers()
{
    QTemporaryDir tmp;
    std::vector<std::string> lines;
    for (int u = 1; u <= 20; ++u)
        for (int i = 1; i <= 6; ++i)
            lines.push_back(std::to_string(u) + "\t" + std::to_string((u * 7 + i * 3) % 20 + 1) +
                            "\t" + std::to_string(u <= 10 ? 1 + i % 2 : 4 + i % 2) + "\t1");
    std::reverse(lines.begin(), lines.end());
    const QString path = writeFile(tmp.filePath("u.data"), lines);
    RatingsOptions o = splitOptions();
    o.binarize = 3.0;
    RatingsSplitStats whole;
    makeRatingsData(loadRatings(path.toStdString()), o, &whole);
    for (const RankResult& x : readInParts(path, 2, o)) {
        QVERIFY2(x.error.empty(), x.error.c_str());
        QCOMPARE(x.stats.droppedBelowThreshold, std::int64_t(60));
        QCOMPARE(x.stats.train, whole.train);
    }
    o.binarize = 6.0;
    std::string expected;
    try {
        makeRatingsData(loadRatings(path.toStdString()), o);
    } catch (const std::invalid_argument& e) {
        expected = e.what();
    }
    QVERIFY2(expected.find("the largest is 5") != std::string::npos, expected.c_str());
    for (const RankResult& x : readInParts(path, 2, o))
        QCOMPARE(x.error, expected);
}

// A model that reads every user's rows (GMF's item step, generalized PMF's entries) given the
// data read in parts — as `svi compare` hands the data read for its first model to the others
// — refuses them with a message, instead of taking the other ranks' users for users without
// ratings.
void TestRatingsPart::theOtherRatingsModelsRefuseParts()
{
    QTemporaryDir tmp;
    const QString path = writeFile(tmp.filePath("u.data"), ratingLines(40, 2));
    std::set<std::string> refused;
    std::mutex lock;
    for (const AlgorithmEntry& e : builtinRegistry().entries()) {
        if (e.readsParts ||
            std::find(e.dataKinds.begin(), e.dataKinds.end(), "ratings") == e.dataKinds.end())
            continue;
        ThreadedRanks ranks(2);
        ranks.run([&](int r) {
            Communicator& c = ranks.communicator(r);
            std::optional<RatingsPart> part = readRatingsPart(path.toStdString(), {}, c);
            const CountDataPtr data =
                makeRatingsData(part->ratings, splitOptions(), nullptr, &part->info);
            try {
                e.make(DataSet(data), smallParams(e), 11);
            } catch (const std::invalid_argument& error) {
                if (std::string(error.what()).find("was read in parts") != std::string::npos) {
                    const std::scoped_lock guard(lock);
                    refused.insert(e.model + "/" + e.algorithm + "@" + std::to_string(r));
                }
            }
        });
        for (int r = 0; r < 2; ++r)
            QVERIFY2(refused.count(e.model + "/" + e.algorithm + "@" + std::to_string(r)),
                     (e.model + "/" + e.algorithm).c_str());
    }
    QVERIFY(refused.size() >= 2 * 4); // gmf/batch and generalized PMF's algorithms at least
}

QTEST_GUILESS_MAIN(TestRatingsPart)
#include "test_ratings_part.moc"
