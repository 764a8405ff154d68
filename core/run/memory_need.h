#pragma once
// The memory a run will need, declared before it is spent: each model's registry entry and
// each data kind that draws its data from settings give the large parts of what they allocate
// as terms — what the part is, its bytes, the setting that scales it — from the data's shape and
// the resolved settings. A run whose total does not fit in the memory the machine has available
// is refused before anything grows, naming its largest part and the setting to lower; a
// std::bad_alloc that still happens is reported with the same figures. No Qt.

#include <cstdint>
#include <string>
#include <vector>

namespace svi {

struct MemoryTerm
{
    std::string what;   // "λ: K × V doubles"
    double bytes = 0.0; // may exceed any machine: a double, not an integer
    // The key that scales it ("K", "minibatch": messages name it as a reference to the setting,
    // core/base/params.h), "data", or a phrase naming what does ("the table's columns").
    std::string setting;
};

// The sum of the terms' bytes.
double totalBytes(const std::vector<MemoryTerm>& need);

// "24.1 GB", "512 MB", "3.2 kB" (powers of 1000, as the system's tools print).
std::string bytesText(double bytes);

// The memory a new allocation may take now, in bytes: Linux's MemAvailable, or the
// process's cgroup limit less its usage when that is lower; -1 when neither can be read.
std::int64_t availableMemory();

// The process's peak resident memory so far, in bytes (getrusage); -1 when unknown.
std::int64_t peakResidentBytes();

// Why `need` (of `subject`: "Gibbs-SSVI on these data", "the synthetic table") does not fit in
// `available` bytes: "Gibbs-SSVI on these data would need about 24.1 GB (the largest part: λ:
// K × V doubles, 19.3 GB — lower K), but 6.2 GB are available". Empty when it fits or when
// `available` is unknown (< 0).
std::string memoryRefusal(const std::vector<MemoryTerm>& need, std::int64_t available,
                          const std::string& subject);

// "about 2.3 GB beyond its data, most of it λ: K × V doubles (1.9 GB, scaled by K)"; empty
// for no terms.
std::string memoryEstimateText(const std::vector<MemoryTerm>& need);

// "the run takes " and memoryEstimateText(need), empty for no terms: what a run out of memory
// says of its size (RunOptions::outOfMemoryNote).
std::string memoryNote(const std::vector<MemoryTerm>& need);

// What to say when an allocation failed anyway: "out of memory <where>: …" with the estimate
// and the memory available now.
std::string outOfMemoryMessage(const std::string& where, const std::vector<MemoryTerm>& need);

} // namespace svi
