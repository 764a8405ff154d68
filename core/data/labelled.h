#pragma once
// Labelled examples prepared for the supervised models of paper 002 (Bayesian GLM, mixed
// effects, sparse GP): the held-out split of the rows (a seeded 80/20 of one file, or the test
// file as given), a seeded subsample of the training rows, the features z-scored with the
// training rows' mean and standard deviation, the label too when it is real, and an intercept
// column. No Qt: the readers in core/io (labelled_files.h) produce the examples as read; this
// turns them into the LabelledData a model sees.

#include "core/base/param_fields.h"
#include "core/data/labelled_data.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace svi {

struct LabelledOptions : DeclaredOptions<LabelledOptions>
{
    LabelledOptions() { readDefaults(); }

    // Share of the rows of a single file drawn as test rows; not used when the examples come
    // with their own test rows (a second file).
    double testShare{};
    std::uint64_t seed{};    // of the split and of the training subsample
    bool standardise{};      // z-score every feature column on the training rows
    bool standardiseLabel{}; // z-score a real label on the training rows
    bool intercept{};        // append a column of ones, named "1", after standardising
    // Keep this many training rows, drawn at random (the others are dropped); 0 = all.
    std::int64_t maxRows{};
    // Take the labels as real values whatever they look like (house prices that happen to be
    // whole dollars are not counts; binary labels become their 0/1 codes): label_kind "real".
    bool realLabel{};

    // The settings' declarations (keys test_share, max_rows, standardise, standardise_label,
    // intercept, label_kind, split_seed) bound to the fields.
    static const ParamFields<LabelledOptions>& fields();

    bool operator==(const LabelledOptions&) const = default;
};

// Splits, subsamples and transforms labelled examples as read (the features untransformed,
// without an intercept; trainingRows and testRows either both empty — one file, to be split —
// or set by the reader: the first file's rows and the second's):
//   - without given rows, round(testShare × N) rows are drawn as test rows (stream "split" of
//     the seed), the rest are training rows;
//   - with maxRows below the number of training rows, that many training rows are drawn
//     (stream "subsa") and the other training rows are dropped from the data set; test rows
//     are kept;
//   - with standardise, each feature column c becomes (x − m_c) / s_c with m_c and s_c the
//     mean and the standard deviation (divided by n) of its training rows; a column constant
//     on the training rows (s_c = 0) is only centred;
//   - with realLabel, the label kind becomes Real (classes dropped);
//   - with standardiseLabel and a Real label, y becomes (y − labelMean) / labelScale with the
//     training rows' mean and standard deviation (labelScale 1 when that is 0);
//   - with intercept, a column of ones named "1" is appended (interceptColumn).
// Rows keep their order; trainingRows and testRows are ascending and disjoint. Throws
// std::invalid_argument naming the problem: invalid options, no examples, a split that leaves
// no training row, rows not consistent with the features.
LabelledDataPtr makeLabelledData(const LabelledData& read, const LabelledOptions& options);

// "binary", "count" or "real".
std::string labelKindName(LabelKind kind);

} // namespace svi
