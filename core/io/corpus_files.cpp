#include "core/io/corpus_files.h"

#include "core/io/byte_source.h"
#include "core/io/count_lines.h"
#include "core/io/path_names.h"
#include "core/io/reuters_sgml.h"
#include "core/io/sniff_detail.h"
#include "core/io/tar_archive.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QString>
#include <QStringDecoder>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <functional>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>

namespace svi {
namespace {

// Folders named when a subset matches nothing.
constexpr std::size_t kFoldersNamed = 12;

using Entry = CountEntry;

// --- raw text ----------------------------------------------------------------------------------

std::vector<std::string> components(std::string_view path)
{
    std::vector<std::string> parts;
    std::size_t i = 0;
    while (i <= path.size()) {
        const std::size_t slash = std::min(path.find('/', i), path.size());
        if (slash > i)
            parts.emplace_back(path.substr(i, slash - i));
        i = slash + 1;
    }
    return parts;
}

bool isHidden(const std::vector<std::string>& parts)
{
    return std::any_of(parts.begin(), parts.end(),
                       [](const std::string& p) { return p.starts_with('.'); });
}

// Whether the folders of `parts` (all but the file name) contain `subset` as a run.
bool underSubset(const std::vector<std::string>& parts, const std::vector<std::string>& subset)
{
    if (subset.empty())
        return true;
    if (parts.size() <= subset.size())
        return false;
    const std::size_t folders = parts.size() - 1;
    for (std::size_t i = 0; i + subset.size() <= folders; ++i)
        if (std::equal(subset.begin(), subset.end(), parts.begin() + std::ptrdiff_t(i)))
            return true;
    return false;
}

// Chooses the files of a folder or archive and remembers its folders for messages.
class FileFilter
{
public:
    explicit FileFilter(const std::string& subset) : m_subset(components(subset)) {}

    bool operator()(const std::string& name)
    {
        const std::vector<std::string> parts = components(name);
        if (parts.empty() || isHidden(parts))
            return false;
        ++m_files;
        std::string folder;
        for (std::size_t i = 0; i + 1 < parts.size() && i < 2; ++i) {
            folder += (i ? "/" : "") + parts[i];
            m_folders.insert(folder);
        }
        return underSubset(parts, m_subset);
    }

