#pragma once
// Labelled examples read from text: LIBSVM / SVMlight sparse lines or a delimited table (CSV,
// TSV, semicolons) with a label column, one file (split later) or two (training, then test:
// a9a and a9a.t). Recognised by content (sniff.h: "LIBSVM text"; a table is read so only when
// the labelled kind is asked for). Uses QtCore through ByteSource; reentrant, any thread.
//
// LIBSVM: "label idx:val idx:val … [# comment]" per line; indices from 1, strictly increasing
// within a line; blank lines skipped; LF or CRLF; gzip'd or not. The dimension is the highest
// index of the training (first) file, or `dimension` when that is > 0; an index of the test
// file above it is an error (the test file may lack the highest indices: a9a.t never uses
// feature 123). Features are named "x<index>".
//
// Tables: a header row is required; every line has as many fields as the header. The label
// column is `label` (a name, or a 1-based index), by default the first of the columns named y,
// label, target or class (any case), else the first column. A column with a cell that is not a
// number, or listed in `factors`, is a factor: one 0/1 column per level, named "name=level",
// levels sorted (as numbers when they all are), their ranges in LabelledData::factorColumns
// (makeLabelled leaves out the first beside an intercept). `groups` names one grouping column
// (mixed effects: LabelledData::group); `exclude` drops columns. Empty cells and missing values
// (NA, NaN, inf) are errors in numeric columns; an empty cell is an error anywhere.
//
// Labels (over both files): exactly two distinct values → Binary, coded 0 for the smaller
// (numerically, or alphabetically when one is not a number) and 1 for the other, `classes`
// their text as first written ("-1", "+1"); otherwise whole numbers ≥ 0 → Count; otherwise
// Real. Text labels of more than two values are an error (multiclass is not supported).
//
// What is returned is the examples as read: features untransformed, no intercept; with two
// files trainingRows are the first file's rows and testRows the second's, with one file both
// are empty (makeLabelledData, core/data/labelled.h, splits and transforms).

#include "core/base/param_fields.h"
#include "core/data/labelled_data.h"

#include <cstdint>
#include <string>
#include <vector>

namespace svi {

struct LabelledReadOptions : DeclaredOptions<LabelledReadOptions>
{
    LabelledReadOptions() { readDefaults(); }

    std::string label;                // tables: the label column's name or 1-based index
    std::vector<std::string> factors; // tables: numeric columns read as factors (a year)
    std::vector<std::string> groups;  // tables: the group column (one, for now)
    std::vector<std::string> exclude; // tables: columns left out (an id)
    std::int64_t dimension{};         // LIBSVM: the number of features; 0 = the training file's

    // The declarations (keys label, factors, groups, exclude, dimension) bound to the fields.
    static const ParamFields<LabelledReadOptions>& fields();
};

enum class LabelledFormat { Libsvm, Table };

// Which reader the file needs: Table when its content is delimited text (sniff.h) or, when
// the content says neither, its name says a table (.csv, .tsv) or its first line holds a tab,
// comma or semicolon and no "index:value" pair; Libsvm otherwise (so that its reader names
// the bad line). Throws DataError when the file cannot be read.
LabelledFormat labelledFormatOf(const std::string& path);

// What a file holds beyond the examples, for `svi info`.
struct LabelledFileFacts
{
    LabelledFormat format = LabelledFormat::Libsvm;
    std::string formatName;    // "LIBSVM text", "CSV", "gzip'd TSV"
    std::int64_t nonZeros = 0; // LIBSVM: the idx:val pairs written (zeros included)
    // Tables: every column of the file, and what it became: "label", "numeric", "factor (3
    // levels)", "group (59 levels)", "excluded".
    std::vector<std::string> columns;
    std::vector<std::string> roles;
};

// Reads one file, or two (training, test) of the same format. Throws DataError naming the file,
// the line and the field for bad input ("cannot read 'a9a.t' line 17, field 3 ('124:1'): index
// 124 is above the 123 features of 'a9a'"); std::invalid_argument naming the setting for
// settings that do not fit the file ("label: no column named 'price' in 'x.csv' …"); DataError
// for more than two files. `facts`, when given, is filled for the first file.
LabelledData readLabelledFiles(const std::vector<std::string>& paths,
                               const LabelledReadOptions& options,
                               LabelledFileFacts* facts = nullptr);

} // namespace svi
