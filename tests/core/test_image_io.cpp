// Image files: formats, colour to grey, clear errors for broken files, atomic writes.

#include "core/io/image_file.h"

#include <QFile>
#include <QImage>
#include <QImageWriter>
#include <QTemporaryDir>
#include <QtTest>

using namespace svi;

namespace {

QString dataFile(const char* name)
{
    return QString(SVI_TEST_DATA_DIR) + "/" + name;
}

void expectDataError(const QString& path, const QString& reason)
{
    try {
        loadGrayImage(path.toStdString());
        QFAIL(qPrintable("no error for " + path));
    } catch (const DataError& e) {
        const QString msg = e.what();
        QVERIFY2(msg.contains(path), qPrintable(msg));
        QVERIFY2(msg.contains(reason), qPrintable(msg));
    }
}

} // namespace

class TestImageIo : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }
    void loadsRealPng();
    void colourBecomesGrey();
    void formats_data();
    void formats();
    void sixteenBitGrey();
    void brokenFiles();
    void saveRoundTrip();
    void inspectReportsImageFacts();
    void inspectRejectsNonImages();

private:
    QTemporaryDir m_dir;
};

void TestImageIo::loadsRealPng()
{
    const Eigen::ArrayXXf img = loadGrayImage(dataFile("coins.png").toStdString());
    QCOMPARE(img.cols(), Eigen::Index(384));
    QCOMPARE(img.rows(), Eigen::Index(303));
    QVERIFY(img.minCoeff() >= 0.0f && img.maxCoeff() <= 255.0f);
    QImage q(dataFile("coins.png"));
    QCOMPARE(img(10, 20), float(qGray(q.pixel(20, 10))));
}

void TestImageIo::colourBecomesGrey()
{
    QImage rgb(4, 3, QImage::Format_RGB32);
    rgb.fill(QColor(200, 100, 50));
    const QString path = m_dir.filePath("rgb.png");
    QVERIFY(rgb.save(path));
    const Eigen::ArrayXXf img = loadGrayImage(path.toStdString());
    // BT.601 luma: 0.299·200 + 0.587·100 + 0.114·50 = 124.2
    QCOMPARE(img.rows(), Eigen::Index(3));
    QVERIFY2(std::abs(img(1, 2) - 124.2f) < 1e-3f, qPrintable(QString::number(img(1, 2))));
}

void TestImageIo::formats_data()
{
    QTest::addColumn<QString>("suffix");
    QTest::newRow("png") << "png";
    QTest::newRow("jpeg") << "jpg";
    QTest::newRow("tiff") << "tif";
    QTest::newRow("pgm") << "pgm";
    QTest::newRow("bmp") << "bmp";
}

void TestImageIo::formats()
{
    QFETCH(QString, suffix);
    const QByteArray fmt = suffix == "jpg" ? "jpeg" : suffix == "tif" ? "tiff" : suffix.toLatin1();
    if (!QImageWriter::supportedImageFormats().contains(fmt))
        QSKIP(qPrintable("this Qt has no writer for " + fmt +
                         " (install qt6-image-formats-plugins)"));
    QImage g(16, 8, QImage::Format_Grayscale8);
    for (int r = 0; r < 8; ++r)
        for (int c = 0; c < 16; ++c)
            g.setPixel(c, r, qRgb(r * 16 + c, r * 16 + c, r * 16 + c));
    const QString path = m_dir.filePath("g." + suffix);
    QVERIFY(g.save(path, fmt.constData(), 100));
    const Eigen::ArrayXXf img = loadGrayImage(path.toStdString());
    QCOMPARE(img.rows(), Eigen::Index(8));
    QCOMPARE(img.cols(), Eigen::Index(16));
    const float tol = suffix == "jpg" ? 4.0f : 0.0f;
    QVERIFY(std::abs(img(5, 9) - float(5 * 16 + 9)) <= tol);
    const DataInfo info = inspectFile(path.toStdString());
    QCOMPARE(QString::fromStdString(info.format), QString(fmt));
}

void TestImageIo::sixteenBitGrey()
{
    QImage g(4, 4, QImage::Format_Grayscale16);
    g.fill(Qt::white);
    auto* line = reinterpret_cast<quint16*>(g.scanLine(1));
    line[2] = 32768;
    const QString path = m_dir.filePath("g16.png");
    QVERIFY(g.save(path));
    const Eigen::ArrayXXf img = loadGrayImage(path.toStdString());
    QVERIFY(std::abs(img(1, 2) - 127.5f) < 0.6f);
    QVERIFY(std::abs(img(0, 0) - 255.0f) < 1e-3f);
    QCOMPARE(inspectFile(path.toStdString()).depth, 16);
}

