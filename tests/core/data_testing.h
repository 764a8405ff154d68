#pragma once
// What the data-file tests share: tests/data paths, text conversions, gzip files written and
// read with zlib itself, the messages of DataError and std::invalid_argument, and files written
// into a temporary folder.

#include "core/io/data_error.h"

#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtGlobal>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>
#include <zlib.h>

namespace data_testing {

using namespace svi;

// A file of tests/data.
inline QString dataFile(const QString& name)
{
    return QString(SVI_TEST_DATA_DIR) + "/" + name;
}

inline QString str(const std::string& s)
{
    return QString::fromStdString(s);
}

inline std::string std8(const QString& s)
{
    return s.toStdString();
}

inline QStringList list(const std::vector<std::string>& v)
{
    QStringList out;
    for (const std::string& s : v)
        out << str(s);
    return out;
}

// Writes with zlib's own gzip writer; `append` adds a second gzip member, as `cat a.gz b.gz`.
// The whole file; a test data file that cannot be read stops the test run.
inline QByteArray readBytes(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

inline bool writeGzip(const QString& path, const QByteArray& bytes, bool append = false)
{
    gzFile gz = gzopen(QFile::encodeName(path).constData(), append ? "ab" : "wb");
    if (!gz)
        return false;
    const int written = gzwrite(gz, bytes.constData(), unsigned(bytes.size()));
    return gzclose(gz) == Z_OK && written == bytes.size();
}

// The whole of a gzip file; empty when it cannot be read.
inline QByteArray gunzip(const QString& path)
{
    QByteArray out;
    gzFile gz = gzopen(QFile::encodeName(path).constData(), "rb");
    if (!gz)
        return out;
    char buf[1 << 16];
    int n = 0;
    while ((n = gzread(gz, buf, sizeof buf)) > 0)
        out.append(buf, n);
    gzclose(gz);
    return out;
}

// The DataError message of `f`, or a note that it threw none.
inline QString errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const DataError& e) {
        return QString::fromUtf8(e.what());
    }
    return "(no DataError)";
}

// The std::invalid_argument message of `f`, or a note that it threw none.
inline QString invalidOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return QString::fromUtf8(e.what());
    }
    return "(no std::invalid_argument)";
}

// Files written into a temporary folder that lives as long as the object.
class TempFiles
{
public:
    bool valid() const { return m_dir.isValid(); }
    QString filePath(const QString& name) const { return m_dir.filePath(name); }
    // Writes `bytes` to `name` (sub-folders made); aborts the test program when it cannot.
    QString write(const QString& name, const QByteArray& bytes) const
    {
        const QString path = m_dir.filePath(name);
        QDir().mkpath(QFileInfo(path).path());
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size())
            qFatal("cannot write %s", qPrintable(path));
        return path;
    }

private:
    QTemporaryDir m_dir;
};

} // namespace data_testing
