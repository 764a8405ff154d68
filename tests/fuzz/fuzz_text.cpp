// One raw text document (UTF-8 or Latin-1, with or without e-mail headers), decoded and
// tokenized as the files of a folder are.

#include "core/io/corpus_files.h"
#include "tests/fuzz/fuzz_corpus_counts.h"

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("input.txt", {reinterpret_cast<const char*>(data), size});
    CorpusReadOptions o;
    o.tokenizer.minDocumentFrequency = 1;
    o.tokenizer.minLength = 1;
    o.tokenizer.stripEmailHeaders = size % 2 == 1;
    o.tokenizer.keepSubject = size % 3 == 1;
    Corpus c;
    if (expectOnly([&] { c = readTextFiles({path}, o); })) {
        checkCorpus(c);
        require(c.documents() + c.droppedDocuments == 1, "one file, one document");
    }
    return 0;
}
