#pragma once
// The decoding of an FCS file's DATA segment: byte swaps, float64 and unsigned integers of 1–8
// bytes into the table's float32, and the linear values of log-amplified parameters. Only
// core/io/fcs_file.cpp includes this.

#include "core/data/table.h"

#include <bit>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace svi::fcs {

// Byte swaps: FCS byte order against this machine's. memcpy keeps the loads legal at any
// alignment; compilers turn these into single load (+ bswap) instructions.
inline std::uint16_t bswap(std::uint16_t v)
{
    return std::uint16_t((v >> 8) | (v << 8));
}
inline std::uint32_t bswap(std::uint32_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap32(v);
#else
    return (v >> 24) | ((v >> 8) & 0xFF00u) | ((v << 8) & 0xFF0000u) | (v << 24);
#endif
}
inline std::uint64_t bswap(std::uint64_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return __builtin_bswap64(v);
#else
    return (std::uint64_t(bswap(std::uint32_t(v))) << 32) | bswap(std::uint32_t(v >> 32));
#endif
}

template <class T, bool Swap> inline T load(const unsigned char* p)
{
    T v;
    std::memcpy(&v, p, sizeof(T));
    if constexpr (Swap)
        v = bswap(v);
    return v;
}

inline void swapFloats(float* values, std::size_t n)
{
    auto* p = reinterpret_cast<unsigned char*>(values);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t v = load<std::uint32_t, true>(p + 4 * i);
        std::memcpy(p + 4 * i, &v, 4);
    }
}

template <bool Swap> void decodeDouble(const unsigned char* src, float* dst, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        dst[i] = float(std::bit_cast<double>(load<std::uint64_t, Swap>(src + 8 * i)));
}

// A parameter recorded on a log scale by a log amplifier ($PnE = f1,f2 with f1 > 0): the value
// stored is x = R·log10(v / f2) / f1 for a linear v, R = $PnR (FCS 3.1, Sec. 3.3.30).
struct LogScale
{
    double decades = 0.0; // f1; 0 = linear
    double offset = 1.0;  // f2 (written 0 by old instruments, which means 1)
    double range = 0.0;   // $PnR
};

struct IntColumn
{
    int offset = 0; // byte offset inside an event
    int bytes = 0;
    std::uint64_t mask = ~std::uint64_t(0);
    LogScale log;
};

// Unsigned integers of 1–8 bytes, in the file's byte order (Big = most significant first).
template <bool Big>
void decodeInts(const unsigned char* src, float* dst, std::int64_t events, int eventBytes,
                const std::vector<IntColumn>& cols)
{
    constexpr bool hostBig = std::endian::native == std::endian::big;
    constexpr bool swap = Big != hostBig;
    const std::size_t P = cols.size();
    for (std::int64_t r = 0; r < events; ++r) {
        const unsigned char* e = src + r * eventBytes;
        float* out = dst + std::size_t(r) * P;
        for (std::size_t c = 0; c < P; ++c) {
            const IntColumn& col = cols[c];
            const unsigned char* p = e + col.offset;
            std::uint64_t v = 0;
            switch (col.bytes) {
            case 1:
                v = p[0];
                break;
            case 2:
                v = load<std::uint16_t, swap>(p);
                break;
            case 3:
                v = Big ? (std::uint64_t(p[0]) << 16) | (std::uint64_t(p[1]) << 8) | p[2]
                        : std::uint64_t(p[0]) | (std::uint64_t(p[1]) << 8) |
                              (std::uint64_t(p[2]) << 16);
                break;
            case 4:
                v = load<std::uint32_t, swap>(p);
                break;
            default:
                for (int k = 0; k < col.bytes; ++k) {
                    const int b = Big ? k : col.bytes - 1 - k;
                    v = (v << 8) | p[b];
                }
            }
            out[c] = float(v & col.mask);
        }
    }
}

// Replaces each log-amplified column's stored value x by its linear value f2·10^(f1·x / R), as
// the standard defines it and flowCore reads it by default, so that every channel of the
// table is on a linear scale and one arcsinh cofactor fits them all; adds one note naming the
// columns.
void linearise(Table& table, const std::vector<IntColumn>& cols, std::vector<std::string>& notes);

} // namespace svi::fcs
