// Reuters-21578 in its distribution's SGML, written here in that layout (four articles: one
// with TITLE, DATELINE and BODY ended by &#3;, a BRIEF one with a title only, an UNPROC one
// without TITLE and BODY, one whose title holds &lt; &gt; &amp;): recognised by content, one
// document per article named by its NEWID, markup never a word; as one file, and in a folder
// beside the distribution's README, DTD and category lists, which are left out and said. The
// XML variant (one article per file) reads alike; a truncated article is named by its line.

#include "core/data/corpus.h"
#include "core/io/corpus_files.h"
#include "core/io/data_kinds.h"
#include "core/io/reuters_sgml.h"
#include "core/io/sniff.h"
#include "tests/core/corpus_testing.h"

#include <QtTest>
#include <set>

using namespace svi;
using namespace corpus_testing;

namespace {

const QByteArray kArticles =
    "<!DOCTYPE lewis SYSTEM \"lewis.dtd\">\n"
    "<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"TRAIN\" CGISPLIT=\"TRAINING-SET\" OLDID=\"5544\" "
    "NEWID=\"1\">\n"
    "<DATE>26-FEB-1987 15:01:01.79</DATE>\n"
    "<TOPICS><D>cocoa</D></TOPICS>\n"
    "<PLACES><D>el-salvador</D><D>usa</D></PLACES>\n"
    "<PEOPLE></PEOPLE>\n<ORGS></ORGS>\n<EXCHANGES></EXCHANGES>\n<COMPANIES></COMPANIES>\n"
    "<UNKNOWN> \n&#5;&#5;&#5;C T\n&#22;&#22;&#1;f0704&#31;reute\n"
    "u f BC-BAHIA-COCOA-REVIEW   02-26 0105</UNKNOWN>\n"
    "<TEXT>&#2;\n<TITLE>BAHIA COCOA REVIEW</TITLE>\n"
    "<DATELINE>    SALVADOR, Feb 26 - </DATELINE><BODY>Showers continued throughout the week "
    "in\nthe Bahia cocoa zone, alleviating the drought.\n Reuter\n&#3;</BODY></TEXT>\n"
    "</REUTERS>\n"
    "<REUTERS TOPICS=\"NO\" LEWISSPLIT=\"TRAIN\" CGISPLIT=\"TRAINING-SET\" OLDID=\"5545\" "
    "NEWID=\"2\">\n"
    "<DATE>26-FEB-1987 15:02:20.00</DATE>\n<TOPICS></TOPICS>\n"
    "<TEXT TYPE=\"BRIEF\">&#2;\n******<TITLE>STANDARD OIL &lt;SRD> TO FORM FINANCIAL "
    "UNIT</TITLE>\nBlah blah blah.\n&#3;\n\n</TEXT>\n</REUTERS>\n"
    "<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"TEST\" CGISPLIT=\"TRAINING-SET\" OLDID=\"5546\" "
    "NEWID=\"3\">\n"
    "<DATE>26-FEB-1987 15:03:27.51</DATE>\n<TOPICS><D>cocoa</D></TOPICS>\n"
    "<TEXT TYPE=\"UNPROC\">&#2;\ncocoa grinding figures unchanged, Smith &amp; Jones said\n"
    "&#3;</TEXT>\n</REUTERS>\n"
    "<REUTERS TOPICS=\"YES\" LEWISSPLIT=\"TEST\" CGISPLIT=\"TRAINING-SET\" OLDID=\"5547\" "
    "NEWID=\"4\">\n"
    "<DATE>26-FEB-1987 15:04:00.00</DATE>\n<TOPICS><D>acq</D></TOPICS>\n"
    "<TEXT>&#2;\n<TITLE>SMITH &amp; JONES &lt;SMJ&gt; BUYS COCOA GRINDER</TITLE>\n"
    "<DATELINE>NEW YORK, Feb 26 - </DATELINE><BODY>Smith and Jones said it bought a cocoa "
    "grinder.\n Reuter\n&#3;</BODY></TEXT>\n</REUTERS>\n";

// Every word, no filter: what the articles hold is what the corpus holds.
CorpusReadOptions everyWord()
{
    CorpusReadOptions o;
    o.tokenizer.minDocumentFrequency = 1;
    o.tokenizer.removeStopWords = false;
    o.tokenizer.minLength = 1;
    return o;
}

std::set<std::string> vocabularyOf(const Corpus& c)
{
    return {c.vocabulary.begin(), c.vocabulary.end()};
}

} // namespace

