// Text corpora: the tokenizer on tricky text (Latin-1 and UTF-8, capitals, accents, numbers,
// apostrophes, headers), the stop list and the vocabulary filters; folders and tar archives
// (GNU, ustar and pax names, truncation) of the committed sample in tests/data/text; loadCorpus's
// dispatch. With SVI_AP_DIR (the folder of ap.dat and vocab.txt from Blei's lda-c) and
// SVI_20NEWS_FILE (20news-bydate.tar.gz) set, the real corpora too. (The count files are in
// test_corpus_counts, the split in test_corpus_split.)

#include "core/data/corpus.h"
#include "core/io/corpus_files.h"
#include "core/io/data_files.h"
#include "core/io/tokenizer.h"
#include "tests/core/corpus_testing.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

using namespace svi;
using namespace corpus_testing;

class TestCorpus : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_files.valid()); }
    void tokenize_data();
    void tokenize();
    void headers_data();
    void headers();
    void decoding();
    void stopWordList();
    void documentFrequencyFilters();
    void vocabularyCap();
    void orderDoesNotMatter();
    void noWordsRemain();
    void options_data();
    void options();
    void paramsRoundTrip();
    void sampleArchive();
    void archiveFormatsAgree();
    void folderAgreesWithArchive();
    void subsetMatchesNothing();
    void truncatedArchive();
    void notAnArchive();
    void textFiles();
    void loadCorpusDispatch();
    void fileKinds();
    void apCorpus();
    void newsTraining();

private:
    QString write(const QString& name, const QByteArray& bytes)
    {
        return m_files.write(name, bytes);
    }
    TempFiles m_files;
};

// --- tokenizer ---------------------------------------------------------------------------------

void TestCorpus::tokenize_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("lowercase");
    QTest::addColumn<int>("minLength");
    QTest::addColumn<bool>("stopWords");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << QByteArray("The cat sat on the mat.") << true << 2 << true
                           << "cat sat mat";
    QTest::newRow("numbers and punctuation")
        << QByteArray("In 1999, 3.5% of x11-users said: \"hello!!\" (42)") << true << 2 << true
        << "users hello";
    QTest::newRow("capitals, UTF-8 accents")
        << QByteArray("\xC3\x89"
                      "COLE Stra\xC3\x9F"
                      "e NASA Gr\xC3\x9C\xC3\x9F"
                      "E")
        << true << 2 << true << QString::fromUtf8("école straße nasa grüße");
    QTest::newRow("case kept, stop words still found")
        << QByteArray("The \xC3\x89"
                      "COLE And Stra\xC3\x9F"
                      "e")
        << false << 2 << true << QString::fromUtf8("ÉCOLE Straße");
    QTest::newRow("Latin-1") << QByteArray("caf\xE9 \xFC"
                                           "ber Z\xFC"
                                           "rich na\xEF"
                                           "ve")
                             << true << 2 << true << QString::fromUtf8("café über zürich naïve");
    QTest::newRow("Latin-1 ending inside a UTF-8 sequence")
        << QByteArray("r\xE9sum\xE9") << true << 2 << true << QString::fromUtf8("résumé");
    QTest::newRow("UTF-8 byte-order mark")
        << QByteArray("\xEF\xBB\xBFHello world") << true << 2 << true << "hello world";
    QTest::newRow("combining accent composed") << QByteArray("e\xCC\x81"
                                                             "cole")
                                               << true << 2 << true << QString::fromUtf8("école");
    QTest::newRow("apostrophes")
        << QByteArray("don't won\xE2\x80\x99t government's O'Brien's rock'n'roll 'quoted' it's")
        << true << 2 << true << "government o'brien rock'n'roll quoted";
    QTest::newRow("minimum length 4")
        << QByteArray("the cats are big, really") << true << 4 << false << "cats really";
    QTest::newRow("single letters with minimum length 1")
        << QByteArray("a b c") << true << 1 << false << "a b c";
    QTest::newRow("stop words kept") << QByteArray("the cat") << true << 2 << false << "the cat";
    QTest::newRow("empty") << QByteArray() << true << 2 << true << "";
    QTest::newRow("only stop words")
        << QByteArray("And the of it is was; WE'RE THEY'D") << true << 2 << true << "";
    QTest::newRow("other scripts") << QByteArray("\xE6\x9D\xB1\xE4\xBA\xAC \xD0\x9C\xD0\xBE"
                                                 "\xD1\x81\xD0\xBA\xD0\xB2\xD0\xB0")
                                   << true << 2 << true << QString::fromUtf8("東京 москва");
    QTest::newRow("CRLF, tabs, underscores") << QByteArray("alpha\r\nbeta\tgamma_delta") << true
                                             << 2 << true << "alpha beta gamma delta";
}

