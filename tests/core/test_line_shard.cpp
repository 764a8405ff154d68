// Splitting a text file among readers (core/io/line_shard.h): the parts, in order, are the
// file's bytes exactly, each part whole lines, each line in the part whose byte range holds its
// first byte — for files with empty lines, CRLF ends, no final end of line, lines longer than a
// part, and for files smaller than the number of parts; a gzip'd file is refused by name.

#include "core/io/data_error.h"
#include "core/io/line_shard.h"
#include "tests/data_writers.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <random>
#include <string>
#include <vector>

using namespace svi;
using ::test_support::writeFile;

namespace {

// The starts of the file's lines: 0 and every byte after a '\n' (the end excluded).
std::vector<std::int64_t> lineStarts(const std::string& bytes)
{
    std::vector<std::int64_t> starts;
    for (std::size_t i = 0; i < bytes.size(); ++i)
        if (i == 0 || bytes[i - 1] == '\n')
            starts.push_back(std::int64_t(i));
    return starts;
}

// Files of every shape the splitting must get right.
std::vector<std::pair<std::string, std::string>> files()
{
    std::vector<std::pair<std::string, std::string>> out = {
        {"empty", ""},
        {"one byte", "x"},
        {"one end of line", "\n"},
        {"one line", "3 0:1 4:2 9:1\n"},
        {"no final end of line", "1 0:1\n2 1:1 2:1\n1 7:3"},
        {"empty lines", "\n\n1 0:1\n\n\n2 3:1 4:1\n\n"},
        {"crlf", "a,b,c\r\n1,2,3\r\n4,5,6\r\n"},
        {"a long line", "1 0:1\n" + std::string(500, 'w') + "\n2 0:1 1:1\nshort\n"},
    };
    // Random lines (some empty), of random lengths, some ending in CRLF.
    std::mt19937 rng(7);
    for (int f = 0; f < 6; ++f) {
        std::string bytes;
        const int lines = 1 + int(rng() % 60);
        for (int l = 0; l < lines; ++l) {
            const int length = rng() % 5 == 0 ? 0 : int(rng() % (f < 3 ? 12 : 200));
            for (int c = 0; c < length; ++c)
                bytes.push_back(char('a' + rng() % 26));
            bytes += rng() % 4 == 0 ? "\r\n" : "\n";
        }
        if (rng() % 2 == 0 && !bytes.empty())
            bytes.pop_back(); // no final end of line (or a lone '\r')
        out.push_back({"random " + std::to_string(f), bytes});
    }
    return out;
}

} // namespace

class TestLineShard : public QObject
{
    Q_OBJECT
private slots:
    void partsAreTheFileExactly();
    void aBigFileIsSplitEvenly();
    void refusesWhatCannotBeSplit();
};

void TestLineShard::partsAreTheFileExactly()
{
    QTemporaryDir dir;
    for (const auto& [name, bytes] : files()) {
        const QString path = writeFile(dir, "f.txt", bytes);
        const std::vector<std::int64_t> starts = lineStarts(bytes);
        const std::int64_t size = std::int64_t(bytes.size());
        for (int parts = 1; parts <= 9; ++parts) {
            std::string joined;
            std::int64_t expectedBegin = 0;
            for (int r = 0; r < parts; ++r) {
                LineShard s;
                const std::string part = readLineShard(path, r, parts, &s);
                const QByteArray what = QByteArray::fromStdString(
                    name + ": part " + std::to_string(r) + " of " + std::to_string(parts));
                QVERIFY2(s.begin == expectedBegin, what); // contiguous, in order
                QVERIFY2(s.end >= s.begin && s.end <= size, what);
                QVERIFY2(std::int64_t(part.size()) == s.size(), what);
                QVERIFY2(s == lineShard(path, r, parts), what);
                // Whole lines: it starts at a line start and ends after an end of line (or at
                // the end of the file).
                if (s.size() > 0) {
                    QVERIFY2(std::binary_search(starts.begin(), starts.end(), s.begin), what);
                    QVERIFY2(s.end == size || bytes[std::size_t(s.end - 1)] == '\n', what);
                }
                // Each line is in the part whose byte range holds its first byte.
                const std::int64_t lo = size * r / parts, hi = size * (r + 1) / parts;
                for (std::int64_t start : starts)
                    QVERIFY2((start >= s.begin && start < s.end) == (start >= lo && start < hi),
                             what + " line at byte " + QByteArray::number(qint64(start)));
                joined += part;
                expectedBegin = s.end;
            }
            QVERIFY2(joined == bytes, QByteArray::fromStdString(name));
            QCOMPARE(expectedBegin, size);
        }
    }
}

// Many short lines: every part within a line's length of an even share.
void TestLineShard::aBigFileIsSplitEvenly()
{
    QTemporaryDir dir;
    std::string bytes;
    for (int l = 0; l < 20000; ++l)
        bytes += std::to_string(l) + " " + std::to_string(l % 97) + ":1\n";
    const QString path = writeFile(dir, "big.ldac", bytes);
    const int parts = 7;
    std::int64_t lines = 0;
    for (int r = 0; r < parts; ++r) {
        const LineShard s = lineShard(path, r, parts);
        QVERIFY(std::abs(double(s.size()) - double(bytes.size()) / parts) < 20.0);
        const std::string part = readLineShard(path, r, parts);
        lines += std::count(part.begin(), part.end(), '\n');
    }
    QCOMPARE(lines, std::int64_t(20000));
}

void TestLineShard::refusesWhatCannotBeSplit()
{
    QTemporaryDir dir;
    const QString gz = writeFile(dir, "corpus.ldac.gz", std::string("\x1f\x8b\x08\x00rest", 8));
    try {
        (void)lineShard(gz, 0, 2);
        QFAIL("a gzip'd file was split");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("corpus.ldac.gz") && QString(e.what()).contains("gzip"),
                 e.what());
    }
    try {
        (void)lineShard(dir.filePath("missing.txt"), 0, 2);
        QFAIL("a missing file was split");
    } catch (const DataError& e) {
        QVERIFY2(QString(e.what()).contains("missing.txt"), e.what());
    }
    const QString path = writeFile(dir, "ok.txt", "a\nb\n");
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lineShard(path, 2, 2));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, lineShard(path, 0, 0));
}

QTEST_GUILESS_MAIN(TestLineShard)
#include "test_line_shard.moc"
