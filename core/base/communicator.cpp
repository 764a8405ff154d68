#include "core/base/communicator.h"

#include <algorithm>
#include <stdexcept>

namespace svi {

std::vector<std::int64_t> Communicator::mine(std::span<const std::int64_t> items, Shard rows) const
{
    if (!distributed())
        return {items.begin(), items.end()};
    std::vector<std::int64_t> out;
    for (std::int64_t i : items)
        if (rows.contains(i))
            out.push_back(i);
    return out;
}

std::string Communicator::firstMessage(const std::string& mine)
{
    if (!distributed())
        return mine;
    // Each rank writes its bytes (as 1–256, 0 ending the message) into its own slot.
    const std::size_t L = kMessageBytes;
    std::vector<double> slots(L * std::size_t(size()), 0.0);
    for (std::size_t i = 0; i < std::min(L, mine.size()); ++i)
        slots[std::size_t(rank()) * L + i] = double(static_cast<unsigned char>(mine[i])) + 1.0;
    sum(slots);
    for (int r = 0; r < size(); ++r) {
        std::string message;
        for (std::size_t i = 0; i < L && slots[std::size_t(r) * L + i] != 0.0; ++i)
            message.push_back(
                char(static_cast<unsigned char>(slots[std::size_t(r) * L + i] - 1.0)));
        if (!message.empty())
            return message;
    }
    return {};
}

std::string Communicator::earliestMessage(double key, const std::string& mine)
{
    if (!distributed())
        return mine;
    // Each rank's key in its slot, a rank without a message contributing none.
    const std::size_t R = std::size_t(size());
    std::vector<double> keys(2 * R, 0.0);
    if (!mine.empty()) {
        keys[std::size_t(rank())] = key;
        keys[R + std::size_t(rank())] = 1.0;
    }
    sum(keys);
    int earliest = -1;
    for (std::size_t q = 0; q < R; ++q)
        if (keys[R + q] != 0.0 && (earliest < 0 || keys[q] < keys[std::size_t(earliest)]))
            earliest = int(q);
    return firstMessage(earliest == rank() ? mine : std::string());
}

namespace {

// (An empty buffer's data() may be null, which memcpy may not be given even for 0 bytes.)
template <typename T> void put(std::string& out, const T* values, std::size_t n)
{
    if (n > 0)
        out.append(reinterpret_cast<const char*>(values), n * sizeof(T));
}

template <typename T> void take(std::string_view& in, T* values, std::size_t n)
{
    if (in.size() < n * sizeof(T))
        throw std::invalid_argument("GlobalStatistic::unpack: the message ends early");
    if (n == 0)
        return;
    std::memcpy(static_cast<void*>(values), in.data(), n * sizeof(T));
    in.remove_prefix(n * sizeof(T));
}

} // namespace

std::string GlobalStatistic::pack() const
{
    std::string out;
    for (const std::span<double>& part : m_dense) {
        const std::uint64_t n = part.size();
        put(out, &n, 1);
        put(out, part.data(), part.size());
    }
    for (const SparseRowSum* rows : m_sparse) {
        const std::uint64_t shape[2] = {rows->index.size(), std::uint64_t(rows->rows.cols())};
        put(out, shape, 2);
        put(out, rows->index.data(), rows->index.size());
        put(out, rows->rows.data(), std::size_t(rows->rows.size()));
    }
    return out;
}

void GlobalStatistic::unpack(std::string_view in)
{
    for (const std::span<double>& part : m_dense) {
        std::uint64_t n = 0;
        take(in, &n, 1);
        if (n != part.size())
            throw std::invalid_argument("GlobalStatistic::unpack: a dense buffer of " +
                                        std::to_string(n) + " values, but " +
                                        std::to_string(part.size()) + " are listed");
        take(in, part.data(), part.size());
    }
    for (SparseRowSum* rows : m_sparse) {
        std::uint64_t shape[2] = {0, 0};
        take(in, shape, 2);
        // Both sizes bounded by what is left before their product is formed.
        const std::uint64_t left = in.size();
        if (shape[0] > left / sizeof(std::int32_t) ||
            (shape[0] > 0 && shape[1] > left / sizeof(double) / shape[0]))
            throw std::invalid_argument("GlobalStatistic::unpack: the message ends early");
        rows->index.resize(std::size_t(shape[0]));
        take(in, rows->index.data(), rows->index.size());
        rows->rows.resize(Eigen::Index(shape[0]), Eigen::Index(shape[1]));
        take(in, rows->rows.data(), std::size_t(rows->rows.size()));
    }
    if (!in.empty())
        throw std::invalid_argument("GlobalStatistic::unpack: " + std::to_string(in.size()) +
                                    " bytes more than the listed buffers hold");
}

void Communicator::send(int, int, const std::string&)
{
    throw std::logic_error("Communicator::send: a run on one process has no other rank");
}

std::string Communicator::receive(int, int, int*)
{
    throw std::logic_error("Communicator::receive: a run on one process has no other rank");
}

bool Communicator::probe(int, int, int*)
{
    throw std::logic_error("Communicator::probe: a run on one process has no other rank");
}

Shard positionsIn(const std::vector<std::int64_t>& ascending, Shard rows)
{
    const auto first = std::lower_bound(ascending.begin(), ascending.end(), rows.begin);
    const auto last = std::lower_bound(first, ascending.end(), rows.end);
    return {first - ascending.begin(), last - ascending.begin()};
}

Communicator& localCommunicator()
{
    static Communicator local;
    return local;
}

} // namespace svi