void TestCorpus::tokenize()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, lowercase);
    QFETCH(int, minLength);
    QFETCH(bool, stopWords);
    QFETCH(QString, expected);
    TokenizerOptions o;
    o.lowercase = lowercase;
    o.minLength = minLength;
    o.removeStopWords = stopWords;
    QCOMPARE(tokens(bytes, o), expected);
}

void TestCorpus::headers_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("strip");
    QTest::addColumn<bool>("keepSubject");
    QTest::addColumn<QString>("expected");
    const QByteArray post = "From: orbit@example.com (Ada Lovelace)\n"
                            "Subject: Re: RE: Orbit insertion\n"
                            "Organization: Example Society\n"
                            "Lines: 2\n"
                            "\n"
                            "The shuttle orbit.\n";
    QTest::newRow("news post") << post << true << true << "orbit insertion shuttle orbit";
    QTest::newRow("news post without subject") << post << true << false << "shuttle orbit";
    QTest::newRow("stripping off")
        << post << false << true
        << "orbit example com ada lovelace subject orbit insertion organization example society "
           "lines shuttle orbit";
    QTest::newRow("CRLF and a folded subject")
        << QByteArray("Subject: Long\r\n  continued title\r\nX-Note: a\r\n\r\nbody words\r\n")
        << true << true << "long continued title body words";
    QTest::newRow("not a header block")
        << QByteArray("Notes: this first line\nis followed by text\n\nmore text\n") << true << true
        << "notes line followed text text";
    QTest::newRow("a header name has no spaces")
        << QByteArray("Dear reader: hello\n\nworld\n") << true << true << "dear reader hello world";
    QTest::newRow("only headers") << QByteArray("From: x@example.com\nSubject: Hello there\n")
                                  << true << true << "hello";
}

void TestCorpus::headers()
{
    QFETCH(QByteArray, bytes);
    QFETCH(bool, strip);
    QFETCH(bool, keepSubject);
    QFETCH(QString, expected);
    TokenizerOptions o;
    o.stripEmailHeaders = strip;
    o.keepSubject = keepSubject;
    QCOMPARE(tokens(bytes, o), expected);
}

void TestCorpus::decoding()
{
    QCOMPARE(str(decodeText("caf\xE9")), QString::fromUtf8("café"));
    QCOMPARE(str(decodeText("caf\xC3\xA9")), QString::fromUtf8("café"));
    QCOMPARE(str(decodeText("e\xCC\x81")), QString::fromUtf8("é")); // NFC
    const std::string stripped = stripHeaders("From: a\nSubject: Re: Hi\n\nBody\n", true);
    QCOMPARE(str(stripped), QString("Hi\nBody\n"));
    QCOMPARE(str(stripHeaders("From: a\n\nBody\n", false)), QString("Body\n"));
    QCOMPARE(str(stripHeaders("Plain text\n\nBody\n", true)), QString("Plain text\n\nBody\n"));
}

void TestCorpus::stopWordList()
{
    const auto& words = englishStopWords();
    QVERIFY2(words.size() >= 300, qPrintable(QString::number(words.size())));
    for (const char* w : {"the", "and", "of", "don't", "i'm", "would", "said"})
        QVERIFY2(words.count(w), w);
    for (const char* w : {"orbit", "engine", "government", "#", ""})
        QVERIFY2(!words.count(w), w);
    for (const std::string& w : words)
        QVERIFY2(str(w) == str(w).toLower() && !str(w).contains(' '), w.c_str());
}

