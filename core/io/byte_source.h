#pragma once
// Reading a data file's bytes in blocks, gunzipped on the fly, and splitting them into lines.
// Shared by the readers of core/io (tables, corpora); not part of their public interface.
// Uses QtCore's QFile, so Qt resources (":/…") can be read too. An object reads one file and
// must not be shared between threads; separate objects may run on any thread.

#include "core/io/data_error.h"
#include "core/io/load_control.h"

#include <QFile>
#include <QIODevice>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>
#include <zlib.h>

namespace svi {

// The path that names standard input (a pipeline's data: `svi run - --kind corpus …`).
inline constexpr const char* kStandardInput = "-";

// The file's bytes, inflated when they start with the gzip magic 1f 8b, whatever the name says.
// Concatenated gzip members are read one after another, as gzip -d does. Opened while a load is
// current on its thread (core/io/load_control.h), it adds the bytes it reads from disk to that
// load and throws LoadCancelled from read() once the load is cancelled.
class ByteSource
{
public:
    // Opens the file; "-" (kStandardInput) reads the process's standard input, once. Throws
    // DataError "cannot read '<path>': <reason>" when it does not exist, is a folder or cannot
    // be opened.
    explicit ByteSource(std::string path);
    ~ByteSource();

    ByteSource(const ByteSource&) = delete;
    ByteSource& operator=(const ByteSource&) = delete;

    const std::string& path() const { return m_path; }
    bool gzip() const { return m_gzip; }
    // About how many bytes of text there are (for reserving memory); 0 when unknown.
    std::int64_t sizeHint() const { return m_sizeHint; }

    // Up to n bytes of text; 0 only at the end. Throws DataError on read errors, corrupt or
    // truncated gzip data.
    std::size_t read(char* out, std::size_t n);
    // Exactly n bytes unless the text ends first; returns how many were read.
    std::size_t readFull(char* out, std::size_t n);

private:
    std::size_t readRaw(char* out, std::size_t n);
    std::size_t inflateInto(char* out, std::size_t n);

    std::string m_path;
    QFile m_file;
    bool m_gzip = false;
    std::int64_t m_sizeHint = 0;
    LoadControl* m_load = currentLoad();
    z_stream m_z{};
    bool m_zReady = false;
    bool m_inMember = false;
    bool m_fileEnd = false;
    std::vector<unsigned char> m_in;
};

// Space, tab, CR, VT or FF: what separates the fields of whitespace-delimited text.
inline bool isBlank(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

// `s` without its leading and trailing blanks.
inline std::string_view trimmed(std::string_view s)
{
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isBlank(s.back()))
        s.remove_suffix(1);
    return s;
}

// The UTF-8 byte-order mark some editors write at the start of a text file.
inline constexpr std::string_view kBom = "\xEF\xBB\xBF";

// The fields of `line` separated by runs of blanks, into `out` (cleared first; its capacity is
// kept, so a reader calling it per line allocates only while lines grow).
void splitFields(std::string_view line, std::vector<std::string_view>& out);

// The whole file (inflated when gzipped), for readers that parse it in one piece.
std::string readAllBytes(const std::string& path);

// A data file's content for a reader that seeks in it or hands it to Qt as a device (FCS,
// images): the file itself or, when it starts with the gzip magic 1f 8b (whatever its name),
// its inflated content held in memory (read through ByteSource, so a current load sees its
// bytes and can cancel). One reader, one thread.
struct SeekableContent
{
    std::unique_ptr<QIODevice> device; // open for reading, at the start
    // The content was inflated into memory: its bytes were reported to the current load as
    // they were read, so the reader reports none of its own (it does for the file itself).
    bool gzip = false;
};

// Throws DataError "cannot read '<path>': <reason>" as ByteSource does (missing, a folder,
// unreadable, corrupt or truncated gzip data).
SeekableContent openSeekable(const std::string& path);

// " (gzip of <what>)" for a gzip'd file's messages, "" otherwise.
inline std::string gzipOf(bool gzip, const std::string& what)
{
    return gzip ? " (gzip of " + what + ")" : std::string();
}

// The text of a ByteSource not yet consumed: bytes [pos, end) of `bytes`. A reader scans them
// and advances pos; fill() moves them to the front and reads more after them, doubling the
// buffer when they fill it, so that a line or record of any length ends up whole in it. The
// buffer starts at `block` bytes and grows only for a line longer than that, so memory stays
// at about one block whatever the file's length.
struct TextBuffer
{
    explicit TextBuffer(ByteSource& source, std::size_t block = 1024 * 1024)
        : source(source), bytes(block)
    {
    }
    // Reads more after the unread bytes; eof once a read gives nothing. Throws as
    // ByteSource::read.
    void fill();

    ByteSource& source;
    std::vector<char> bytes;
    std::size_t pos = 0, end = 0;
    bool eof = false;
};

// Lines of a ByteSource without their terminator (LF or CRLF). A line is valid until the next
// call to next(); lines of any length are returned whole.
class LineReader
{
public:
    explicit LineReader(ByteSource& source);

    // The next line and its number (from 1); false at the end of the text.
    bool next(std::string_view& line, std::int64_t& number);

private:
    TextBuffer m_text;
    std::int64_t m_line = 0;
};

} // namespace svi
