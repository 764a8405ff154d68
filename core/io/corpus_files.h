#pragma once
// Text corpora from files: word counts already made (LDA-C, UCI bag-of-words) or raw text (a
// folder of text files, a list of files, a tar archive), each read into a Corpus.
//
// LDA-C (Blei's lda-c, also written by gensim): one document per line,
//     N id:count id:count …
// with N the number of pairs, 0-based word ids, counts whole numbers ≥ 1. The vocabulary file
// has one word per line, word id = line number − 1. Blank lines are skipped; a line "0" is an
// empty document (kept, so document numbers stay those of the file).
//
// UCI bag-of-words (Newman's KOS, NIPS, Enron, NYTimes, PubMed): docword.<name>.txt(.gz) holds
// three header lines D, W, NNZ and then NNZ lines "docID wordID count", 1-based; vocab.<name>.txt
// one word per line, word id = line number. Triples may come in any order; documents without
// any triple are empty rows.
//
// Both formats: a pair or triple naming a word twice in one document is an error (a writer
// that repeats a word is broken, and adding the counts would hide a shifted vocabulary); so
// are N or NNZ not matching what follows, ids beyond the vocabulary and counts < 1. Without a
// vocabulary file the words are named by their ids ("0", "1", … for LDA-C; "1", "2", … for UCI),
// and ids (UCI: W) up to 4,194,303 (2²² − 1) are accepted; a UCI header's D is at most 2²⁵.
// Vocabulary files: UTF-8, or Latin-1 when not valid UTF-8; spaces around a word are dropped
// (the AP vocabulary has trailing spaces); a blank line before the last word is an error.
// A vocabulary every line of which reads "word = id = tf df" (Knowceans' nips.vocab of the NIPS
// 0–12 release: "network = 0 = 19882 1395", CRLF) is recognised by that shape: the word is
// placed by its id column, and the ids must be 0 … V−1, each once (a message names the line).
//
// Raw text: one document per file, tokenized as tokenizer.h describes, the vocabulary built
// with its filters. Folders are read recursively; archives are tar files, plain or gzipped
// whatever their name (POSIX ustar, GNU and pax names), read in one streaming pass. In both,
// hidden files (names starting with '.') are skipped, documents are ordered by their path inside
// (bytewise), named by it, and `subset` keeps only the files below a folder of that name at any
// depth ("20news-bydate-train" in 20news-bydate.tar.gz, whose paths start
// "20news-bydate/20news-bydate-train/…"). A file with NUL bytes is an error (it is not text).
//
// Every failure is a DataError naming the file and, for a bad line, its number (from 1, blank
// lines included) and the field, e.g. "cannot read 'ap.dat' line 7, pair 3 ('12x:1'): word id
// '12x' is not a whole number". Uses QtCore and zlib; the functions are reentrant and may run
// on any thread.

#include "core/data/corpus.h"
#include "core/io/data_error.h"
#include "core/io/tokenizer.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace svi {

struct CorpusReadOptions
{
    TokenizerOptions tokenizer; // raw text only
    // Raw text in a folder or archive: keep only files below a folder with this path (one or
    // more '/'-separated names) at any depth. Empty = every file.
    std::string subset;
    // LDA-C and UCI: the vocabulary file. Empty = look beside the counts (findVocabulary).
    std::string vocabulary;

    // Empty when valid; otherwise "field = value, but must be …".
    std::optional<std::string> validate() const;
};

// ReutersSgml: Reuters-21578 markup, one document per article (core/io/reuters_sgml.h).
enum class CorpusFormat { Ldac, Uci, TextFolder, TextArchive, TextFiles, ReutersSgml };

// The corpus format of a path as recogniseFile (sniff.h) finds it, by content first: a folder
// → TextFolder; a tar archive (plain or gzipped, any name) → TextArchive; Reuters-21578 markup
// → ReutersSgml; UCI docword lines → Uci; LDA-C lines → Ldac; when the content shows nothing, the
// name (.tar, .tar.gz, .tgz; docword.*.txt(.gz); .ldac(.gz), and .dat(.gz) when a vocabulary file
// is beside it). std::nullopt for anything else (raw text files included, since any name can hold
// text) and for a path that cannot be read.
std::optional<CorpusFormat> corpusFormatOf(const std::string& path);

// vocab.<name>.txt(.gz) beside docword.<name>.txt(.gz); for other count files <stem>.vocab,
// <stem>.vocab.txt or vocab.txt in the same folder (stem = the name without .gz and its last
// suffix), each also with .gz. Empty when none exists.
std::string findVocabulary(const std::string& countsPath);

// A vocabulary file by its name: vocab*.txt(.gz) or *.vocab(.gz).
bool isVocabularyFile(const std::string& path);

// One word per line, or "word = id = tf df" lines (see the top of this file), as UTF-8.
std::vector<std::string> readVocabulary(const std::string& path);

// An empty vocabPath looks for one beside the file (findVocabulary).
Corpus readLdac(const std::string& path, const std::string& vocabPath = {});
Corpus readUciBagOfWords(const std::string& docwordPath, const std::string& vocabPath = {});

// Calls visit(name, bytes) for every text document of a folder (by path, bytewise) or a tar
// archive (in the archive's order), each checked as text, `subset` applied; returns how many.
// Throws DataError as the readers below, and when no document is found.
using TextDocumentVisitor = std::function<void(const std::string& name, std::string& bytes)>;
std::int64_t forEachTextDocument(const std::string& path, const CorpusReadOptions& options,
                                 const TextDocumentVisitor& visit);

Corpus readTextFolder(const std::string& folder, const CorpusReadOptions& options = {});
Corpus readTextArchive(const std::string& archive, const CorpusReadOptions& options = {});
// One document per file, in the order given, named by the paths as given.
Corpus readTextFiles(const std::vector<std::string>& paths, const CorpusReadOptions& options = {});

// Reads a corpus in whichever format the paths have (corpusFormatOf: by content first): one
// folder, one archive, one LDA-C or UCI file (optionally followed or preceded by its vocabulary
// file, known by its name: isVocabularyFile; a lone .dat is LDA-C, its words numbered when no
// vocabulary is beside it), any number of Reuters-21578 SGML files (reut2-*.sgm), or any number
// of raw text files. Throws DataError
// naming the file that cannot be used, or saying which paths do not go together;
// std::invalid_argument when the options are invalid. For 'svi info': Corpus::stats() of the result
// gives documents, vocabulary and tokens.
Corpus loadCorpus(const std::vector<std::string>& paths, const CorpusReadOptions& options = {});

} // namespace svi
