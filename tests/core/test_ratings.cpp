// Ratings: the MovieLens readers on the hand-written samples of tests/data/ratings (u.data and
// u.item, ratings.dat and movies.dat, ratings.csv and movies.csv with CRLF, half stars and
// quoted titles), gzip, layout sniffing, dense re-indexing, Latin-1 titles, and the message for
// every kind of bad line; dataFileKind; and makeRatingsData's per-user split (exact test counts,
// random rounding of the validation count, reproducibility, independence between users,
// binarisation, the return of unscorable held-out entries). With SVI_RATINGS_DIR set (the
// ml-100k folder, or the folder holding it), the real MovieLens 100K too.

#include "core/data/ratings.h"
#include "core/io/data_files.h"
#include "core/io/ratings_files.h"
#include "core/math/random.h"
#include "tests/core/data_testing.h"

#include <QDir>
#include <QFile>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

using namespace svi;
using namespace data_testing;

namespace {

// One rating by file ids.
struct Triple
{
    std::int64_t user, item;
    float value;
};

// Ratings from triples as a reader makes them: ids re-indexed in ascending order, entries in
// the given order, lines from 1.
Ratings makeRatings(const std::vector<Triple>& triples, const std::string& source = "synthetic")
{
    Ratings r;
    r.source = source;
    for (const Triple& t : triples) {
        r.userIds.push_back(t.user);
        r.itemIds.push_back(t.item);
    }
    for (auto* ids : {&r.userIds, &r.itemIds}) {
        std::sort(ids->begin(), ids->end());
        ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
    }
    const auto index = [](const std::vector<std::int64_t>& ids, std::int64_t id) {
        return std::int32_t(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    for (std::size_t k = 0; k < triples.size(); ++k)
        r.entries.push_back({index(r.userIds, triples[k].user), index(r.itemIds, triples[k].item),
                             triples[k].value, std::int64_t(k) + 1});
    return r;
}

// `users` users (ids 7, 10, 13, …) rating between lo and hi distinct items each among `items`
// (ids 100, 102, …), 1 to 5 stars, from a fixed seed.
std::vector<Triple> randomTriples(std::int64_t users, std::int64_t items, std::int64_t lo,
                                  std::int64_t hi, std::uint64_t seed)
{
    Rng rng = Rng::stream(seed, 0);
    std::vector<Triple> out;
    std::vector<std::int64_t> pool(std::size_t(items), 0);
    for (std::int64_t u = 0; u < users; ++u) {
        const std::int64_t n =
            std::min(items, lo + std::int64_t(rng.below(std::uint64_t(hi - lo + 1))));
        for (std::int64_t i = 0; i < items; ++i)
            pool[std::size_t(i)] = i;
        for (std::int64_t k = 0; k < n; ++k) {
            std::swap(pool[std::size_t(k)],
                      pool[std::size_t(k) + rng.below(std::uint64_t(items - k))]);
            out.push_back({7 + 3 * u, 100 + 2 * pool[std::size_t(k)], float(1 + rng.below(5))});
        }
    }
    // File order shuffled, as in u.data.
    for (std::size_t k = out.size(); k > 1; --k)
        std::swap(out[k - 1], out[rng.below(k)]);
    return out;
}

using Cells = std::map<std::pair<std::int64_t, std::int64_t>, float>; // (user id, item id) → y

// The entries of one part of the split, by file ids.
Cells cellsOf(const CountData& d, const SparseRows& m)
{
    Cells out;
    for (std::int64_t r = 0; r < m.rows(); ++r) {
        const auto cols = m.rowCols(r);
        const auto counts = m.rowCounts(r);
        for (std::size_t j = 0; j < cols.size(); ++j)
            out[{d.rowIds[std::size_t(r)], d.columnIds[std::size_t(cols[j])]}] = counts[j];
    }
    return out;
}

// One user's entries of one part, by item id.
std::map<std::int64_t, float> userCells(const CountData& d, const SparseRows& m,
                                        std::int64_t userId)
{
    std::map<std::int64_t, float> out;
    const auto it = std::lower_bound(d.rowIds.begin(), d.rowIds.end(), userId);
    if (it == d.rowIds.end() || *it != userId)
        return out;
    const std::int64_t r = it - d.rowIds.begin();
    for (std::size_t j = 0; j < m.rowCols(r).size(); ++j)
        out[d.columnIds[std::size_t(m.rowCols(r)[j])]] = m.rowCounts(r)[j];
    return out;
}

// Rows well formed: one per user, columns strictly increasing and in range, counts > 0.
bool wellFormed(const SparseRows& m, std::int64_t rows, std::int64_t cols)
{
    if (m.rows() != rows || m.rowStart.front() != 0 || m.rowStart.back() != m.nonZeros() ||
        m.cols.size() != m.counts.size())
        return false;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto c = m.rowCols(r);
        for (std::size_t j = 0; j < c.size(); ++j)
            if (c[j] < 0 || c[j] >= cols || (j > 0 && c[j] <= c[j - 1]) || !(m.rowCounts(r)[j] > 0))
                return false;
    }
    return true;
}

} // namespace

class TestRatings : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_files.valid()); }

    // Readers.
    void readsUData();
    void readsDat();
    void readsCsv();
    void folderAndGzip();
    void explicitTitles();
    void reindexing();
    void formats_data();
    void formats();
    void fileKinds();
    void ratingsErrors_data();
    void ratingsErrors();
    void titlesErrors_data();
    void titlesErrors();
    void loadErrors();

    // The split.
    void options_data();
    void options();
    void paramsRoundTrip();
    void splitPartitions();
    void splitCountsPerUser();
    void validationOverall();
    void splitReproducible();
    void splitIndependentOfOtherUsers();
    void splitKeepsATrainingRating();
    void binarize();
    void returnedToTraining();
    void splitErrors();

    // The real MovieLens 100K (environment variable).
    void movieLens100k();

private:
    QString write(const QString& name, const QByteArray& bytes)
    {
        return m_files.write(name, bytes);
    }

    TempFiles m_files;
};

// --- readers -----------------------------------------------------------------------------------

