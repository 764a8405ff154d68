#pragma once
// A corpus read in parts by the ranks of a distributed run, each reading only its own
// documents, where the format allows it: an LDA-C file (one document per line; not gzip'd) is
// split by bytes into whole lines (line_shard.h). The ranks then agree on what the split of the
// data needs of every document — how many there are, where each rank's begin, every document's
// number of tokens, the vocabulary's size when the words are named by their ids — so that every
// rank builds the same held-out split as a reader of the whole file, and holds only its own
// documents' words. Other formats (UCI triples in any order, raw text whose vocabulary is
// built from every document) are read whole.
//
// Collective: every rank calls it, with the same arguments. A file that cannot be read, or a
// bad line in any rank's part, fails on every rank with the same DataError (naming the file and
// the line, numbered in the whole file).

#include "core/base/communicator.h"
#include "core/data/corpus.h"
#include "core/io/corpus_files.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

struct CorpusPart
{
    // Every document of the file as a row; those of other ranks' parts are empty here.
    Corpus corpus;
    CorpusPartInfo info; // the documents read here, every document's tokens
};

// This rank's part of the corpus `paths` (as loadCorpus takes them), or std::nullopt when their
// format cannot be read in parts (read them whole with loadCorpus). Throws as above.
std::optional<CorpusPart> readCorpusPart(const std::vector<std::string>& paths,
                                         const CorpusReadOptions& options, Communicator& ranks);

} // namespace svi