void TestCorpus::documentFrequencyFilters()
{
    // Document frequencies: apple 4, banana 3, cherry 2, durian 1, elder 1.
    TokenizerOptions o;
    o.removeStopWords = false;
    o.minDocumentFrequency = 2;
    CorpusBuilder b(o);
    b.addDocument("d1", "apple banana cherry cherry");
    b.addDocument("d2", "apple banana cherry");
    b.addDocument("d3", "apple durian");
    b.addDocument("d4", "apple banana elder");
    Corpus c = b.finish("fruit");
    QCOMPARE(list(c.vocabulary), QStringList({"apple", "banana", "cherry"}));
    QCOMPARE(c.documents(), std::int64_t(4));
    QCOMPARE(c.droppedDocuments, std::int64_t(0));
    QCOMPARE(wordCounts(c, 0),
             (std::map<std::string, float>{{"apple", 1}, {"banana", 1}, {"cherry", 2}}));
    QCOMPARE(wordCounts(c, 2), (std::map<std::string, float>{{"apple", 1}}));

    // At most 75 % of the documents: apple (100 %) goes; d3 is then empty and dropped.
    o.maxDocumentFraction = 0.75;
    CorpusBuilder b2(o);
    for (const auto& [n, t] : {std::pair{"d1", "apple banana cherry cherry"},
                               {"d2", "apple banana cherry"},
                               {"d3", "apple durian"},
                               {"d4", "apple banana elder"}})
        b2.addDocument(n, t);
    c = b2.finish("fruit");
    QCOMPARE(list(c.vocabulary), QStringList({"banana", "cherry"}));
    QCOMPARE(list(c.docNames), QStringList({"d1", "d2", "d4"}));
    QCOMPARE(c.droppedDocuments, std::int64_t(1));
    QCOMPARE(c.stats().droppedDocuments, std::int64_t(1));
    QCOMPARE(c.stats().tokens, std::int64_t(2 + 1 + 2 + 1));
}

void TestCorpus::vocabularyCap()
{
    // Document frequency first, then total count, then the word: b (df 3) > c (df 2, total 5)
    // > a (df 2, total 2) > d = e (df 1, total 1; alphabetical).
    TokenizerOptions o;
    o.removeStopWords = false;
    o.minDocumentFrequency = 1;
    for (std::int64_t cap : {0, 3}) {
        o.vocabularyCap = cap;
        CorpusBuilder b(o);
        b.addDocument("1", "bb aa cc cc cc ee");
        b.addDocument("2", "bb cc cc dd");
        b.addDocument("3", "bb aa");
        const Corpus c = b.finish("cap");
        const QStringList all = {"bb", "cc", "aa", "dd", "ee"};
        QCOMPARE(list(c.vocabulary), cap == 0 ? all : all.mid(0, 3));
        QCOMPARE(c.stats().tokens, cap == 0 ? std::int64_t(12) : std::int64_t(10));
    }
}

void TestCorpus::orderDoesNotMatter()
{
    TokenizerOptions o;
    o.minDocumentFrequency = 1;
    const std::vector<std::pair<std::string, std::string>> docs = {
        {"b/2", "engine oil winter engine"},
        {"a/1", "orbit shuttle launch orbit"},
        {"c/3", "orbit engine"},
        {"a/0", "winter launch"}};
    CorpusBuilder forward(o), backward(o);
    for (const auto& [n, t] : docs)
        forward.addDocument(n, t);
    for (auto it = docs.rbegin(); it != docs.rend(); ++it)
        backward.addDocument(it->first, it->second);
    forward.sortByName();
    backward.sortByName();
    const Corpus f = forward.finish("x"), b = backward.finish("x");
    QCOMPARE(list(f.docNames), QStringList({"a/0", "a/1", "b/2", "c/3"}));
    QCOMPARE(list(f.vocabulary), list(b.vocabulary));
    QCOMPARE(list(f.docNames), list(b.docNames));
    QVERIFY(sameCounts(f.docs, b.docs));
}

void TestCorpus::noWordsRemain()
{
    CorpusBuilder b(TokenizerOptions{});
    b.addDocument("a", "the and 1999 42");
    b.addDocument("b", "unique words only");
    const QString msg = errorOf([&] { b.finish("stops"); });
    QVERIFY2(msg.startsWith("cannot read 'stops': no words remain in its 2 documents"),
             qPrintable(msg));
    QVERIFY2(msg.contains("min_df = 2"), qPrintable(msg));
    CorpusBuilder none(TokenizerOptions{});
    QCOMPARE(errorOf([&] { none.finish("nothing"); }),
             QString("cannot read 'nothing': no documents"));
}

void TestCorpus::options_data()
{
    QTest::addColumn<int>("which");
    QTest::addColumn<QString>("expected");
    QTest::newRow("min_length") << 0 << "min_length = 0, but must be in [1, 100]";
    QTest::newRow("min_df") << 1 << "min_df = 0, but must be in [1, 1000000000]";
    QTest::newRow("max_df 0") << 2 << "max_df = 0, but must be in [1e-06, 1]";
    QTest::newRow("max_df 1.5") << 3 << "max_df = 1.5, but must be in [1e-06, 1]";
    QTest::newRow("vocab_cap") << 4 << "vocab_cap = -1, but must be in [0, 1000000000]";
    QTest::newRow("heldout 1") << 5 << "heldout = 1, but must be in [0, 0.99]";
    QTest::newRow("heldout negative") << 6 << "heldout = -0.1, but must be in [0, 0.99]";
    QTest::newRow("max_documents") << 7 << "max_documents = -5, but must be in [0, 1000000000000]";
    QTest::newRow("subset") << 8 << "subset = '../x', but must be a folder path inside";
}

