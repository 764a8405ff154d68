#include "core/io/tar_archive.h"

#include "core/io/byte_source.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

namespace svi {
namespace {

constexpr std::size_t kBlock = 512;

// An octal number field of a tar header (NUL- or space-terminated), or GNU's base-256 form
// (first byte with its high bit set) used for sizes of 8 GiB and more.
std::optional<std::int64_t> tarNumber(const char* field, std::size_t width)
{
    const auto* u = reinterpret_cast<const unsigned char*>(field);
    if (u[0] & 0x80) {
        std::int64_t v = u[0] & 0x3F;
        for (std::size_t i = 1; i < width; ++i) {
            if (v > (std::numeric_limits<std::int64_t>::max() >> 8))
                return std::nullopt;
            v = (v << 8) | u[i];
        }
        return v;
    }
    std::size_t i = 0;
    while (i < width && field[i] == ' ')
        ++i;
    std::int64_t v = 0;
    bool any = false;
    for (; i < width && field[i] >= '0' && field[i] <= '7'; ++i) {
        if (v > (std::numeric_limits<std::int64_t>::max() >> 3))
            return std::nullopt;
        v = v * 8 + (field[i] - '0');
        any = true;
    }
    for (; i < width; ++i)
        if (field[i] != ' ' && field[i] != '\0')
            return std::nullopt;
    return any ? std::optional<std::int64_t>(v) : std::optional<std::int64_t>(0);
}

// The header checksum: the sum of its bytes with the checksum field read as spaces. Old
// writers summed signed chars; both are accepted.
bool tarChecksumOk(const char* h)
{
    const std::optional<std::int64_t> stored = tarNumber(h + 148, 8);
    if (!stored)
        return false;
    std::int64_t unsignedSum = 0, signedSum = 0;
    for (std::size_t i = 0; i < kBlock; ++i) {
        const bool inField = i >= 148 && i < 156;
        unsignedSum += inField ? ' ' : static_cast<unsigned char>(h[i]);
        signedSum += inField ? ' ' : static_cast<signed char>(h[i]);
    }
    return *stored == unsignedSum || *stored == signedSum;
}

std::string cString(const char* s, std::size_t width)
{
    return std::string(s, strnlen(s, width));
}

// The value of `key` in a pax extended header ("<length> key=value\n" records).
std::optional<std::string> paxValue(std::string_view records, std::string_view key)
{
    std::size_t pos = 0;
    while (pos < records.size()) {
        std::size_t len = 0;
        const auto r = std::from_chars(records.data() + pos, records.data() + records.size(), len);
        if (r.ec != std::errc() || len == 0 || pos + len > records.size())
            return std::nullopt;
        const std::string_view record = records.substr(pos, len);
        const std::size_t space = record.find(' ');
        const std::size_t eq = record.find('=');
        if (space != std::string_view::npos && eq != std::string_view::npos && eq > space &&
            record.substr(space + 1, eq - space - 1) == key) {
            std::string_view value = record.substr(eq + 1);
            if (!value.empty() && value.back() == '\n')
                value.remove_suffix(1);
            return std::string(value);
        }
        pos += len;
    }
    return std::nullopt;
}

// A pax record's decimal number (digits only, at most 2⁶²); std::nullopt otherwise.
std::optional<std::int64_t> paxNumber(std::string_view text)
{
    std::int64_t value = 0;
    if (text.empty() ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    if (r.ec != std::errc() || value > std::numeric_limits<std::int64_t>::max() / 2)
        return std::nullopt;
    return value;
}

constexpr std::int64_t kMaxMetaEntry = 1 << 20; // a GNU long name or a pax record, at most
constexpr std::int64_t kReadBlock = 4 << 20;    // bytes read into memory at a time

} // namespace

bool isTarHeader(std::string_view block)
{
    return block.size() >= kBlock && tarChecksumOk(block.data());
}

void readTarArchive(const std::string& path, const std::function<bool(const std::string&)>& want,
                    const std::function<void(const std::string&, std::string&)>& take)
{
    ByteSource source(path);
    char h[kBlock];
    std::string longName, data;
    std::optional<std::string> paxPath;
    std::int64_t paxSize = -1; // from a pax header; -1 = none
    std::int64_t offset = 0;
    bool first = true;
    char skip[64 * 1024];
    for (;;) {
        const std::size_t got = source.readFull(h, kBlock);
        if (got == 0)
            break; // no end-of-archive blocks: accepted, as GNU tar does
        if (got < kBlock)
            failFile(path, "the archive ends inside a header at byte " + std::to_string(offset) +
                               " (truncated?)");
        if (std::all_of(h, h + kBlock, [](char c) { return c == 0; }))
            break;
        if (!tarChecksumOk(h)) {
            if (first)
                failFile(path, "not a tar archive (the first 512 bytes are not a tar header)");
            failFile(path, "corrupt tar header at byte " + std::to_string(offset) +
                               " (its checksum does not match)");
        }
        first = false;
        const std::optional<std::int64_t> headerSize = tarNumber(h + 124, 12);
        if (!headerSize)
            failFile(path, "corrupt tar header at byte " + std::to_string(offset) +
                               " (the size is not a number)");
        const char type = h[156];
        std::string name = cString(h, 100);
        // POSIX ustar ("ustar\0"): a prefix folder; the old GNU format ("ustar  ") uses those
        // bytes for other things.
        if (std::memcmp(h + 257, "ustar\0", 6) == 0) {
            const std::string prefix = cString(h + 345, 155);
            if (!prefix.empty())
                name = prefix + "/" + name;
        }
        if (!longName.empty())
            name = longName;
        if (paxPath)
            name = *paxPath;
        const bool regular = type == '0' || type == '\0' || type == '7';
        const std::int64_t size = regular && paxSize >= 0 ? paxSize : *headerSize;
        offset += std::int64_t(kBlock);
        const std::int64_t padded =
            (size + std::int64_t(kBlock) - 1) / std::int64_t(kBlock) * std::int64_t(kBlock);
        while (name.starts_with("./"))
            name.erase(0, 2);

        const bool meta = type == 'L' || type == 'x';
        const std::string shown =
            meta ? "the long name before byte " + std::to_string(offset) : "'" + name + "'";
        const bool keep = meta || (regular && want(name));
        // A long name or pax record is a few hundred bytes; megabytes mean a corrupt header.
        if (meta && size > kMaxMetaEntry)
            failFile(path, "corrupt tar header before byte " + std::to_string(offset) + " (" +
                               std::to_string(size) + " bytes of " +
                               (type == 'L' ? "long name" : "pax attributes") + ")");
        std::int64_t left = padded;
        if (keep) {
            // Read in blocks, so that memory follows the bytes that are really there, not the
            // size a (possibly corrupt) header claims.
            data.clear();
            while (left > 0) {
                const std::size_t n = std::size_t(std::min<std::int64_t>(left, kReadBlock));
                const std::size_t at = data.size();
                data.resize(at + n);
                if (source.readFull(data.data() + at, n) < n)
                    failFile(path, "the archive ends inside " + shown + " (truncated?)");
                left -= std::int64_t(n);
            }
            data.resize(std::size_t(size));
        }
        while (left > 0) {
            const std::size_t n = std::size_t(std::min<std::int64_t>(left, sizeof skip));
            if (source.readFull(skip, n) < n)
                failFile(path, "the archive ends inside " + shown + " (truncated?)");
            left -= std::int64_t(n);
        }
        offset += padded;

        if (type == 'L') { // GNU: the next entry's long name
            longName = cString(data.data(), data.size());
            continue;
        }
        if (type == 'x') { // pax: the next entry's attributes
            paxPath = paxValue(data, "path");
            paxSize = -1;
            if (const auto s = paxValue(data, "size")) {
                const std::optional<std::int64_t> v = paxNumber(*s);
                if (!v)
                    failFile(path, "corrupt pax header before byte " + std::to_string(offset) +
                                       " (size " + inQuotes(*s) + ")");
                paxSize = *v;
            }
            continue;
        }
        longName.clear();
        paxPath.reset();
        paxSize = -1;
        if (keep)
            take(name, data);
    }
}

} // namespace svi
