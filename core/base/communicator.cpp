#include "core/base/communicator.h"

#include <algorithm>

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
