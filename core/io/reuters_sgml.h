#pragma once
// Reuters-21578 as distributed (Lewis, "Distribution 1.0"): 22 SGML files reut2-000.sgm …
// reut2-021.sgm, about 1,000 articles each, every one
//
//     <REUTERS TOPICS="YES" LEWISSPLIT="TRAIN" … NEWID="1">
//     <DATE>…</DATE> <TOPICS><D>cocoa</D></TOPICS> <PLACES>…</PLACES> … <UNKNOWN>…</UNKNOWN>
//     <TEXT>&#2;
//     <TITLE>BAHIA COCOA REVIEW</TITLE>
//     <DATELINE>    SALVADOR, Feb 26 - </DATELINE><BODY>Showers continued …
//      Reuter
//     &#3;</BODY></TEXT>
//     </REUTERS>
//
// with `<TEXT TYPE="BRIEF">` (a title, no body) and `<TEXT TYPE="UNPROC">` (text without TITLE
// and BODY) among them; the same elements as XML, one article per file (R's tm package), read
// alike. Each article is one document: its TITLE and BODY text, or for a TEXT without either,
// the TEXT's own text; the entities &lt; &gt; &amp; &quot; &apos; and &#N; are decoded (the
// control characters &#2; &#3; … become spaces), and markup is never a word. The document is
// named by the article's NEWID. The metadata (DATE, TOPICS, PLACES, UNKNOWN …) are not read.
// Uses QtCore through ByteSource (gzip'd files read too); reentrant, any thread.

#include "core/data/corpus.h"
#include "core/io/corpus_files.h"

#include <string>
#include <string_view>
#include <vector>

namespace svi {

// Whether `head` (a file's first bytes) is Reuters-21578 markup: after a UTF-8 byte-order mark,
// blanks, an optional <?xml …?> and an optional <!DOCTYPE …> (the distribution's
// '<!DOCTYPE lewis SYSTEM "lewis.dtd">'), the first element is <REUTERS …>.
bool looksLikeReuters(std::string_view head);

struct ReutersArticle
{
    std::string newId; // the NEWID attribute; "" when absent
    std::string text;  // TITLE and BODY (or the TEXT's own text), entities decoded, no markup
};

// The articles of one file's markup, in order. Throws DataError naming `path` and the line of
// an article that does not end (no </REUTERS>), or saying that the file holds no article.
std::vector<ReutersArticle> reutersArticles(const std::string& path, std::string_view markup);

// The articles of the files, in the order given, one document each, named by NEWID (or
// "<file>#<n>" for an article without one), tokenized by `options.tokenizer`. Throws as
// reutersArticles, and as CorpusBuilder::finish when no word remains.
Corpus readReutersFiles(const std::vector<std::string>& paths,
                        const CorpusReadOptions& options = {});

} // namespace svi
