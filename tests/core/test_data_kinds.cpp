// What a data description becomes, the same for every front end: a folder read as the kind of
// the files it holds (FCS files and tables stacked, images and graphs opened one, a LIBSVM pair
// as training and test, LDA-C with its vocabulary, ratings and text folders as before; a mixed
// folder refused, listing what it holds), built in temporary folders from tests/data files;
// `svi info` (inspectData) and a run (prepareData) giving the same verdict on a table with a
// text column; and a CSV with a label column read as labelled data for a model that takes
// only that, with a refusal that says what to do in words no front end owns.

#include "core/data/labelled_data.h"
#include "core/io/data_kinds.h"
#include "core/io/run_pipeline.h"
#include "tests/core/data_testing.h"

#include <QDir>
#include <QtTest>
#include <algorithm>
#include <stdexcept>
#include <string>

using namespace svi;
using namespace data_testing;

namespace {

const QString kFcs9 = "fcs/Data23_Panel3_base_NR4_Patient9.fcs";  // 234 cells × 30
const QString kFcs15 = "fcs/Data23_Panel3_base_R5_Patient15.fcs"; // 339 cells × 30

// The InfoLine of `report` under `key`; fails the test when there is none.
const InfoLine* lineOf(const DataReport& report, const std::string& key)
{
    const auto it = std::find_if(report.lines.begin(), report.lines.end(),
                                 [&](const InfoLine& l) { return l.key == key; });
    return it == report.lines.end() ? nullptr : &*it;
}

QStringList listOf(const DataReport& report, const std::string& key)
{
    const InfoLine* l = lineOf(report, key);
    return l ? list(std::get<std::vector<std::string>>(l->value)) : QStringList{"(no line)"};
}

// The message of any exception `f` throws, or a note that it threw none.
QString anyErrorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    }
    return "(no exception)";
}

} // namespace

class TestDataKinds : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_files.valid()); }
    void folderOfFcsFiles();
    void folderOfTablesStacksOrRefuses();
    void folderOfImagesOpensTheFirst();
    void folderOfGraphsOpensTheFirst();
    void folderOfLibsvmPair();
    void folderOfCountsWithVocabulary();
    void foldersAsBefore();
    void mixedFolderRefused();
    void infoAndRunAgree();
    void labelColumnReadForTheModel();

private:
    QString copy(const QString& from, const QString& to) const
    {
        return m_files.write(to, readBytes(dataFile(from)));
    }
    std::string folder(const QString& name) const { return std8(m_files.filePath(name)); }

    TempFiles m_files;
};

// Two CyTOF files of one panel, a README and a hidden file: one table of both files' rows,
// the README left out and said, the hidden file not even that.
void TestDataKinds::folderOfFcsFiles()
{
    copy(kFcs9, "fcs/b_patient9.fcs");
    copy(kFcs15, "fcs/a_patient15.fcs");
    m_files.write("fcs/README.txt", "Two CyTOF runs of the anti-PD-1 study.\n");
    m_files.write("fcs/.DS_Store", QByteArray("\0\1\2", 3));
    const DataDescription d{{folder("fcs")}, "", {}};
    const Recognised r = recogniseData(d.files);
    QCOMPARE(str(r.kind->key), QString("table"));
    QCOMPARE(str(r.format), QString("folder of 2 FCS files"));

    const PreparedData p = prepareData(d);
    QCOMPARE(p.data.kind, std::string("table"));
    QCOMPARE(p.data.files, d.files); // the description keeps the folder
    QCOMPARE(p.built.data.dense->rows(), std::int64_t(339 + 234));
    const QString summary = str(p.raw->summary());
    QVERIFY2(summary.contains("rows from each file: a_patient15.fcs 339, b_patient9.fcs 234"),
             qPrintable(summary));
    QVERIFY2(summary.contains("left out README.txt (not FCS files or tables of numbers)"),
             qPrintable(summary));
    QVERIFY2(!summary.contains("DS_Store"), qPrintable(summary));
    QVERIFY2(str(p.built.summary).contains("left out README.txt"), p.built.summary.c_str());

    const DataReport info = inspectData(d);
    QCOMPARE(std::get<std::int64_t>(lineOf(info, "rows")->value), std::int64_t(573));
    QCOMPARE(listOf(info, "folder_files"), QStringList({"a_patient15.fcs", "b_patient9.fcs"}));
    QCOMPARE(listOf(info, "files"), QStringList({"a_patient15.fcs", "b_patient9.fcs"}));
    QCOMPARE(listOf(info, "folder_notes"),
             QStringList({"left out README.txt (not FCS files or tables of numbers)"}));
}