// tests/data/ratings/ml100k_style: 17 ratings of users 1, 2, 5, 13 on items 1, 2, 3, 7, 50, 1633;
// u.item (Latin-1) has no line for item 3 and one for item 999, never rated.
void TestRatings::readsUData()
{
    const QString path = dataFile("ratings/ml100k_style/u.data");
    const Ratings r = loadRatings(std8(path));
    QCOMPARE(str(r.source), path);
    QCOMPARE(r.userIds, (std::vector<std::int64_t>{1, 2, 5, 13}));
    QCOMPARE(r.itemIds, (std::vector<std::int64_t>{1, 2, 3, 7, 50, 1633}));
    QCOMPARE(r.users(), std::int64_t(4));
    QCOMPARE(r.items(), std::int64_t(6));
    QCOMPARE(r.entries.size(), std::size_t(17));
    // Line 1 "5 50 4 …": user 5 is index 2, item 50 index 4. Line 3 "13 1633 1 …". The last line
    // "1 1633 3 …".
    const Rating& a = r.entries[0];
    QCOMPARE(a.user, 2);
    QCOMPARE(a.item, 4);
    QCOMPARE(a.value, 4.0f);
    QCOMPARE(a.line, std::int64_t(1));
    const Rating& b = r.entries[2];
    QCOMPARE(b.user, 3);
    QCOMPARE(b.item, 5);
    QCOMPARE(b.value, 1.0f);
    QCOMPARE(b.line, std::int64_t(3));
    const Rating& c = r.entries.back();
    QCOMPARE(c.user, 0);
    QCOMPARE(c.item, 5);
    QCOMPARE(c.value, 3.0f);
    QCOMPARE(c.line, std::int64_t(17));
    // Every value read as the file has it: the sum of column 3.
    double sum = 0.0;
    for (const Rating& e : r.entries)
        sum += e.value;
    QCOMPARE(sum, 58.0);
    // Titles from u.item beside it, Latin-1 decoded; item 3 has no line and keeps its id.
    QCOMPARE(list(r.itemTitles),
             QStringList({"Lantern Bay (1995)", "Seven Bridges (1995)", "3",
                          QString::fromUtf8("Myst\u00e8re de la rue Haute, Le (1931)"),
                          "Orbit of Glass (1977)",
                          QString::fromUtf8("Caf\u00e9 des \u00c9toiles (1994)")}));
}

// ml1m_style: ratings.dat of users 4, 7, 10 on items 3, 20, 3949; movies.dat in Latin-1.
void TestRatings::readsDat()
{
    const QString path = dataFile("ratings/ml1m_style/ratings.dat");
    const Ratings r = loadRatings(std8(path));
    QCOMPARE(r.userIds, (std::vector<std::int64_t>{4, 7, 10}));
    QCOMPARE(r.itemIds, (std::vector<std::int64_t>{3, 20, 3949}));
    QCOMPARE(r.entries.size(), std::size_t(8));
    // "4::3949::1::978297000" is line 4.
    QCOMPARE(r.entries[3].user, 0);
    QCOMPARE(r.entries[3].item, 2);
    QCOMPARE(r.entries[3].value, 1.0f);
    QCOMPARE(r.entries[3].line, std::int64_t(4));
    QCOMPARE(list(r.itemTitles),
             QStringList({QString::fromUtf8("Jours de f\u00eate au village (1949)"),
                          "Harbour Lights, The (1995)", "Requiem for a Lighthouse (2000)"}));
}

// mllatest_style: ratings.csv with a header, CRLF and half stars; movies.csv in UTF-8 with a
// quoted title holding a comma and another holding "" escapes.
void TestRatings::readsCsv()
{
    const QString path = dataFile("ratings/mllatest_style/ratings.csv");
    QVERIFY(readBytes(path).contains("\r\n"));
    const Ratings r = loadRatings(std8(path));
    QCOMPARE(r.userIds, (std::vector<std::int64_t>{1, 3, 8}));
    QCOMPARE(r.itemIds, (std::vector<std::int64_t>{2, 47, 110}));
    QCOMPARE(r.entries.size(), std::size_t(7));
    std::vector<float> values;
    std::vector<std::int64_t> lines;
    for (const Rating& e : r.entries) {
        values.push_back(e.value);
        lines.push_back(e.line);
    }
    QCOMPARE(values, (std::vector<float>{4.5f, 3.0f, 0.5f, 5.0f, 3.5f, 1.0f, 2.5f}));
    QCOMPARE(lines, (std::vector<std::int64_t>{2, 3, 4, 5, 6, 7, 8})); // the header is line 1
    QCOMPARE(r.entries[0].user, 1);                                    // user 3
    QCOMPARE(r.entries[0].item, 2);                                    // item 110
    QCOMPARE(list(r.itemTitles),
             QStringList({QString::fromUtf8("\u00c9t\u00e9 \u00e0 Paris (1995)"),
                          "Harbour Lights, The (1996)", "The \"Long\" Night, Part 1 (1999)"}));
}

void TestRatings::folderAndGzip()
{
    // A folder is read as its u.data (with u.item beside).
    const Ratings file = loadRatings(std8(dataFile("ratings/ml100k_style/u.data")));
    const Ratings folder = loadRatings(std8(dataFile("ratings/ml100k_style")));
    QCOMPARE(str(folder.source), dataFile("ratings/ml100k_style/u.data"));
    QCOMPARE(folder.entries.size(), file.entries.size());
    QCOMPARE(folder.itemTitles, file.itemTitles);
    QCOMPARE(str(ratingsFileIn(std8(dataFile("ratings/ml1m_style")))),
             dataFile("ratings/ml1m_style/ratings.dat"));

    // Gzipped ratings and titles read the same, and a gzipped ratings.csv is found in a folder.
    QVERIFY(QDir().mkpath(m_files.filePath("gz")));
    for (const char* name : {"ratings.csv", "movies.csv"})
        QVERIFY(writeGzip(m_files.filePath(QString("gz/") + name + ".gz"),
                          readBytes(dataFile(QString("ratings/mllatest_style/") + name))));
    const Ratings plain = loadRatings(std8(dataFile("ratings/mllatest_style/ratings.csv")));
    const Ratings gz = loadRatings(std8(m_files.filePath("gz")));
    QCOMPARE(str(gz.source), m_files.filePath("gz/ratings.csv.gz"));
    QCOMPARE(gz.userIds, plain.userIds);
    QCOMPARE(gz.itemIds, plain.itemIds);
    QCOMPARE(gz.itemTitles, plain.itemTitles);
    for (std::size_t k = 0; k < plain.entries.size(); ++k) {
        QCOMPARE(gz.entries[k].value, plain.entries[k].value);
        QCOMPARE(gz.entries[k].line, plain.entries[k].line);
    }
    // A UTF-8 byte-order mark before the header is skipped.
    const QString bom = write("bom/ratings.csv", "\xEF\xBB\xBFuserId,movieId,rating\n2,9,4\n");
    QCOMPARE(loadRatings(std8(bom)).itemIds, (std::vector<std::int64_t>{9}));
}