class TestReuters : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_files.valid()); }
    void articlesOfOneFile();
    void folderOfTheDistribution();
    void xmlVariant();
    void truncatedArticle();

private:
    TempFiles m_files;
};

void TestReuters::articlesOfOneFile()
{
    const std::string path = std8(m_files.write("one/reut2-000.sgm", kArticles));
    const FileFormat f = recogniseFile(path);
    QCOMPARE(f.kind, DataFileKind::Corpus);
    QCOMPARE(str(f.name), QString("Reuters-21578 SGML"));
    QCOMPARE(corpusFormatOf(path), std::optional<CorpusFormat>(CorpusFormat::ReutersSgml));

    const std::vector<ReutersArticle> a = reutersArticles(path, kArticles.toStdString());
    QCOMPARE(a.size(), std::size_t(4));
    QCOMPARE(str(a[0].newId), QString("1"));
    // TITLE and BODY only: not the DATELINE, the UNKNOWN block or the topics; &#3; a space.
    QCOMPARE(str(a[0].text).simplified(),
             QString("BAHIA COCOA REVIEW Showers continued throughout the week in the Bahia "
                     "cocoa zone, alleviating the drought. Reuter"));
    QCOMPARE(str(a[1].text).simplified(), QString("STANDARD OIL <SRD> TO FORM FINANCIAL UNIT"));
    QCOMPARE(str(a[2].text).simplified(),
             QString("cocoa grinding figures unchanged, Smith & Jones said"));
    QVERIFY(str(a[3].text).startsWith("SMITH & JONES <SMJ> BUYS"));

    const Corpus c = loadCorpus({path}, everyWord());
    QCOMPARE(c.documents(), std::int64_t(4));
    QCOMPARE(list(c.docNames), QStringList({"1", "2", "3", "4"}));
    const std::set<std::string> words = vocabularyOf(c);
    for (const char* markup :
         {"reuters", "text", "title", "body", "dateline", "topics", "newid", "lewissplit", "lt",
          "gt", "amp", "brief", "unproc", "salvador", "blah", "el", "usa", "d"})
        QVERIFY2(!words.count(markup), markup);
    for (const char* word : {"bahia", "cocoa", "srd", "smj", "grinder", "smith", "jones"})
        QVERIFY2(words.count(word), word);
    QCOMPARE(wordCounts(c, 0).at("cocoa"), 2.0f);
    QCOMPARE(wordCounts(c, 1).size(), std::size_t(7)); // the brief: its title alone

    // The data kind reads it so, with the tokenizer's defaults.
    const DataDescription d{{path}, "", {}};
    QCOMPARE(str(recogniseData(d.files).kind->key), QString("corpus"));
    QCOMPARE(std::get<std::string>(inspectData(d).lines.front().value),
             std::string("Reuters-21578 articles"));
}

