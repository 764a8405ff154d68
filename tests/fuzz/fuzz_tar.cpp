// Tar archives of text files (plain or gzip; ustar, GNU and pax), read in one streaming pass
// and tokenized, with and without e-mail headers stripped.

#include "core/io/corpus_files.h"
#include "tests/fuzz/fuzz_corpus_counts.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("input.tar", {reinterpret_cast<const char*>(data), size});
    CorpusReadOptions o;
    o.tokenizer.minDocumentFrequency = 1;
    o.tokenizer.stripEmailHeaders = size % 2 == 1; // both ways, by the input's own length
    Corpus c;
    if (expectOnly([&] { c = readTextArchive(path, o); }))
        checkCorpus(c);
    return 0;
}