void TestRatings::explicitTitles()
{
    // Titles from a file named otherwise, its layout from its first line; items without a line
    // are titled by id, lines of unrated items ignored.
    const QString ratings = write("expl/train.txt", "1\t10\t2\n1\t30\t4\n2\t20\t5\n");
    const QString titles = write("expl/names.lst", "30|Thirty (2001)|x\n10|Ten (1990)|y\n"
                                                   "40|Forty (1999)|z\n");
    QCOMPARE(ratingsFormatOf(std8(ratings)), std::optional<RatingsFormat>(RatingsFormat::Tab));
    QVERIFY(loadRatings(std8(ratings)).itemTitles.empty()); // nothing beside it
    const Ratings r = loadRatings(std8(ratings), std8(titles));
    QCOMPARE(list(r.itemTitles), QStringList({"Ten (1990)", "20", "Thirty (2001)"}));

    // readItemTitles on its own: (id, title) in file order, quoted CSV fields unescaped.
    const QString csv = write("expl/list.csv", "movieId,title,genres\n"
                                               "5,\"A, B\",Drama\n6,\"Say \"\"Hi\"\"\",X\n"
                                               "7,  Spaces  ,Y\n8,\"Last\"\n");
    const auto t = readItemTitles(std8(csv));
    QCOMPARE(t.size(), std::size_t(4));
    QCOMPARE(t[0].first, std::int64_t(5));
    QCOMPARE(str(t[0].second), QString("A, B"));
    QCOMPARE(str(t[1].second), QString("Say \"Hi\""));
    QCOMPARE(str(t[2].second), QString("Spaces"));
    QCOMPARE(str(t[3].second), QString("Last"));
    // movies.dat: a title holding "::" stays whole (the genres follow the last "::"); a UTF-8
    // file is not decoded twice.
    const QString dat = write("expl/movies.dat", "1::Odd::Title (2000)::Drama\n"
                                                 "2::Caf\xC3\xA9 (2001)::Comedy\n");
    const auto d = readItemTitles(std8(dat));
    QCOMPARE(str(d[0].second), QString("Odd::Title (2000)"));
    QCOMPARE(str(d[1].second), QString::fromUtf8("Caf\u00e9 (2001)"));
}

void TestRatings::reindexing()
{
    // Ids in any order, sparse and beyond the table of small ids (2^22): indices follow
    // ascending ids.
    const QString path = write("ids/u.data", "9000000000\t5\t1\t0\n3\t70000000\t2\t0\n3\t5\t3\t0\n"
                                             "42\t4\t4\t0\n9000000000\t4\t5\t0\n");
    const Ratings r = loadRatings(std8(path));
    QCOMPARE(r.userIds, (std::vector<std::int64_t>{3, 42, 9000000000}));
    QCOMPARE(r.itemIds, (std::vector<std::int64_t>{4, 5, 70000000}));
    std::vector<std::pair<int, int>> pairs;
    for (const Rating& e : r.entries)
        pairs.emplace_back(e.user, e.item);
    QCOMPARE(pairs, (std::vector<std::pair<int, int>>{{2, 1}, {0, 2}, {0, 1}, {1, 0}, {2, 0}}));
    QVERIFY(r.itemTitles.empty());
}

void TestRatings::formats_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text"); // empty: the file is not written (the name decides)
    QTest::addColumn<int>("format");      // -1: not ratings
    QTest::newRow("u.data") << "u.data" << QByteArray() << int(RatingsFormat::Tab);
    QTest::newRow("u1.base") << "u1.base" << QByteArray() << int(RatingsFormat::Tab);
    QTest::newRow("ua.test") << "ua.test" << QByteArray() << int(RatingsFormat::Tab);
    QTest::newRow("capitals, gz") << "U.DATA.gz" << QByteArray() << int(RatingsFormat::Tab);
    QTest::newRow("ratings.dat") << "ratings.dat" << QByteArray() << int(RatingsFormat::Dat);
    QTest::newRow("ratings.csv.gz") << "ratings.csv.gz" << QByteArray() << int(RatingsFormat::Csv);
    QTest::newRow("missing file") << "other.txt" << QByteArray() << -1;
    QTest::newRow("sniffed TAB") << "train.txt" << QByteArray("1\t2\t3.5\n")
                                 << int(RatingsFormat::Tab);
    QTest::newRow("sniffed ::") << "r.list" << QByteArray("1::2::3::4\r\n")
                                << int(RatingsFormat::Dat);
    QTest::newRow("sniffed header")
        << "r.txt" << QByteArray("userId,movieId,rating\n1,2,3\n") << int(RatingsFormat::Csv);
    QTest::newRow("comma, no header") << "c.txt" << QByteArray("1,2,3,4\n") << -1;
    QTest::newRow("TAB, not numbers") << "t.txt" << QByteArray("a\tb\tc\n") << -1;
    QTest::newRow("TAB, five fields") << "f.txt" << QByteArray("1\t2\t3\t4\t5\n") << -1;
    QTest::newRow("LDA-C") << "a.dat" << QByteArray("2 0:1 3:2\n") << -1;
}

void TestRatings::formats()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(int, format);
    const QString path = text.isEmpty() ? "nowhere/" + name : write("formats/" + name, text);
    const std::optional<RatingsFormat> f = ratingsFormatOf(std8(path));
    QCOMPARE(f ? int(*f) : -1, format);
}

void TestRatings::fileKinds()
{
    // A folder holding u.data is ratings, not a text corpus; ratings.csv is not a table.
    QCOMPARE(dataFileKind(std8(dataFile("ratings/ml100k_style"))), DataFileKind::Ratings);
    QCOMPARE(dataFileKind(std8(dataFile("ratings/mllatest_style/ratings.csv"))),
             DataFileKind::Ratings);
    // Files that do not exist: their names decide.
    QCOMPARE(guessFileKind("x/ratings.csv"), DataFileKind::Ratings);
    QCOMPARE(guessFileKind("x/ratings.dat"), DataFileKind::Ratings);
    QCOMPARE(guessFileKind("x/u2.test"), DataFileKind::Ratings);
    // Another name whose first line is a rating.
    QCOMPARE(dataFileKind(std8(write("kinds/ml.ratings", "1::2::3::4\n"))), DataFileKind::Ratings);
    // A table name is a ratings file only with MovieLens's header; a headerless table of whole
    // numbers stays a table.
    QCOMPARE(dataFileKind(std8(write("kinds/r.csv", "userId,movieId,rating,timestamp\n1,2,3,4\n"))),
             DataFileKind::Ratings);
    QCOMPARE(dataFileKind(std8(write("kinds/m.tsv", "1\t2\t3\t4\n5\t6\t7\t8\n"))),
             DataFileKind::Delimited);
    QCOMPARE(dataFileKind(std8(write("kinds/n.csv", "a,b\n1,2\n"))), DataFileKind::Delimited);
    // A folder of text stays a corpus.
    write("kinds/texts/a.txt", "some words\n");
    QCOMPARE(dataFileKind(std8(m_files.filePath("kinds/texts"))), DataFileKind::Corpus);
    // loadTable refuses ratings with a reason.
    const QString msg =
        errorOf([&] { loadTable({std8(dataFile("ratings/mllatest_style/ratings.csv"))}); });
    QVERIFY2(msg.contains("it is a ratings file (users × items)"), qPrintable(msg));
}

