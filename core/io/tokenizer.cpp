#include "core/io/tokenizer.h"

#include <QChar>
#include <QFile>
#include <QString>
#include <QStringDecoder>
#include <QStringView>
#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace svi {
namespace {

// Where CMake embeds resources/stopwords_en.txt (qt_add_resources on svi_io).
constexpr const char* kStopWordResource = ":/svi/stopwords_en.txt";

constexpr char16_t kRightQuote = u'\u2019'; // ’, the typographic apostrophe

QString decode(std::string_view bytes)
{
    // Stateless: a sequence cut at the end of the text is an error too (a Latin-1 file ending
    // in "é" must not pass as UTF-8).
    QStringDecoder utf8(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QByteArrayView view(bytes.data(), qsizetype(bytes.size()));
    QString text = utf8(view);
    if (utf8.hasError())
        text = QString::fromLatin1(view);
    // Composition changes only text beyond U+02FF (combining marks, Hangul jamo…).
    const bool beyondLatin =
        std::any_of(text.cbegin(), text.cend(), [](QChar c) { return c.unicode() >= 0x0300; });
    if (beyondLatin)
        text = text.normalized(QString::NormalizationForm_C);
    return text;
}

bool isBlankLine(QStringView line)
{
    return line.trimmed().isEmpty();
}

// "Name: value" with the name printable ASCII other than ':' (RFC 5322 field names).
bool isHeaderField(QStringView line)
{
    const qsizetype colon = line.indexOf(u':');
    if (colon <= 0)
        return false;
    for (qsizetype i = 0; i < colon; ++i) {
        const char16_t c = line[i].unicode();
        if (c < 0x21 || c > 0x7E)
            return false;
    }
    return true;
}

bool isContinuation(QStringView line)
{
    return !line.isEmpty() && (line[0] == u' ' || line[0] == u'\t') && !isBlankLine(line);
}

// The Subject's text without the reply markers "Re:" (any case, repeated).
QString subjectText(QString subject)
{
    for (;;) {
        subject = subject.trimmed();
        if (!subject.startsWith(u"re:", Qt::CaseInsensitive))
            return subject;
        subject.remove(0, 3);
    }
}

QString stripHeadersQ(const QString& text, bool keepSubject)
{
    const QStringView all(text);
    qsizetype pos = 0;
    bool first = true;
    bool inSubject = false;
    QString subject;
    while (pos < all.size()) {
        qsizetype nl = all.indexOf(u'\n', pos);
        const qsizetype end = nl < 0 ? all.size() : nl;
        QStringView line = all.mid(pos, end - pos);
        if (line.endsWith(u'\r'))
            line.chop(1);
        const qsizetype next = nl < 0 ? all.size() : nl + 1;
        if (first) {
            if (!isHeaderField(line))
                return text;
            first = false;
        } else if (isBlankLine(line)) {
            pos = next;
            break; // the body starts after the blank line
        } else if (!isHeaderField(line) && !isContinuation(line)) {
            return text; // not a header block after all
        }
        if (isContinuation(line)) {
            if (inSubject)
                subject += u' ' + line.trimmed().toString();
        } else {
            inSubject = line.startsWith(u"subject:", Qt::CaseInsensitive);
            if (inSubject)
                subject += u' ' + line.mid(8).toString();
        }
        pos = next;
    }
    QString body = all.mid(pos).toString();
    if (keepSubject && !subject.isEmpty())
        body.prepend(subjectText(subject) + u'\n');
    return body;
}

char32_t codePointAt(const QString& s, qsizetype i, int& length)
{
    const QChar c = s[i];
    if (c.isHighSurrogate() && i + 1 < s.size() && s[i + 1].isLowSurrogate()) {
        length = 2;
        return QChar::surrogateToUcs4(c, s[i + 1]);
    }
    length = 1;
    return c.unicode();
}

bool isApostrophe(QChar c)
{
    return c == u'\'' || c == kRightQuote;
}

std::unordered_set<std::string> loadStopWords()
{
    QFile file(QString::fromLatin1(kStopWordResource));
    if (!file.open(QIODevice::ReadOnly))
        throw DataError(std::string("cannot read the stop-word list '") + kStopWordResource +
                        "': it is not built in (" + file.errorString().toStdString() + ")");
    std::unordered_set<std::string> words;
    const QString text = QString::fromUtf8(file.readAll());
    for (QStringView line : QStringView(text).split(u'\n')) {
        line = line.trimmed();
        if (line.isEmpty() || line.startsWith(u'#'))
            continue;
        words.insert(line.toString().toLower().replace(kRightQuote, u'\'').toStdString());
    }
    return words;
}

void checkOptions(const TokenizerOptions& options)
{
    if (auto problem = options.validate())
        throw std::invalid_argument("tokenizer: " + *problem);
}

} // namespace

const ParamFields<TokenizerOptions>& TokenizerOptions::fields()
{
    using O = TokenizerOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(boolParam("lowercase", "Lowercase", "fold words to lower case (É → é)", true,
                           "keep the words' case"),
                 &O::lowercase)
            .add(
                intParam("min_length", "Shortest word", "drop words with fewer letters", 2, 1, 100),
                &O::minLength)
            .add(boolParam("stop_words", "Remove stop words", "drop common English function words",
                           true, "keep common English function words"),
                 &O::removeStopWords)
            .add(boolParam("strip_headers", "Strip e-mail headers",
                           "drop a leading block of 'Name: value' header lines (news posts, "
                           "e-mails)",
                           false),
                 &O::stripEmailHeaders)
            .add(boolParam("keep_subject", "Keep the subject",
                           "with strip_headers: keep the words of the Subject line", true,
                           "with strip_headers: drop the Subject line with the other headers"),
                 &O::keepSubject)
            .add(intParam("min_df", "Minimum documents", "drop words found in fewer documents", 2,
                          1, 1e9),
                 &O::minDocumentFrequency)
            .add(realParam("max_df", "Maximum document share",
                           "drop words found in a larger fraction of the documents; 1 = no limit",
                           1.0, 1e-6, 1.0),
                 &O::maxDocumentFraction)
            .add(intParam("vocab_cap", "Vocabulary size",
                          "keep this many words, those in the most documents; 0 = all", 0, 0, 1e9),
                 &O::vocabularyCap);
    return f;
}

const std::unordered_set<std::string>& englishStopWords()
{
    static const std::unordered_set<std::string> words = loadStopWords();
    return words;
}

std::string decodeText(std::string_view bytes)
{
    return decode(bytes).toStdString();
}

std::string stripHeaders(std::string_view text, bool keepSubject)
{
    const QString q = QString::fromUtf8(text.data(), qsizetype(text.size()));
    return stripHeadersQ(q, keepSubject).toStdString();
}

Tokenizer::Tokenizer(const TokenizerOptions& options) : m_options(options)
{
    checkOptions(options);
    if (options.removeStopWords)
        m_stopWords = &englishStopWords();
}

bool Tokenizer::isStopWord(const std::string& lowercaseWord) const
{
    return m_stopWords && m_stopWords->count(lowercaseWord) > 0;
}

void Tokenizer::tokenize(std::string_view bytes, std::vector<std::string>& out) const
{
    QString text = decode(bytes);
    if (m_options.stripEmailHeaders)
        text = stripHeadersQ(text, m_options.keepSubject);
    if (m_options.lowercase)
        text = std::move(text).toLower();
    const qsizetype n = text.size();
    qsizetype i = 0;
    int len = 1;
    QString word;
    while (i < n) {
        if (!QChar::isLetter(codePointAt(text, i, len))) {
            i += len;
            continue;
        }
        const qsizetype start = i;
        int letters = 0;
        for (;;) {
            while (i < n) {
                const char32_t c = codePointAt(text, i, len);
                if (QChar::isLetter(c))
                    ++letters;
                else if (!QChar::isMark(c))
                    break;
                i += len;
            }
            // An apostrophe between letters joins them (don't, o'clock).
            if (i + 1 < n && isApostrophe(text[i]) &&
                QChar::isLetter(codePointAt(text, i + 1, len)))
                ++i;
            else
                break;
        }
        word = text.mid(start, i - start);
        word.replace(kRightQuote, u'\'');
        if (word.size() > 2 && word.endsWith(u"'s", Qt::CaseInsensitive)) {
            word.chop(2); // the possessive
            --letters;
        }
        if (letters < m_options.minLength)
            continue;
        std::string utf8 = word.toStdString();
        if (m_stopWords && isStopWord(m_options.lowercase ? utf8 : word.toLower().toStdString()))
            continue;
        out.push_back(std::move(utf8));
    }
}

std::vector<std::string> Tokenizer::tokenize(std::string_view bytes) const
{
    std::vector<std::string> out;
    tokenize(bytes, out);
    return out;
}

VocabularyCounts::VocabularyCounts(const TokenizerOptions& options) : m_tokenizer(options) {}

void VocabularyCounts::add(std::string_view bytes,
                           std::vector<std::pair<std::int32_t, std::int32_t>>* row)
{
    m_scratch.clear();
    m_tokenizer.tokenize(bytes, m_scratch);
    m_rawScratch.clear();
    for (std::string& w : m_scratch) {
        auto [it, added] = m_ids.try_emplace(std::move(w), std::int32_t(m_words.size()));
        if (added) {
            m_words.push_back(it->first);
            m_docFreq.push_back(0);
            m_total.push_back(0);
        }
        m_rawScratch.push_back(it->second);
    }
    std::sort(m_rawScratch.begin(), m_rawScratch.end());
    if (row)
        row->clear();
    for (std::size_t j = 0; j < m_rawScratch.size();) {
        std::size_t k = j;
        while (k < m_rawScratch.size() && m_rawScratch[k] == m_rawScratch[j])
            ++k;
        const std::int32_t id = m_rawScratch[j];
        if (row)
            row->emplace_back(id, std::int32_t(k - j));
        ++m_docFreq[std::size_t(id)];
        m_total[std::size_t(id)] += std::int64_t(k - j);
        j = k;
    }
    ++m_documents;
}

std::vector<std::int32_t> VocabularyCounts::kept() const
{
    const TokenizerOptions& o = m_tokenizer.options();
    std::vector<std::int32_t> order;
    const double maxDocs = o.maxDocumentFraction * double(m_documents);
    for (std::size_t w = 0; w < m_words.size(); ++w)
        if (m_docFreq[w] >= o.minDocumentFrequency &&
            (o.maxDocumentFraction >= 1.0 || double(m_docFreq[w]) <= maxDocs))
            order.push_back(std::int32_t(w));
    std::sort(order.begin(), order.end(), [this](std::int32_t a, std::int32_t b) {
        const auto sa = std::size_t(a), sb = std::size_t(b);
        if (m_docFreq[sa] != m_docFreq[sb])
            return m_docFreq[sa] > m_docFreq[sb];
        if (m_total[sa] != m_total[sb])
            return m_total[sa] > m_total[sb];
        return m_words[sa] < m_words[sb];
    });
    if (o.vocabularyCap > 0 && std::int64_t(order.size()) > o.vocabularyCap)
        order.resize(std::size_t(o.vocabularyCap));
    return order;
}

CorpusBuilder::CorpusBuilder(const TokenizerOptions& options) : m_counts(options) {}

void CorpusBuilder::addDocument(std::string name, std::string_view bytes)
{
    Doc doc;
    doc.name = std::move(name);
    m_counts.add(bytes, &doc.counts);
    m_docs.push_back(std::move(doc));
}

void CorpusBuilder::sortByName()
{
    std::stable_sort(m_docs.begin(), m_docs.end(),
                     [](const Doc& a, const Doc& b) { return a.name < b.name; });
}

Corpus CorpusBuilder::finish(const std::string& source)
{
    const TokenizerOptions& o = m_counts.tokenizer().options();
    const auto D = std::int64_t(m_docs.size());
    if (D == 0)
        throw DataError("cannot read '" + source + "': no documents");

    // Filters, then the most widespread words first (see the header for the order).
    const std::vector<std::int32_t> order = m_counts.kept();

    Corpus corpus;
    corpus.source = source;
    std::vector<std::int32_t> newId(std::size_t(m_counts.distinctWords()), -1);
    for (std::size_t k = 0; k < order.size(); ++k) {
        newId[std::size_t(order[k])] = std::int32_t(k);
        corpus.vocabulary.push_back(m_counts.word(order[k]));
    }
    std::vector<std::pair<std::int32_t, float>> row;
    std::vector<std::int32_t> cols;
    std::vector<float> counts;
    for (Doc& doc : m_docs) {
        row.clear();
        for (const auto& [raw, count] : doc.counts)
            if (const std::int32_t id = newId[std::size_t(raw)]; id >= 0)
                row.emplace_back(id, float(count));
        if (row.empty()) {
            ++corpus.droppedDocuments;
            continue;
        }
        std::sort(row.begin(), row.end());
        cols.clear();
        counts.clear();
        for (const auto& [id, count] : row) {
            cols.push_back(id);
            counts.push_back(count);
        }
        corpus.docs.appendRow(cols, counts);
        corpus.docNames.push_back(std::move(doc.name));
    }
    if (corpus.documents() == 0) {
        std::string filters = "min_df = " + std::to_string(o.minDocumentFrequency) +
                              ", max_df = " + formatNumber(o.maxDocumentFraction) +
                              ", min_length = " + std::to_string(o.minLength);
        if (o.removeStopWords)
            filters += ", stop words removed";
        throw DataError("cannot read '" + source + "': no words remain in its " +
                        std::to_string(D) + " documents (" +
                        std::to_string(m_counts.distinctWords()) +
                        " distinct words before the filters " + filters + ")");
    }
    m_docs.clear();
    return corpus;
}

} // namespace svi