// CSV tables of cells: rows stacked when the columns agree (in any order), refused naming the
// first file whose columns differ.
void TestDataKinds::folderOfTablesStacksOrRefuses()
{
    m_files.write("csv/1.csv", "CD3,CD4,CD8\n1,2,3\n4,5,6\n");
    m_files.write("csv/2.csv", "CD4,CD8,CD3\n20,30,10\n");
    m_files.write("csv/notes.txt", "gated on live cells; exported from the analysis software\n");
    const PreparedData p = prepareData({{folder("csv")}, "", {{"heldout", 0.0}}});
    QCOMPARE(p.data.kind, std::string("table"));
    QVERIFY2(str(p.raw->summary()).contains("rows from each file: 1.csv 2, 2.csv 1"),
             p.raw->summary().c_str());
    QVERIFY2(str(p.raw->summary()).contains("left out notes.txt"), p.raw->summary().c_str());
    QCOMPARE(p.built.data.dense->rows(), std::int64_t(3));

    m_files.write("csv/3.csv", "CD3,CD45,CD8\n1,2,3\n");
    m_files.write("csv/4.csv", "CD3,CD56,CD8\n1,2,3\n");
    const QString msg = anyErrorOf([&] { prepareData({{folder("csv")}, "", {}}); });
    QVERIFY2(msg.contains("'" + m_files.filePath("csv/3.csv") + "' has no channel 'CD4'"),
             qPrintable(msg));
}

void TestDataKinds::folderOfImagesOpensTheFirst()
{
    for (const char* name : {"c.png", "a.png", "b.png"})
        copy("coins.png", QString("img/") + name);
    const DataDescription d{{folder("img")}, "", {}};
    QCOMPARE(str(recogniseData(d.files).kind->key), QString("image"));
    const auto raw = kindOf(withKind(d)).read(withKind(d));
    QVERIFY2(
        str(raw->summary()).endsWith("384×303 grey image · folder holds 3 images; opened a.png"),
        raw->summary().c_str());
    const DataReport info = inspectData(d);
    QCOMPARE(listOf(info, "folder_files"), QStringList({"a.png"}));
    QCOMPARE(listOf(info, "folder_notes"), QStringList({"folder holds 3 images; opened a.png"}));
}

void TestDataKinds::folderOfGraphsOpensTheFirst()
{
    copy("graphs/karate_newman.gml", "graphs/karate.gml");
    copy("graphs/dolphins.gml", "graphs/dolphins.gml");
    const PreparedData p = prepareData({{folder("graphs")}, "", {}});
    QCOMPARE(p.data.kind, std::string("graph"));
    QCOMPARE(p.built.data.graph->nodes, 62); // the dolphins, first by name
    QVERIFY2(str(p.built.summary).endsWith("folder holds 2 graphs; opened dolphins.gml"),
             p.built.summary.c_str());
}