void TestRatings::ratingsErrors_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected"); // after "cannot read '<path>'"
    QTest::newRow("comma in u.data")
        << "u.data" << QByteArray("1\t2\t3\t4\n1,3,4,5\n")
        << " line 2: no TAB between the fields (they are separated by ','?); a rating is 'user id "
           "TAB item id TAB rating TAB timestamp'";
    QTest::newRow("TAB in ratings.dat")
        << "ratings.dat" << QByteArray("1::2::3::4\n\n1\t3\t4\t5\n")
        << " line 3: no '::' between the fields (they are separated by TAB?)";
    QTest::newRow("semicolons in ratings.csv")
        << "ratings.csv" << QByteArray("userId,movieId,rating,timestamp\n1;2;3;4\n")
        << " line 2: no ',' between the fields (they are separated by ';'?)";
    QTest::newRow("one field, no delimiter")
        << "u.data" << QByteArray("12\n") << " line 1: no TAB between the fields (one field, '12')";
    QTest::newRow("two fields") << "u.data" << QByteArray("1\t2\n")
                                << " line 1: 2 fields, but a rating is 'user id TAB item id TAB "
                                   "rating TAB timestamp' (or without the timestamp)";
    QTest::newRow("five fields") << "ratings.dat" << QByteArray("1::2::3::4::5\n")
                                 << " line 1: 5 fields, but a rating is "
                                    "'UserID::MovieID::Rating::Timestamp'";
    QTest::newRow("user not a number") << "u.data" << QByteArray("1\t2\t3\t4\nx\t2\t3\t4\n")
                                       << " line 2, field 1 (user id): 'x' is not a whole number";
    QTest::newRow("user 0") << "u.data" << QByteArray("0\t2\t3\t4\n")
                            << " line 1, field 1 (user id): '0', but ids must be whole numbers ≥ 1";
    QTest::newRow("negative item") << "ratings.dat" << QByteArray("1::-4::3::4\n")
                                   << " line 1, field 2 (MovieID): '-4', but ids must be whole "
                                      "numbers ≥ 1";
    QTest::newRow("fractional item") << "ratings.csv" << QByteArray("1,2.5,3,4\n")
                                     << " line 1, field 2 (movieId): '2.5' is not a whole number";
    QTest::newRow("huge user") << "u.data" << QByteArray("99999999999999999999\t1\t1\t1\n")
                               << " line 1, field 1 (user id): '99999999999999999999' is too large";
    QTest::newRow("rating not a number") << "u.data" << QByteArray("1\t2\tabc\t4\n")
                                         << " line 1, field 3 (rating): 'abc' is not a number";
    QTest::newRow("rating nan") << "ratings.csv" << QByteArray("userId,movieId,rating\n1,2,nan\n")
                                << " line 2, field 3 (rating): 'nan', but a rating must be a "
                                   "finite number > 0";
    QTest::newRow("rating inf") << "ratings.dat" << QByteArray("1::2::inf::4\n")
                                << " line 1, field 3 (Rating): 'inf', but a rating must be a "
                                   "finite number > 0";
    QTest::newRow("rating 0") << "u.data" << QByteArray("1\t2\t0\t4\n")
                              << " line 1, field 3 (rating): '0', but a rating must be a finite "
                                 "number > 0";
    QTest::newRow("rating negative")
        << "u.data" << QByteArray("1\t2\t-1\t4\n") << " line 1, field 3 (rating): '-1', but";
    QTest::newRow("rating beyond float")
        << "u.data" << QByteArray("1\t2\t1e999\t4\n")
        << " line 1, field 3 (rating): '1e999', but a rating must be a finite number > 0";
    QTest::newRow("decimal comma") << "u.data" << QByteArray("1\t2\t3,5\t4\n")
                                   << " line 1, field 3 (rating): '3,5' is not a number";
    QTest::newRow("timestamp") << "u.data" << QByteArray("1\t2\t3\t12:00\n")
                               << " line 1, field 4 (timestamp): '12:00' is not a whole number";
    QTest::newRow("spaces around a field")
        << "ratings.csv" << QByteArray("1, 2,3,4\n")
        << " line 1, field 2 (movieId): ' 2' is not a whole number";
    QTest::newRow("repeated pair")
        << "u.data"
        << QByteArray("5\t1\t1\t1\n3\t12\t4\t1\n3\t11\t4\t1\n9\t9\t1\t1\n\n5\t2\t2\t2\n"
                      "3\t12\t5\t1\n5\t1\t2\t2\n")
        << " line 7: user 3 rated item 12 again (first at line 2)";
    QTest::newRow("empty") << "u.data" << QByteArray() << ": no ratings (the file is empty)";
    QTest::newRow("blank lines only")
        << "ratings.dat" << QByteArray("\n\r\n\n") << ": no ratings (the file is empty)";
    QTest::newRow("header only") << "ratings.csv"
                                 << QByteArray("userId,movieId,rating,timestamp\r\n")
                                 << ": no ratings (only a header line)";
    QTest::newRow("wrong header") << "ratings.csv" << QByteArray("user,item,rating\n1,2,3\n")
                                  << " line 1: 'user,item,rating', but the first line of a "
                                     "ratings.csv is the header 'userId,movieId,rating,timestamp' "
                                     "or a rating";
}

void TestRatings::ratingsErrors()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    static int n = 0;
    const QString path = write("bad" + QString::number(++n) + "/" + name, text);
    const QString msg = errorOf([&] { loadRatings(std8(path)); });
    QCOMPARE(msg.left(msg.indexOf(expected)), "cannot read '" + path + "'");
    QVERIFY2(msg.contains(expected), qPrintable(msg));
}

