#pragma once
// Small data sets with a known structure, written by tests: a planted-topics corpus and
// taste-group ratings, for the window's and the command line's tests alike.

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <cstdint>
#include <string>

namespace test_support {

// Writes `bytes` as `name` in `dir` and returns its path; a test that cannot write stops.
inline QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& bytes)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) ||
        f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// An LDA-C corpus of 60 documents over 30 words w0 … w29 in three planted groups (w0–w9,
// w10–w19, w20–w29): document d draws its 40 tokens from group d mod 3 only. Fixed seed.
// Returns the counts file; vocab.txt is written beside it.
inline QString writePlantedCorpus(const QString& folder)
{
    QFile vocab(folder + "/vocab.txt");
    if (!vocab.open(QIODevice::WriteOnly))
        return {};
    for (int w = 0; w < 30; ++w)
        vocab.write(QString("w%1\n").arg(w).toUtf8());
    QFile docs(folder + "/planted.ldac");
    if (!docs.open(QIODevice::WriteOnly))
        return {};
    std::uint32_t state = 12345;
    auto next = [&state] { return (state = state * 1664525u + 1013904223u) >> 16; };
    for (int d = 0; d < 60; ++d) {
        int counts[10] = {};
        for (int t = 0; t < 40; ++t)
            ++counts[next() % 10];
        QStringList pairs;
        for (int i = 0; i < 10; ++i)
            if (counts[i] > 0)
                pairs << QString("%1:%2").arg((d % 3) * 10 + i).arg(counts[i]);
        docs.write((QString::number(pairs.size()) + " " + pairs.join(' ') + "\n").toUtf8());
    }
    return docs.fileName();
}

// MovieLens-style ratings in `folder` (u.data, and u.item with Latin-1 titles): 120 users in 3
// taste groups of 10 items each; every user rates 8 items of their group (4 or 5 stars) and 1
// other item (1 star). False when a file cannot be written.
inline bool writeTasteGroups(const QString& folder)
{
    QByteArray data, items;
    for (int u = 1; u <= 120; ++u) {
        const int g = u % 3;
        for (int j = 0; j < 8; ++j) {
            const int item = 1 + g * 10 + (u * 7 + j * 3) % 10;
            data += QByteArray::number(u) + '\t' + QByteArray::number(item) + '\t' +
                    (j % 2 ? "5" : "4") + "\t881250949\n";
        }
        data += QByteArray::number(u) + '\t' + QByteArray::number(1 + ((g + 1) % 3) * 10 + u % 10) +
                "\t1\t881250950\n";
    }
    for (int i = 1; i <= 30; ++i)
        items += QByteArray::number(i) + "|Film " + QByteArray::number(i) +
                 (i == 1 ? " \xe9t\xe9" : "") +
                 " (1995)|01-Jan-1995||http://x|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0|0\n";
    QFile d(folder + "/u.data"), it(folder + "/u.item");
    return d.open(QIODevice::WriteOnly) && d.write(data) == data.size() &&
           it.open(QIODevice::WriteOnly) && it.write(items) == items.size();
}

} // namespace test_support