void TestCorpus::options()
{
    QFETCH(int, which);
    QFETCH(QString, expected);
    TokenizerOptions t;
    CorpusOptions c;
    CorpusReadOptions r;
    QVERIFY(!t.validate() && !c.validate() && !r.validate());
    switch (which) {
    case 0:
        t.minLength = 0;
        break;
    case 1:
        t.minDocumentFrequency = 0;
        break;
    case 2:
        t.maxDocumentFraction = 0.0;
        break;
    case 3:
        t.maxDocumentFraction = 1.5;
        break;
    case 4:
        t.vocabularyCap = -1;
        break;
    case 5:
        c.heldOut = 1.0;
        break;
    case 6:
        c.heldOut = -0.1;
        break;
    case 7:
        c.maxDocuments = -5;
        break;
    case 8:
        r.subset = "../x";
        break;
    }
    r.tokenizer = t;
    const std::optional<std::string> problem = which < 5   ? t.validate()
                                               : which < 8 ? c.validate()
                                                           : r.validate();
    QVERIFY(problem);
    QVERIFY2(str(plainSettingRefs(*problem)).startsWith(expected), problem->c_str());
    if (which < 5) {
        // The tokenizer refuses them too, naming the field.
        const QString msg = invalidOf([&] { (void)Tokenizer(t); });
        QVERIFY2(str(plainSettingRefs(std8(msg))).contains(expected), qPrintable(msg));
    } else if (which < 8) {
        const QString msg = invalidOf([&] { makeCorpusData(randomCorpus(10, 5, 1), c); });
        QVERIFY2(str(plainSettingRefs(std8(msg))).startsWith("makeCorpusData: " + expected),
                 qPrintable(msg));
    }
}

void TestCorpus::paramsRoundTrip()
{
    QCOMPARE(TokenizerOptions::fromParams(defaultValues(TokenizerOptions::allParams())),
             TokenizerOptions{});
    QCOMPARE(CorpusOptions::fromParams(defaultValues(CorpusOptions::allParams())), CorpusOptions{});
    ParamValues v = defaultValues(TokenizerOptions::allParams());
    v["min_df"] = std::int64_t(5);
    v["strip_headers"] = true;
    const TokenizerOptions t = TokenizerOptions::fromParams(v);
    QCOMPARE(t.minDocumentFrequency, std::int64_t(5));
    QVERIFY(t.stripEmailHeaders);
}

// --- raw text ----------------------------------------------------------------------------------