void TestRatings::titlesErrors_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("u.item id") << "u.item" << QByteArray("1|A|x\nB|B|y\n")
                               << " line 2, field 1 (movie id): 'B' is not a whole number";
    QTest::newRow("u.item one field")
        << "u.item" << QByteArray("1|A|x\n\n7\n")
        << " line 3: one field ('7'), but an item is 'movie id|movie title|release date|…'";
    QTest::newRow("movies.dat id 0") << "movies.dat" << QByteArray("0::A::Drama\n")
                                     << " line 1, field 1 (MovieID): '0', but ids must be whole "
                                        "numbers ≥ 1";
    QTest::newRow("listed twice") << "movies.dat" << QByteArray("4::A::Drama\n5::B::X\n4::C::Y\n")
                                  << " line 3, field 1 (MovieID): item 4 is listed again (first "
                                     "at line 1)";
    QTest::newRow("open quote") << "movies.csv" << QByteArray("movieId,title,genres\n3,\"A, B,X\n")
                                << " line 2, field 2 (title): a quote opened and not closed";
    QTest::newRow("text after the quote")
        << "movies.csv" << QByteArray("movieId,title,genres\n3,\"A\"B,X\n")
        << " line 2, field 2 (title): text after the closing quote ('B,X')";
    QTest::newRow("quote inside") << "movies.csv" << QByteArray("3,A \"B\",X\n")
                                  << " line 1, field 2 (title): a quote inside an unquoted title";
    QTest::newRow("wrong header") << "movies.csv" << QByteArray("id,name\n1,A\n")
                                  << " line 1: 'id,name', but the first line of a movies.csv is "
                                     "the header 'movieId,title,genres' or an item";
    QTest::newRow("header only") << "movies.csv" << QByteArray("movieId,title,genres\n")
                                 << ": no items (only a header line)";
    QTest::newRow("empty") << "u.item" << QByteArray("\n") << ": no items (the file is empty)";
    QTest::newRow("unknown layout")
        << "titles.txt" << QByteArray("1 Toy\n") << ": not a MovieLens titles file";
}

void TestRatings::titlesErrors()
{
    QFETCH(QString, name);
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    static int n = 0;
    const QString folder = "badtitles" + QString::number(++n);
    const QString path = write(folder + "/" + name, text);
    const QString msg = errorOf([&] { readItemTitles(std8(path)); });
    QCOMPARE(msg.left(msg.indexOf(expected)), "cannot read '" + path + "'");
    QVERIFY2(msg.contains(expected), qPrintable(msg));
    // Found beside a ratings file (u.item and movies.*), the same error stops loadRatings.
    if (name != "titles.txt") {
        const QString ratings = name == "u.item"       ? "u.data"
                                : name == "movies.dat" ? "ratings.dat"
                                                       : "ratings.csv";
        const QByteArray line = name == "u.item"       ? "1\t1\t1\n"
                                : name == "movies.dat" ? "1::1::1\n"
                                                       : "1,1,1\n";
        write(folder + "/" + ratings, line);
        QCOMPARE(errorOf([&] { loadRatings(std8(m_files.filePath(folder))); }), msg);
    }
}

void TestRatings::loadErrors()
{
    const QString none = m_files.filePath("missing/u.data");
    QCOMPARE(errorOf([&] { loadRatings(std8(none)); }),
             "cannot read '" + none + "': file does not exist");
    const QString empty = m_files.filePath("emptyfolder");
    QVERIFY(QDir().mkpath(empty));
    QCOMPARE(errorOf([&] { loadRatings(std8(empty)); }),
             "cannot read '" + empty +
                 "': no ratings file in the folder (expected u.data, "
                 "ratings.dat or ratings.csv, optionally .gz)");
    const QString table = write("other/cells.csv", "a,b\n1,2\n");
    QVERIFY(errorOf([&] {
                loadRatings(std8(table));
            }).startsWith("cannot read '" + table + "': not a MovieLens ratings file"));
    const QString titles = m_files.filePath("missing/u.item");
    QCOMPARE(
        errorOf([&] { loadRatings(std8(dataFile("ratings/ml100k_style/u.data")), std8(titles)); }),
        "cannot read '" + titles + "': file does not exist");
}

// --- the split ---------------------------------------------------------------------------------

void TestRatings::options_data()
{
    QTest::addColumn<double>("binarize");
    QTest::addColumn<double>("test");
    QTest::addColumn<double>("validation");
    QTest::addColumn<QString>("expected");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("binarize negative") << -1.0 << 0.2 << 0.01 << "binarize = -1, but must be ≥ 0";
    QTest::newRow("binarize nan") << nan << 0.2 << 0.01 << "binarize = nan, but must be ≥ 0";
    QTest::newRow("binarize inf") << std::numeric_limits<double>::infinity() << 0.2 << 0.01
                                  << "binarize = inf, but must be ≥ 0 and finite";
    QTest::newRow("test 1") << 0.0 << 1.0 << 0.0 << "test_fraction = 1, but must be in [0, 1)";
    QTest::newRow("test negative")
        << 0.0 << -0.1 << 0.0 << "test_fraction = -0.1, but must be in [0, 1)";
    QTest::newRow("validation 1") << 0.0 << 0.2 << 1.0
                                  << "validation_fraction = 1, but must be in [0, 1)";
    QTest::newRow("validation nan")
        << 0.0 << 0.2 << nan << "validation_fraction = nan, but must be in [0, 1)";
    QTest::newRow("sum 1") << 0.0 << 0.75 << 0.25
                           << "validation_fraction = 0.25, but must be < 1 − test_fraction = 0.25";
}

void TestRatings::options()
{
    QFETCH(double, binarize);
    QFETCH(double, test);
    QFETCH(double, validation);
    QFETCH(QString, expected);
    QVERIFY(!RatingsOptions{}.validate());
    RatingsOptions o;
    o.binarize = binarize;
    o.testFraction = test;
    o.validationFraction = validation;
    const std::optional<std::string> problem = o.validate();
    QVERIFY(problem);
    QVERIFY2(str(*problem).startsWith(expected), problem->c_str());
    const QString msg =
        invalidOf([&] { makeRatingsData(makeRatings(randomTriples(5, 4, 2, 4, 1)), o); });
    QVERIFY2(msg.startsWith("makeRatingsData: " + expected), qPrintable(msg));
}

void TestRatings::paramsRoundTrip()
{
    QCOMPARE(RatingsOptions::fromParams(defaultValues(RatingsOptions::params())), RatingsOptions{});
    QStringList keys;
    for (const ParamSpec& p : RatingsOptions::params())
        keys << str(p.key);
    QCOMPARE(keys, QStringList({"binarize", "test_fraction", "validation_fraction", "split_seed"}));
    ParamValues v = defaultValues(RatingsOptions::params());
    v["split_seed"] = std::int64_t(9);
    v["binarize"] = 3.5;
    v["test_fraction"] = 0.1;
    v["validation_fraction"] = 0.0;
    const RatingsOptions o = RatingsOptions::fromParams(v);
    QCOMPARE(o.seed, std::uint64_t(9));
    QCOMPARE(o.binarize, 3.5);
    QCOMPARE(o.testFraction, 0.1);
    QCOMPARE(o.validationFraction, 0.0);
    // The declared ranges are checked by resolveParams, naming the key.
    const auto bad = resolveParams(RatingsOptions::params(), {{"test_fraction", 1.5}});
    QVERIFY(std::holds_alternative<ParamError>(bad));
    QCOMPARE(str(std::get<ParamError>(bad).key), QString("test_fraction"));
}

