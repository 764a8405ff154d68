#include "core/io/corpus_part.h"

#include "core/io/byte_source.h"
#include "core/io/count_lines.h"
#include "core/io/data_error.h"
#include "core/io/line_shard.h"

#include <QFile>
#include <algorithm>
#include <string_view>

namespace svi {
namespace {

// The LDA-C file and its vocabulary file ("" to find it beside) among `paths`, as loadCorpus
// pairs them; false when `paths` are not one plain (not gzip'd) LDA-C file.
bool plainLdac(const std::vector<std::string>& paths, const CorpusReadOptions& options,
               std::string& counts, std::string& vocabulary)
{
    vocabulary = options.vocabulary;
    if (paths.size() == 1) {
        counts = paths.front();
    } else if (paths.size() == 2 && vocabulary.empty()) {
        const bool firstIsVocabulary = isVocabularyFile(paths[0]);
        counts = paths[firstIsVocabulary ? 1 : 0];
        vocabulary = paths[firstIsVocabulary ? 0 : 1];
        if (!isVocabularyFile(vocabulary))
            return false;
    } else {
        return false;
    }
    if (corpusFormatOf(counts) != CorpusFormat::Ldac || isGzipped(counts))
        return false;
    if (vocabulary.empty())
        vocabulary = findVocabulary(counts);
    return true;
}

// The lines of `bytes` (whole lines, the last maybe without its end), without their '\n'.
std::vector<std::string_view> linesOf(const std::string& bytes)
{
    std::vector<std::string_view> lines;
    std::size_t start = 0;
    while (start < bytes.size()) {
        const std::size_t end = std::min(bytes.find('\n', start), bytes.size());
        lines.emplace_back(bytes.data() + start, end - start);
        start = end + 1;
    }
    return lines;
}

bool blank(std::string_view line)
{
    return std::all_of(line.begin(), line.end(), isBlank);
}

} // namespace

std::optional<CorpusPart> readCorpusPart(const std::vector<std::string>& paths,
                                         const CorpusReadOptions& options, Communicator& ranks)
{
    std::string path, vocabFile;
    if (!plainLdac(paths, options, path, vocabFile))
        return std::nullopt;
    const int R = ranks.size(), r = ranks.rank();

    CorpusPart out;
    Corpus& corpus = out.corpus;
    corpus.source = path;
    std::string bytes;
    failTogether(ranks, [&] {
        if (!vocabFile.empty())
            corpus.vocabulary = readVocabulary(vocabFile);
        bytes = readLineShard(QString::fromStdString(path), r, R);
    });

    // Where each part begins: the lines and documents (non-blank lines) of the parts before.
    const std::vector<std::string_view> lines = linesOf(bytes);
    std::vector<double> counts(2 * std::size_t(R), 0.0);
    counts[std::size_t(r)] = double(lines.size());
    counts[std::size_t(R) + std::size_t(r)] = double(
        std::count_if(lines.begin(), lines.end(), [](std::string_view l) { return !blank(l); }));
    ranks.sum(counts);
    std::int64_t firstLine = 0, firstDoc = 0, documents = 0;
    for (int q = 0; q < R; ++q) {
        if (q < r) {
            firstLine += std::int64_t(counts[std::size_t(q)]);
            firstDoc += std::int64_t(counts[std::size_t(R) + std::size_t(q)]);
        }
        documents += std::int64_t(counts[std::size_t(R) + std::size_t(q)]);
    }
    if (documents == 0)
        failFile(path, "no documents (the file is empty)");

    // This part's documents, with their line numbers in the whole file.
    SparseRows mine;
    LdacLines parser(path, vocabFile,
                     ldacVocabularyLimit(!vocabFile.empty(), corpus.vocabularySize()));
    failTogether(ranks, [&] {
        for (std::size_t i = 0; i < lines.size(); ++i)
            parser.parse(lines[i], firstLine + std::int64_t(i) + 1, mine);
    });

    // Every document's tokens and the largest word id, from every part.
    std::vector<double> global(std::size_t(documents) + std::size_t(R), 0.0);
    for (std::int64_t d = 0; d < mine.rows(); ++d)
        global[std::size_t(firstDoc + d)] = mine.rowTotal(d);
    global[std::size_t(documents) + std::size_t(r)] = double(parser.maxWord() + 1);
    ranks.sum(global);
    std::int64_t words = 0;
    for (int q = 0; q < R; ++q)
        words = std::max(words, std::int64_t(global[std::size_t(documents) + std::size_t(q)]));
    global.resize(std::size_t(documents));
    if (vocabFile.empty())
        corpus.vocabulary = wordsNamedByIds(words);

    // Every document a row; the other parts' empty.
    SparseRows& docs = corpus.docs;
    docs.rowStart.assign(std::size_t(firstDoc) + 1, 0);
    docs.cols = std::move(mine.cols);
    docs.counts = std::move(mine.counts);
    for (std::size_t d = 1; d < mine.rowStart.size(); ++d)
        docs.rowStart.push_back(mine.rowStart[d]);
    docs.rowStart.resize(std::size_t(documents) + 1, std::int64_t(docs.cols.size()));
    out.info.held = {firstDoc, firstDoc + mine.rows()};
    out.info.tokens = std::move(global);
    return out;
}

} // namespace svi