// LIBSVM's a9a beside a9a.t: the training file and its given test set (the labelled kind takes
// a second file as the test set).
void TestDataKinds::folderOfLibsvmPair()
{
    copy("labelled/a9a_head200", "a9a/a9a");
    copy("labelled/a9a_t_head100", "a9a/a9a.t");
    // The heads of the two files use features up to 103 and 121: the dimension is a9a's 123.
    const PreparedData p = prepareData({{folder("a9a")}, "", {{"dimension", std::int64_t(123)}}});
    QCOMPARE(p.data.kind, std::string("labelled"));
    QCOMPARE(p.built.data.labelled->cols(), 124); // and the intercept
    const LabelledData& l = *p.built.data.labelled;
    QCOMPARE(l.trainingRowCount(), std::int64_t(200));
    QCOMPARE(std::int64_t(l.testRows.size()), std::int64_t(100));
    QVERIFY2(str(p.built.summary)
                 .contains("read a9a as the training set and a9a.t as the given test set"),
             p.built.summary.c_str());
}

// An LDA-C folder: the counts, with the one vocabulary file of the folder.
void TestDataKinds::folderOfCountsWithVocabulary()
{
    m_files.write("ldac/docs.dat", "2 0:2 1:1\n2 1:3 2:1\n1 2:2\n");
    m_files.write("ldac/words.vocab", "orbit\nengine\nmoon\n");
    m_files.write("ldac/README", "Three documents.\n");
    const DataDescription d{{folder("ldac")}, "", {}};
    QCOMPARE(str(recogniseData(d.files).format), QString("folder with 1 LDA-C file"));
    const DataReport info = inspectData(d);
    QCOMPARE(std::get<std::int64_t>(lineOf(info, "documents")->value), std::int64_t(3));
    QCOMPARE(listOf(info, "first_words"), QStringList({"orbit", "engine", "moon"}));
    QCOMPARE(listOf(info, "folder_files"), QStringList({"docs.dat", "words.vocab"}));
    QCOMPARE(listOf(info, "folder_notes"), QStringList({"left out README (not word counts)"}));
}

// MovieLens folders and folders of text files are read as they were.
void TestDataKinds::foldersAsBefore()
{
    copy("ratings/ml100k_style/u.data", "ml/u.data");
    copy("ratings/ml100k_style/u.item", "ml/u.item");
    m_files.write("ml/README", "MovieLens-like sample.\n");
    const Recognised ml = recogniseData({folder("ml")});
    QCOMPARE(str(ml.kind->key), QString("ratings"));
    QCOMPARE(str(ml.format), QString("folder with MovieLens u.data"));
    QCOMPARE(
        std::get<std::int64_t>(lineOf(inspectData({{folder("ml")}, "", {}}), "ratings")->value),
        std::int64_t(17));

    m_files.write("text/a.txt", "orbit engine moon\n");
    m_files.write("text/b/c.txt", "orbit engine oil\n");
    const Recognised text = recogniseData({folder("text")});
    QCOMPARE(str(text.kind->key), QString("corpus"));
    QCOMPARE(str(text.format), QString("folder of text files"));
    const DataReport info = inspectData({{folder("text")}, "", {}});
    QCOMPARE(std::get<std::int64_t>(lineOf(info, "documents")->value), std::int64_t(2));
    QVERIFY(!lineOf(info, "folder_files")); // the corpus reader reads the folder itself
}

void TestDataKinds::mixedFolderRefused()
{
    copy(kFcs9, "mixed/cells.fcs");
    copy("coins.png", "mixed/a.png");
    copy("coins.png", "mixed/b.png");
    m_files.write("mixed/LICENSE", "public domain\n");
    const QString expected = "cannot read '" + m_files.filePath("mixed") +
                             "': it holds 2 images and 1 FCS file: open one file, or a folder of "
                             "one kind";
    QCOMPARE(errorOf([&] { recogniseData({folder("mixed")}); }), expected);
    QCOMPARE(errorOf([&] { inspectData({{folder("mixed")}, "", {}}); }), expected);
    QCOMPARE(errorOf([&] { prepareData({{folder("mixed")}, "", {}}); }), expected);
    // Nothing readable at all.
    m_files.write("none/README.md", "nothing here\n");
    m_files.write("none/blob.bin", QByteArray("\x01\x02\x00\x03", 4));
    QVERIFY2(errorOf([&] {
                 recogniseData({folder("none")});
             }).contains("holds no file the workbench reads"),
             qPrintable(errorOf([&] { recogniseData({folder("none")}); })));
}

