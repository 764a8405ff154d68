#include "core/io/data_folder.h"

#include "core/io/data_error.h"
#include "core/io/path_names.h"
#include "core/io/ratings_files.h"
#include "core/io/sniff_detail.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QString>
#include <algorithm>
#include <map>
#include <memory>

namespace svi {
namespace {

// A folder whose first files are all plain text is a corpus of text files: the rest are not
// sniffed (a corpus of 20,000 posts), and its reader checks every file for binary data.
constexpr std::size_t kTextFilesDecide = 64;
// Names listed in a note before "…".
constexpr std::size_t kNamesListed = 8;

// What a file of the folder is, for deciding the folder's kind.
enum class Group { Table, Image, Graph, Labelled, Ratings, Counts, Reuters, Archive, Text, Other };

struct Sniffed
{
    std::string path; // as opened
    std::string name; // relative to the folder, for messages
    Group group = Group::Other;
    std::string what; // "FCS file", "table", "image", … (one; the plural adds "s")
    RecognisedFile recognised;
};

// README, licences, scripts, markup about the data: never data, whatever their content says.
// (Such names are common beside data; a data file named so would be a surprise.)
bool isSideFile(const QString& fileName)
{
    const QString n = fileName.toLower();
    for (const char* prefix :
         {"readme", "read.me", "license", "licence", "copying", "copyright", "notice", "authors",
          "changes", "changelog", "thumbs.db", "desktop.ini"})
        if (n.startsWith(QLatin1String(prefix)))
            return true;
    for (const char* suffix : {".md", ".dtd", ".html", ".htm", ".pdf", ".sh", ".pl", ".py", ".r",
                               ".bat", ".doc", ".docx"})
        if (n.endsWith(QLatin1String(suffix)))
            return true;
    return false;
}

Sniffed sniffed(const std::string& path, const std::string& name)
{
    Sniffed s{path, name, Group::Other, "unreadable file", {}};
    try {
        s.recognised = recogniseInDetail(path);
    } catch (const DataError&) {
        return s; // cannot be opened: left out, and said
    }
    const FileFormat& f = s.recognised.format;
    const bool byName = f.name.find("(by its name)") != std::string::npos;
    const auto is = [&](Group g, const char* what) {
        s.group = g;
        s.what = what;
    };
    switch (f.kind) {
    case DataFileKind::Fcs:
        is(Group::Table, "FCS file");
        break;
    case DataFileKind::Delimited:
        if (f.graph != GraphLayout::None)
            is(Group::Graph, "graph");
        else if (byName) // prose under a table's name
            is(Group::Text, "text file");
        else
            is(Group::Table, "table");
        break;
    case DataFileKind::Image:
        is(Group::Image, "image");
        break;
    case DataFileKind::Gml:
        is(Group::Graph, "graph");
        break;
    case DataFileKind::Libsvm:
        is(Group::Labelled, "LIBSVM file");
        break;
    case DataFileKind::Ratings:
        is(Group::Ratings, "ratings file");
        break;
    case DataFileKind::Corpus:
        switch (s.recognised.corpus.value_or(CorpusFormat::TextFiles)) {
        case CorpusFormat::Ldac:
            is(Group::Counts, "LDA-C file");
            break;
        case CorpusFormat::Uci:
            is(Group::Counts, "UCI docword file");
            break;
        case CorpusFormat::ReutersSgml:
            is(Group::Reuters, "Reuters-21578 file");
            break;
        case CorpusFormat::TextArchive:
            is(Group::Archive, "tar archive");
            break;
        case CorpusFormat::TextFolder:
        case CorpusFormat::TextFiles:
            is(Group::Text, "text file");
            break;
        }
        break;
    case DataFileKind::Unknown:
        if (f.name == "text" || f.name == "space-separated columns")
            is(Group::Text, "text file");
        else
            s.what = f.name.find("empty") != std::string::npos ? "empty file" : "binary file";
        break;
    }
    if (byName && s.group != Group::Text && s.group != Group::Table)
        s.what += " (by its name)";
    return s;
}

std::string counted(std::size_t n, const std::string& what)
{
    if (n == 1)
        return "1 " + what;
    // "1 FCS file (by its name)" → "2 FCS files (by their names)"
    const std::size_t paren = what.find(" (");
    const std::string noun = paren == std::string::npos ? what : what.substr(0, paren);
    const std::string rest = paren == std::string::npos ? "" : " (by their names)";
    const bool es = noun.ends_with("x") || noun.ends_with("s");
    return std::to_string(n) + " " + noun + (es ? "es" : "s") + rest;
}

// "a, b and c" of the counts of each kind of file, in order of first appearance.
std::string listedKinds(const std::vector<const Sniffed*>& files)
{
    std::vector<std::string> order;
    std::map<std::string, std::size_t> n;
    for (const Sniffed* s : files)
        if (n[s->what]++ == 0)
            order.push_back(s->what);
    std::string out;
    for (std::size_t i = 0; i < order.size(); ++i)
        out += (i == 0                  ? ""
                : i + 1 == order.size() ? " and "
                                        : ", ") +
               counted(n[order[i]], order[i]);
    return out;
}

std::string namesOf(const std::vector<const Sniffed*>& files)
{
    std::string out;
    for (std::size_t i = 0; i < files.size() && i < kNamesListed; ++i)
        out += (i ? ", " : "") + files[i]->name;
    if (files.size() > kNamesListed)
        out += ", …";
    return out;
}

// What a group's files are, in the plural, for "left out … that are not …".
std::string groupNoun(Group g)
{
    switch (g) {
    case Group::Table:
        return "FCS files or tables of numbers";
    case Group::Image:
        return "images";
    case Group::Graph:
        return "graphs";
    case Group::Labelled:
        return "LIBSVM files";
    case Group::Ratings:
        return "ratings files";
    case Group::Counts:
        return "word counts";
    case Group::Reuters:
        return "Reuters-21578 markup";
    case Group::Archive:
        return "tar archives";
    case Group::Text:
    case Group::Other:
        break;
    }
    return "data";
}

std::string fileName(const std::string& path)
{
    return QFileInfo(qstr(path)).fileName().toStdString();
}

} // namespace

FolderContents folderContents(const std::string& folder)
{
    FolderContents out;
    if (const std::string ratings = ratingsFileIn(folder); !ratings.empty()) {
        out.format = {DataFileKind::Ratings, "folder with MovieLens " + fileName(ratings)};
        if (plainName(ratings) == "user_artists.dat")
            out.format.name = "folder with Last.fm user_artists.dat";
        return out;
    }
    const QDir root(QFileInfo(qstr(folder)).absoluteFilePath());
    std::vector<std::pair<std::string, std::string>> listed; // (relative name, path)
    QDirIterator it(root.path(), QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString full = it.next();
        const QString rel = root.relativeFilePath(full);
        if (rel.startsWith('.') || rel.contains("/."))
            continue; // hidden, or in a hidden folder
        listed.emplace_back(rel.toStdString(), QDir(qstr(folder)).filePath(rel).toStdString());
    }
    std::sort(listed.begin(), listed.end());

    std::vector<Sniffed> all;
    std::vector<const Sniffed*> side;
    all.reserve(listed.size());
    std::size_t sniffedFiles = 0, plain = 0; // of which text
    for (const auto& [rel, path] : listed) {
        if (isSideFile(QFileInfo(qstr(rel)).fileName())) {
            all.push_back({path, rel, Group::Other, "side file", {}});
            continue;
        }
        all.push_back(sniffed(path, rel));
        ++sniffedFiles;
        plain += all.back().group == Group::Text ? 1 : 0;
        if (plain == sniffedFiles && plain >= kTextFilesDecide)
            break; // a corpus of text files
    }
    // The Reuters-21578 distribution holds, beside its articles, lists and a world factbook in
    // text that may pass for tables: with articles present, every other file is a side file.
    const bool articles = std::any_of(all.begin(), all.end(),
                                      [](const Sniffed& s) { return s.group == Group::Reuters; });
    std::map<Group, std::vector<const Sniffed*>> groups;
    std::vector<const Sniffed*> data, leftOut;
    for (const Sniffed& s : all) {
        if (s.what == "side file") {
            side.push_back(&s);
            continue;
        }
        const Group g = articles && s.group != Group::Reuters ? Group::Text : s.group;
        groups[g].push_back(&s);
        if (g != Group::Text && g != Group::Other)
            data.push_back(&s);
    }
    const auto dataGroups = std::count_if(groups.begin(), groups.end(), [](const auto& g) {
        return g.first != Group::Text && g.first != Group::Other;
    });
    if (dataGroups == 0) {
        if (!groups.count(Group::Text) && !all.empty())
            failFile(folder,
                     "holds no file the workbench reads (" +
                         listedKinds(groups.count(Group::Other) ? groups[Group::Other] : side) +
                         (side.empty() ? "" : "; " + namesOf(side)) + ")");
        // Text files only (or nothing: the corpus reader says so): one document per file.
        out.format = {DataFileKind::Corpus, "folder of text files"};
        out.corpus = CorpusFormat::TextFolder;
        return out;
    }
    if (dataGroups > 1)
        failFile(folder,
                 "it holds " + listedKinds(data) + ": open one file, or a folder of one kind");

    const Group group = data.front()->group;
    const std::vector<const Sniffed*>& mine = groups[group];
    // Everything else the folder holds: side files, text, files that cannot be read.
    for (const Sniffed& s : all)
        if (s.group != group)
            leftOut.push_back(&s);
    const std::string what = listedKinds(mine); // "2 FCS files and 1 table"
    const auto first = [&](const std::string& noun) {
        out.files = {mine.front()->path};
        if (mine.size() > 1)
            out.notes.push_back("folder holds " + counted(mine.size(), noun) + "; opened " +
                                mine.front()->name);
    };
    switch (group) {
    case Group::Table: {
        const bool fcs = std::all_of(mine.begin(), mine.end(),
                                     [](const Sniffed* s) { return s->what == "FCS file"; });
        out.format = {fcs ? DataFileKind::Fcs : DataFileKind::Delimited, "folder of " + what};
        for (const Sniffed* s : mine)
            out.files.push_back(s->path);
        break;
    }
    case Group::Image:
        out.format = {DataFileKind::Image, "folder of " + what};
        first("image");
        break;
    case Group::Graph:
        out.format = mine.front()->recognised.format;
        out.format.name = "folder of " + what;
        first("graph");
        break;
    case Group::Ratings:
        out.format = {DataFileKind::Ratings, "folder of " + what};
        first("ratings file");
        break;
    case Group::Archive:
        out.format = {DataFileKind::Corpus, "folder of " + what};
        out.corpus = CorpusFormat::TextArchive;
        first("tar archive");
        break;
    case Group::Reuters:
        out.format = {DataFileKind::Corpus, "folder of " + what};
        out.corpus = CorpusFormat::ReutersSgml;
        for (const Sniffed* s : mine)
            out.files.push_back(s->path);
        break;
    case Group::Labelled: {
        out.format = {DataFileKind::Libsvm, "folder of " + what};
        const Sniffed* train = mine.front();
        const auto test = std::find_if(mine.begin(), mine.end(), [&](const Sniffed* s) {
            return s->name == train->name + ".t";
        });
        out.files = {train->path};
        if (test != mine.end()) {
            out.files.push_back((*test)->path);
            out.notes.push_back("read " + train->name + " as the training set and " +
                                (*test)->name + " as the given test set");
        }
        if (mine.size() > out.files.size())
            out.notes.push_back("folder holds " + counted(mine.size(), "LIBSVM file") + "; read " +
                                train->name +
                                (out.files.size() > 1 ? " and " + (*test)->name : ""));
        break;
    }
    case Group::Counts: {
        out.format = {DataFileKind::Corpus, "folder with " + what};
        out.corpus = mine.front()->recognised.corpus;
        first(mine.front()->what);
        // Its vocabulary: beside it by name (findVocabulary), else the folder's one vocabulary.
        if (findVocabulary(mine.front()->path).empty()) {
            std::vector<const Sniffed*> vocabularies;
            for (const Sniffed* s : leftOut)
                if (s->group == Group::Text && isVocabularyFile(s->path))
                    vocabularies.push_back(s);
            if (vocabularies.size() == 1) {
                out.files.push_back(vocabularies.front()->path);
                leftOut.erase(std::find(leftOut.begin(), leftOut.end(), vocabularies.front()));
            }
        } else {
            const std::string vocabulary = findVocabulary(mine.front()->path);
            std::erase_if(leftOut, [&](const Sniffed* s) {
                return QFileInfo(qstr(s->path)).canonicalFilePath() ==
                       QFileInfo(qstr(vocabulary)).canonicalFilePath();
            });
        }
        break;
    }
    case Group::Text:
    case Group::Other:
        break; // not data groups
    }
    if (!leftOut.empty())
        out.notes.push_back("left out " +
                            (leftOut.size() == 1
                                 ? leftOut.front()->name + " (not " + groupNoun(group) + ")"
                                 : counted(leftOut.size(), "file") + " (not " + groupNoun(group) +
                                       "): " + namesOf(leftOut)));
    return out;
}

namespace {

// The description with a folder's files in place of the folder, and its notes; std::nullopt
// when `d` does not name one folder whose kind reads files.
struct FolderRead
{
    DataDescription data;
    std::vector<std::string> notes;
};

std::optional<FolderRead> folderRead(const DataDescription& d)
{
    if (d.files.size() != 1 || !isDirectory(d.files.front()))
        return std::nullopt;
    FolderContents c = folderContents(d.files.front());
    if (c.files.empty())
        return std::nullopt;
    FolderRead r{d, std::move(c.notes)};
    r.data.files = std::move(c.files);
    return r;
}

// The data read from a folder's files, with the folder's notes after its summary.
class FolderRaw : public RawData
{
public:
    FolderRaw(std::shared_ptr<const RawData> inner, FolderRead read)
        : m_inner(std::move(inner)), m_read(std::move(read))
    {
    }
    std::string summary() const override { return m_inner->summary() + notes(); }
    std::vector<Name> names(const std::string& key) const override { return m_inner->names(key); }
    ParamValues suggestedSettings() const override { return m_inner->suggestedSettings(); }
    std::vector<std::string> ignoredSettings() const override { return m_inner->ignoredSettings(); }
    const RawData& inner() const { return *m_inner; }
    const std::vector<std::string>& files() const { return m_read.data.files; }
    // " · note · note".
    std::string notes() const
    {
        std::string out;
        for (const std::string& n : m_read.notes)
            out += " · " + n;
        return out;
    }

private:
    std::shared_ptr<const RawData> m_inner;
    FolderRead m_read;
};

// The paths as named inside `folder` ("acq/reut-00001.xml").
std::vector<std::string> namesInside(const std::string& folder,
                                     const std::vector<std::string>& paths)
{
    const QDir dir(qstr(folder));
    std::vector<std::string> out;
    out.reserve(paths.size());
    for (const std::string& p : paths)
        out.push_back(dir.relativeFilePath(qstr(p)).toStdString());
    return out;
}

} // namespace

DataKindSpec readingFolders(DataKindSpec kind)
{
    if (kind.read) {
        kind.read = [read = kind.read](const DataDescription& d) -> std::shared_ptr<const RawData> {
            std::optional<FolderRead> f = folderRead(d);
            if (!f)
                return read(d);
            auto inner = read(f->data);
            return std::make_shared<FolderRaw>(std::move(inner), std::move(*f));
        };
    }
    if (kind.readPart) {
        kind.readPart = [readPart =
                             kind.readPart](const DataDescription& d,
                                            Communicator& ranks) -> std::shared_ptr<const RawData> {
            std::optional<FolderRead> f = folderRead(d);
            if (!f)
                return readPart(d, ranks);
            auto inner = readPart(f->data, ranks);
            if (!inner)
                return nullptr; // read whole, by read()
            return std::make_shared<FolderRaw>(std::move(inner), std::move(*f));
        };
    }
    if (kind.build) {
        kind.build = [build = kind.build](const RawData& raw, const DataDescription& d) {
            const auto* folder = dynamic_cast<const FolderRaw*>(&raw);
            if (!folder)
                return build(raw, d);
            DataDescription read = d;
            read.files = folder->files();
            BuiltData out = build(folder->inner(), read);
            out.summary += folder->notes();
            return out;
        };
    }
    if (kind.inspect) {
        kind.inspect = [inspect = kind.inspect](const DataDescription& d) {
            std::optional<FolderRead> f = folderRead(d);
            if (!f)
                return inspect(d);
            DataReport r = inspect(f->data);
            r.lines.push_back({"folder_files",
                               "files read",
                               namesInside(d.files.front(), f->data.files),
                               {},
                               {}});
            if (!f->notes.empty())
                r.lines.push_back({"folder_notes", "folder", f->notes, {}, "folder"});
            return r;
        };
    }
    return kind;
}

} // namespace svi
