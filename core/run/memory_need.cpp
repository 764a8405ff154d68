#include "core/run/memory_need.h"

#include "core/base/params.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

namespace svi {

double totalBytes(const std::vector<MemoryTerm>& need)
{
    double total = 0.0;
    for (const MemoryTerm& t : need)
        total += t.bytes;
    return total;
}

std::string bytesText(double bytes)
{
    static const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
    int u = 0;
    while (std::abs(bytes) >= 1000.0 && u < 5) {
        bytes /= 1000.0;
        ++u;
    }
    char buf[48];
    if (u == 0)
        std::snprintf(buf, sizeof buf, "%.0f %s", bytes, units[u]);
    else
        std::snprintf(buf, sizeof buf, bytes < 10 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

namespace {

// A number read from the first line of a file ("max" and unreadable files give -1).
std::int64_t numberIn(const char* path)
{
    std::ifstream in(path);
    std::string word;
    if (!(in >> word) || word == "max")
        return -1;
    try {
        return std::stoll(word);
    } catch (const std::exception&) {
        return -1;
    }
}

// A term's setting as messages name it: a key as a reference to the setting (fieldError), a
// phrase ("the table's columns") as it is.
std::string named(const std::string& setting)
{
    return isSettingKey(setting) ? settingRef(setting) : setting;
}

} // namespace

std::int64_t availableMemory()
{
    std::int64_t available = -1;
    {
        std::ifstream in("/proc/meminfo");
        std::string line;
        while (std::getline(in, line))
            if (line.rfind("MemAvailable:", 0) == 0) {
                std::istringstream fields(line.substr(13));
                std::int64_t kb = 0;
                if (fields >> kb)
                    available = kb * 1024;
                break;
            }
    }
    // A container's limit (cgroup v2 at the root of the process's hierarchy).
    const std::int64_t limit = numberIn("/sys/fs/cgroup/memory.max");
    const std::int64_t used = numberIn("/sys/fs/cgroup/memory.current");
    if (limit > 0 && used >= 0) {
        const std::int64_t left = std::max<std::int64_t>(0, limit - used);
        available = available < 0 ? left : std::min(available, left);
    }
    return available;
}

std::int64_t peakResidentBytes()
{
    struct rusage ru
    {
    };
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return -1;
    return std::int64_t(ru.ru_maxrss) * 1024; // kilobytes on Linux
}

std::string memoryRefusal(const std::vector<MemoryTerm>& need, std::int64_t available,
                          const std::string& subject)
{
    const double total = totalBytes(need);
    if (available < 0 || total <= double(available) || need.empty())
        return {};
    const MemoryTerm& largest =
        *std::max_element(need.begin(), need.end(), [](const MemoryTerm& a, const MemoryTerm& b) {
            return a.bytes < b.bytes;
        });
    const std::string advice = largest.setting == "data" || largest.setting.empty()
                                   ? "use fewer data"
                                   : "lower " + named(largest.setting);
    return subject + " would need about " + bytesText(total) +
           " of memory (the largest part: " + largest.what + ", " + bytesText(largest.bytes) +
           " — " + advice + "), but " + bytesText(double(available)) + " are available";
}

std::string memoryEstimateText(const std::vector<MemoryTerm>& need)
{
    if (need.empty())
        return {};
    const MemoryTerm& largest =
        *std::max_element(need.begin(), need.end(), [](const MemoryTerm& a, const MemoryTerm& b) {
            return a.bytes < b.bytes;
        });
    return "about " + bytesText(totalBytes(need)) + " beyond its data, most of it " + largest.what +
           " (" + bytesText(largest.bytes) +
           (largest.setting.empty() || largest.setting == "data"
                ? ", scaled by the data"
                : ", scaled by " + named(largest.setting)) +
           ")";
}

std::string memoryNote(const std::vector<MemoryTerm>& need)
{
    return need.empty() ? std::string() : "the run takes " + memoryEstimateText(need);
}

std::string outOfMemoryMessage(const std::string& where, const std::vector<MemoryTerm>& need)
{
    std::string text = "out of memory " + where;
    if (!need.empty())
        text += ": " + memoryNote(need);
    const std::int64_t available = availableMemory();
    if (available >= 0)
        text += std::string(need.empty() ? ": " : ", ") + bytesText(double(available)) +
                " are available now";
    return text;
}

} // namespace svi