void TestImageIo::brokenFiles()
{
    expectDataError(m_dir.filePath("absent.png"), "file does not exist");
    const QString empty = m_dir.filePath("empty.png");
    QFile(empty).open(QIODevice::WriteOnly);
    expectDataError(empty, "file is empty");
    const QString text = m_dir.filePath("text.png");
    {
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an image\n");
    }
    expectDataError(text, "not an image");
    const QString truncated = m_dir.filePath("truncated.png");
    {
        QFile in(dataFile("coins.png"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(truncated);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(in.read(100));
    }
    expectDataError(truncated, "truncated or corrupt");
    expectDataError(m_dir.path(), "folder");
}

void TestImageIo::saveRoundTrip()
{
    Eigen::ArrayXXf img(3, 5);
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 5; ++c)
            img(r, c) = float(r * 50 + c * 10) + 0.4f;
    img(0, 0) = -20.0f; // clamped
    img(2, 4) = 300.0f; // clamped
    const QString path = m_dir.filePath("out.png");
    saveGrayImage(path.toStdString(), img);
    const Eigen::ArrayXXf back = loadGrayImage(path.toStdString());
    QCOMPARE(back(1, 2), 70.0f);
    QCOMPARE(back(0, 0), 0.0f);
    QCOMPARE(back(2, 4), 255.0f);
    QVERIFY_THROWS_EXCEPTION(DataError,
                             saveGrayImage(m_dir.filePath("no/such/dir/x.png").toStdString(), img));
}

void TestImageIo::inspectReportsImageFacts()
{
    const DataInfo info = inspectFile(dataFile("coins.png").toStdString());
    QCOMPARE(QString::fromStdString(info.kind), QString("image"));
    QCOMPARE(QString::fromStdString(info.format), QString("png"));
    QCOMPARE(info.width, 384);
    QCOMPARE(info.height, 303);
    QCOMPARE(info.patches, std::int64_t(377) * 296);
    QCOMPARE(info.rows, info.patches);
    QCOMPARE(info.cols, std::int64_t(64));
    QVERIFY(info.grayscale);
    const DataInfo p6 = inspectFile(dataFile("coins.png").toStdString(), 6);
    QCOMPARE(p6.cols, std::int64_t(36));
    QCOMPARE(p6.patches, std::int64_t(379) * 298);
    // Smaller than a patch: no patches, but still an image.
    QImage tiny(5, 7, QImage::Format_RGB32);
    tiny.fill(QColor(10, 200, 30));
    const QString path = m_dir.filePath("tiny.bmp");
    QVERIFY(tiny.save(path));
    const DataInfo t = inspectFile(path.toStdString());
    QCOMPARE(t.width, 5);
    QCOMPARE(t.height, 7);
    QCOMPARE(t.patches, std::int64_t(0));
    QCOMPARE(t.rows, std::int64_t(0));
    QCOMPARE(QString::fromStdString(t.format), QString("bmp"));
    QVERIFY(!t.grayscale);
}

void TestImageIo::inspectRejectsNonImages()
{
    // A file named like an image gets the image reader's reason.
    const QString text = m_dir.filePath("words.png");
    {
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not an image\n");
    }
    try {
        inspectFile(text.toStdString());
        QFAIL("no error");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("words.png"), e.what());
        QVERIFY2(QString(e.what()).contains("not an image"), e.what());
    }
    const QString truncated = m_dir.filePath("cut.png");
    {
        QFile in(dataFile("coins.png"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QFile out(truncated);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(in.read(100));
    }
    try {
        inspectFile(truncated.toStdString());
        QFAIL("no error");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("cut.png': image is truncated or corrupt"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             inspectFile(dataFile("coins.png").toStdString(), 0));

    const QString csv = m_dir.filePath("table.csv");
    {
        QFile f(csv);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a,b\n1,2\n");
    }
    try {
        inspectFile(csv.toStdString());
        QFAIL("no error");
    } catch (const DataError& e) {
        QVERIFY(QString(e.what()).contains("not a supported data file"));
        QVERIFY(QString(e.what()).contains("table.csv"));
    }
}

QTEST_GUILESS_MAIN(TestImageIo)
#include "test_image_io.moc"
