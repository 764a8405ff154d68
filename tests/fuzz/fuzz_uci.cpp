// UCI bag-of-words (docword.<name>.txt), with vocab.<name>.txt beside it when the input
// holds one after "\n%%\n".

#include "core/io/corpus_files.h"
#include "tests/fuzz/fuzz_corpus_counts.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const TwoParts in = splitInput(data, size);
    const std::string docword = writeInput("docword.input.txt", in.first);
    if (in.hasSecond)
        writeInput("vocab.input.txt", in.second);
    else
        removeInput("vocab.input.txt");
    Corpus c;
    if (expectOnly([&] { c = readUciBagOfWords(docword); }))
        checkCorpus(c);
    return 0;
}
