// Ratings files: the MovieLens readers on the hand-written samples of tests/data/ratings (u.data
// and u.item, ratings.dat and movies.dat, ratings.csv and movies.csv with CRLF, half stars and
// quoted titles), gzip, layout sniffing, dense re-indexing, Latin-1 titles, and the message for
// every kind of bad line; dataFileKind. With SVI_RATINGS_DIR set (the ml-100k folder, or the
// folder holding it), the real MovieLens 100K too. The split: test_ratings_split.cpp.

#include "core/data/ratings.h"
#include "core/io/data_files.h"
#include "core/io/ratings_files.h"
#include "tests/core/data_testing.h"

#include <QDir>
#include <QFile>
#include <QtTest>
#include <cmath>
#include <map>

using namespace svi;
using namespace data_testing;

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
    void readsLastFm();
    void formats_data();
    void formats();
    void fileKinds();
    void ratingsErrors_data();
    void ratingsErrors();
    void titlesErrors_data();
    void titlesErrors();
    void loadErrors();

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

// A Last.fm 2K layout written here (the data set's licence keeps it out of the project): a
// header, CRLF, play counts; artists.dat beside it in UTF-8 with LF, a header and an empty
// pictureURL. The values are counts, and the built data say so for the models that read it.
void TestRatings::readsLastFm()
{
    write("lastfm/user_artists.dat", "userID\tartistID\tweight\r\n2\t51\t13883\r\n"
                                     "2\t52\t11690\r\n7\t51\t1\r\n\r\n9\t18745\t352698\r\n");
    write("lastfm/artists.dat", "id\tname\turl\tpictureURL\n51\tDuran Duran\thttp://a\t\n"
                                "52\tMorcheeba\thttp://b\thttp://c\n18745\t"
                                "\xc3\x89"
                                "dith Piaf\thttp://d\thttp://e\n");
    const QString folder = m_files.filePath("lastfm");
    QCOMPARE(ratingsFormatOf(std8(folder)), std::optional(RatingsFormat::LastFm));
    const Ratings r = loadRatings(std8(folder));
    QVERIFY(r.counts);
    QCOMPARE(r.userIds, (std::vector<std::int64_t>{2, 7, 9}));
    QCOMPARE(r.itemIds, (std::vector<std::int64_t>{51, 52, 18745}));
    QCOMPARE(r.entries.size(), std::size_t(4));
    QCOMPARE(r.entries[3].value, 352698.0f);
    QCOMPARE(r.entries[3].line, std::int64_t(6)); // the blank line counts
    QCOMPARE(list(r.itemTitles),
             QStringList({"Duran Duran", "Morcheeba", QString::fromUtf8("\u00c9dith Piaf")}));
    RatingsOptions o;
    o.testFraction = 0.0;
    o.validationFraction = 0.0;
    const CountDataPtr data = makeRatingsData(r, o);
    QCOMPARE(data->values, std::string("counts"));
    QVERIFY(!data->observedZeros);
    QCOMPARE(dataFileKind(std8(folder + "/user_artists.dat")), DataFileKind::Ratings);
    // MovieLens stays stars.
    QCOMPARE(makeRatingsData(loadRatings(std8(dataFile("ratings/ml100k_style"))), o)->values,
             std::string("stars"));
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
    QTest::newRow("user_artists.dat")
        << "user_artists.dat" << QByteArray() << int(RatingsFormat::LastFm);
    QTest::newRow("sniffed Last.fm header")
        << "plays.tsv" << QByteArray("userID\tartistID\tweight\r\n2\t51\t13883\r\n")
        << int(RatingsFormat::LastFm);
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
    QTest::newRow("Last.fm fraction")
        << "user_artists.dat" << QByteArray("userID\tartistID\tweight\r\n2\t5\t1.5\r\n")
        << " line 2, field 3 (weight): '1.5', but a play count is a whole number ≥ 1";
    QTest::newRow("Last.fm header")
        << "user_artists.dat" << QByteArray("user\tartist\tplays\n2\t5\t1\n")
        << " line 1: 'user\tartist\tplays', but the first line of a Last.fm user_artists.dat is "
           "the header 'userID TAB artistID TAB weight' or a play count";
    QTest::newRow("Last.fm zero")
        << "user_artists.dat" << QByteArray("userID\tartistID\tweight\n2\t5\t0\n")
        << " line 2, field 3 (weight): '0', but a rating must be a finite number > 0";
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
        << "titles.txt" << QByteArray("1 Toy\n") << ": not a titles file";
    QTest::newRow("artists.dat header")
        << "artists.dat" << QByteArray("id\tartist\n1\tA\n")
        << " line 1: 'id\tartist', but the first line of an artists.dat is the header 'id TAB "
           "name TAB url TAB pictureURL' or an artist";
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
        const QString ratings = name == "u.item"        ? "u.data"
                                : name == "movies.dat"  ? "ratings.dat"
                                : name == "artists.dat" ? "user_artists.dat"
                                                        : "ratings.csv";
        const QByteArray line = name == "u.item"       ? "1\t1\t1\n"
                                : name == "movies.dat" ? "1::1::1\n"
                                : name == "movies.csv" ? "1,1,1\n"
                                                       : "userID\tartistID\tweight\r\n1\t1\t1\r\n";
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
                 "ratings.dat, ratings.csv or user_artists.dat, optionally .gz)");
    const QString table = write("other/cells.csv", "a,b\n1,2\n");
    QVERIFY(errorOf([&] {
                loadRatings(std8(table));
            }).startsWith("cannot read '" + table + "': not a ratings file"));
    const QString titles = m_files.filePath("missing/u.item");
    QCOMPARE(
        errorOf([&] { loadRatings(std8(dataFile("ratings/ml100k_style/u.data")), std8(titles)); }),
        "cannot read '" + titles + "': file does not exist");
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
