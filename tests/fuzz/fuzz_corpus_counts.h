#pragma once
// The invariants of a corpus read from counts (LDA-C, UCI bag-of-words) or from text.

#include "core/data/corpus.h"
#include "tests/fuzz/fuzz_input.h"

#include <cmath>

namespace svi::fuzz {

inline void checkCorpus(const Corpus& c)
{
    const SparseRows& d = c.docs;
    require(!d.rowStart.empty() && d.rowStart.front() == 0 && d.rowStart.back() == d.nonZeros() &&
                d.counts.size() == d.cols.size(),
            "CSR row starts");
    const auto V = std::int64_t(c.vocabulary.size());
    for (std::int64_t r = 0; r < d.rows(); ++r) {
        require(d.rowStart[std::size_t(r)] <= d.rowStart[std::size_t(r) + 1], "rows in order");
        std::int64_t previous = -1;
        for (std::int64_t e = d.rowStart[std::size_t(r)]; e < d.rowStart[std::size_t(r) + 1]; ++e) {
            const std::int32_t w = d.cols[std::size_t(e)];
            const float n = d.counts[std::size_t(e)];
            require(w > previous && w < V, "word ids strictly increasing, within the vocabulary");
            require(n > 0 && std::isfinite(n), "counts > 0");
            previous = w;
        }
    }
    require(c.docNames.empty() || std::int64_t(c.docNames.size()) == d.rows(),
            "no document names or one per document");
    const CorpusStats st = c.stats();
    require(st.documents == d.rows(), "stats count the documents");
}

} // namespace svi::fuzz