// Train, test and validation are disjoint, together the input, in well-formed rows; the
// labels come from the ratings.
void TestRatings::splitPartitions()
{
    const std::vector<Triple> triples = randomTriples(300, 40, 1, 30, 11);
    Ratings r = makeRatings(triples, "syn.data");
    r.itemTitles.assign(std::size_t(r.items()), "");
    r.itemTitles[0] = "First";
    for (double test : {0.0, 0.2, 0.5}) {
        RatingsOptions o;
        o.testFraction = test;
        o.validationFraction = 0.05;
        RatingsSplitStats s;
        const CountDataPtr d = makeRatingsData(r, o, &s);
        QCOMPARE(d->kind, std::string("ratings"));
        QCOMPARE(d->source, std::string("syn.data"));
        QCOMPARE(d->rows(), r.users());
        QCOMPARE(d->cols(), r.items());
        QCOMPARE(d->rowIds, r.userIds);
        QCOMPARE(d->columnIds, r.itemIds);
        QCOMPARE(str(d->rowNames[1]), QString("user 10"));
        QCOMPARE(str(d->columnNames[0]), QString("First"));
        QCOMPARE(str(d->columnNames[1]), QString("102")); // no title: the id
        QVERIFY(d->testRows.empty());
        QCOMPARE(d->trainingRowCount(), r.users());
        for (const SparseRows* m : {&d->train, &d->heldOut, &d->validation})
            QVERIFY(wellFormed(*m, r.users(), r.items()));

        const Cells train = cellsOf(*d, d->train), test2 = cellsOf(*d, d->heldOut),
                    validation = cellsOf(*d, d->validation);
        Cells all;
        for (const Triple& t : triples)
            all[{t.user, t.item}] = t.value;
        Cells joined = train;
        for (const Cells* part : {&test2, &validation})
            for (const auto& [key, y] : *part)
                QVERIFY(joined.emplace(key, y).second); // disjoint
        QCOMPARE(joined, all);
        QCOMPARE(s.users, r.users());
        QCOMPARE(s.items, r.items());
        QCOMPARE(s.train, std::int64_t(train.size()));
        QCOMPARE(s.test, std::int64_t(test2.size()));
        QCOMPARE(s.validation, std::int64_t(validation.size()));
        QCOMPARE(s.droppedBelowThreshold, std::int64_t(0));
        std::int64_t withoutTest = 0;
        for (std::int64_t u = 0; u < d->rows(); ++u)
            withoutTest += d->heldOut.rowNonZeros(u) == 0;
        QCOMPARE(s.usersWithoutTest, withoutTest);
        if (test == 0.0)
            QCOMPARE(s.usersWithoutTest, r.users());
    }
}

// round(0.2 n) test entries for every user; the validation count is 0.01 n rounded down or up.
void TestRatings::splitCountsPerUser()
{
    // Many users on few items: every item keeps training ratings, nothing is returned.
    const Ratings r = makeRatings(randomTriples(500, 30, 1, 30, 5));
    RatingsOptions o;
    o.validationFraction = 0.05;
    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(r, o, &s);
    QCOMPARE(s.returnedToTraining, std::int64_t(0));
    std::vector<std::int64_t> n(std::size_t(r.users()), 0);
    for (const Rating& e : r.entries)
        ++n[std::size_t(e.user)];
    std::int64_t roundedUp = 0, withoutTest = 0;
    for (std::int64_t u = 0; u < r.users(); ++u) {
        const std::int64_t nu = n[std::size_t(u)];
        const std::int64_t test = d->heldOut.rowNonZeros(u), val = d->validation.rowNonZeros(u);
        QCOMPARE(test, std::min(std::int64_t(std::llround(0.2 * double(nu))), nu - 1));
        const double v = 0.05 * double(nu);
        QVERIFY2(
            val == std::int64_t(std::floor(v)) || val == std::int64_t(std::ceil(v)),
            qPrintable(QString("user %1: %2 validation entries of %3").arg(u).arg(val).arg(nu)));
        QCOMPARE(d->train.rowNonZeros(u), nu - test - val);
        QVERIFY(d->train.rowNonZeros(u) >= 1);
        roundedUp += val == std::int64_t(std::ceil(v)) && v != std::floor(v);
        withoutTest += test == 0;
    }
    QVERIFY(roundedUp > 50);  // users with fewer than 20 ratings get one at random
    QVERIFY(withoutTest > 0); // 1 and 2 ratings: round(0.2 n) = 0
    QCOMPARE(s.usersWithoutTest, withoutTest);
}

// Validation is 1 % of the ratings overall although every user has fewer than 100 (so rounding
// each user's 0.01 n_u to the nearest would give none).
void TestRatings::validationOverall()
{
    const Ratings r = makeRatings(randomTriples(5000, 200, 10, 60, 21));
    RatingsSplitStats s;
    makeRatingsData(r, {}, &s);
    QCOMPARE(s.returnedToTraining, std::int64_t(0));
    std::vector<std::int64_t> n(std::size_t(r.users()), 0);
    for (const Rating& e : r.entries)
        ++n[std::size_t(e.user)];
    // Each user's count is floor(x) + Bernoulli(frac(x)) with x = 0.01 n_u: its mean is Σ x and
    // its variance Σ frac(x)(1 − frac(x)). Allowed: 5 standard deviations (about 0.1 % of the
    // ratings here; a failure by chance has probability below 1e-6).
    double mean = 0.0, variance = 0.0;
    for (std::int64_t nu : n) {
        const double x = 0.01 * double(nu), f = x - std::floor(x);
        mean += x;
        variance += f * (1.0 - f);
    }
    const double tolerance = 5.0 * std::sqrt(variance);
    QVERIFY2(std::abs(double(s.validation) - mean) <= tolerance,
             qPrintable(QString("%1 validation entries, expected %2 ± %3")
                            .arg(s.validation)
                            .arg(mean)
                            .arg(tolerance)));
    const double total = double(r.entries.size());
    QVERIFY(std::abs(double(s.validation) / total - 0.01) < 0.0015);
    QVERIFY(std::abs(double(s.test) / total - 0.2) < 0.01);
}

