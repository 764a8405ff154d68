// LDA-C counts, with the vocabulary beside them when the input holds one after "\n%%\n"
// (readLdac finds vocab.txt as it does beside a real file); the vocabulary alone too.

#include "core/io/corpus_files.h"
#include "tests/fuzz/fuzz_corpus_counts.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const TwoParts in = splitInput(data, size);
    const std::string counts = writeInput("input.ldac", in.first);
    if (in.hasSecond) {
        const std::string vocab = writeInput("vocab.txt", in.second);
        std::vector<std::string> words;
        if (expectOnly([&] { words = readVocabulary(vocab); }))
            for (const std::string& w : words)
                require(!w.empty(), "vocabulary words are never empty");
    } else {
        removeInput("vocab.txt");
    }
    Corpus c;
    if (expectOnly([&] { c = readLdac(counts); }))
        checkCorpus(c);
    return 0;
}
