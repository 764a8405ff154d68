// The checkpoint file around a run's state: it reads back what was written; anything else —
// another file, a truncated or corrupted checkpoint, an older or newer format version, another
// byte order, trailing bytes — is refused with a DataError naming the file and the reason;
// and what identifies the run and its progress can be read without a trainer.

#include "core/io/checkpoint_file.h"
#include "core/io/data_error.h"
#include "core/run/run_checkpoint.h"

#include <QTemporaryDir>
#include <QtTest>
#include <cstring>

using namespace svi;

namespace {

// A state as a run writes it, around a trainer-less part (a progress record stands in).
std::string sampleState()
{
    struct Tiny : Trainer
    {
        Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(50, 0.0, 1.0);
        double step(std::int64_t) override { return 1.0; }
        std::int64_t itemsPerStep() const override { return 1; }
        std::int64_t itemCount() const override { return 1; }
        Evaluation evaluate(bool) override { return {}; }
        bool diverged() const override { return false; }
        void visitState(StateArchive& a) override { a.field("x", x); }
    } tiny;
    RunProgress p;
    p.step = 1234;
    p.trainSeconds = 5.5;
    p.snapshots = 17;
    return checkpointState({"lda", "svi", 42}, p, tiny);
}

// The DataError message of decoding `bytes`, or "" when it was accepted.
QString refusal(const std::string& bytes)
{
    try {
        decodeCheckpoint(bytes, "run/checkpoint.bin");
    } catch (const DataError& e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

template <typename T> void poke(std::string& bytes, std::size_t at, T value)
{
    std::memcpy(bytes.data() + at, &value, sizeof value);
}

} // namespace

class TestCheckpointFile : public QObject
{
    Q_OBJECT

private slots:
    void roundTripsThroughAFile();
    void progressWithoutATrainer();
    void refusesWhatIsNotAWholeCheckpoint_data();
    void refusesWhatIsNotAWholeCheckpoint();
    void everyTruncationIsRefused();
    void everyFlippedByteIsRefused();
};

void TestCheckpointFile::roundTripsThroughAFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath("checkpoint.bin");
    const std::string state = sampleState();
    writeCheckpointFile(path, state);
    QVERIFY(readCheckpointFile(path) == state);
    // A second write replaces the first whole.
    writeCheckpointFile(path, "short");
    QCOMPARE(readCheckpointFile(path), std::string("short"));
    // A missing file is named.
    try {
        readCheckpointFile(dir.filePath("none.bin"));
        QFAIL("a missing checkpoint was read");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("none.bin"), e.what());
    }
}

void TestCheckpointFile::progressWithoutATrainer()
{
    CheckpointIdentity id;
    const RunProgress p = checkpointProgress(sampleState(), &id);
    QCOMPARE(p.step, std::int64_t(1234));
    QCOMPARE(p.trainSeconds, 5.5);
    QCOMPARE(p.snapshots, std::int64_t(17));
    QCOMPARE(id.model, std::string("lda"));
    QCOMPARE(id.algorithm, std::string("svi"));
    QCOMPARE(id.seed, std::uint64_t(42));
}

void TestCheckpointFile::refusesWhatIsNotAWholeCheckpoint_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("reason");
    const std::string good = encodeCheckpoint(sampleState());
    const auto as = [](const std::string& s) { return QByteArray(s.data(), qsizetype(s.size())); };

    QTest::newRow("empty") << QByteArray() << "no SVI-CKPT header";
    QTest::newRow("a PNG") << QByteArray("\x89PNG\r\n\x1a\n0000000000000000000000000000")
                           << "no SVI-CKPT header";
    QTest::newRow("cut in the header") << as(good.substr(0, 20)) << "ends inside its header";
    std::string older = good;
    poke(older, 8, std::uint32_t(0));
    QTest::newRow("an older version")
        << as(older)
        << "format version 0, but this build reads "
           "version " +
               QString::number(kCheckpointFormat) + " (an older format";
    std::string newer = good;
    poke(newer, 8, std::uint32_t(kCheckpointFormat + 1));
    QTest::newRow("a newer version") << as(newer) << "(written by a newer build)";
    std::string swapped = good;
    poke(swapped, 12, std::uint32_t(0x04030201));
    QTest::newRow("the other byte order") << as(swapped) << "the other byte order";
    QTest::newRow("cut in the state")
        << as(good.substr(0, good.size() - 1)) << "truncated: its state has";
    QTest::newRow("trailing bytes") << as(good + "xy") << "2 bytes after its state";
    std::string flipped = good;
    flipped[good.size() / 2] ^= 0x10;
    QTest::newRow("a flipped bit") << as(flipped) << "checksum does not match";
}

void TestCheckpointFile::refusesWhatIsNotAWholeCheckpoint()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, reason);
    const QString why = refusal(bytes.toStdString());
    QVERIFY2(why.startsWith("cannot read 'run/checkpoint.bin': "), qPrintable(why));
    QVERIFY2(why.contains(reason), qPrintable(why));
}

void TestCheckpointFile::everyTruncationIsRefused()
{
    const std::string good = encodeCheckpoint(sampleState());
    QVERIFY(refusal(good).isEmpty());
    for (std::size_t cut = 0; cut < good.size(); ++cut)
        QVERIFY2(!refusal(good.substr(0, cut)).isEmpty(),
                 qPrintable(QString("a checkpoint cut at byte %1 was accepted").arg(cut)));
}

void TestCheckpointFile::everyFlippedByteIsRefused()
{
    const std::string good = encodeCheckpoint(sampleState());
    for (std::size_t i = 0; i < good.size(); ++i) {
        std::string bad = good;
        bad[i] = char(bad[i] ^ 0x01);
        QVERIFY2(!refusal(bad).isEmpty(),
                 qPrintable(QString("a flipped bit at byte %1 was accepted").arg(i)));
    }
}

QTEST_GUILESS_MAIN(TestCheckpointFile)
#include "test_checkpoint_file.moc"