    // "no files" or "no file below a folder 'x' (its folders: a, a/b, …)".
    std::string nothingFound(const std::string& subset) const
    {
        if (m_subset.empty() || m_files == 0)
            return "no files";
        std::string known;
        std::size_t n = 0;
        for (const std::string& f : m_folders) {
            if (n++ == kFoldersNamed) {
                known += ", …";
                break;
            }
            known += (known.empty() ? "" : ", ") + f;
        }
        return "subset = '" + subset + "', but no file is below a folder of that name (" +
               (known.empty() ? "it has no folders" : "its folders: " + known) + ")";
    }

private:
    std::vector<std::string> m_subset;
    std::set<std::string> m_folders;
    std::int64_t m_files = 0;
};

void checkText(const std::string& container, const std::string& name, const std::string& bytes)
{
    if (bytes.find('\0') != std::string::npos)
        failFile(container, (container == name ? "" : inQuotes(name) + " ") +
                                "holds binary data (NUL bytes), not text");
}

std::string sourceName(const std::string& path, const std::string& subset)
{
    return subset.empty() ? path : path + " [" + subset + "]";
}

void checkOptions(const char* function, const CorpusReadOptions& options)
{
    if (auto problem = options.validate())
        throw std::invalid_argument(std::string(function) + ": " + *problem);
}

} // namespace

std::optional<std::string> CorpusReadOptions::validate() const
{
    if (auto problem = tokenizer.validate())
        return problem;
    for (const std::string& part : components(subset))
        if (part == "..")
            return "subset = '" + subset + "', but must be a folder path inside (no '..')";
    return std::nullopt;
}

std::optional<CorpusFormat> corpusFormatOf(const std::string& path)
{
    if (isDirectory(path))
        return CorpusFormat::TextFolder;
    try {
        return recogniseInDetail(path).corpus;
    } catch (const DataError&) {
        return std::nullopt; // unreadable: read as text files, whose reader says why
    }
}

std::string findVocabulary(const std::string& countsPath)
{
    const QFileInfo info(qstr(countsPath));
    const QDir dir = info.dir();
    QString name = info.fileName();
    if (name.endsWith(".gz", Qt::CaseInsensitive))
        name.chop(3);
    QStringList candidates;
    if (name.startsWith("docword.", Qt::CaseInsensitive)) {
        candidates << "vocab." + name.mid(8);
    } else {
        const qsizetype dot = name.lastIndexOf('.');
        const QString stem = dot > 0 ? name.left(dot) : name;
        candidates << stem + ".vocab" << stem + ".vocab.txt"
                   << "vocab.txt";
    }
    for (const QString& c : candidates)
        for (const QString& file : {c, c + ".gz"})
            if (QFileInfo(dir.filePath(file)).isFile())
                return QDir::cleanPath(dir.filePath(file)).toStdString();
    return {};
}

bool isVocabularyFile(const std::string& path)
{
    const QString name = plainName(path);
    return (name.startsWith("vocab") && name.endsWith(".txt")) || name.endsWith(".vocab");
}

namespace {

// "word = id = tf df", the line of the Knowceans vocabularies (the NIPS 0–12 release's
// nips.vocab: "network = 0 = 19882 1395"): the word and its id (the counts are not needed).
std::optional<std::pair<QStringView, std::int64_t>> knowceansLine(QStringView line)
{
    const QList<QStringView> f = line.split(u' ', Qt::SkipEmptyParts);
    if (f.size() != 6 || f[1] != u"=" || f[3] != u"=")
        return std::nullopt;
    std::int64_t numbers[3] = {0, 0, 0};
    const QStringView texts[3] = {f[2], f[4], f[5]};
    for (int k = 0; k < 3; ++k) {
        const QByteArray digits = texts[k].toLatin1();
        if (parseWholeUpTo(std::string_view(digits.constData(), std::size_t(digits.size())),
                           kMaxWordId, numbers[k]))
            return std::nullopt;
    }
    return std::make_pair(f[0], numbers[0]);
}

// The words of a Knowceans vocabulary, placed by their id column; std::nullopt when a line is
// not of that shape. Throws naming the line when the ids are not 0 … V−1, each once.
std::optional<std::vector<std::string>> knowceansWords(const std::string& path,
                                                       const QList<QStringView>& lines)
{
    std::vector<std::pair<QStringView, std::int64_t>> entries;
    std::vector<std::int64_t> lineOf;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QStringView l = lines[i].trimmed();
        if (l.isEmpty())
            continue;
        const auto e = knowceansLine(l);
        if (!e)
            return std::nullopt;
        entries.push_back(*e);
        lineOf.push_back(std::int64_t(i) + 1);
    }
    if (entries.empty())
        return std::nullopt;
    const auto V = std::int64_t(entries.size());
    std::vector<std::string> words(static_cast<std::size_t>(V));
    std::vector<std::int64_t> seenOn(static_cast<std::size_t>(V), 0);
    for (std::size_t k = 0; k < entries.size(); ++k) {
        const std::int64_t id = entries[k].second;
        if (id >= V)
            failLine(path, lineOf[k],
                     "id " + std::to_string(id) + ", but the " + std::to_string(V) +
                         " lines of a 'word = id = tf df' vocabulary have ids 0 to " +
                         std::to_string(V - 1));
        if (seenOn[std::size_t(id)] != 0)
            failLine(path, lineOf[k],
                     "id " + std::to_string(id) + " again (also line " +
                         std::to_string(seenOn[std::size_t(id)]) +
                         "): each id of a 'word = id = tf df' vocabulary names one word");
        seenOn[std::size_t(id)] = lineOf[k];
        words[std::size_t(id)] = entries[k].first.toString().toStdString();
    }
    return words;
}

} // namespace

