#include "core/io/fcs_file.h"

#include "core/io/byte_source.h"
#include "core/io/fcs_decode.h"
#include "core/io/fcs_text.h"
#include "core/io/load_control.h"

#include <QFile>
#include <QFileInfo>
#include <QString>
#include <algorithm>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string_view>

namespace svi {
namespace {

using fcs::toUtf8;
using fcs::trim;
using fcs::upperAscii;

// The HEADER is 6 bytes of version, 4 spaces and six 8-byte ASCII offsets.
constexpr std::int64_t kFcsHeaderBytes = 58;
// Some writers (FlowJo) put 99999999 rather than 0 in the HEADER for offsets that do not fit.
constexpr std::int64_t kHeaderOverflow = 99999999;
// $ENDDATA is often one byte past the data (an exclusive end); allow that much slack, no more.
constexpr std::int64_t kEndSlack = 2;

std::string num(std::int64_t v)
{
    return std::to_string(v);
}

std::optional<std::int64_t> parseInt(std::string_view s)
{
    s = trim(s);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return v;
}

std::optional<double> parseReal(std::string_view s)
{
    s = trim(s);
    double v = 0.0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// Everything that needs the path for its messages.
struct Context
{
    const std::string& path;
    std::vector<std::string>& notes;
    bool gzip = false; // the FCS file is the inflated content of a gzip file

    [[noreturn]] void fail(const std::string& reason) const
    {
        throw DataError("cannot read '" + path + "'" + gzipOf(gzip, "an FCS file") + ": " + reason);
    }
};

void checkReadable(const Context& ctx)
{
    const QFileInfo fi(QString::fromStdString(ctx.path));
    if (!fi.exists())
        ctx.fail("file does not exist");
    if (fi.isDir())
        ctx.fail("is a folder, not a file");
    if (!ctx.path.starts_with(":") && !fi.isReadable())
        ctx.fail("permission denied");
    if (fi.size() == 0)
        ctx.fail("file is empty");
}

std::string readAt(const Context& ctx, QIODevice& file, std::int64_t offset, std::int64_t bytes,
                   const char* what)
{
    if (!file.seek(offset))
        ctx.fail(std::string("cannot seek to the ") + what + " at byte " + num(offset) + " (" +
                 file.errorString().toStdString() + ")");
    const QByteArray got = file.read(bytes);
    if (got.size() != bytes)
        ctx.fail(std::string("cannot read the ") + what + " at bytes " + num(offset) + "–" +
                 num(offset + bytes - 1) + " (" + file.errorString().toStdString() + ")");
    return got.toStdString();
}

FcsHeader parseHeader(const Context& ctx, const std::string& h)
{
    FcsHeader header;
    header.version = h.substr(0, 6);
    const bool shaped = header.version[3] >= '0' && header.version[3] <= '9' &&
                        header.version[4] == '.' && header.version[5] >= '0' &&
                        header.version[5] <= '9';
    if (!shaped)
        ctx.fail("HEADER version '" + toUtf8(header.version) +
                 "' is not of the form FCSn.n (not an FCS file?)");
    if (header.version[3] != '2' && header.version[3] != '3')
        ctx.fail("HEADER version '" + header.version +
                 "' is not supported (FCS 2.0, 3.0, 3.1 and 3.2 are)");
    static const char* const kFields[6] = {"TEXT begin", "TEXT end",       "DATA begin",
                                           "DATA end",   "ANALYSIS begin", "ANALYSIS end"};
    std::int64_t* const offsets[6] = {&header.textBegin,     &header.textEnd,
                                      &header.dataBegin,     &header.dataEnd,
                                      &header.analysisBegin, &header.analysisEnd};
    for (int f = 0; f < 6; ++f) {
        const std::string_view field = std::string_view(h).substr(10 + 8 * std::size_t(f), 8);
        if (trim(field).empty())
            continue; // blank = 0: the segment lies beyond 99,999,999 bytes (or is absent)
        const auto v = parseInt(field);
        if (!v || *v < 0)
            ctx.fail("HEADER field " + std::string(kFields[f]) + " (bytes " + num(10 + 8 * f) +
                     "–" + num(17 + 8 * f) + ") = '" + toUtf8(field) +
                     "', but must be a byte offset");
        *offsets[f] = *v;
    }
    return header;
}

// The mask for an integer parameter: FCS 2.0-era instruments store e.g. 10-bit values in 16-bit
// words with flag bits above them, so (like flowCore and FlowIO) values are masked to the next
// power of two ≥ $PnR, minus 1 — only when that is narrower than $PnB, so that a full-width
// $PnR (65536 for 16 bits) or a $PnR larger than the word changes nothing.
std::uint64_t rangeMask(const std::string* range, int bits)
{
    const std::uint64_t all = bits >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << bits) - 1;
    if (!range)
        return all;
    const auto r = parseReal(*range);
    if (!r || *r < 2.0 || *r >= 18446744073709551616.0)
        return all;
    const auto need = std::uint64_t(std::ceil(*r));
    std::uint64_t pow2 = 1;
    while (pow2 < need && pow2 < (std::uint64_t(1) << 63))
        pow2 <<= 1;
    return pow2 - 1 < all ? pow2 - 1 : all;
}

// The log scale of an integer parameter from $PnE ("f1,f2") and $PnR; linear (decades 0) when
// $PnE is absent, 0,0, or not two numbers (a note says so for the last).
fcs::LogScale logScale(const std::string& p, const std::string* e, const std::string* range,
                       std::vector<std::string>& notes)
{
    fcs::LogScale out;
    if (!e)
        return out;
    const std::size_t comma = e->find(',');
    // -1 for a value that is not a number (value_or keeps GCC's flow analysis quiet).
    const double f1 = parseReal(std::string_view(*e).substr(0, comma)).value_or(-1.0);
    const double f2 = comma == std::string::npos
                          ? -1.0
                          : parseReal(std::string_view(*e).substr(comma + 1)).value_or(-1.0);
    const double r = range ? parseReal(*range).value_or(-1.0) : -1.0;
    if (f1 < 0 || f2 < 0) {
        notes.push_back(p + "E = " + *e + " is not two numbers f1,f2; read as linear");
        return out;
    }
    if (f1 == 0 || r <= 0)
        return out;
    out.decades = f1;
    out.offset = f2 > 0 ? f2 : 1.0;
    out.range = r;
    return out;
}

struct Segment
{
    std::int64_t begin = 0, end = -1;
    bool set = false;
    std::int64_t length() const { return end - begin + 1; }
    // Bytes of the segment that the file actually holds.
    std::int64_t present(std::int64_t fileSize) const
    {
        return std::max<std::int64_t>(0, std::min(end + 1, fileSize) - begin);
    }
};

std::string range(const Segment& s)
{
    return num(s.begin) + "–" + num(s.end);
}

} // namespace

FcsFile readFcs(const std::string& path, bool readData, std::optional<Shard> eventRange)
{
    FcsFile out;
    out.path = path;
    Context ctx{path, out.notes};
    checkReadable(ctx);
    // A gzip'd FCS file is read from its inflated content, in memory.
    const SeekableContent content = openSeekable(path);
    ctx.gzip = content.gzip;
    out.gzip = content.gzip;
    QIODevice& file = *content.device;
    const std::int64_t fileSize = file.size();

    // --- HEADER ---
    const std::string head = file.read(kFcsHeaderBytes).toStdString();
    if (!head.starts_with("FCS"))
        ctx.fail("not an FCS file (it does not start with 'FCS')");
    if (fileSize < kFcsHeaderBytes)
        ctx.fail("the file has " + num(fileSize) + " bytes, but the FCS HEADER alone has " +
                 num(kFcsHeaderBytes) + " (truncated?)");
    const FcsHeader h = parseHeader(ctx, head);
    out.header = h;
    out.version = h.version;

    // --- TEXT --- (always located by the HEADER: the standard keeps it below 99,999,999)
    if (h.textBegin < kFcsHeaderBytes || h.textEnd < h.textBegin)
        ctx.fail("the HEADER puts TEXT at bytes " + num(h.textBegin) + "–" + num(h.textEnd) +
                 ", but it must start at byte 58 or later and end after it begins");
    std::int64_t textEnd = h.textEnd;
    if (textEnd >= fileSize) {
        if (textEnd > fileSize)
            ctx.fail("TEXT segment ends at byte " + num(textEnd) + ", but the file has " +
                     num(fileSize) + " bytes (truncated?)");
        textEnd = fileSize - 1; // an exclusive end, as $ENDDATA often is
        out.notes.push_back("the HEADER's TEXT end points one byte past the end of the file");
    }
    // Some writers (the CyTOF "PengQiu" writer) give the first DATA byte as the TEXT end (an
    // exclusive end); that byte is data, and taking it as TEXT would add a junk keyword. Only
    // this one-byte overlap is corrected: a larger one means the HEADER's DATA begin is what is
    // wrong, and cutting the TEXT there would lose keywords.
    if (h.dataBegin > h.textBegin && h.dataBegin == textEnd) {
        textEnd = h.dataBegin - 1;
        out.notes.push_back(
            "the HEADER's TEXT end is the first DATA byte; TEXT taken to end at byte " +
            num(textEnd));
    }
    const std::string text =
        readAt(ctx, file, h.textBegin, textEnd - h.textBegin + 1, "TEXT segment");
    const char delim = text.front();
    if (delim == '\0' || static_cast<unsigned char>(delim) > 126)
        ctx.fail("TEXT segment at byte " + num(h.textBegin) + " starts with byte " +
                 num(static_cast<unsigned char>(delim)) + ", which cannot be a delimiter");
    fcs::parseText(text, delim, out.keywords, out.notes, "TEXT");

    auto kw = [&](const std::string& key) -> const std::string* {
        const auto it = out.keywords.find(key);
        return it == out.keywords.end() ? nullptr : &it->second;
    };
    auto intKw = [&](const std::string& key, bool required) -> std::optional<std::int64_t> {
        const std::string* v = kw(key);
        if (!v) {
            if (required)
                ctx.fail(key + " is missing");
            return std::nullopt;
        }
        const auto n = parseInt(*v);
        if (!n || *n < 0)
            ctx.fail(key + " = '" + *v + "', but must be a whole number ≥ 0");
        return n;
    };

    // Supplemental TEXT: same syntax and delimiter (FCS 3.0+). Parsed only when it is in the
    // file and starts with the delimiter; some writers keep other things there (CyFlow: a ZIP
    // archive), which is no reason to refuse the file.
    {
        const std::string* sb = kw("$BEGINSTEXT");
        const std::string* se = kw("$ENDSTEXT");
        // −1 for an offset that is absent or not a whole number (GCC 12 cannot see through
        // two std::optionals here and warns of an uninitialised read).
        const std::int64_t b = sb ? parseInt(*sb).value_or(-1) : -1;
        const std::int64_t e = se ? parseInt(*se).value_or(-1) : -1;
        if (b > 0 && e >= b) {
            const std::string where = "supplemental TEXT at bytes " + num(b) + "–" + num(e);
            if (b < kFcsHeaderBytes || e >= fileSize) {
                out.notes.push_back(where + " is not inside the file; ignored");
            } else {
                const std::string stext = readAt(ctx, file, b, e - b + 1, "supplemental TEXT");
                if (stext.front() != delim)
                    out.notes.push_back(where + " does not start with the TEXT delimiter; ignored");
                else
                    fcs::parseText(stext, delim, out.keywords, out.notes, "supplemental TEXT");
            }
        } else if ((sb || se) && !(b == 0 && e == 0)) {
            out.notes.push_back("$BEGINSTEXT/$ENDSTEXT do not give a segment; ignored");
        }
    }

    // --- what the DATA holds ---
    if (const std::string* mode = kw("$MODE"); mode && upperAscii(*mode) != "L")
        ctx.fail("$MODE = " + *mode +
                 ", but only L (list mode) is supported (C and U are histograms)");
    const std::string* dataType = kw("$DATATYPE");
    if (!dataType)
        ctx.fail("$DATATYPE is missing");
    const std::string dt = upperAscii(*dataType);
    if (dt != "F" && dt != "D" && dt != "I")
        ctx.fail("$DATATYPE = " + *dataType + ", but only F, D and I are supported");
    out.dataType = dt[0];

    const std::int64_t par = *intKw("$PAR", true);
    if (par < 1 || par > 100000)
        ctx.fail("$PAR = " + num(par) + ", but must be between 1 and 100000");
    out.parameters = int(par);
    // A $PnN beyond $PAR means $PAR is wrong (or the file was edited): refuse rather than guess.
    {
        std::int64_t beyond = 0;
        for (const auto& [key, value] : out.keywords) {
            if (key.size() < 4 || !key.starts_with("$P") || key.back() != 'N')
                continue;
            const auto n = parseInt(std::string_view(key).substr(2, key.size() - 3));
            if (n && *n > par && (beyond == 0 || *n < beyond))
                beyond = *n;
        }
        if (beyond > 0)
            ctx.fail("$PAR = " + num(par) + ", but $P" + num(beyond) + "N is present");
    }

    std::vector<fcs::IntColumn> intCols;
    int eventBytes = 0;
    int widest = 0;
    for (int i = 1; i <= par; ++i) {
        const std::string p = "$P" + std::to_string(i);
        const std::string* name = kw(p + "N");
        if (!name)
            ctx.fail("$PAR = " + num(par) + ", but " + p + "N is missing");
        std::string n = *name;
        if (n.empty()) {
            n = "P" + std::to_string(i);
            out.notes.push_back(p + "N is empty; named " + n);
        }
        out.names.push_back(std::move(n));
        const std::string* marker = kw(p + "S");
        out.markers.push_back(marker ? *marker : std::string());

        const std::string* bitsText = kw(p + "B");
        if (!bitsText)
            ctx.fail(p + "B is missing");
        const auto bits = parseInt(*bitsText);
        if (!bits)
            ctx.fail(p + "B = " + *bitsText + ", but must be a number of bits");
        if (out.dataType == 'F' && *bits != 32)
            ctx.fail(p + "B = " + *bitsText + ", but $DATATYPE = F needs 32");
        if (out.dataType == 'D' && *bits != 64)
            ctx.fail(p + "B = " + *bitsText + ", but $DATATYPE = D needs 64");
        if (*bits < 8 || *bits > 64 || *bits % 8 != 0)
            ctx.fail(p + "B = " + *bitsText +
                     ", but only whole bytes are supported (8, 16, 24, 32, … 64 bits)");
        if (const std::string* t = kw(p + "DATATYPE"); t && upperAscii(*t) != dt)
            ctx.fail(p + "DATATYPE = " + *t +
                     ", but mixed data types are not supported ($DATATYPE = " + *dataType + ")");
        out.bits.push_back(int(*bits));
        fcs::IntColumn col;
        col.offset = eventBytes;
        col.bytes = int(*bits / 8);
        if (out.dataType == 'I') {
            col.mask = rangeMask(kw(p + "R"), int(*bits));
            col.log = logScale(p, kw(p + "E"), kw(p + "R"), out.notes);
        }
        intCols.push_back(col);
        eventBytes += col.bytes;
        widest = std::max(widest, col.bytes);
    }

    if (const std::string* order = kw("$BYTEORD")) {
        out.byteOrder = *order;
        std::vector<std::int64_t> digits;
        std::string_view rest = *order;
        bool ok = true;
        while (ok && !rest.empty()) {
            const std::size_t comma = rest.find(',');
            const auto d = parseInt(rest.substr(0, comma));
            ok = d.has_value();
            if (ok)
                digits.push_back(*d);
            rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
        }
        bool ascending = ok && !digits.empty(), descending = ascending;
        const auto m = std::int64_t(digits.size());
        for (std::int64_t k = 0; k < m && ok; ++k) {
            ascending = ascending && digits[std::size_t(k)] == k + 1;
            descending = descending && digits[std::size_t(k)] == m - k;
        }
        if (!ascending && !descending)
            ctx.fail("$BYTEORD = " + *order +
                     ", but only 1,2,3,4 (little-endian) and 4,3,2,1 (big-endian) are supported");
        out.bigEndian = descending && !ascending;
    } else if (widest > 1) {
        ctx.fail("$BYTEORD is missing");
    }

    std::optional<std::int64_t> tot = intKw("$TOT", false);
    if (tot && *tot > std::numeric_limits<std::int64_t>::max() / eventBytes)
        ctx.fail("$TOT = " + num(*tot) + ", but no file can hold that many events");
    if (const auto next = intKw("$NEXTDATA", false); next && *next != 0)
        out.notes.push_back("the file holds further data sets ($NEXTDATA = " + num(*next) +
                            "); only the first is read");

    // --- where the DATA is ---
    // The HEADER offsets are used when set (not blank, 0 or 99999999). FCS 3.x repeats them as
    // $BEGINDATA/$ENDDATA, and the keywords alone hold them beyond 99,999,999 bytes. When both
    // are set and disagree, we take the one that describes exactly $TOT events inside the file,
    // the HEADER's first if both do: writers compute the keywords inside the TEXT whose length
    // depends on them and get them wrong (a FACSDiva file has $BEGINDATA two bytes before the
    // data the HEADER points at, which reads as garbage); no file here has it the other way.
    Segment hdr{h.dataBegin, h.dataEnd,
                h.dataBegin > 0 && h.dataEnd > 0 && h.dataBegin != kHeaderOverflow &&
                    h.dataEnd != kHeaderOverflow};
    Segment txt;
    {
        const auto b = intKw("$BEGINDATA", false);
        const auto e = intKw("$ENDDATA", false);
        txt = Segment{b.value_or(0), e.value_or(-1), b && e && *b > 0};
    }
    const std::int64_t need = tot ? *tot * eventBytes : -1;
    auto fits = [&](const Segment& s) {
        if (!s.set || s.begin < kFcsHeaderBytes)
            return false;
        if (!tot)
            return s.length() >= 0 && s.present(fileSize) > 0;
        return s.length() >= need && s.length() <= need + kEndSlack && s.present(fileSize) >= need;
    };
    Segment data;
    if (hdr.set && txt.set && (hdr.begin != txt.begin || hdr.end != txt.end)) {
        const std::string both = "the HEADER's DATA offsets " + range(hdr) +
                                 " and $BEGINDATA/$ENDDATA " + range(txt) + " differ; ";
        if (fits(hdr) || !fits(txt)) {
            data = hdr;
            out.notes.push_back(both + "used the HEADER's");
        } else {
            data = txt;
            out.notes.push_back(both + "used the keywords (the HEADER's do not fit $TOT)");
        }
    } else {
        data = hdr.set ? hdr : txt;
    }
    out.dataBegin = data.begin;
    out.dataEnd = data.end;

    if (!tot) {
        // FCS 2.0 may omit $TOT: count whole events in the DATA present.
        if (!data.set)
            ctx.fail("$TOT is missing, and so are the DATA offsets (HEADER 0, no $BEGINDATA)");
        const std::int64_t present = data.present(fileSize);
        tot = present / eventBytes;
        if (present % eventBytes > kEndSlack)
            out.notes.push_back(
                "$TOT is missing and the DATA is not a whole number of events; the last " +
                num(present % eventBytes) + " bytes are ignored");
    }
    out.events = *tot;
    if (!readData)
        return out;

    // --- DATA ---
    const std::int64_t allEvents = *tot;
    const std::int64_t allBytes = allEvents * eventBytes;
    Table& table = out.table;
    table.columns = out.names;
    table.markers = out.markers;
    table.source = path;
    // The usual cofactors: 5 for mass cytometry's ion counts, 150 for a flow cytometer's
    // fluorescence on a linear scale (log-amplified parameters are made linear below).
    table.suggestedArcsinh = isMassCytometry(out) ? 5.0 : 150.0;
    if (allBytes == 0) {
        table.values.resize(0, par);
        return out;
    }
    const std::string want =
        "$TOT = " + num(allEvents) + " events of " + num(eventBytes) + " bytes";
    if (!data.set)
        ctx.fail("no DATA offsets: the HEADER's are 0 and $BEGINDATA/$ENDDATA are missing");
    if (data.begin < kFcsHeaderBytes || data.end < data.begin)
        ctx.fail("DATA segment at bytes " + range(data) + " is not a segment after the HEADER");
    const std::int64_t present = data.present(fileSize);
    if (present < allBytes) {
        const std::string truncated =
            "truncated: " + num(present / eventBytes) + " of " + num(allEvents) + " events present";
        if (data.begin >= fileSize)
            ctx.fail("DATA segment begins at byte " + num(data.begin) + ", but the file has " +
                     num(fileSize) + " bytes (" + truncated + ")");
        if (data.end >= fileSize)
            ctx.fail("DATA segment ends at byte " + num(data.end) + ", but the file has " +
                     num(fileSize) + " bytes (" + truncated + ")");
        ctx.fail("DATA segment at bytes " + range(data) + " holds " + num(data.length()) +
                 " bytes, but " + want + " need " + num(allBytes) + " (" + truncated + ")");
    }
    // A DATA segment longer than the events by a whole event or more means $TOT or $PnB is not
    // what the writer meant; reading it anyway would give plausible-looking wrong numbers.
    const std::int64_t extra = data.length() - allBytes;
    if (extra >= eventBytes && extra > kEndSlack)
        ctx.fail("DATA segment at bytes " + range(data) + " holds " + num(data.length()) +
                 " bytes, but " + want + " need " + num(allBytes) + " ($TOT or $PnB is wrong)");
    if (extra > 0)
        out.notes.push_back("$ENDDATA points " + num(extra) + " byte" + (extra > 1 ? "s" : "") +
                            " past the data" +
                            (data.end >= fileSize ? " (past the end of the file)" : ""));

    // This part's events (all of them unless asked for some).
    const Shard part = eventRange.value_or(Shard{0, allEvents});
    if (part.begin < 0 || part.end < part.begin || part.end > allEvents)
        throw std::invalid_argument("readFcs: events " + num(part.begin) + "–" + num(part.end) +
                                    " are not among the " + num(allEvents) + " of '" + path + "'");
    const std::int64_t first = part.begin * eventBytes;
    const std::int64_t events = part.size();
    const std::int64_t bytes = events * eventBytes;
    // One read of the whole segment, then one tight loop per data type. float32 is read
    // straight into the table (row-major events × parameters is the DATA layout) and swapped in
    // place: a second buffer would cost as much again in fresh pages as the decoding itself.
    table.values.resize(events, par);
    if (events == 0)
        return out;
    float* dst = table.values.data();
    const auto n = std::size_t(events) * std::size_t(par);
    const bool swap = out.bigEndian != (std::endian::native == std::endian::big);
    // In blocks, each reported to the current load (core/io/load_control.h), which a Cancel
    // ends between two of them.
    auto readInto = [&](void* to) {
        if (!file.seek(data.begin + first))
            ctx.fail("cannot read the DATA segment at bytes " + range(data) + " (" +
                     file.errorString().toStdString() + ")");
        constexpr std::int64_t kBlock = std::int64_t(16) << 20;
        for (std::int64_t at = 0; at < std::int64_t(bytes); at += kBlock) {
            const std::int64_t want = std::min<std::int64_t>(kBlock, std::int64_t(bytes) - at);
            if (file.read(static_cast<char*>(to) + at, want) != want)
                ctx.fail("cannot read the DATA segment at bytes " + range(data) + " (" +
                         file.errorString().toStdString() + ")");
            if (!content.gzip) // inflated content was reported as it was read
                reportRead(want);
        }
    };
    if (out.dataType == 'F') {
        readInto(dst);
        if (swap)
            fcs::swapFloats(dst, n);
        return out;
    }
    std::unique_ptr<unsigned char[]> buffer(new unsigned char[std::size_t(bytes)]);
    readInto(buffer.get());
    if (out.dataType == 'D')
        swap ? fcs::decodeDouble<true>(buffer.get(), dst, n)
             : fcs::decodeDouble<false>(buffer.get(), dst, n);
    else if (out.bigEndian)
        fcs::decodeInts<true>(buffer.get(), dst, events, eventBytes, intCols);
    else
        fcs::decodeInts<false>(buffer.get(), dst, events, eventBytes, intCols);
    if (out.dataType == 'I')
        fcs::linearise(table, intCols, out.notes);
    return out;
}

bool isMassCytometry(const FcsFile& file)
{
    auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(),
                       [](unsigned char ch) { return char(std::tolower(ch)); });
        return s;
    };
    const auto cyt = file.keywords.find("$CYT");
    if (cyt != file.keywords.end()) {
        const std::string c = lower(cyt->second);
        for (const char* maker : {"cytof", "helios", "fluidigm", "dvs", "standard biotools"})
            if (c.find(maker) != std::string::npos)
                return true;
    }
    // A metal tag: an element symbol, a mass of 89–209, then "Di" or "Dd" (dual counts).
    static const std::regex tag(R"(([A-Z][a-z]?)\(?(89|9\d|1\d\d|20\d)\)?D[id]\b)");
    int tagged = 0;
    for (const std::string& n : file.names)
        if (std::regex_search(n, tag))
            ++tagged;
    return !file.names.empty() && 2 * tagged > int(file.names.size());
}

Table readFcsFiles(const std::vector<std::string>& paths)
{
    if (paths.empty())
        throw DataError("no FCS file given");
    std::vector<Table> tables;
    tables.reserve(paths.size());
    for (const std::string& p : paths)
        tables.push_back(std::move(readFcs(p).table));
    if (tables.size() == 1)
        return std::move(tables.front());
    try {
        return combineTables(tables);
    } catch (const std::invalid_argument& e) {
        // combineTables names both files ("'b.fcs' has no channel 'X' (which 'a.fcs' has)").
        throw DataError(std::string("cannot combine the FCS files: ") + e.what());
    }
}

} // namespace svi
