// Corpus load time (not a test):
//   bench_corpus PATH... [--subset NAME] [--headers] [--min-df N] [--max-df F] [--cap N]
//                [--repeat R] [--top K]
// Loads the corpus R times (default 3) with loadCorpus and prints its size, the fastest load
// and the K words (default 20) in the most documents. --headers strips e-mail headers.

#include "core/io/corpus_files.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace svi;

int main(int argc, char** argv)
{
    std::vector<std::string> paths;
    CorpusReadOptions options;
    int repeat = 3, top = 20;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool value = i + 1 < argc;
        if (a == "--subset" && value)
            options.subset = argv[++i];
        else if (a == "--headers")
            options.tokenizer.stripEmailHeaders = true;
        else if (a == "--min-df" && value)
            options.tokenizer.minDocumentFrequency = std::atoll(argv[++i]);
        else if (a == "--max-df" && value)
            options.tokenizer.maxDocumentFraction = std::atof(argv[++i]);
        else if (a == "--cap" && value)
            options.tokenizer.vocabularyCap = std::atoll(argv[++i]);
        else if (a == "--repeat" && value)
            repeat = std::max(1, std::atoi(argv[++i]));
        else if (a == "--top" && value)
            top = std::max(0, std::atoi(argv[++i]));
        else
            paths.push_back(a);
    }
    if (paths.empty()) {
        std::fprintf(stderr, "usage: bench_corpus PATH... [--subset NAME] [--headers] [--min-df N] "
                             "[--max-df F] [--cap N] [--repeat R] [--top K]\n");
        return 2;
    }
    try {
        double best = 1e300;
        Corpus corpus;
        for (int r = 0; r < repeat; ++r) {
            const auto t0 = std::chrono::steady_clock::now();
            corpus = loadCorpus(paths, options);
            const std::chrono::duration<double> dt = std::chrono::steady_clock::now() - t0;
            best = std::min(best, dt.count());
        }
        const CorpusStats s = corpus.stats();
        std::printf("%s: %lld documents, %lld words, %lld tokens, %lld empty, %lld dropped\n",
                    corpus.source.c_str(), (long long)s.documents, (long long)s.vocabulary,
                    (long long)s.tokens, (long long)s.emptyDocuments,
                    (long long)s.droppedDocuments);
        std::printf("load: %.3f s (fastest of %d)\n", best, repeat);
        std::printf("first words:");
        for (int k = 0; k < top && k < int(corpus.vocabulary.size()); ++k)
            std::printf(" %s", corpus.vocabulary[std::size_t(k)].c_str());
        std::printf("\n");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