std::vector<std::string> readVocabulary(const std::string& path)
{
    const std::string bytes = readAllBytes(path);
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QByteArrayView view(bytes.data(), qsizetype(bytes.size()));
    QString text = utf8(view);
    if (utf8.hasError())
        text = QString::fromLatin1(view);
    const QList<QStringView> lines = QStringView(text).split(u'\n');
    if (auto words = knowceansWords(path, lines))
        return std::move(*words);
    std::vector<std::string> words;
    std::int64_t blank = 0; // the first blank line not yet followed by a word
    std::int64_t line = 0;
    for (QStringView l : lines) {
        ++line;
        l = l.trimmed();
        if (l.isEmpty()) {
            if (blank == 0)
                blank = line;
            continue;
        }
        if (blank != 0)
            failLine(path, blank,
                     "blank, but a vocabulary has one word per line (the word id is the line "
                     "number − 1, so a blank line would shift every later word)");
        words.push_back(l.toString().toStdString());
    }
    if (words.empty())
        failFile(path, "no words (the vocabulary is empty)");
    return words;
}

Corpus readLdac(const std::string& path, const std::string& vocabPath)
{
    const std::string vocabFile = vocabPath.empty() ? findVocabulary(path) : vocabPath;
    Corpus corpus;
    corpus.source = path;
    if (!vocabFile.empty())
        corpus.vocabulary = readVocabulary(vocabFile);
    LdacLines parser(path, vocabFile,
                     ldacVocabularyLimit(!vocabFile.empty(), corpus.vocabularySize()));
    ByteSource source(path);
    LineReader lines(source);
    std::string_view line;
    std::int64_t number = 0;
    bool any = false;
    while (lines.next(line, number))
        any = parser.parse(line, number, corpus.docs) || any;
    if (!any)
        failFile(path, "no documents (the file is empty)");
    if (vocabFile.empty())
        corpus.vocabulary = numberedWords(parser.maxWord() + 1, 0);
    return corpus;
}

Corpus readUciBagOfWords(const std::string& path, const std::string& vocabPath)
{
    const std::string vocabFile = vocabPath.empty() ? findVocabulary(path) : vocabPath;
    Corpus corpus;
    corpus.source = path;
    if (!vocabFile.empty())
        corpus.vocabulary = readVocabulary(vocabFile);

    ByteSource source(path);
    LineReader lines(source);
    std::string_view line;
    std::int64_t number = 0;
    std::vector<std::string_view> fields;
    const UciHeader h = readUciHeader(lines, path, vocabFile, corpus.vocabularySize());
    const std::int64_t D = h.D, W = h.W;

    // Triples. Usually sorted by document: rows are then appended as they end. When a document
    // comes again after another one, everything is collected and sorted at the end.
    struct Triple
    {
        std::int32_t doc;
        Entry entry;
    };
    std::vector<Entry> row;
    std::vector<Triple> all;
    bool sorted = true;
    std::int64_t current = 0; // the document of `row` (1-based); 0 before the first
    std::int64_t entries = 0;
    std::vector<std::int32_t> cols;
    std::vector<float> counts;
    const auto flushRow = [&] {
        if (const std::int64_t j = sortAndFindRepeat(row); j >= 0)
            failUciRepeat(path, current, row[std::size_t(j)], row[std::size_t(j) - 1].where);
        appendEntries(corpus.docs, row, cols, counts);
        row.clear();
    };
    while (lines.next(line, number)) {
        std::int64_t doc = 0;
        Entry e;
        if (!parseUciTriple(line, number, path, h, fields, doc, e))
            continue;
        ++entries;
        if (sorted && doc < current) {
            // Out of order: turn the rows read so far back into triples.
            sorted = false;
            for (std::int64_t r = 0; r < corpus.docs.rows(); ++r) {
                const auto rc = corpus.docs.rowCols(r);
                const auto rn = corpus.docs.rowCounts(r);
                for (std::size_t j = 0; j < rc.size(); ++j)
                    all.push_back({std::int32_t(r), Entry{rc[j], rn[j], 0}});
            }
            for (const Entry& x : row)
                all.push_back({std::int32_t(current - 1), x});
            row.clear();
            corpus.docs = SparseRows();
        }
        if (!sorted) {
            all.push_back({std::int32_t(doc - 1), e});
            continue;
        }
        if (doc > current) {
            if (current > 0)
                flushRow();
            while (corpus.docs.rows() < doc - 1)
                corpus.docs.appendRow({}, {}); // documents without entries
            current = doc;
        }
        row.push_back(e);
    }
    checkUciEntries(path, h, entries);
    if (sorted) {
        if (current > 0)
            flushRow();
    } else {
        std::stable_sort(all.begin(), all.end(), [](const Triple& a, const Triple& b) {
            return a.doc != b.doc ? a.doc < b.doc : a.entry.word < b.entry.word;
        });
        std::size_t i = 0;
        for (std::int64_t d = 0; d < D; ++d) {
            row.clear();
            for (; i < all.size() && all[i].doc == d; ++i) {
                // The sort keeps reading order, so all[i] is the later of the two (rows read
                // before the documents went out of order have lost their lines: 0).
                if (!row.empty() && row.back().word == all[i].entry.word)
                    failUciRepeat(path, d + 1, all[i].entry, row.back().where);
                row.push_back(all[i].entry);
            }
            appendEntries(corpus.docs, row, cols, counts);
        }
    }
    while (corpus.docs.rows() < D)
        corpus.docs.appendRow({}, {});
    if (vocabFile.empty())
        corpus.vocabulary = numberedWords(W, 1);
    return corpus;
}

