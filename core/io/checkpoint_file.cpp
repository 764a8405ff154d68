#include "core/io/checkpoint_file.h"

#include "core/io/data_error.h"
#include "core/io/run_files.h"

#include <QFile>
#include <algorithm>
#include <cstring>
#include <zlib.h>

namespace svi {

namespace {

constexpr char kMagic[8] = {'S', 'V', 'I', '-', 'C', 'K', 'P', 'T'};
constexpr std::uint32_t kByteOrder = 0x01020304;
// magic, version, byte order, length (8), CRC-32, flags (none yet: 0)
constexpr std::size_t kHeaderBytes = 8 + 4 + 4 + 8 + 4 + 4;

template <typename T> void put(std::string& out, T v)
{
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T> T get(const std::string& in, std::size_t at)
{
    T v;
    std::memcpy(&v, in.data() + at, sizeof v);
    return v;
}

std::uint32_t crcOf(const char* data, std::size_t n)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    // zlib takes lengths as uInt: feed the state in pieces.
    while (n > 0) {
        const uInt piece = uInt(std::min<std::size_t>(n, 1u << 30));
        crc = crc32(crc, reinterpret_cast<const Bytef*>(data), piece);
        data += piece;
        n -= piece;
    }
    return std::uint32_t(crc);
}

} // namespace

std::string encodeCheckpoint(const std::string& state)
{
    std::string out;
    out.reserve(kHeaderBytes + state.size());
    out.append(kMagic, sizeof kMagic);
    put(out, kCheckpointFormat);
    put(out, kByteOrder);
    put(out, std::uint64_t(state.size()));
    put(out, crcOf(state.data(), state.size()));
    put(out, std::uint32_t(0));
    out += state;
    return out;
}

std::string decodeCheckpoint(const std::string& bytes, const std::string& file)
{
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        failFile(file, "not a checkpoint of this program (no SVI-CKPT header)");
    if (bytes.size() < kHeaderBytes)
        failFile(file, "the checkpoint ends inside its header (a truncated file)");
    const auto version = get<std::uint32_t>(bytes, 8);
    if (get<std::uint32_t>(bytes, 12) != kByteOrder)
        failFile(file, "the checkpoint was written on a machine of the other byte order");
    if (version != kCheckpointFormat)
        failFile(file, "checkpoint format version " + std::to_string(version) +
                           ", but this build reads version " + std::to_string(kCheckpointFormat) +
                           (version < kCheckpointFormat
                                ? " (an older format, whose layout it no longer knows: rerun, "
                                  "or resume with the build that wrote it)"
                                : " (written by a newer build)"));
    if (get<std::uint32_t>(bytes, 28) != 0)
        failFile(file, "the checkpoint has flags this build does not know");
    const auto length = get<std::uint64_t>(bytes, 16);
    const std::size_t have = bytes.size() - kHeaderBytes;
    if (length > have)
        failFile(file, "the checkpoint is truncated: its state has " + std::to_string(have) +
                           " of " + std::to_string(length) + " bytes");
    if (length < have)
        failFile(file,
                 "the checkpoint has " + std::to_string(have - length) + " bytes after its state");
    if (crcOf(bytes.data() + kHeaderBytes, have) != get<std::uint32_t>(bytes, 24))
        failFile(file, "the checkpoint is corrupted (its checksum does not match)");
    return bytes.substr(kHeaderBytes);
}

void writeCheckpointFile(const QString& path, const std::string& state)
{
    const std::string bytes = encodeCheckpoint(state);
    writeFileAtomically(path, QByteArray::fromRawData(bytes.data(), qsizetype(bytes.size())));
}

std::string readCheckpointFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw DataError("cannot read '" + path.toStdString() +
                        "': " + f.errorString().toStdString());
    const QByteArray bytes = f.readAll();
    return decodeCheckpoint(bytes.toStdString(), path.toStdString());
}

} // namespace svi
