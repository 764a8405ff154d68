#pragma once
// Text corpora as documents × words counts, and their preparation for topic models: a seeded
// subsample of documents and the document-completion split (Hoffman et al. 2013, §4 and
// Wallach et al. 2009): a fraction of documents become test documents, excluded from training;
// half of each test document's words condition its topic proportions and the other half are
// scored. No Qt: the readers in core/io produce Corpora; this turns them into CountData.

#include "core/base/param_fields.h"
#include "core/data/count_data.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

struct CorpusStats
{
    std::int64_t documents = 0;        // rows of `docs`
    std::int64_t vocabulary = 0;       // words
    std::int64_t tokens = 0;           // sum of all counts
    std::int64_t emptyDocuments = 0;   // rows without any word (kept: ids stay aligned)
    std::int64_t droppedDocuments = 0; // read but left out by the reader (no word remained)
};

struct Corpus
{
    // documents × vocabulary.size(): row d holds document d's (word id, count) pairs, word ids
    // strictly increasing, counts whole numbers > 0.
    SparseRows docs;
    std::vector<std::string> vocabulary; // word id → word, UTF-8
    std::vector<std::string> docNames;   // one per document (path in the folder), or empty
    std::string source;                  // file name(s), for messages
    // Documents the reader saw but left out because no word of theirs passed the filters
    // (stop words, length, document frequency); they are not rows of `docs`.
    std::int64_t droppedDocuments = 0;

    std::int64_t documents() const { return docs.rows(); }
    std::int64_t vocabularySize() const { return std::int64_t(vocabulary.size()); }
    // Counts for 'svi info' and the window's data summary: one pass over the counts.
    CorpusStats stats() const;
};

struct CorpusOptions : DeclaredOptions<CorpusOptions>
{
    CorpusOptions() { readDefaults(); }

    double heldOut{};     // fraction of documents that become test documents
    std::uint64_t seed{}; // of the subsample and the split
    // Keep this many documents, drawn at random and kept in file order; 0 = all.
    std::int64_t maxDocuments{};

    // The settings' declarations (keys heldout, max_documents, split_seed) bound to the fields.
    static const ParamFields<CorpusOptions>& fields();

    bool operator==(const CorpusOptions&) const = default;
};

// Checks that the corpus is well formed: every row's word ids strictly increasing and below
// vocabulary.size(), counts whole numbers > 0, docNames empty or one per document. Returns what
// is wrong first, naming the document, or std::nullopt.
std::optional<std::string> corpusProblem(const Corpus& corpus);

// A corpus read in parts, each rank of a distributed run reading only its documents (rows of
// the other parts are empty in its Corpus::docs): what the split needs of every document.
struct CorpusPartInfo
{
    Shard held;                 // the documents read here
    std::vector<double> tokens; // every document's number of tokens (all the parts')
};

// Subsamples and splits (see the top of this file):
//   - with maxDocuments, that many documents are drawn without replacement (stream "subsa" of
//     the seed) and kept in their order;
//   - round(heldOut × documents) test documents are drawn among those with at least 2 tokens
//     (fewer when fewer have 2 tokens); documents with fewer stay training documents;
//   - a test document's words are expanded into tokens and shuffled with its own stream (seed,
//     "split", document index), so its split does not depend on which other documents were
//     drawn; the first ⌊n/2⌋ tokens form its `train` row, the rest its `heldOut` row;
//   - a training document keeps all its counts in `train` and has an empty `heldOut` row.
// kind = "documents", columnNames = vocabulary, rowNames = docNames; finalise() is called.
// Throws std::invalid_argument naming the problem: invalid options, a malformed corpus, a corpus
// without any word, or heldOut leaving no training document.
// With `part`, the corpus holds only the part's documents: the choices above use every
// document's tokens from `part`, so that they are those of the whole corpus, and the data's
// heldRows are the part's documents (among those kept).
// With `stream`, the corpus is the head of a stream (CountData::stream), whose other documents
// the data hand to a streaming trainer.
CountDataPtr makeCorpusData(const Corpus& corpus, const CorpusOptions& options,
                            const CorpusPartInfo* part = nullptr,
                            std::shared_ptr<DocumentStream> stream = nullptr);

} // namespace svi