void TestRatings::splitReproducible()
{
    const Ratings r = makeRatings(randomTriples(200, 50, 5, 40, 3));
    RatingsOptions o;
    o.seed = 7;
    const CountDataPtr a = makeRatingsData(r, o), b = makeRatingsData(r, o);
    QCOMPARE(cellsOf(*a, a->heldOut), cellsOf(*b, b->heldOut));
    QCOMPARE(cellsOf(*a, a->validation), cellsOf(*b, b->validation));
    QCOMPARE(a->train.cols, b->train.cols);
    o.seed = 8;
    const CountDataPtr c = makeRatingsData(r, o);
    QVERIFY(cellsOf(*c, c->heldOut) != cellsOf(*a, a->heldOut));
    QCOMPARE(c->heldOut.nonZeros(), a->heldOut.nonZeros()); // the counts do not depend on it
    // The test entries do not depend on the validation fraction (the validation entries are
    // drawn after them from the same stream).
    o.seed = 7;
    o.validationFraction = 0.0;
    const CountDataPtr e = makeRatingsData(r, o);
    QCOMPARE(cellsOf(*e, e->heldOut), cellsOf(*a, a->heldOut));
    QCOMPARE(e->validation.nonZeros(), std::int64_t(0));
    QCOMPARE(e->validation.rows(), r.users());
}

// A user's split depends on the seed and that user's ratings only: the same with another user
// removed, with the lines in another order, with other users added.
void TestRatings::splitIndependentOfOtherUsers()
{
    const std::vector<Triple> all = randomTriples(400, 40, 3, 40, 13);
    RatingsOptions o;
    o.validationFraction = 0.05;
    RatingsSplitStats s;
    const Ratings full = makeRatings(all);
    const CountDataPtr a = makeRatingsData(full, o, &s);
    QCOMPARE(s.returnedToTraining, std::int64_t(0));

    // Without user 10 (the second) and without the first 100 users' ids: the rest re-indexed.
    for (const std::int64_t cut : {std::int64_t(1), std::int64_t(100)}) {
        std::vector<Triple> fewer;
        for (const Triple& t : all)
            if (cut == 1 ? t.user != 10 : t.user >= 7 + 3 * cut)
                fewer.push_back(t);
        std::reverse(fewer.begin(), fewer.end()); // and the lines in another order
        const Ratings part = makeRatings(fewer);
        QVERIFY(part.users() < full.users());
        const CountDataPtr b = makeRatingsData(part, o, &s);
        QCOMPARE(s.returnedToTraining, std::int64_t(0));
        int compared = 0;
        for (std::int64_t id : part.userIds) {
            QCOMPARE(userCells(*b, b->heldOut, id), userCells(*a, a->heldOut, id));
            QCOMPARE(userCells(*b, b->validation, id), userCells(*a, a->validation, id));
            QCOMPARE(userCells(*b, b->train, id), userCells(*a, a->train, id));
            ++compared;
        }
        QCOMPARE(compared, int(part.users()));
    }
}

void TestRatings::splitKeepsATrainingRating()
{
    // Users with 1 to 4 ratings and large fractions: round(0.7 n) + validation would take all.
    // User 1000 rates 20 items: 14 test, 5.8 validation rounded at random but capped to 5.
    // Users 2001 to 2020 rate one item each, so every item has a training rating and nothing
    // is returned.
    std::vector<Triple> t;
    for (std::int64_t u = 1; u <= 40; ++u)
        for (std::int64_t i = 0; i < 1 + u % 4; ++i)
            t.push_back({u, 1 + i, 3.0f});
    for (std::int64_t i = 1; i <= 20; ++i) {
        t.push_back({1000, i, 2.0f});
        t.push_back({2000 + i, i, 5.0f});
    }
    RatingsOptions o;
    o.testFraction = 0.7;
    o.validationFraction = 0.29;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        o.seed = seed;
        RatingsSplitStats s;
        const CountDataPtr d = makeRatingsData(makeRatings(t), o, &s);
        for (std::int64_t u = 0; u < d->rows(); ++u) {
            const std::int64_t n =
                d->train.rowNonZeros(u) + d->heldOut.rowNonZeros(u) + d->validation.rowNonZeros(u);
            // n − 1 held out (nothing held out of one rating).
            QCOMPARE(d->train.rowNonZeros(u), std::int64_t(1));
            if (d->rowIds[std::size_t(u)] == 1000) {
                QCOMPARE(n, std::int64_t(20));
                QCOMPARE(d->heldOut.rowNonZeros(u), std::int64_t(14));
                QCOMPARE(d->validation.rowNonZeros(u), std::int64_t(5));
            }
        }
        QCOMPARE(s.returnedToTraining, std::int64_t(0));
        QCOMPARE(s.validation, std::int64_t(5));
        QCOMPARE(s.usersWithoutTest, std::int64_t(30)); // the users with one rating
    }
}

void TestRatings::binarize()
{
    // Half stars: ≥ 3.5 become 1, the rest are dropped.
    const std::vector<Triple> t = {{1, 1, 0.5f}, {1, 2, 3.5f}, {1, 3, 5.0f},  {2, 1, 3.0f},
                                   {2, 2, 4.0f}, {3, 3, 1.0f}, {2, 3, 3.49f}, {3, 1, 4.5f}};
    RatingsOptions o;
    o.binarize = 3.5;
    o.testFraction = 0.0;
    o.validationFraction = 0.0;
    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(makeRatings(t), o, &s);
    QCOMPARE(s.droppedBelowThreshold, std::int64_t(4));
    QCOMPARE(s.train, std::int64_t(4));
    QCOMPARE(cellsOf(*d, d->train),
             (Cells{{{1, 2}, 1.0f}, {{1, 3}, 1.0f}, {{2, 2}, 1.0f}, {{3, 1}, 1.0f}}));
    QCOMPARE(d->rows(), std::int64_t(3)); // users and items stay, even when emptied
    QCOMPARE(d->cols(), std::int64_t(3));
    // Without binarising the values are the counts.
    o.binarize = 0.0;
    const CountDataPtr raw = makeRatingsData(makeRatings(t), o, &s);
    QCOMPARE(s.droppedBelowThreshold, std::int64_t(0));
    QCOMPARE(raw->train.total(), 0.5 + 3.5 + 5 + 3 + 4 + 1 + double(3.49f) + 4.5);
    // A threshold above every rating leaves nothing.
    o.binarize = 6.0;
    QCOMPARE(invalidOf([&] { makeRatingsData(makeRatings(t), o); }),
             QString("makeRatingsData: binarize = 6, but drops every rating of 'synthetic' (the "
                     "largest is 5)"));
    // With a split: the held-out entries are ones too.
    o.binarize = 4.0;
    o.testFraction = 0.3;
    const CountDataPtr split =
        makeRatingsData(makeRatings(randomTriples(300, 20, 5, 20, 2)), o, &s);
    QVERIFY(s.droppedBelowThreshold > 0 && s.test > 0);
    for (const SparseRows* m : {&split->train, &split->heldOut, &split->validation})
        for (float y : m->counts)
            QCOMPARE(y, 1.0f);
}

