#include "core/io/byte_source.h"

#include <QBuffer>
#include <QFileInfo>
#include <QString>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

namespace svi {
namespace {

// Compressed bytes read per block.
constexpr std::size_t kInputBlock = 256 * 1024;

} // namespace

ByteSource::ByteSource(std::string path)
    : m_path(std::move(path)), m_file(QString::fromStdString(m_path))
{
    if (m_path == kStandardInput) {
        if (!m_file.open(stdin, QIODevice::ReadOnly))
            failFile(m_path, m_file.errorString().toStdString());
    } else {
        const QFileInfo fi(m_file.fileName());
        if (!fi.exists())
            failFile(m_path, "file does not exist");
        if (fi.isDir())
            failFile(m_path, "is a folder, not a file");
        if (!m_file.open(QIODevice::ReadOnly))
            failFile(m_path, m_file.errorString().toStdString());
    }
    const QByteArray magic = m_file.peek(2);
    m_gzip = magic.size() == 2 && static_cast<unsigned char>(magic[0]) == 0x1f &&
             static_cast<unsigned char>(magic[1]) == 0x8b;
    m_sizeHint = m_file.isSequential() ? 0 : m_file.size();
    if (m_gzip && m_sizeHint >= 18 && m_file.seek(m_sizeHint - 4)) {
        // The gzip trailer ends with the text length modulo 2^32 (of the last member only);
        // compressed numbers rarely shrink more than fourfold, so fall back on that. Deflate
        // cannot shrink anything more than 1032-fold: a trailer claiming more is corrupt and
        // must not make a reader reserve gigabytes for a file of a few bytes.
        const QByteArray tail = m_file.read(4);
        std::int64_t isize = 0;
        for (int i = 3; i >= 0 && tail.size() == 4; --i)
            isize = isize * 256 + static_cast<unsigned char>(tail[i]);
        const std::int64_t packed = m_sizeHint;
        m_sizeHint = isize >= packed ? std::min(isize, 1032 * packed) : 4 * packed;
        if (!m_file.seek(0))
            failFile(m_path, m_file.errorString().toStdString());
    }
    if (m_gzip) {
        m_in.resize(kInputBlock);
        // 15: the largest window, as gzip writes; +32: accept the gzip header.
        if (inflateInit2(&m_z, 15 + 32) != Z_OK)
            failFile(m_path, "zlib cannot be initialised (out of memory?)");
        m_zReady = true;
        m_inMember = true;
    }
}

ByteSource::~ByteSource()
{
    if (m_zReady)
        inflateEnd(&m_z);
}

std::size_t ByteSource::read(char* out, std::size_t n)
{
    return m_gzip ? inflateInto(out, n) : readRaw(out, n);
}

std::size_t ByteSource::readFull(char* out, std::size_t n)
{
    std::size_t done = 0;
    while (done < n) {
        const std::size_t got = read(out + done, n - done);
        if (got == 0)
            break;
        done += got;
    }
    return done;
}

std::size_t ByteSource::readRaw(char* out, std::size_t n)
{
    const qint64 got = m_file.read(out, qint64(n));
    if (got < 0)
        failFile(m_path, m_file.errorString().toStdString());
    if (m_load)
        m_load->advance(got);
    return std::size_t(got);
}

std::size_t ByteSource::inflateInto(char* out, std::size_t n)
{
    m_z.next_out = reinterpret_cast<Bytef*>(out);
    m_z.avail_out = uInt(std::min<std::size_t>(n, std::numeric_limits<uInt>::max()));
    const uInt wanted = m_z.avail_out;
    while (m_z.avail_out > 0) {
        if (m_z.avail_in == 0 && !m_fileEnd) {
            const std::size_t got = readRaw(reinterpret_cast<char*>(m_in.data()), m_in.size());
            m_fileEnd = got == 0;
            m_z.next_in = m_in.data();
            m_z.avail_in = uInt(got);
        }
        if (!m_inMember) {
            // Between members: NUL padding (from tape or block devices) may end the file;
            // anything else has to be another gzip member.
            while (m_z.avail_in > 0 && *m_z.next_in == 0) {
                ++m_z.next_in;
                --m_z.avail_in;
            }
            if (m_z.avail_in == 0) {
                if (m_fileEnd)
                    break;
                continue;
            }
            inflateReset(&m_z);
            m_inMember = true;
        }
        if (m_z.avail_in == 0) // and the file has ended inside a member
            failFile(m_path, "the gzip data end early (truncated file?)");
        const int rc = inflate(&m_z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            m_inMember = false;
        } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && m_z.avail_in == 0)) {
            const std::string why = m_z.msg ? m_z.msg : "zlib error " + std::to_string(rc);
            failFile(m_path, "corrupt gzip data (" + why + ")");
        }
    }
    return wanted - m_z.avail_out;
}

void TextBuffer::fill()
{
    if (pos > 0) {
        std::memmove(bytes.data(), bytes.data() + pos, end - pos);
        end -= pos;
        pos = 0;
    }
    if (end == bytes.size())
        bytes.resize(bytes.size() * 2);
    const std::size_t got = source.read(bytes.data() + end, bytes.size() - end);
    end += got;
    eof = got == 0;
}

LineReader::LineReader(ByteSource& source) : m_text(source) {}

bool LineReader::next(std::string_view& line, std::int64_t& number)
{
    TextBuffer& t = m_text;
    for (;;) {
        const char* const start = t.bytes.data() + t.pos;
        const auto* nl = static_cast<const char*>(std::memchr(start, '\n', t.end - t.pos));
        if (nl || (t.eof && t.pos < t.end)) {
            const char* const stop = nl ? nl : t.bytes.data() + t.end;
            std::size_t len = std::size_t(stop - start);
            if (len > 0 && start[len - 1] == '\r')
                --len;
            line = std::string_view(start, len);
            number = ++m_line;
            t.pos = nl ? std::size_t(nl + 1 - t.bytes.data()) : t.end;
            return true;
        }
        if (t.eof)
            return false;
        t.fill();
    }
}

void splitFields(std::string_view line, std::vector<std::string_view>& out)
{
    out.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isBlank(line[i]))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && !isBlank(line[i]))
            ++i;
        if (i > start)
            out.push_back(line.substr(start, i - start));
    }
}

std::string readAllBytes(const std::string& path)
{
    ByteSource source(path);
    std::string bytes;
    if (source.sizeHint() > 0)
        bytes.reserve(std::size_t(source.sizeHint()));
    char block[64 * 1024];
    while (const std::size_t got = source.read(block, sizeof block))
        bytes.append(block, got);
    return bytes;
}

SeekableContent openSeekable(const std::string& path)
{
    SeekableContent out;
    {
        ByteSource probe(path); // the checks and messages of every reader
        out.gzip = probe.gzip();
    }
    if (!out.gzip) {
        auto file = std::make_unique<QFile>(QString::fromStdString(path));
        if (!file->open(QIODevice::ReadOnly))
            failFile(path, file->errorString().toStdString());
        out.device = std::move(file);
        return out;
    }
    const std::string bytes = readAllBytes(path);
    auto buffer = std::make_unique<QBuffer>();
    buffer->setData(bytes.data(), qsizetype(bytes.size()));
    if (!buffer->open(QIODevice::ReadOnly))
        failFile(path, "cannot hold its inflated content in memory");
    out.device = std::move(buffer);
    return out;
}

} // namespace svi