// tests/data/text/news_sample.tar.gz: the posts of tests/data/text/news_sample (see the README
// there), written in the style of the 20 Newsgroups "bydate" files.
void TestCorpus::sampleArchive()
{
    CorpusReadOptions o;
    o.subset = "train";
    o.tokenizer.stripEmailHeaders = true;
    o.tokenizer.minDocumentFrequency = 1;
    const std::string archive = std8(dataFile("text/news_sample.tar.gz"));
    const Corpus c = readTextArchive(archive, o);
    const QString longGroup =
        "comp.graphics.a.very.long.newsgroup.name.to.test.long.paths.in.tar.archives.of.news";
    QCOMPARE(list(c.docNames),
             QStringList({"news_sample/train/" + longGroup + "/3001", "news_sample/train/misc/4001",
                          "news_sample/train/rec.autos/2001", "news_sample/train/rec.autos/2002",
                          "news_sample/train/sci.space/1001", "news_sample/train/sci.space/1002"}));
    QCOMPARE(str(c.source), str(archive) + " [train]");
    const std::set<std::string> vocab(c.vocabulary.begin(), c.vocabulary.end());
    // Header lines are gone (From, Organization, Keywords, Lines), the subjects stay.
    for (const char* gone : {"organization", "lines", "keywords", "lovelace", "society", "motors",
                             "gearhead", "zebra", "re", "don't", "supérieure"})
        QVERIFY2(!vocab.count(gone), gone);
    for (const char* kept : {"window", "rendezvous", "curves", "notes", "café", "zürich", "naïve",
                             "très", "owner", "article", "example"})
        QVERIFY2(vocab.count(kept), kept);
    // The Latin-1 post, word by word.
    const auto latin = wordCounts(c, docIndex(c, "news_sample/train/rec.autos/2002"));
    QCOMPARE(latin.at("café"), 2.0f); // subject and body
    QCOMPARE(latin.at("engine"), 2.0f);
    QCOMPARE(latin.at("twin"), 1.0f);
    QVERIFY(!latin.count("1972") && !latin.count("mecanique") && !latin.count("müller"));
    // "Notes: …" is text, not a header block.
    const auto notes = wordCounts(c, docIndex(c, "news_sample/train/misc/4001"));
    QCOMPARE(notes.at("notes"), 1.0f);
    QCOMPARE(notes.at("orbit"), 1.0f);
    const auto space = wordCounts(c, docIndex(c, "news_sample/train/sci.space/1001"));
    QCOMPARE(space.at("orbit"), 2.0f);
    QCOMPARE(space.at("shuttle"), 3.0f); // the subject, the quoted question, the reply
    QCOMPARE(space.at("launch"), 3.0f);

    // The test part, and both parts.
    o.subset = "news_sample/test";
    QCOMPARE(readTextArchive(archive, o).documents(), std::int64_t(2));
    o.subset.clear();
    const Corpus all = readTextArchive(archive, o);
    QCOMPARE(all.documents(), std::int64_t(8));
    QCOMPARE(all.droppedDocuments, std::int64_t(0));
    // With the default filters (words in ≥ 2 documents) the graphics post, whose words are
    // all its own, is left empty and dropped.
    o.tokenizer.minDocumentFrequency = 2;
    const Corpus filtered = readTextArchive(archive, o);
    QCOMPARE(filtered.documents(), std::int64_t(7));
    QCOMPARE(filtered.droppedDocuments, std::int64_t(1));
    QCOMPARE(docIndex(filtered, std8("news_sample/train/" + longGroup + "/3001")),
             std::int64_t(-1));
    QVERIFY(filtered.vocabularySize() < all.vocabularySize());
    // "orbit" and "engine" are both in 4 posts; "orbit" 8 times, "engine" 7.
    QCOMPARE(list(filtered.vocabulary).mid(0, 2), QStringList({"orbit", "engine"}));
}

void TestCorpus::archiveFormatsAgree()
{
    // The same folder written by Python's tarfile in GNU (long names as 'L' entries), POSIX
    // ustar (a prefix field) and pax ('x' records) formats.
    CorpusReadOptions o;
    o.tokenizer.stripEmailHeaders = true;
    o.tokenizer.minDocumentFrequency = 1;
    const Corpus gnu = readTextArchive(std8(dataFile("text/news_sample.tar.gz")), o);
    for (const char* name : {"text/news_sample_ustar.tar.gz", "text/news_sample_pax.tar.gz"}) {
        const Corpus other = readTextArchive(std8(dataFile(name)), o);
        QCOMPARE(list(other.docNames), list(gnu.docNames));
        QCOMPARE(list(other.vocabulary), list(gnu.vocabulary));
        QVERIFY2(sameCounts(other.docs, gnu.docs), name);
    }
    // Uncompressed, the same.
    const QString plain = write("plain.tar", gunzip(dataFile("text/news_sample.tar.gz")));
    const Corpus p = readTextArchive(std8(plain), o);
    QVERIFY(sameCounts(p.docs, gnu.docs));
    QCOMPARE(list(p.docNames), list(gnu.docNames));
}

void TestCorpus::folderAgreesWithArchive()
{
    // Reading the text folder (subset news_sample/train) gives the archive's corpus.
    CorpusReadOptions o;
    o.tokenizer.stripEmailHeaders = true;
    o.tokenizer.minDocumentFrequency = 1;
    o.subset = "news_sample/train";
    const Corpus folder = readTextFolder(std8(dataFile("text")), o);
    const Corpus archive = readTextArchive(std8(dataFile("text/news_sample.tar.gz")), o);
    QCOMPARE(folder.documents(), std::int64_t(6));
    QCOMPARE(list(folder.docNames), list(archive.docNames));
    QCOMPARE(list(folder.vocabulary), list(archive.vocabulary));
    QVERIFY(sameCounts(folder.docs, archive.docs));
    // Names are relative to the folder read.
    o.subset.clear();
    const Corpus inner = readTextFolder(std8(dataFile("text/news_sample/test")), o);
    QCOMPARE(list(inner.docNames), QStringList({"rec.autos/2101", "sci.space/1101"}));
}

