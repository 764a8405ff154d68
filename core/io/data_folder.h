#pragma once
// A folder given as data: its kind decided by what its files hold, sniffed one by one with the
// recognition of single files (sniff.h), and the files its kind then reads. Internal to core/io
// (recogniseFile and the data kinds use it). Reentrant; any thread.
//
// The rule: hidden files and folders are skipped, as are side files known by their name (README,
// LICENSE/LICENCE, COPYING, COPYRIGHT, NOTICE, AUTHORS, CHANGES, *.md, *.dtd, *.html, *.pdf,
// scripts); the folder is of kind K when the data files it holds (at any depth) are all of kind
// K; plain text beside them (notes, word lists) is left out, and what was left out is said.
//   - A MovieLens or Last.fm folder (u.data, ratings.dat, ratings.csv or user_artists.dat in it,
//     ratingsFileIn) is ratings, read by the ratings reader as it is, its other files beside;
//   - only text files: a corpus of text files, one document per file (CorpusFormat::TextFolder;
//     the corpus reader reads the folder itself);
//   - FCS files and tables of numbers: one table, the rows of every file stacked when their
//     columns agree (the table reader refuses naming the first file whose columns differ);
//   - Reuters-21578 SGML files: one corpus of all their articles, every other file beside them
//     left out (the distribution's lists, DTD and factbook);
//   - LDA-C or UCI counts: the first counts file, with its vocabulary (found beside it, or the
//     one vocabulary file the folder holds);
//   - LIBSVM files: NAME with NAME.t as the given test set when both are there (a9a, a9a.t),
//     else the first file;
//   - images, graphs, ratings files, archives (kinds read from one file): the first file in
//     name order, and a note saying which and how many the folder holds.
// A folder of several kinds is refused, listing what it holds ("3 FCS files and 2 images: open
// one file, or a folder of one kind").

#include "core/io/corpus_files.h"
#include "core/io/sniff.h"
#include "core/run/data_kinds.h"

#include <optional>
#include <string>
#include <vector>

namespace svi {

struct FolderContents
{
    // What the folder is, as recogniseFile reports it for a file: the kind of its files and a
    // name ("folder of 2 FCS files", "folder of 7 images"); `corpus` set for a corpus.
    FileFormat format;
    std::optional<CorpusFormat> corpus;
    // The files its kind reads, in name order; empty when the kind's reader takes the folder
    // itself (a folder of text files, a MovieLens or Last.fm folder).
    std::vector<std::string> files;
    // What was chosen or left out, one sentence each ("folder holds 7 images; opened
    // cameraman.png", "left out 2 files that are not Reuters-21578 markup: README.txt, …").
    std::vector<std::string> notes;
};

// Throws DataError naming the folder when it holds several kinds of data, or no file the
// workbench reads (only binary files or side files); as recogniseFile for a file that cannot
// be opened.
FolderContents folderContents(const std::string& folder);

// `kind` that reads a folder by the rule above: its read, readPart and inspect get the files
// the folder's kind reads in place of the folder, its data's summary (the window's data line,
// svi run's stderr) ends with the folder's notes, and `svi info` lists the files read and the
// notes. Any other description goes to `kind` unchanged.
DataKindSpec readingFolders(DataKindSpec kind);

} // namespace svi
