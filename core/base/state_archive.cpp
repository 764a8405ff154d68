#include "core/base/state_archive.h"

#include <limits>

namespace svi {

namespace {

std::size_t elementSize(StateArchive::Type type)
{
    using T = StateArchive::Type;
    switch (type) {
    case T::Bool:
    case T::U8:
    case T::Text:
        return 1;
    case T::I32:
    case T::F32:
        return 4;
    case T::I64:
    case T::U64:
    case T::F64:
        return 8;
    }
    return 0;
}

const char* typeName(StateArchive::Type type)
{
    using T = StateArchive::Type;
    switch (type) {
    case T::Bool:
        return "bool";
    case T::I32:
        return "int32";
    case T::I64:
        return "int64";
    case T::U64:
        return "uint64";
    case T::F32:
        return "float32";
    case T::F64:
        return "float64";
    case T::U8:
        return "bytes";
    case T::Text:
        return "text";
    }
    return "unknown";
}

template <typename T> void put(std::string& out, T v)
{
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// The largest record a reader accepts: no trainer state comes near it, and a damaged length
// must not become a huge allocation.
constexpr std::int64_t kMaxRecordBytes = std::int64_t(1) << 40;

} // namespace

StateArchive::StateArchive() = default;

StateArchive::StateArchive(std::string_view bytes) : m_reading(true), m_in(bytes) {}

std::size_t StateArchive::enter(std::string_view name)
{
    const std::size_t mark = m_prefix.size();
    m_prefix.append(name);
    m_prefix += '.';
    return mark;
}

std::string StateArchive::fullName(std::string_view name) const
{
    return m_prefix + std::string(name);
}

void StateArchive::field(std::string_view name, bool& v)
{
    std::uint8_t raw = v ? 1 : 0;
    std::int64_t rows = 1, cols = 1;
    if (!m_reading) {
        writeRecord(name, Type::Bool, rows, cols, &raw);
        return;
    }
    const Header h = readHeader(name, Type::Bool);
    if (h.rows != 1 || h.cols != 1)
        throw StateError(shapeMismatch(name, h.rows, h.cols, 1, 1));
    readPayload(&raw, h);
    if (raw > 1)
        throw StateError("checkpoint: record '" + fullName(name) + "' holds " +
                         std::to_string(int(raw)) + ", but a flag must be 0 or 1");
    v = raw == 1;
}

void StateArchive::field(std::string_view name, std::string& v)
{
    if (!m_reading) {
        writeRecord(name, Type::Text, std::int64_t(v.size()), 1, v.data());
        return;
    }
    const Header h = readHeader(name, Type::Text);
    if (h.cols != 1)
        throw StateError(shapeMismatch(name, h.rows, h.cols, h.rows, 1));
    v.resize(std::size_t(h.rows));
    readPayload(v.data(), h);
}

std::size_t StateArchive::checkedCount(std::string_view name, std::int64_t n) const
{
    if (n < 0 || n > std::int64_t(m_in.size()))
        throw StateError("checkpoint: record '" + fullName(name) + "#' holds a count of " +
                         std::to_string(n) + ", more than the file could hold");
    return std::size_t(n);
}

void StateArchive::writeRecord(std::string_view name, Type type, std::int64_t rows,
                               std::int64_t cols, const void* data)
{
    const std::string full = fullName(name);
    put(m_out, std::uint32_t(full.size()));
    m_out += full;
    put(m_out, std::uint8_t(type));
    put(m_out, rows);
    put(m_out, cols);
    const std::size_t bytes = std::size_t(rows * cols) * elementSize(type);
    if (bytes > 0)
        m_out.append(static_cast<const char*>(data), bytes);
}

StateArchive::Header StateArchive::readHeader(std::string_view name, Type type)
{
    const std::string want = fullName(name);
    const auto need = [&](std::size_t n, const char* what) {
        if (m_in.size() - m_pos < n)
            throw StateError("checkpoint: the state ends inside " + std::string(what) +
                             " of record '" + want + "' (a truncated file?)");
    };
    const auto take = [&](auto& v, const char* what) {
        need(sizeof v, what);
        std::memcpy(&v, m_in.data() + m_pos, sizeof v);
        m_pos += sizeof v;
    };
    if (m_pos == m_in.size())
        throw StateError("checkpoint: the state ends before record '" + want +
                         "' (written by another version, or another kind of run?)");
    std::uint32_t nameLength = 0;
    take(nameLength, "the name");
    need(nameLength, "the name");
    const std::string_view found = m_in.substr(m_pos, nameLength);
    m_pos += nameLength;
    if (found != want)
        throw StateError("checkpoint: found record '" + std::string(found) + "' where '" + want +
                         "' was expected (written by another version, or another kind of run?)");
    std::uint8_t rawType = 0;
    take(rawType, "the type");
    if (rawType != std::uint8_t(type))
        throw StateError(mismatch(name,
                                  rawType >= 1 && rawType <= std::uint8_t(Type::Text)
                                      ? typeName(Type(rawType))
                                      : "an unknown type",
                                  typeName(type)));
    Header h;
    take(h.rows, "the shape");
    take(h.cols, "the shape");
    const std::int64_t size = std::int64_t(elementSize(type));
    if (h.rows < 0 || h.cols < 0 || (h.cols > 0 && h.rows > kMaxRecordBytes / size / h.cols))
        throw StateError("checkpoint: record '" + want + "' has an impossible shape " +
                         std::to_string(h.rows) + "×" + std::to_string(h.cols));
    h.bytes = std::size_t(h.rows * h.cols * size);
    need(h.bytes, "the values");
    return h;
}

void StateArchive::readPayload(void* into, const Header& h)
{
    if (h.bytes > 0)
        std::memcpy(into, m_in.data() + m_pos, h.bytes);
    m_pos += h.bytes;
}

void StateArchive::finish() const
{
    if (m_reading && m_pos != m_in.size())
        throw StateError("checkpoint: " + std::to_string(m_in.size() - m_pos) +
                         " bytes of state were left unread after every record this run holds "
                         "(written by another version, or another kind of run?)");
}

std::string StateArchive::mismatch(std::string_view name, std::string_view found,
                                   std::string_view expected) const
{
    return "checkpoint: record '" + fullName(name) + "' is " + std::string(found) +
           ", but this run's is " + std::string(expected);
}

std::string StateArchive::shapeMismatch(std::string_view name, std::int64_t rows, std::int64_t cols,
                                        std::int64_t wantRows, std::int64_t wantCols) const
{
    return mismatch(name, std::to_string(rows) + "×" + std::to_string(cols),
                    std::to_string(wantRows) + "×" + std::to_string(wantCols) +
                        " (was it written by a run of other settings or data?)");
}

} // namespace svi