void TestCorpus::subsetMatchesNothing()
{
    CorpusReadOptions o;
    o.subset = "20news-bydate-train";
    const QString archive = dataFile("text/news_sample.tar.gz");
    const QString msg = errorOf([&] { readTextArchive(std8(archive), o); });
    QCOMPARE(msg, "cannot read '" + archive +
                      "': subset = '20news-bydate-train', but no file is below a folder of that "
                      "name (its folders: news_sample, news_sample/test, news_sample/train)");
    const QString folder = dataFile("text/news_sample");
    const QString msg2 = errorOf([&] { readTextFolder(std8(folder), o); });
    QVERIFY2(msg2.startsWith("cannot read '" + folder + "': subset = '20news-bydate-train'"),
             qPrintable(msg2));
    // A file's own name is not a folder.
    o.subset = "1001";
    QVERIFY(errorOf([&] { readTextArchive(std8(archive), o); }).contains("no file is below"));
    const QString empty = m_files.filePath("emptyfolder");
    QDir().mkpath(empty);
    QCOMPARE(errorOf([&] { readTextFolder(std8(empty)); }),
             "cannot read '" + empty + "': no files");
}

void TestCorpus::truncatedArchive()
{
    const QByteArray tar = gunzip(dataFile("text/news_sample.tar.gz"));
    QVERIFY(tar.size() > 4096);
    // Cut inside the data of a file: the entry that ends early is named.
    // Walk the headers to the first regular file with data.
    QByteArray cut;
    qsizetype offset = 0;
    QString inside;
    while (offset + 512 <= tar.size() && tar.at(offset) != 0) {
        const char* h = tar.constData() + offset;
        const qint64 size = QByteArray(h + 124, 11).toLongLong(nullptr, 8);
        if (h[156] == '0' && size > 0) {
            inside = QString::fromLatin1(h, int(qstrnlen(h, 100)));
            cut = tar.left(offset + 512 + 10);
            break;
        }
        offset += 512 + (size + 511) / 512 * 512;
    }
    QVERIFY(!cut.isEmpty());
    const QString p1 = write("cut1.tar", cut);
    const QString m1 = errorOf([&] { readTextArchive(std8(p1)); });
    QCOMPARE(m1, "cannot read '" + p1 + "': the archive ends inside '" + inside + "' (truncated?)");
    // Cut inside a header.
    const QString p2 = write("cut2.tar", tar.left(512 + 100));
    QCOMPARE(errorOf([&] { readTextArchive(std8(p2)); }),
             "cannot read '" + p2 + "': the archive ends inside a header at byte 512 (truncated?)");
    // A gzip stream cut short.
    QFile f(dataFile("text/news_sample.tar.gz"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString p3 = write("cut3.tar.gz", f.readAll().left(700));
    const QString m3 = errorOf([&] { readTextArchive(std8(p3)); });
    QVERIFY2(m3.startsWith("cannot read '" + p3 + "': the gzip data end early"), qPrintable(m3));
    // A corrupt header after the first.
    QByteArray bad = tar;
    bad[512 + 20] = 'Z';
    const QString p4 = write("bad4.tar", bad);
    QCOMPARE(errorOf([&] { readTextArchive(std8(p4)); }),
             "cannot read '" + p4 +
                 "': corrupt tar header at byte 512 (its checksum does not "
                 "match)");
}

void TestCorpus::notAnArchive()
{
    const QString p =
        write("fake.tar.gz", QByteArray("just some text, not a tar archive\n").repeated(40));
    QCOMPARE(errorOf([&] { readTextArchive(std8(p)); }),
             "cannot read '" + p +
                 "': not a tar archive (the first 512 bytes are not a tar header)");
    QCOMPARE(errorOf([&] { readTextArchive(std8(m_files.filePath("none.tar"))); }),
             "cannot read '" + m_files.filePath("none.tar") + "': file does not exist");
}

void TestCorpus::textFiles()
{
    TokenizerOptions t;
    t.minDocumentFrequency = 1;
    CorpusReadOptions o;
    o.tokenizer = t;
    const QString a = write("files/a.txt", "Orbit and orbit again");
    const QString b = write("files/b.txt", "Engine oil");
    const Corpus c = readTextFiles({std8(b), std8(a)}, o);
    QCOMPARE(list(c.docNames), QStringList({b, a})); // the order given
    QCOMPARE(wordCounts(c, 1).at("orbit"), 2.0f);
    QCOMPARE(str(c.source), b + " and 1 more");
    const QString bin = write("files/image.txt", QByteArray("PNG\0\0data", 9));
    QCOMPARE(errorOf([&] {
                 readTextFiles({std8(a), std8(bin)}, o);
             }),
             "cannot read '" + bin + "': holds binary data (NUL bytes), not text");
    // Files that hold only stop words and numbers leave nothing.
    const QString s1 = write("files/s1.txt", "the and of 1999");
    const QString s2 = write("files/s2.txt", "");
    const QString msg = errorOf([&] { readTextFiles({std8(s1), std8(s2)}, o); });
    QVERIFY2(
        msg.startsWith("cannot read '" + s1 + " and 1 more': no words remain in its 2 documents"),
        qPrintable(msg));
}

void TestCorpus::loadCorpusDispatch()
{
    CorpusReadOptions o;
    o.tokenizer.minDocumentFrequency = 1;
    // An LDA-C file with its vocabulary, in either order; a .dat needs the vocabulary named
    // when none is beside it.
    const QString dat = write("dispatch/x/counts.dat", "2 0:1 1:2\n");
    const QString voc = write("dispatch/words.vocab", "alpha\nbeta\n");
    for (const auto& paths :
         {std::vector{std8(dat), std8(voc)}, std::vector{std8(voc), std8(dat)}}) {
        const Corpus c = loadCorpus(paths, o);
        QCOMPARE(list(c.vocabulary), QStringList({"alpha", "beta"}));
        QCOMPARE(c.stats().tokens, std::int64_t(3));
    }
    // Alone, with words numbered.
    QCOMPARE(list(loadCorpus({std8(dat)}, o).vocabulary), QStringList({"0", "1"}));
    CorpusReadOptions withVocab = o;
    withVocab.vocabulary = std8(voc);
    QCOMPARE(loadCorpus({std8(dat)}, withVocab).vocabularySize(), std::int64_t(2));
    // UCI, folder, archive, text files.
    write("dispatch/vocab.u.txt", "one\ntwo\n");
    const QString uci = write("dispatch/docword.u.txt", "1\n2\n1\n1 2 5\n");
    QCOMPARE(loadCorpus({std8(uci)}, o).stats().tokens, std::int64_t(5));
    QCOMPARE(loadCorpus({std8(dataFile("text/news_sample"))}, o).documents(), std::int64_t(8));
    QCOMPARE(loadCorpus({std8(dataFile("text/news_sample_pax.tar.gz"))}, o).documents(),
             std::int64_t(8));
    const QString t1 = write("dispatch/t1.txt", "orbit engine");
    const QString t2 = write("dispatch/t2.md", "engine oil");
    QCOMPARE(loadCorpus({std8(t1), std8(t2)}, o).documents(), std::int64_t(2));

    // What does not go together.
    QVERIFY(errorOf([&] { loadCorpus({}, o); }).contains("no corpus file given"));
    const QString m1 = errorOf([&] { loadCorpus({std8(t1), std8(uci)}, o); });
    QVERIFY2(m1.contains("'" + uci +
                         "' is a UCI docword file, which cannot be read together "
                         "with text files"),
             qPrintable(m1));
    const QString m2 = errorOf([&] { loadCorpus({std8(uci), std8(t1)}, o); });
    QVERIFY2(m2.contains("'" + uci + "' is a UCI docword file, read on its own"), qPrintable(m2));
    CorpusReadOptions subset = o;
    subset.subset = "train";
    const QString m3 = invalidOf([&] { loadCorpus({std8(uci)}, subset); });
    QVERIFY2(m3.contains("subset = 'train', but only a folder or an archive has subfolders"),
             qPrintable(m3));
}

void TestCorpus::fileKinds()
{
    write("kinds/a.dat", "1 0:1\n");
    write("kinds/vocab.txt", "w\n");
    write("kinds/b/c.dat", "1 0:1\n");
    QCOMPARE(dataFileKind(std8(m_files.filePath("kinds/a.dat"))), DataFileKind::Corpus);
    // LDA-C by its content, with or without a vocabulary beside it.
    QCOMPARE(dataFileKind(std8(m_files.filePath("kinds/b/c.dat"))), DataFileKind::Corpus);
    QCOMPARE(dataFileKind(std8(m_files.filePath("kinds"))), DataFileKind::Corpus);
    // Files that do not exist: their names decide (test_sniff has the content).
    QCOMPARE(guessFileKind("x/20news-bydate.tar.gz"), DataFileKind::Corpus);
    QCOMPARE(guessFileKind("x.tgz"), DataFileKind::Corpus);
    QCOMPARE(guessFileKind("docword.kos.txt"), DataFileKind::Corpus);
    QCOMPARE(guessFileKind("docword.nytimes.txt.gz"), DataFileKind::Corpus);
    QCOMPARE(guessFileKind("ap.ldac"), DataFileKind::Corpus);
    QCOMPARE(guessFileKind("cells.txt"), DataFileKind::Delimited);
    QCOMPARE(guessFileKind("vocab.kos.txt"), DataFileKind::Delimited);
    QCOMPARE(guessFileKind("x.csv.gz"), DataFileKind::Delimited);
    QCOMPARE(guessFileKind("x.fcs"), DataFileKind::Fcs);
    QCOMPARE(guessFileKind("x.png"), DataFileKind::Image);
    QCOMPARE(guessFileKind("x.dat"), DataFileKind::Unknown);
    QVERIFY(isVocabularyFile("vocab.kos.txt") && isVocabularyFile("ap.vocab") &&
            !isVocabularyFile("docword.kos.txt"));
    // loadTable refuses a corpus with a reason.
    const QString uci = write("kinds/docword.kos.txt", "1\n2\n1\n1 2 1\n");
    const QString msg = errorOf([&] { loadTable({std8(uci)}); });
    QVERIFY2(msg.contains("it is a text corpus"), qPrintable(msg));
}

// --- real corpora ------------------------------------------------------------------------------

// Blei's AP sample: the numbers of its README and of an independent count (Python) of ap.dat.
void TestCorpus::apCorpus()
{
    const QString dir = qEnvironmentVariable("SVI_AP_DIR");
    if (dir.isEmpty())
        QSKIP("set SVI_AP_DIR to the folder of ap.dat and vocab.txt (Blei's lda-c AP sample)");
    const Corpus c = loadCorpus({std8(dir + "/ap.dat")});
    const CorpusStats s = c.stats();
    QCOMPARE(s.documents, std::int64_t(2246));
    QCOMPARE(s.vocabulary, std::int64_t(10473));
    QCOMPARE(s.tokens, std::int64_t(435838));
    QCOMPARE(s.emptyDocuments, std::int64_t(0));
    QCOMPARE(str(c.vocabulary.front()), QString("i")); // written "i " in vocab.txt
    QCOMPARE(str(c.vocabulary.back()), QString("buffs"));
    const CountDataPtr d = makeCorpusData(c, {});
    QCOMPARE(std::int64_t(d->testRows.size()), std::int64_t(225)); // round(0.1 × 2246)
    QCOMPARE(d->train.total() + d->heldOut.total(), 435838.0);
}

// The 20 Newsgroups training set (11,314 posts) with headers stripped.
void TestCorpus::newsTraining()
{
    const QString path = qEnvironmentVariable("SVI_20NEWS_FILE");
    if (path.isEmpty())
        QSKIP("set SVI_20NEWS_FILE to 20news-bydate.tar.gz");
    CorpusReadOptions o;
    o.subset = "20news-bydate-train";
    o.tokenizer.stripEmailHeaders = true;
    const Corpus c = loadCorpus({std8(path)}, o);
    QCOMPARE(c.documents() + c.droppedDocuments, std::int64_t(11314));
    QVERIFY(c.droppedDocuments < 20);
    const std::set<std::string> vocab(c.vocabulary.begin(), c.vocabulary.end());
    for (const char* w : {"space", "hockey", "god", "windows", "encryption"})
        QVERIFY2(vocab.count(w), w);
    QVERIFY(!vocab.count("the") && !vocab.count("don't"));
    QVERIFY(str(c.docNames.front()).startsWith("20news-bydate/20news-bydate-train/"));
    o.subset = "20news-bydate-test";
    const Corpus t = loadCorpus({std8(path)}, o);
    QCOMPARE(t.documents() + t.droppedDocuments, std::int64_t(7532));
    // Without stripping, header words come in.
    o.subset = "20news-bydate-train";
    o.tokenizer.stripEmailHeaders = false;
    const Corpus raw = loadCorpus({std8(path)}, o);
    // Without stripping, header words come in: "NNTP-Posting-Host" is a header of about a
    // third of the posts; "nntp" in a body is rare.
    const std::int64_t rawNntp = documentFrequency(raw, "nntp");
    const std::int64_t bodyNntp = documentFrequency(c, "nntp");
    QVERIFY2(rawNntp > 3000 && bodyNntp < 100,
             qPrintable(QString("%1 %2").arg(rawNntp).arg(bodyNntp)));
    QVERIFY(raw.stats().tokens > c.stats().tokens);
}

QTEST_GUILESS_MAIN(TestCorpus)
#include "test_corpus.moc"