void TestRatings::returnedToTraining()
{
    // 200 users with two ratings each: item 1, which everyone rates, and an item of their own.
    // test_fraction 0.5 holds out one of the two; when it is the user's own item, nobody else
    // trains on it, so it goes back to training.
    std::vector<Triple> t;
    for (std::int64_t u = 1; u <= 200; ++u) {
        t.push_back({u, 1, 4.0f});
        t.push_back({u, 1000 + u, 2.0f});
    }
    RatingsOptions o;
    o.testFraction = 0.5;
    o.validationFraction = 0.0;
    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(makeRatings(t), o, &s);
    QVERIFY2(s.returnedToTraining > 50 && s.returnedToTraining < 150,
             qPrintable(QString::number(s.returnedToTraining)));
    QCOMPARE(s.test + s.returnedToTraining, std::int64_t(200)); // one held out per user before
    QCOMPARE(s.train, std::int64_t(400) - s.test);
    QCOMPARE(s.usersWithoutTest, s.returnedToTraining);
    // Every held-out entry is of item 1, which many users train on; every own item trains.
    std::vector<std::int64_t> trainers(std::size_t(d->cols()), 0);
    for (std::int32_t c : d->train.cols)
        ++trainers[std::size_t(c)];
    for (std::int32_t c : d->heldOut.cols)
        QCOMPARE(d->columnIds[std::size_t(c)], std::int64_t(1));
    for (std::int64_t c = 1; c < d->cols(); ++c)
        QCOMPARE(trainers[std::size_t(c)], std::int64_t(1));
    QVERIFY(trainers[0] > 50);

    // Validation entries are returned too.
    o.testFraction = 0.0;
    o.validationFraction = 0.5;
    makeRatingsData(makeRatings(t), o, &s);
    QVERIFY(s.returnedToTraining > 0);
    QCOMPARE(s.validation + s.returnedToTraining, std::int64_t(200));
}

void TestRatings::splitErrors()
{
    Ratings empty;
    empty.source = "none.dat";
    QCOMPARE(invalidOf([&] { makeRatingsData(empty, {}); }),
             QString("makeRatingsData: 'none.dat' has no ratings"));

    Ratings r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}, {5, 7, 2.0f}, {6, 8, 1.0f}});
    QCOMPARE(invalidOf([&] { makeRatingsData(r, {}); }),
             QString("makeRatingsData: 'synthetic' line 3: user 5 rated item 7 again (first at "
                     "line 1)"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.entries[1].line = 0; // made in memory: its position is named
    r.entries[1].item = 3;
    QCOMPARE(invalidOf([&] { makeRatingsData(r, {}); }),
             QString("makeRatingsData: 'synthetic' rating 2: item index 3, but there are 1 items"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.entries[0].user = -1;
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("line 1: user index -1, but there are 2 users"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.entries[1].value = std::numeric_limits<float>::quiet_NaN();
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("line 2: rating nan, but ratings must be finite and > 0"));
    r.entries[1].value = 0.0f;
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("line 2: rating 0, but ratings must be finite and > 0"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.userIds = {6, 5};
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("userIds are not strictly increasing (index 0 is 6, index 1 is 5)"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.itemTitles = {"a", "b"};
    QVERIFY(invalidOf([&] { makeRatingsData(r, {}); }).contains("has 2 item titles for 1 items"));
}

// --- the real MovieLens 100K -------------------------------------------------------------------

// Counts from the README of ml-100k ("100,000 ratings (1-5) from 943 users on 1682 movies. Each
// user has rated at least 20 movies."), and from an independent count of u.data (awk).
void TestRatings::movieLens100k()
{
    QString dir = qEnvironmentVariable("SVI_RATINGS_DIR");
    if (dir.isEmpty())
        QSKIP("set SVI_RATINGS_DIR to the ml-100k folder of MovieLens 100K (or the folder "
              "holding it)");
    if (!QFileInfo::exists(dir + "/u.data"))
        dir += "/ml-100k";
    const Ratings r = loadRatings(std8(dir));
    QCOMPARE(r.entries.size(), std::size_t(100000));
    QCOMPARE(r.users(), std::int64_t(943));
    QCOMPARE(r.items(), std::int64_t(1682));
    QCOMPARE(r.userIds.front(), std::int64_t(1));
    QCOMPARE(r.userIds.back(), std::int64_t(943));
    QCOMPARE(r.itemIds.back(), std::int64_t(1682));
    // u.data's first line: "196 242 3 881250949".
    QCOMPARE(r.userIds[std::size_t(r.entries[0].user)], std::int64_t(196));
    QCOMPARE(r.itemIds[std::size_t(r.entries[0].item)], std::int64_t(242));
    QCOMPARE(r.entries[0].value, 3.0f);
    // Star counts (awk -F'\t' '{print $3}' u.data | sort | uniq -c).
    std::map<float, std::int64_t> stars;
    for (const Rating& e : r.entries)
        ++stars[e.value];
    QCOMPARE(stars, (std::map<float, std::int64_t>{
                        {1.0f, 6110}, {2.0f, 11370}, {3.0f, 27145}, {4.0f, 34174}, {5.0f, 21201}}));
    QCOMPARE(str(r.itemTitles[0]), QString("Toy Story (1995)"));
    QCOMPARE(str(r.itemTitles[1632]),
             QString::fromUtf8("\u00c1 k\u00f6ldum klaka (Cold Fever) (1994)"));

    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(r, {}, &s);
    std::vector<std::int64_t> n(943, 0);
    for (const Rating& e : r.entries)
        ++n[std::size_t(e.user)];
    std::int64_t test = 0;
    for (std::int64_t nu : n) {
        QVERIFY(nu >= 20);
        test += std::llround(0.2 * double(nu));
    }
    // round(0.2 n_u) per user, less those returned to training (test or validation entries).
    QVERIFY(s.test <= test && s.test + s.returnedToTraining >= test);
    QVERIFY(std::abs(double(s.test) / 100000.0 - 0.2) < 0.002);
    QVERIFY(std::abs(double(s.validation) - 1000.0) < 100.0);
    QCOMPARE(s.train + s.test + s.validation, std::int64_t(100000));
    QCOMPARE(s.usersWithoutTest, std::int64_t(0));
    QCOMPARE(d->rows(), std::int64_t(943));

    // The prepared 80/20 split files read too: u1.base and u1.test together are u.data.
    const Ratings base = loadRatings(std8(dir + "/u1.base"));
    const Ratings held = loadRatings(std8(dir + "/u1.test"));
    QCOMPARE(base.entries.size() + held.entries.size(), std::size_t(100000));
    QCOMPARE(str(base.itemTitles[0]), QString("Toy Story (1995)"));
}

QTEST_GUILESS_MAIN(TestRatings)
#include "test_ratings.moc"
