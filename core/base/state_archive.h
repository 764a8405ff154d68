#pragma once
// StateArchive: an object's state as a flat list of named, typed, shaped records, written and
// read by the same code. A class lists its state once, in visitState(StateArchive&), calling
// field(name, member) for each part; writing a checkpoint and reading one back both run that
// list, so the two cannot drift apart:
//
//     void visitState(StateArchive& a)
//     {
//         a.field("lambda", m_lambda);       // an Eigen matrix: its shape and values
//         a.field("schedule", m_schedule);   // an object with its own visitState
//         if (a.loading())
//             refreshExpectations();         // what is derived from the state
//     }
//
// A record holds the member's full name (nested objects' names joined by '.'), its element
// type, its shape (rows × cols; a scalar is 1×1, a vector n×1) and its bytes in the machine's
// representation (a checkpoint is read back on a machine of the same byte order; the file's
// header says which). Reading checks each record against the member it fills: the same name,
// the same type and, for a member that already has a size (built from the same run
// description), the same shape; any mismatch or a short input throws StateError naming the
// record, so a checkpoint of another run or a damaged file is refused, never half-applied
// silently. Bit-exact: a value read back is the value written.
//
// Thread-safety: a value; used by one thread.

#include <Eigen/Core>
#include <array>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace svi {

// A checkpoint that cannot be applied: what is wrong, naming the record.
class StateError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class StateArchive;

// A type that lists its own state.
template <typename T>
concept ArchivedState = requires(T& t, StateArchive& a)
{
    t.visitState(a);
};

class StateArchive
{
public:
    // A writer: field() appends records; bytes() is the result.
    StateArchive();
    // A reader over `bytes` (a writer's bytes()): field() fills members from the records, in
    // the order they were written. `bytes` must outlive the reader.
    explicit StateArchive(std::string_view bytes);

    bool loading() const { return m_reading; }
    // The records written so far (writer).
    const std::string& bytes() const { return m_out; }
    // Reader: throws StateError unless every record has been read (a checkpoint with more
    // state than this build's trainer holds is from another version or another run).
    void finish() const;

    void field(std::string_view name, bool& v);
    void field(std::string_view name, std::int32_t& v) { scalar(name, v); }
    void field(std::string_view name, std::int64_t& v) { scalar(name, v); }
    void field(std::string_view name, std::uint64_t& v) { scalar(name, v); }
    void field(std::string_view name, float& v) { scalar(name, v); }
    void field(std::string_view name, double& v) { scalar(name, v); }
    void field(std::string_view name, std::string& v);

    // An enumeration, as a 64-bit integer.
    template <typename E>
    requires std::is_enum_v<E>
    void field(std::string_view name, E& v)
    {
        auto raw = static_cast<std::int64_t>(v);
        scalar(name, raw);
        v = static_cast<E>(raw);
    }

    // A dense Eigen matrix or vector (any storage order): shape and values.
    template <typename Derived>
    void field(std::string_view name, Eigen::PlainObjectBase<Derived>& m)
    {
        using Scalar = typename Derived::Scalar;
        std::int64_t rows = m.rows(), cols = m.cols();
        const bool hadSize = m.size() > 0;
        record(name, typeOf<Scalar>(), rows, cols, m.data(), hadSize,
               [&](std::int64_t r, std::int64_t c) {
                   m.resize(Eigen::Index(r), Eigen::Index(c));
                   return static_cast<void*>(m.data());
               });
    }

    // A vector of numbers (bytes as unsigned char).
    template <typename T>
    requires std::is_arithmetic_v<T> &&
        (!std::is_same_v<T, bool>)void field(std::string_view name, std::vector<T>& v)
    {
        std::int64_t rows = std::int64_t(v.size()), cols = 1;
        record(name, typeOf<T>(), rows, cols, v.data(), false, [&](std::int64_t r, std::int64_t) {
            v.resize(std::size_t(r));
            return static_cast<void*>(v.data());
        });
    }

    // An object that lists its own state: its records are named "<name>.<member>".
    template <ArchivedState T> void field(std::string_view name, T& object)
    {
        const std::size_t mark = enter(name);
        object.visitState(*this);
        m_prefix.resize(mark);
    }

