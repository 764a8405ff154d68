#pragma once
// Raw text into words, and words into a corpus with a filtered vocabulary.
//
// Decoding: each document separately, UTF-8 when its bytes are valid UTF-8 (a byte-order mark
// is skipped), otherwise Latin-1 (ISO 8859-1; older Usenet posts and Windows files). The text is
// brought to Unicode normal form C so that "é" typed as e + combining accent is one letter.
//
// Words: maximal runs of Unicode letters (QChar::isLetter, so "école", "straße", "東京" are
// words); a combining mark after a letter stays in the word. Digits, punctuation, symbols and
// spaces separate words and are dropped, so "1999" and "3.5" give nothing and "x11" gives "x".
// An apostrophe (' or ’) between two letters joins them: "don't" and "o'clock" are one word
// each (written with '), which the stop list can then remove whole, instead of a stray "t". A
// final possessive "'s" is removed: "government's" → "government", "it's" → "it".
// Then, in this order: lowercasing (Unicode-aware, QString::toLower: "ÉCOLE" → "école"),
// dropping words shorter than minLength letters, dropping English stop words.
//
// E-mail and Usenet headers (stripEmailHeaders): when a document's first line looks like a
// header field ("Name: value", the name printable ASCII without spaces, as in RFC 5322) and
// every line up to the first blank line is a header field or its continuation (starting with a
// space or tab), that block is removed; otherwise nothing is. With keepSubject, the text of the
// Subject field stays (it names the topic), without its leading "Re:" markers. Quoted replies
// and signatures in the body are kept.
//
// Vocabulary filters (CorpusBuilder): words in fewer than minDocumentFrequency documents or in
// more than maxDocumentFraction of the documents are dropped; then, with vocabularyCap, only
// that many words are kept, those in the most documents first. Documents left without any word
// are dropped (and counted). Word ids are assigned by document frequency, highest first, ties
// by total count and then by the word's UTF-8 bytes, so the result does not depend on the order
// in which documents are read.
//
// Thread-safety: a Tokenizer is immutable after construction and may be shared between threads;
// a CorpusBuilder must not be.

#include "core/base/param_fields.h"
#include "core/data/corpus.h"
#include "core/io/data_error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace svi {

struct TokenizerOptions : DeclaredOptions<TokenizerOptions>
{
    TokenizerOptions() { readDefaults(); }

    bool lowercase{};
    int minLength{};        // letters (code points); 1 keeps single letters
    bool removeStopWords{}; // the English list in resources/stopwords_en.txt
    bool stripEmailHeaders{};
    bool keepSubject{}; // with stripEmailHeaders: keep the Subject line's words
    // A word must occur in at least this many documents (2, the default, drops the one-off
    // words — typos, names, fragments of addresses — which are about half of a newsgroup
    // vocabulary and say nothing about topics shared between documents).
    std::int64_t minDocumentFrequency{};
    // …and in at most this fraction of the documents; 1 = no limit, the default: the stop list
    // already removes the function words (on the 20 Newsgroups training set 0.5, gensim's
    // choice, would remove only "writes"), and a limit below 1 empties small corpora, where
    // every shared word is in a large fraction of the documents.
    double maxDocumentFraction{};
    std::int64_t vocabularyCap{}; // keep at most this many words (most documents first); 0 = all

    // The declarations (keys lowercase, min_length, stop_words, strip_headers, keep_subject,
    // min_df, max_df, vocab_cap) bound to the fields.
    static const ParamFields<TokenizerOptions>& fields();

    bool operator==(const TokenizerOptions&) const = default;
};

// The English stop-word list (lowercase, UTF-8), read once from the embedded resource.
const std::unordered_set<std::string>& englishStopWords();

// The text of a document's bytes: UTF-8 when valid, otherwise Latin-1, as UTF-8 in NFC.
std::string decodeText(std::string_view bytes);

// The document without its leading header block (see the top of this file); the text as given
// when it has none. Works on decoded UTF-8 text.
std::string stripHeaders(std::string_view text, bool keepSubject);

class Tokenizer
{
public:
    // Throws std::invalid_argument when the options are invalid.
    explicit Tokenizer(const TokenizerOptions& options);

    const TokenizerOptions& options() const { return m_options; }
    // Appends the words of one document (raw bytes: decoded, headers stripped when asked) to
    // `out`, in text order, as UTF-8.
    void tokenize(std::string_view bytes, std::vector<std::string>& out) const;
    std::vector<std::string> tokenize(std::string_view bytes) const;
    bool isStopWord(const std::string& lowercaseWord) const;

private:
    TokenizerOptions m_options;
    const std::unordered_set<std::string>* m_stopWords = nullptr;
};

// What the vocabulary filters choose by, counted one document at a time without keeping the
// documents: every word's document frequency and total count, under raw ids in first-seen order.
// Its memory grows with the distinct words, not with the documents (an out-of-core first pass).
class VocabularyCounts
{
public:
    explicit VocabularyCounts(const TokenizerOptions& options);

    // Tokenizes one document (raw bytes) and counts its words; `row` (when given) gets its
    // (raw id, count) pairs by raw id.
    void add(std::string_view bytes, std::vector<std::pair<std::int32_t, std::int32_t>>* row);
    std::int64_t documents() const { return m_documents; }
    std::int64_t distinctWords() const { return std::int64_t(m_words.size()); }
    // The raw ids the filters keep (min_df, max_df, vocab_cap), most widespread first: by
    // document frequency, then total count, then the word; a word's new id is its position.
    std::vector<std::int32_t> kept() const;
    const std::string& word(std::int32_t raw) const { return m_words[std::size_t(raw)]; }
    const Tokenizer& tokenizer() const { return m_tokenizer; }

private:
    Tokenizer m_tokenizer;
    std::unordered_map<std::string, std::int32_t> m_ids; // word → raw id (first-seen order)
    std::vector<std::string> m_words;                    // raw id → word
    std::vector<std::int64_t> m_docFreq, m_total;        // per raw id
    std::int64_t m_documents = 0;
    std::vector<std::string> m_scratch;
    std::vector<std::int32_t> m_rawScratch;
};

// Collects documents one at a time and builds the corpus with the vocabulary filters.
class CorpusBuilder
{
public:
    explicit CorpusBuilder(const TokenizerOptions& options);

    // Tokenizes one document (raw bytes) and keeps its word counts.
    void addDocument(std::string name, std::string_view bytes);
    // Documents added so far.
    std::int64_t documents() const { return std::int64_t(m_docs.size()); }
    // Orders the documents by name (bytewise), as a sorted folder listing would.
    void sortByName();
    // Applies the filters and numbers the words; the documents are handed over (a second call
    // finds none). Throws DataError "cannot read '<source>': no words remain …" (naming the
    // filters) when no document keeps a word, or "…: no documents" when none was added.
    Corpus finish(const std::string& source);

private:
    struct Doc
    {
        std::string name;
        std::vector<std::pair<std::int32_t, std::int32_t>> counts; // (raw id, count), by raw id
    };

    VocabularyCounts m_counts;
    std::vector<Doc> m_docs;
};

} // namespace svi
