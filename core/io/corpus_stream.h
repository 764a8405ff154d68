#pragma once
// A corpus read as a stream (out-of-core streaming VB): the documents of an LDA-C file (plain
// or gzip'd, or standard input, "-") one at a time, parsed as they are used and dropped, so that
// the memory a run takes does not grow with the length of the corpus. The vocabulary is fixed
// before the first document: the vocabulary file given or found beside the counts; without one,
// a first pass over the file that keeps only the largest word id (standard input, which cannot
// be read twice, needs the file). The documents and their messages are those of readLdac
// (corpus_files.h), document for document.

#include "core/data/document_stream.h"
#include "core/io/corpus_files.h"

#include <memory>
#include <string>
#include <vector>

namespace svi {

struct OpenedStream
{
    std::shared_ptr<DocumentStream> stream;
    std::vector<std::string> vocabulary; // word id → word
    std::string source;                  // the counts file, for messages
};

// Opens `files` (one LDA-C file or "-", optionally with its vocabulary file) as a stream.
// Throws DataError naming the file: another format ("… is read as a stream only from LDA-C
// counts; `svi split` writes them"), standard input without a vocabulary, an unreadable file.
OpenedStream openCorpusStream(const std::vector<std::string>& files,
                              const CorpusReadOptions& options);

} // namespace svi