    // A sequence of objects (or of vectors, arrays…): its length, then each as "<name>[i]".
    // Reading resizes the vector to the stored length (its elements default-constructed, then
    // filled); a vector of elements that cannot be default-constructed (a GaussianQ) has the
    // length the run gives it, and a stored length that differs is another run's.
    template <typename T>
    requires(!std::is_arithmetic_v<T>) void field(std::string_view name, std::vector<T>& items)
    {
        std::int64_t n = std::int64_t(items.size());
        scalar(std::string(name) + "#", n);
        if constexpr (std::is_default_constructible_v<T>) {
            if (m_reading)
                items.resize(checkedCount(name, n));
        } else if (m_reading && n != std::int64_t(items.size())) {
            throw StateError(mismatch(std::string(name) + "#", std::to_string(n) + " items",
                                      std::to_string(items.size())));
        }
        for (std::size_t i = 0; i < items.size(); ++i)
            field(std::string(name) + "[" + std::to_string(i) + "]", items[i]);
    }

    template <typename T, std::size_t N> void field(std::string_view name, std::array<T, N>& items)
    {
        for (std::size_t i = 0; i < N; ++i)
            field(std::string(name) + "[" + std::to_string(i) + "]", items[i]);
    }

    // An optional part: whether it is there, then the part. Reading into an absent part
    // default-constructs it; a present part that the checkpoint lacks is reset.
    template <typename T> void field(std::string_view name, std::optional<T>& part)
    {
        bool present = part.has_value();
        field(std::string(name) + "?", present);
        if (m_reading && present != part.has_value()) {
            if (present)
                part.emplace();
            else
                part.reset();
        }
        if (part)
            field(name, *part);
    }

    // An owned part that the owner builds (its presence is fixed by the run description): it
    // must be there on both sides, or both not. Reading never creates or destroys it.
    template <typename T> void field(std::string_view name, std::unique_ptr<T>& part)
    {
        bool present = part != nullptr;
        field(std::string(name) + "?", present);
        if (m_reading && present != (part != nullptr))
            throw StateError(
                mismatch(name, present ? "present" : "absent", part ? "present" : "absent"));
        if (part)
            field(name, *part);
    }

    // Element types of the records.
    enum class Type : std::uint8_t { Bool = 1, I32, I64, U64, F32, F64, U8, Text };

private:
    template <typename T> static constexpr Type typeOf()
    {
        if constexpr (std::is_same_v<T, float>)
            return Type::F32;
        else if constexpr (std::is_same_v<T, double>)
            return Type::F64;
        else if constexpr (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, char> ||
                           std::is_same_v<T, signed char>)
            return Type::U8;
        else if constexpr (std::is_integral_v<T> && sizeof(T) == 4)
            return Type::I32;
        else if constexpr (std::is_integral_v<T> && std::is_signed_v<T> && sizeof(T) == 8)
            return Type::I64;
        else if constexpr (std::is_integral_v<T> && sizeof(T) == 8)
            return Type::U64;
        else
            static_assert(sizeof(T) == 0, "StateArchive: no record type for this element");
    }

    template <typename T> void scalar(std::string_view name, T& v)
    {
        std::int64_t rows = 1, cols = 1;
        record(name, typeOf<T>(), rows, cols, &v, true,
               [&](std::int64_t, std::int64_t) { return static_cast<void*>(&v); });
    }

    template <typename Resize>
    void record(std::string_view name, Type type, std::int64_t rows, std::int64_t cols,
                const void* data, bool fixedShape, Resize&& resize)
    {
        if (!m_reading) {
            writeRecord(name, type, rows, cols, data);
            return;
        }
        const Header h = readHeader(name, type);
        if (fixedShape && (h.rows != rows || h.cols != cols))
            throw StateError(shapeMismatch(name, h.rows, h.cols, rows, cols));
        void* into = resize(h.rows, h.cols);
        readPayload(into, h);
    }

    struct Header
    {
        std::int64_t rows = 0, cols = 0;
        std::size_t bytes = 0;
    };

    std::size_t enter(std::string_view name);
    std::string fullName(std::string_view name) const;
    std::size_t checkedCount(std::string_view name, std::int64_t n) const;
    void writeRecord(std::string_view name, Type type, std::int64_t rows, std::int64_t cols,
                     const void* data);
    Header readHeader(std::string_view name, Type type);
    void readPayload(void* into, const Header& h);
    std::string mismatch(std::string_view name, std::string_view found,
                         std::string_view expected) const;
    std::string shapeMismatch(std::string_view name, std::int64_t rows, std::int64_t cols,
                              std::int64_t wantRows, std::int64_t wantCols) const;

    bool m_reading = false;
    std::string m_out;     // writer
    std::string_view m_in; // reader
    std::size_t m_pos = 0; // reader: next byte
    std::string m_prefix;  // "outer.inner." of the nested objects entered
};

} // namespace svi