// The distribution's layout: reut2-*.sgm beside README.txt, lewis.dtd, the category lists and
// the factbook.
void TestReuters::folderOfTheDistribution()
{
    const QByteArray second = QByteArray(kArticles).replace("NEWID=\"", "NEWID=\"10");
    m_files.write("dist/reut2-000.sgm", kArticles);
    m_files.write("dist/reut2-001.sgm", second);
    m_files.write("dist/README.txt", "Reuters-21578 text categorization test collection\n");
    m_files.write("dist/lewis.dtd", "<!ELEMENT LEWIS - - (REUTERS*)>\n");
    m_files.write("dist/all-places-strings.lc.txt", "afghanistan\nalgeria\nusa\n");
    m_files.write("dist/cat-descriptions_120396.txt", "Categories of the collection\n");
    // Text that passes for a table of numbers: beside articles, left out all the same.
    m_files.write("dist/feldman-cia-worldfactbook-data.txt", "area,population\n652,15\n2381,25\n");
    const std::string dist = std8(m_files.filePath("dist"));
    const Recognised r = recogniseData({dist});
    QCOMPARE(str(r.kind->key), QString("corpus"));
    QCOMPARE(str(r.format), QString("folder of 2 Reuters-21578 files"));

    DataDescription d{{dist}, "", {{"min_df", std::int64_t(1)}}};
    const PreparedData p = prepareData(d);
    QCOMPARE(p.built.data.counts->rows(), std::int64_t(8));
    const QString note = "left out 5 files (not Reuters-21578 markup): README.txt, "
                         "all-places-strings.lc.txt, cat-descriptions_120396.txt, "
                         "feldman-cia-worldfactbook-data.txt, lewis.dtd";
    QVERIFY2(str(p.raw->summary()).endsWith(" · " + note), p.raw->summary().c_str());
    const DataReport info = inspectData(d);
    const auto notes = std::find_if(info.lines.begin(), info.lines.end(),
                                    [](const InfoLine& l) { return l.key == "folder_notes"; });
    QVERIFY(notes != info.lines.end());
    QCOMPARE(list(std::get<std::vector<std::string>>(notes->value)), QStringList({note}));
    const Corpus c = loadCorpus({std8(m_files.filePath("dist/reut2-000.sgm")),
                                 std8(m_files.filePath("dist/reut2-001.sgm"))},
                                everyWord());
    QCOMPARE(list(c.docNames), QStringList({"1", "2", "3", "4", "101", "102", "103", "104"}));
}

// R's tm package keeps the collection as XML, one article per file, in folders by topic.
void TestReuters::xmlVariant()
{
    const QByteArray xml =
        "<?xml version=\"1.0\"?>\n<REUTERS TOPICS=\"YES\" NEWID=\"10\">\n"
        " <DATE>26-FEB-1987</DATE>\n <TOPICS>\n  <D>acq</D>\n </TOPICS>\n <PEOPLE/>\n"
        " <TEXT>\n  <TITLE>COMPUTER TERMINAL &lt;CPML&gt; COMPLETES SALE</TITLE>\n"
        "  <BODY>Computer Terminal&apos;s sale of shares.\n Reuter</BODY>\n </TEXT>\n"
        "</REUTERS>\n";
    const std::string one = std8(m_files.write("tm/acq/reut-00010.xml", xml));
    m_files.write("tm/crude/reut-00011.xml", QByteArray(xml).replace("\"10\"", "\"11\""));
    m_files.write("tm/COPYRIGHT", "GPL-3\n");
    QCOMPARE(str(recogniseFile(one).name), QString("Reuters-21578 XML"));
    const Corpus c = loadCorpus({one}, everyWord());
    QCOMPARE(list(c.docNames), QStringList({"10"}));
    QVERIFY(vocabularyOf(c).count("cpml") && !vocabularyOf(c).count("apos"));
    const DataReport info = inspectData({{std8(m_files.filePath("tm"))}, "", {}});
    const auto files = std::find_if(info.lines.begin(), info.lines.end(),
                                    [](const InfoLine& l) { return l.key == "folder_files"; });
    QVERIFY(files != info.lines.end());
    QCOMPARE(list(std::get<std::vector<std::string>>(files->value)),
             QStringList({"acq/reut-00010.xml", "crude/reut-00011.xml"}));
}

void TestReuters::truncatedArticle()
{
    const QByteArray cut = kArticles.left(kArticles.indexOf("</REUTERS>\n<REUTERS TOPICS=\"YES\" "
                                                            "LEWISSPLIT=\"TEST\" CGISPLIT=\"TRAI"
                                                            "NING-SET\" OLDID=\"5547\""));
    const QString path = m_files.write("cut/reut2-021.sgm", cut);
    QCOMPARE(errorOf([&] { loadCorpus({std8(path)}); }),
             "cannot read '" + path +
                 "' line 31: the article NEWID=3 has no </REUTERS> (a truncated file?)");
}

QTEST_GUILESS_MAIN(TestReuters)
#include "test_reuters.moc"
