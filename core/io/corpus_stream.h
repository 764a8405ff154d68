#pragma once
// A corpus read as a stream (out-of-core streaming VB): documents one at a time, parsed or
// tokenized as they are used and dropped, so that the memory a run takes does not grow with the
// length of the corpus. The vocabulary is fixed before the first document.
//   - LDA-C (plain or gzip'd, or standard input, "-"): parsed line by line as readLdac does,
//     document for document and message for message. The vocabulary file given or found beside
//     the counts; without one, a first pass that keeps only the largest word id (standard
//     input, which cannot be read twice, needs the file).
//   - A folder or tar archive of text (plain or gzip'd): the vocabulary file given, or a first
//     pass that keeps only each word's counts and applies the tokenizer's filters exactly as the
//     in-memory reader does (the same words, numbered alike); then the documents tokenized on a
//     reading thread, a bounded queue ahead of the run. A folder's documents come by path as in
//     memory; an archive's in the archive's order (in memory they are sorted by path).
//   - UCI docword (plain or gzip'd): the header's W fixes the vocabulary (the vocabulary file
//     names the words); the triples must come grouped by document, as the UCI collections are
//     written (a triple out of order is an error naming its line); a document without any
//     triple is an empty row, as in memory.

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
// Throws DataError naming the file: another format ("… `svi split` writes other corpora as
// LDA-C"), standard input without a vocabulary, an unreadable file.
OpenedStream openCorpusStream(const std::vector<std::string>& files,
                              const CorpusReadOptions& options);

} // namespace svi
