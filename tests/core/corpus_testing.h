#pragma once
// What the corpus tests share, beyond data_testing.h: tokens, corpus queries and a random
// corpus.

#include "core/data/corpus.h"
#include "core/io/tokenizer.h"
#include "core/math/random.h"
#include "tests/core/data_testing.h"

#include <QByteArray>
#include <QString>
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace corpus_testing {

using namespace svi;
using namespace data_testing;

// Tokens joined by spaces.
inline QString tokens(const QByteArray& bytes, const TokenizerOptions& o)
{
    const Tokenizer t(o);
    return list(t.tokenize(std::string_view(bytes.constData(), std::size_t(bytes.size()))))
        .join(' ');
}

// Document d as word → count.
inline std::map<std::string, float> wordCounts(const Corpus& c, std::int64_t d)
{
    std::map<std::string, float> m;
    const auto cols = c.docs.rowCols(d);
    const auto counts = c.docs.rowCounts(d);
    for (std::size_t j = 0; j < cols.size(); ++j)
        m[c.vocabulary[std::size_t(cols[j])]] = counts[j];
    return m;
}

// In how many documents `word` occurs.
inline std::int64_t documentFrequency(const Corpus& c, const std::string& word)
{
    const auto it = std::find(c.vocabulary.begin(), c.vocabulary.end(), word);
    if (it == c.vocabulary.end())
        return 0;
    const auto id = std::int32_t(it - c.vocabulary.begin());
    return std::count(c.docs.cols.begin(), c.docs.cols.end(), id);
}

inline std::int64_t docIndex(const Corpus& c, const std::string& name)
{
    const auto it = std::find(c.docNames.begin(), c.docNames.end(), name);
    return it == c.docNames.end() ? -1 : std::int64_t(it - c.docNames.begin());
}

inline bool sameCounts(const SparseRows& a, const SparseRows& b)
{
    return a.rowStart == b.rowStart && a.cols == b.cols && a.counts == b.counts;
}

// A corpus of `docs` documents over `words` words with random lengths (0 to 40 tokens), some
// documents empty or of one token, from a fixed seed.
inline Corpus randomCorpus(std::int64_t docs, std::int32_t words, std::uint64_t seed)
{
    Corpus c;
    c.source = "random";
    for (std::int32_t w = 0; w < words; ++w)
        c.vocabulary.push_back(std::string("w").append(std::to_string(w)));
    Rng rng = Rng::stream(seed, 0);
    std::vector<std::int32_t> cols;
    std::vector<float> counts;
    for (std::int64_t d = 0; d < docs; ++d) {
        std::map<std::int32_t, float> row;
        const std::uint64_t n = d % 17 == 0 ? d % 2 : rng.below(40); // 0 or 1 token now and then
        for (std::uint64_t k = 0; k < n; ++k)
            row[std::int32_t(rng.below(std::uint64_t(words)))] += 1.0f;
        cols.clear();
        counts.clear();
        for (const auto& [w, n2] : row) {
            cols.push_back(w);
            counts.push_back(n2);
        }
        c.docs.appendRow(cols, counts);
        c.docNames.push_back(std::string("doc").append(std::to_string(1000 + d)));
    }
    return c;
}

} // namespace corpus_testing