std::int64_t forEachTextDocument(const std::string& path, const CorpusReadOptions& options,
                                 const TextDocumentVisitor& visit)
{
    checkOptions("forEachTextDocument", options);
    FileFilter filter(options.subset);
    std::int64_t n = 0;
    if (isDirectory(path)) {
        const QDir root(QFileInfo(qstr(path)).absoluteFilePath());
        std::vector<std::string> names;
        QDirIterator it(root.path(), QDir::Files | QDir::NoDotAndDotDot,
                        QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const std::string rel = root.relativeFilePath(it.next()).toStdString();
            if (filter(rel))
                names.push_back(rel);
        }
        std::sort(names.begin(), names.end());
        for (std::string& rel : names) {
            const std::string full = root.filePath(qstr(rel)).toStdString();
            std::string bytes = readAllBytes(full);
            checkText(full, full, bytes);
            visit(rel, bytes);
            ++n;
        }
    } else {
        readTarArchive(
            path, [&](const std::string& name) { return filter(name); },
            [&](const std::string& name, std::string& bytes) {
                checkText(path, name, bytes);
                visit(name, bytes);
                ++n;
            });
    }
    if (n == 0)
        failFile(path, filter.nothingFound(options.subset));
    return n;
}

Corpus readTextFolder(const std::string& folder, const CorpusReadOptions& options)
{
    checkOptions("readTextFolder", options);
    const QFileInfo info(qstr(folder));
    if (!info.exists())
        failFile(folder, "folder does not exist");
    if (!info.isDir())
        failFile(folder, "is a file, not a folder");
    CorpusBuilder builder(options.tokenizer);
    forEachTextDocument(folder, options, [&](const std::string& name, std::string& bytes) {
        builder.addDocument(name, bytes);
    });
    return builder.finish(sourceName(folder, options.subset));
}

Corpus readTextArchive(const std::string& archive, const CorpusReadOptions& options)
{
    checkOptions("readTextArchive", options);
    CorpusBuilder builder(options.tokenizer);
    forEachTextDocument(archive, options, [&](const std::string& name, std::string& bytes) {
        builder.addDocument(name, bytes);
    });
    builder.sortByName();
    return builder.finish(sourceName(archive, options.subset));
}

Corpus readTextFiles(const std::vector<std::string>& paths, const CorpusReadOptions& options)
{
    checkOptions("readTextFiles", options);
    if (paths.empty())
        throw DataError("no text files given");
    CorpusBuilder builder(options.tokenizer);
    for (const std::string& path : paths) {
        const std::string bytes = readAllBytes(path);
        checkText(path, path, bytes);
        builder.addDocument(path, bytes);
    }
    std::string source = paths.front();
    if (paths.size() > 1)
        source += " and " + std::to_string(paths.size() - 1) + " more";
    return builder.finish(source);
}

