#include "core/io/sniff.h"

#include "core/io/byte_source.h"
#include "core/io/data_error.h"
#include "core/io/data_folder.h"
#include "core/io/graph_files.h"
#include "core/io/path_names.h"
#include "core/io/ratings_files.h"
#include "core/io/reuters_sgml.h"
#include "core/io/sniff_detail.h"
#include "core/io/tar_archive.h"

#include <QBuffer>
#include <QFile>
#include <QFileInfo>
#include <QImageReader>
#include <QString>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>
#include <vector>

namespace svi {
namespace {

// How much of the content is looked at: a few hundred lines of a wide table, yet read (and
// inflated) in a millisecond or two each time a file is recognised.
constexpr std::size_t kHeadBytes = 256 * 1024;
constexpr std::size_t kTarBlock = 512;

struct Head
{
    std::string raw;      // the first bytes as stored
    std::string text;     // the first bytes of the content, inflated when gzip
    bool gzip = false;    // starts with the gzip magic 1f 8b
    bool corrupt = false; // gzip data that do not inflate
    bool whole = false;   // `text` is all of the content
};

Head readHead(const std::string& path)
{
    Head h;
    QFile file(qstr(path));
    if (!file.open(QIODevice::ReadOnly))
        failFile(path, file.errorString().toStdString());
    h.raw.resize(kHeadBytes);
    const qint64 got = file.read(h.raw.data(), qint64(kHeadBytes));
    if (got < 0)
        failFile(path, file.errorString().toStdString());
    h.raw.resize(std::size_t(got));
    h.gzip = h.raw.size() >= 2 && static_cast<unsigned char>(h.raw[0]) == 0x1f &&
             static_cast<unsigned char>(h.raw[1]) == 0x8b;
    if (!h.gzip) {
        h.text = h.raw;
        h.whole = file.atEnd();
        return h;
    }
    try {
        ByteSource source(path);
        h.text.resize(kHeadBytes);
        h.text.resize(source.readFull(h.text.data(), kHeadBytes));
        h.whole = h.text.size() < kHeadBytes;
    } catch (const DataError&) {
        // Truncated or corrupt within the head: the name may still say what the reader should
        // make of it, and that reader then says what is wrong.
        h.corrupt = true;
        h.text.clear();
    }
    return h;
}

// The head's lines without terminators (and without a UTF-8 byte-order mark); the last line
// only when the head holds it whole, or when it is the only one.
std::vector<std::string_view> headLines(std::string_view text, bool whole)
{
    if (text.starts_with(kBom))
        text.remove_prefix(kBom.size());
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        if (nl == std::string_view::npos) {
            if (whole || lines.empty())
                lines.push_back(text.substr(pos));
            break;
        }
        lines.push_back(text.substr(pos, nl - pos));
        pos = nl + 1;
    }
    for (std::string_view& l : lines)
        if (l.ends_with('\r'))
            l.remove_suffix(1);
    return lines;
}

// Fields separated by `delim` outside double quotes (quotes kept).
void splitAt(std::string_view line, char delim, std::vector<std::string_view>& out)
{
    out.clear();
    bool quoted = false;
    std::size_t start = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '"')
            quoted = !quoted;
        else if (line[i] == delim && !quoted) {
            out.push_back(line.substr(start, i - start));
            start = i + 1;
        }
    }
    out.push_back(line.substr(start));
}

