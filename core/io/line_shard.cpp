#include "core/io/line_shard.h"

#include "core/io/data_error.h"

#include <QFile>
#include <stdexcept>

namespace svi {

namespace {

void openForShards(QFile& f, const QString& path)
{
    if (!f.open(QIODevice::ReadOnly))
        failFile(path.toStdString(), f.errorString().toStdString());
    char magic[2] = {0, 0};
    if (f.peek(magic, 2) == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
        static_cast<unsigned char>(magic[1]) == 0x8b)
        failFile(path.toStdString(), "a gzip'd file cannot be read in parts (read it whole, or "
                                     "decompress it to split the reading among ranks)");
}

// The first line start at or after `at` (0 < at ≤ size): the byte after the first '\n' at or
// after at − 1, or the file's end. Reads from at − 1 to that '\n' only.
std::int64_t lineStartFrom(QFile& f, std::int64_t at, std::int64_t size, const QString& path)
{
    if (at >= size)
        return size;
    if (!f.seek(at - 1))
        failFile(path.toStdString(), "cannot seek to byte " + std::to_string(at - 1));
    char buffer[4096];
    std::int64_t position = at - 1;
    for (;;) {
        const qint64 got = f.read(buffer, sizeof buffer);
        if (got < 0)
            failFile(path.toStdString(), f.errorString().toStdString());
        if (got == 0)
            return size;
        for (qint64 i = 0; i < got; ++i)
            if (buffer[i] == '\n')
                return position + i + 1;
        position += got;
    }
}

std::int64_t boundary(QFile& f, std::int64_t size, int k, int parts, const QString& path)
{
    if (k == 0)
        return 0;
    if (k == parts)
        return size;
    // ⌊size · k / parts⌋ without overflow for any file size: size = q · parts + r.
    const std::int64_t at = size / parts * k + size % parts * k / parts;
    return at == 0 ? 0 : lineStartFrom(f, at, size, path);
}

} // namespace

LineShard lineShard(const QString& path, int part, int parts)
{
    if (parts < 1 || part < 0 || part >= parts)
        throw std::invalid_argument("line shard: part " + std::to_string(part) + " of " +
                                    std::to_string(parts) + " does not exist");
    QFile f(path);
    openForShards(f, path);
    const std::int64_t size = f.size();
    return {boundary(f, size, part, parts, path), boundary(f, size, part + 1, parts, path)};
}

std::string readLineShard(const QString& path, int part, int parts, LineShard* where)
{
    const LineShard shard = lineShard(path, part, parts);
    if (where)
        *where = shard;
    QFile f(path);
    openForShards(f, path);
    std::string bytes(std::size_t(shard.size()), '\0');
    if (shard.size() > 0 &&
        (!f.seek(shard.begin) || f.read(bytes.data(), shard.size()) != shard.size()))
        failFile(path.toStdString(), "cannot read bytes " + std::to_string(shard.begin) + "–" +
                                         std::to_string(shard.end) + ": " +
                                         f.errorString().toStdString());
    return bytes;
}

bool isGzipped(const std::string& path)
{
    QFile f(QString::fromStdString(path));
    char magic[2] = {0, 0};
    return f.open(QIODevice::ReadOnly) && f.read(magic, 2) == 2 &&
           static_cast<unsigned char>(magic[0]) == 0x1f &&
           static_cast<unsigned char>(magic[1]) == 0x8b;
}

} // namespace svi