Corpus loadCorpus(const std::vector<std::string>& paths, const CorpusReadOptions& options)
{
    checkOptions("loadCorpus", options);
    if (paths.empty())
        throw DataError("no corpus file given");
    if (paths.size() == 1 && paths.front() == kStandardInput) // read once: LDA-C, not sniffed
        return readLdac(kStandardInput, options.vocabulary);
    std::vector<std::string> rest = paths;
    std::string vocabulary = options.vocabulary;
    if (rest.size() == 2) {
        // Counts and their vocabulary, in either order.
        for (std::size_t v = 0; v < 2; ++v) {
            const std::optional<CorpusFormat> other = corpusFormatOf(rest[1 - v]);
            const bool counts = other == CorpusFormat::Ldac || other == CorpusFormat::Uci ||
                                plainName(rest[1 - v]).endsWith(".dat");
            if (counts && isVocabularyFile(rest[v]) && !isDirectory(rest[v])) {
                if (!vocabulary.empty())
                    throw DataError("two vocabularies given: '" + vocabulary + "' and '" + rest[v] +
                                    "'");
                vocabulary = rest[v];
                rest.erase(rest.begin() + std::ptrdiff_t(v));
                break;
            }
        }
    }
    const std::string& first = rest.front();
    std::optional<CorpusFormat> format = corpusFormatOf(first);
    if (!format && rest.size() == 1 && plainName(first).endsWith(".dat"))
        format = CorpusFormat::Ldac; // a .dat without a vocabulary beside it is still LDA-C
    const auto describe = [](CorpusFormat f) {
        switch (f) {
        case CorpusFormat::Ldac:
            return "an LDA-C file";
        case CorpusFormat::Uci:
            return "a UCI docword file";
        case CorpusFormat::TextFolder:
            return "a folder";
        case CorpusFormat::TextArchive:
            return "a tar archive";
        case CorpusFormat::ReutersSgml:
            return "Reuters-21578 markup";
        case CorpusFormat::TextFiles:
            break;
        }
        return "text files";
    };
    if (format == CorpusFormat::ReutersSgml) {
        // Several files of articles make one corpus (the distribution's 22 reut2-*.sgm).
        for (const std::string& p : rest)
            if (corpusFormatOf(p) != CorpusFormat::ReutersSgml)
                throw DataError("'" + p + "' is not Reuters-21578 markup like '" + first +
                                "', and cannot be read together with it");
        if (!options.subset.empty())
            throw std::invalid_argument("loadCorpus: subset = '" + options.subset +
                                        "', but only a folder or an archive has subfolders ('" +
                                        first + "' is " + describe(*format) + ")");
        if (!vocabulary.empty())
            throw DataError("a vocabulary ('" + vocabulary +
                            "') goes with LDA-C or UCI counts, but '" + first + "' is " +
                            describe(*format));
        return readReutersFiles(rest, options);
    }
    if (format && rest.size() > 1)
        throw DataError("'" + first + "' is " + describe(*format) +
                        ", read on its own (with at most its vocabulary file), but " +
                        std::to_string(rest.size() - 1) + " more paths were given ('" + rest[1] +
                        "')");
    if (!format) {
        for (const std::string& p : rest)
            if (const auto f = corpusFormatOf(p))
                throw DataError("'" + p + "' is " + describe(*f) +
                                ", which cannot be read together with text files ('" + first +
                                "')");
        format = CorpusFormat::TextFiles;
    }
    const bool raw = *format == CorpusFormat::TextFolder || *format == CorpusFormat::TextArchive;
    if (!options.subset.empty() && !raw)
        throw std::invalid_argument("loadCorpus: subset = '" + options.subset +
                                    "', but only a folder or an archive has subfolders ('" + first +
                                    "' is " + describe(*format) + ")");
    if (!vocabulary.empty() && (*format != CorpusFormat::Ldac && *format != CorpusFormat::Uci))
        throw DataError("a vocabulary ('" + vocabulary + "') goes with LDA-C or UCI counts, but '" +
                        first + "' is " + describe(*format));
    switch (*format) {
    case CorpusFormat::Ldac:
        return readLdac(first, vocabulary);
    case CorpusFormat::Uci:
        return readUciBagOfWords(first, vocabulary);
    case CorpusFormat::TextFolder:
        return readTextFolder(first, options);
    case CorpusFormat::TextArchive:
        return readTextArchive(first, options);
    case CorpusFormat::ReutersSgml: // read above
    case CorpusFormat::TextFiles:
        break;
    }
    return readTextFiles(rest, options);
}

} // namespace svi