// Digits only, not too many for std::int64_t.
bool isWhole(std::string_view s, std::int64_t* value = nullptr)
{
    if (s.empty() || s.size() > 18 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return false;
    if (value)
        std::from_chars(s.data(), s.data() + s.size(), *value);
    return true;
}

// --- binary signatures ---------------------------------------------------------------------------

// "3.1" for a HEADER "FCS3.1" + 4 spaces + six 8-byte fields of digits and spaces, the first
// (TEXT begin) not blank: every FCS file starts so, and nothing else does by chance.
std::optional<std::string> fcsVersion(std::string_view raw)
{
    if (raw.size() < 58 || !raw.starts_with("FCS") || raw[4] != '.' || raw[3] < '0' ||
        raw[3] > '9' || raw[5] < '0' || raw[5] > '9' || raw.substr(6, 4) != "    ")
        return std::nullopt;
    for (std::size_t i = 10; i < 58; ++i)
        if (raw[i] != ' ' && (raw[i] < '0' || raw[i] > '9'))
            return std::nullopt;
    if (trimmed(raw.substr(10, 8)).empty())
        return std::nullopt;
    return std::string(raw.substr(3, 3));
}

std::uint32_t littleEndian32(std::string_view s, std::size_t at)
{
    std::uint32_t v = 0;
    for (std::size_t i = 4; i-- > 0;)
        v = v * 256 + static_cast<unsigned char>(s[at + i]);
    return v;
}

// The image format QImageReader finds in the content ("png", "jpeg", …). Some signatures are
// weak: BMP is "BM" (a table's header "BMI,…" starts so), PBM/PGM/PPM are "P1"–"P6", TGA and
// WBMP have none to speak of. So BMP needs a known info-header size, the text formats a header
// the reader can parse, and TGA and WBMP the name's suffix as well.
std::optional<std::string> imageFormatOf(const std::string& raw, const QString& suffix)
{
    QByteArray bytes = QByteArray::fromRawData(raw.data(), qsizetype(raw.size()));
    QBuffer buffer(&bytes);
    if (!buffer.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray format = QImageReader::imageFormat(&buffer).toLower();
    if (format.isEmpty())
        return std::nullopt;
    if ((format == "tga" || format == "wbmp") && suffix.toLatin1() != format)
        return std::nullopt;
    if (format == "bmp") {
        static const std::uint32_t kInfoSizes[] = {12, 16, 40, 52, 56, 64, 108, 124};
        if (raw.size() < 18 || std::find(std::begin(kInfoSizes), std::end(kInfoSizes),
                                         littleEndian32(raw, 14)) == std::end(kInfoSizes))
            return std::nullopt;
    }
    static const QByteArray kWeak[] = {"pbm", "pgm", "ppm", "xbm", "xpm", "tga", "wbmp"};
    if (std::find(std::begin(kWeak), std::end(kWeak), format) != std::end(kWeak)) {
        buffer.seek(0);
        QImageReader reader(&buffer, format);
        if (!reader.size().isValid())
            return std::nullopt;
    }
    return format.toUpper().toStdString();
}

// A tar header, and NUL bytes in it (padding that every header has and text never has).
bool isTar(std::string_view text)
{
    return isTarHeader(text) && std::memchr(text.data(), 0, kTarBlock);
}

// Whether the first member is a regular file whose bytes in the head hold a NUL (not text).
bool tarStartsWithBinary(std::string_view text)
{
    const char type = text[156];
    if (type != '0' && type != '\0')
        return false;      // a folder, a long name or a pax record: the members follow
    std::int64_t size = 0; // octal, space- or NUL-padded
    for (const char c : text.substr(124, 12)) {
        if (c >= '0' && c <= '7')
            size = size * 8 + (c - '0');
        else if (c != ' ' && c != '\0')
            return false; // GNU's base-256 size: a file of gigabytes, left to the reader
    }
    const std::size_t n = std::min<std::size_t>(std::size_t(size), text.size() - kTarBlock);
    return n > 0 && std::memchr(text.data() + kTarBlock, 0, n);
}

// --- text layouts --------------------------------------------------------------------------------

// Every non-blank line "N id:count …" with N the number of pairs, and at least one pair.
bool looksLikeLdac(const std::vector<std::string_view>& lines)
{
    std::vector<std::string_view> f;
    bool pairs = false;
    for (std::string_view line : lines) {
        splitFields(line, f);
        if (f.empty())
            continue;
        std::int64_t n = 0;
        if (!isWhole(f[0], &n) || n != std::int64_t(f.size()) - 1)
            return false;
        for (std::size_t k = 1; k < f.size(); ++k) {
            const std::size_t colon = f[k].find(':');
            if (colon == std::string_view::npos || !isWhole(f[k].substr(0, colon)) ||
                !isWhole(f[k].substr(colon + 1)))
                return false;
        }
        pairs = pairs || n > 0;
    }
    return pairs;
}

// A number as LIBSVM writes labels and values: what from_chars reads whole, a leading '+'
// allowed ("+1"), finite.
bool isLibsvmNumber(std::string_view s)
{
    if (s.size() > 1 && s.front() == '+' && s[1] != '-' && s[1] != '+')
        s.remove_prefix(1);
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    return !s.empty() && r.ptr == s.data() + s.size() && r.ec == std::errc() && std::isfinite(v);
}

// Every non-blank line (after a "#" comment is cut) "label idx:val …": a number, then pairs
// whose indices count from 1 and increase strictly within the line, values numbers; at least
// one pair in all. (LDA-C, tried before, takes lines that are both.)
bool looksLikeLibsvm(const std::vector<std::string_view>& lines)
{
    std::vector<std::string_view> f;
    bool pairs = false;
    for (std::string_view line : lines) {
        splitFields(line.substr(0, line.find('#')), f);
        if (f.empty())
            continue;
        if (!isLibsvmNumber(f[0]))
            return false;
        std::int64_t last = 0;
        for (std::size_t k = 1; k < f.size(); ++k) {
            const std::size_t colon = f[k].find(':');
            std::int64_t index = 0;
            if (colon == std::string_view::npos || !isWhole(f[k].substr(0, colon), &index) ||
                index <= last || !isLibsvmNumber(f[k].substr(colon + 1)))
                return false;
            last = index;
        }
        pairs = pairs || f.size() > 1;
    }
    return pairs;
}

// Three lines of one whole number (D, W, NNZ), then lines "docID wordID count", at least one.
bool looksLikeUci(const std::vector<std::string_view>& lines)
{
    std::vector<std::string_view> f;
    int header = 0;
    bool triples = false;
    for (std::string_view line : lines) {
        splitFields(line, f);
        if (f.empty())
            continue;
        if (header < 3) {
            if (f.size() != 1 || !isWhole(f[0]))
                return false;
            ++header;
            continue;
        }
        if (f.size() != 3 || !isWhole(f[0]) || !isWhole(f[1]) || !isWhole(f[2]))
            return false;
        triples = true;
    }
    return triples;
}

// A cell the table reader takes for a number or a missing value.
bool isNumberCell(std::string_view cell, char delim)
{
    cell = trimmed(cell);
    if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"')
        cell = trimmed(cell.substr(1, cell.size() - 2));
    if (cell.empty() || cell == "NA" || cell == "NaN" || cell == "nan" || cell == "NAN")
        return true;
    std::string decimal(cell);
    if (delim == ';') // a decimal comma, as the table reader accepts with ';'
        std::replace(decimal.begin(), decimal.end(), ',', '.');
    const char* const begin = decimal.data() + (decimal.front() == '+' ? 1 : 0);
    const char* const end = decimal.data() + decimal.size();
    double v = 0;
    const auto r = std::from_chars(begin, end, v);
    return r.ptr == end && (r.ec == std::errc() || r.ec == std::errc::result_out_of_range);
}

struct TableShape
{
    char delimiter = ','; // ' ' for runs of whitespace; 0 for a single column
    std::size_t columns = 0;
};

// Lines that split into the same number of fields (≥ 2) on one delimiter — the header may have
// one fewer (R's write.table leaves out the row names' column) — most of whose cells after the
// first (row names) are numbers; or one column of numbers under a header. Comment lines before
// the header and blank lines are skipped, as the table reader skips them.
std::optional<TableShape> tableShape(const std::vector<std::string_view>& all)
{
    std::vector<std::string_view> lines;
    for (std::string_view l : all)
        if (!trimmed(l).empty() && !(lines.empty() && l.starts_with('#')))
            lines.push_back(l);
    if (lines.empty())
        return std::nullopt;
    std::vector<std::string_view> f;
    for (const char d : {'\t', ',', ';', ' '}) {
        const auto split = [&](std::string_view line) {
            if (d == ' ')
                splitFields(line, f);
            else
                splitAt(line, d, f);
        };
        split(lines[0]);
        const std::size_t header = f.size();
        std::size_t columns = header, cells = 0, numbers = 0;
        bool same = true;
        // One line: a table without a header (a header alone is no table), so its cells count.
        for (std::size_t i = lines.size() == 1 ? 0 : 1; i < lines.size() && same; ++i) {
            split(lines[i]);
            if (i <= 1)
                columns = f.size();
            same = f.size() == columns;
            for (std::size_t k = 1; k < f.size(); ++k, ++cells)
                numbers += isNumberCell(f[k], d) ? 1 : 0;
        }
        if (same && columns >= 2 && (header == columns || header + 1 == columns) &&
            2 * numbers >= cells)
            return TableShape{d, columns};
    }
    if (lines.size() < 2)
        return std::nullopt;
    for (std::size_t i = 0; i < lines.size(); ++i)
        if (lines[i].find_first_of("\t,;") != std::string_view::npos ||
            (i > 0 && !isNumberCell(lines[i], ',')))
            return std::nullopt;
    return TableShape{0, 1};
}

std::string tableName(const TableShape& shape)
{
    switch (shape.delimiter) {
    case ',':
        return "CSV";
    case '\t':
        return "TSV";
    case ';':
        return "semicolon-separated table";
    case 0:
        return "one-column table";
    default:
        return "space-separated columns";
    }
}

std::string ratingsName(RatingsFormat format)
{
    switch (format) {
    case RatingsFormat::Tab:
        return "MovieLens u.data";
    case RatingsFormat::Dat:
        return "MovieLens ratings.dat";
    case RatingsFormat::LastFm:
        return "Last.fm user_artists.dat";
    case RatingsFormat::Csv:
        break;
    }
    return "MovieLens ratings.csv";
}

// --- names ---------------------------------------------------------------------------------------

bool hasTableName(const std::string& path)
{
    const QString name = plainName(path);
    return name.endsWith(".csv") || name.endsWith(".tsv") || name.endsWith(".txt");
}

// What the name says when the content does not (see recogniseFile); Unknown named `content`
// when it says nothing either.
RecognisedFile byName(const std::string& path, const std::string& content)
{
    const QString name = plainName(path);
    const auto said = [](DataFileKind kind, const std::string& what) {
        return RecognisedFile{FileFormat{kind, what + " (by its name)"}, std::nullopt};
    };
    if (name.endsWith(".fcs") || name.endsWith(".lmd"))
        return said(DataFileKind::Fcs, "FCS");
    if (const auto ratings = ratingsFormatOfName(path))
        return said(DataFileKind::Ratings, ratingsName(*ratings));
    const auto corpus = [&](CorpusFormat format, const std::string& what) {
        RecognisedFile r = said(DataFileKind::Corpus, what);
        r.corpus = format;
        return r;
    };
    if (name.endsWith(".tar") || name.endsWith(".tgz"))
        return corpus(CorpusFormat::TextArchive, "tar archive");
    if (name.startsWith("docword.") && name.endsWith(".txt"))
        return corpus(CorpusFormat::Uci, "UCI bag-of-words");
    if (name.endsWith(".ldac") || (name.endsWith(".dat") && !findVocabulary(path).empty()))
        return corpus(CorpusFormat::Ldac, "LDA-C");
    if (name.endsWith(".gml"))
        return said(DataFileKind::Gml, "GML");
    if (hasTableName(path))
        return said(DataFileKind::Delimited, "table");
    const QByteArray suffix = QFileInfo(qstr(path)).suffix().toLower().toLatin1();
    if (!suffix.isEmpty() && (QImageReader::supportedImageFormats().contains(suffix) ||
                              suffix == "jpg" || suffix == "tif"))
        return said(DataFileKind::Image, "image");
    return RecognisedFile{FileFormat{DataFileKind::Unknown, content}, std::nullopt};
}

RecognisedFile recognised(DataFileKind kind, std::string name,
                          std::optional<CorpusFormat> corpus = std::nullopt)
{
    return RecognisedFile{FileFormat{kind, std::move(name)}, corpus};
}

} // namespace

RecognisedFile recogniseInDetail(const std::string& path)
{
    const QFileInfo info(qstr(path));
    if (!info.exists())
        failFile(path, "file does not exist");
    if (info.isDir()) {
        FolderContents folder = folderContents(path);
        return RecognisedFile{std::move(folder.format), folder.corpus};
    }
    const Head head = readHead(path);
    if (head.raw.empty())
        return byName(path, "empty file");
    const std::string zip = head.gzip ? "gzip'd " : "";
    if (head.corrupt)
        return byName(path, "corrupt gzip data");
    // Reuters-21578 before the images: Qt's SVG reader takes its XML variant for a drawing.
    if (looksLikeReuters(head.text))
        return recognised(
            DataFileKind::Corpus,
            zip + (head.text.find("<?xml") < 16 ? "Reuters-21578 XML" : "Reuters-21578 SGML"),
            CorpusFormat::ReutersSgml);
    // Binary formats by their signature, in the file or (gzip'd) in its inflated content; the
    // suffix that gives TGA and WBMP away is the one under ".gz".
    if (const auto version = fcsVersion(head.text))
        return recognised(DataFileKind::Fcs, zip + "FCS " + *version);
    const QString suffix =
        head.gzip ? QFileInfo(plainName(path)).suffix() : info.suffix().toLower();
    if (const auto image = imageFormatOf(head.text, suffix))
        return recognised(DataFileKind::Image, zip + *image + " image");
    if (head.text.empty())
        return byName(path, "gzip'd empty file");
    if (isTar(head.text)) {
        if (tarStartsWithBinary(head.text))
            return byName(path, zip + "tar archive of binary files");
        return recognised(DataFileKind::Corpus, zip + "tar archive of text",
                          CorpusFormat::TextArchive);
    }
    if (head.text.find('\0') != std::string::npos)
        return byName(path, zip + "binary data");
    if (looksLikeGml(head.text))
        return recognised(DataFileKind::Gml, zip + "GML graph");
    if (const auto graph = delimitedGraphOf(head.text, head.whole, head.gzip ? -1 : info.size())) {
        RecognisedFile r = recognised(DataFileKind::Delimited, zip + graph->name);
        r.format.graph = graph->layout;
        return r;
    }
    if (const auto ratings = ratingsFormatOfText(head.text))
        if (*ratings != RatingsFormat::Tab || !hasTableName(path))
            return recognised(DataFileKind::Ratings, zip + ratingsName(*ratings));
    const std::vector<std::string_view> lines = headLines(head.text, head.whole);
    if (looksLikeUci(lines))
        return recognised(DataFileKind::Corpus, zip + "UCI bag-of-words", CorpusFormat::Uci);
    if (looksLikeLdac(lines))
        return recognised(DataFileKind::Corpus, zip + "LDA-C", CorpusFormat::Ldac);
    if (looksLikeLibsvm(lines)) {
        // LDA-C with a bad line in the head, perhaps: a name that says a corpus decides.
        RecognisedFile named = byName(path, zip + "LIBSVM text");
        if (named.format.kind == DataFileKind::Corpus)
            return named;
        return recognised(DataFileKind::Libsvm, zip + "LIBSVM text");
    }
    if (const auto shape = tableShape(lines)) {
        // The table reader splits at one character (tab, comma or semicolon), not at runs of
        // spaces, so such columns are not a table it reads. One column of numbers is weak
        // evidence ("0" lines are also empty LDA-C documents): a name that says more wins.
        RecognisedFile named = byName(path, zip + tableName(*shape));
        if (shape->delimiter == ' ' ||
            (shape->delimiter == 0 && named.format.kind != DataFileKind::Unknown))
            return named;
        return recognised(DataFileKind::Delimited, zip + tableName(*shape));
    }
    return byName(path, zip + "text");
}

FileFormat recogniseFile(const std::string& path)
{
    return recogniseInDetail(path).format;
}

DataFileKind guessFileKind(const std::string& path)
{
    try {
        return recogniseFile(path).kind;
    } catch (const DataError&) {
        return byName(path, "unreadable file").format.kind;
    }
}

} // namespace svi
