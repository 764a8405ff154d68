#pragma once
// recogniseFile with the format within the kind, for the loaders that dispatch on it (a corpus
// is read as LDA-C, UCI, a tar archive or a folder). Internal to core/io.

#include "core/io/corpus_files.h"
#include "core/io/sniff.h"

#include <optional>
#include <string>

namespace svi {

struct RecognisedFile
{
    FileFormat format;
    std::optional<CorpusFormat> corpus; // set when format.kind == Corpus
};

// As recogniseFile (sniff.h), which returns its `format`.
RecognisedFile recogniseInDetail(const std::string& path);

} // namespace svi