// A MovieLens tags.csv: a table by its content, with a text column. `svi info` (inspectData)
// and a run (prepareData) refuse it in the same words, which say what to do.
void TestDataKinds::infoAndRunAgree()
{
    const std::string tags = std8(
        m_files.write("tags/tags.csv", "userId,movieId,tag,timestamp\n2,60756,funny,1445714994\n"
                                       "2,60756,Highly quotable,1445714996\n"));
    QCOMPARE(str(recogniseData({tags}).kind->key), QString("table"));
    const QString info = errorOf([&] { inspectData({{tags}, "", {}}); });
    const QString run = errorOf([&] { prepareData({{tags}, "", {}}); });
    QVERIFY2(info.startsWith("cannot read '" + str(tags) +
                             "' line 2, column 3 ('tag'): 'funny' is not a number: a table's "
                             "columns hold numbers"),
             qPrintable(info));
    QCOMPARE(run, info);
    // And a clean table both accept.
    const std::string clean =
        std8(m_files.write("tags/clean.csv", "userId,movieId,relevance\n2,60756,0.45\n"));
    QCOMPARE(std::get<std::int64_t>(lineOf(inspectData({{clean}, "", {}}), "rows")->value),
             std::int64_t(1));
    QCOMPARE(prepareData({{clean}, "", {{"heldout", 0.0}}}).built.data.dense->rows(),
             std::int64_t(1));
}

// A spambase-like CSV whose label column is y: a table by its content. For the Bayesian GLM,
// which takes only labelled data, it is read as labelled data, and the data's summary says
// so; with the kind chosen as table, the refusal names what to do in words of no front end.
void TestDataKinds::labelColumnReadForTheModel()
{
    QByteArray csv = "word_freq_make,capital_run_length_total,y\n";
    for (int i = 0; i < 40; ++i)
        csv += QByteArray::number(0.05 * (i % 7) + (i % 2)) + "," + QByteArray::number(3 + i) +
               "," + QByteArray::number(i % 2) + "\n";
    const std::string spam = std8(m_files.write("spam/spambase.csv", csv));
    QCOMPARE(str(recogniseData({spam}).kind->key), QString("table"));
    QCOMPARE(withKindFor({{spam}, "", {}}, "glm").kind, std::string("labelled"));
    QCOMPARE(withKindFor({{spam}, "", {}}, "bpfa").kind, std::string("table"));
    QCOMPARE(withKindFor({{spam}, "table", {}}, "glm").kind, std::string("table")); // chosen

    RunDescription run;
    run.data = {{spam}, "", {}};
    run.model = "glm";
    run.steps = 1;
    const PreparedRun p = prepareRun(run);
    QCOMPARE(p.run.data.kind, std::string("labelled"));
    QCOMPARE(str(p.data.built.data.labelled->labelName), QString("y"));
    QVERIFY2(str(p.data.built.summary)
                 .endsWith(" · read as Labelled data: Bayesian GLM does not model Table data"),
             p.data.built.summary.c_str());

    run.data.kind = "table";
    const QString msg = anyErrorOf([&] { prepareRun(run); });
    QVERIFY2(msg.contains("Bayesian GLM does not model Table data: choose a model of Table data "
                          "(bpfa, gpfa), or data of a kind Bayesian GLM models (Labelled)"),
             qPrintable(msg));
    QVERIFY2(!msg.contains("--"), qPrintable(msg)); // no command-line flag: the window shows it
}

QTEST_GUILESS_MAIN(TestDataKinds)
#include "test_data_kinds.moc"
