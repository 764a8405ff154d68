#pragma once
// Scores of a link predictor on held-out node pairs (paper 003, Sec. 4.1, Figure 3): each pair
// has a score (a predicted link probability) and a label (linked or not).
//
// AUC-ROC is the Mann–Whitney statistic: the probability that a random linked pair scores
// above a random unlinked one, ties counting one half,
//   AUC = (R₊ − n₊(n₊ + 1)/2) / (n₊ n₋),
// with R₊ the sum of the linked pairs' mid-ranks (every run of tied scores shares the mean of
// the ranks it spans). One sort, O(n log n). Zhou's aucROC.m ranks by sort order and so breaks
// ties by position; this does not.
//
// AUC-PR is the average precision, the step-wise area under the precision–recall curve,
//   AP = Σ_t (R_t − R_{t−1}) P_t,
// over the distinct scores t in decreasing order, where P_t and R_t are the precision and
// recall of "linked iff score ≥ t": a run of tied scores is one threshold, crossed at once, so
// the result does not depend on the order of tied pairs. That is scikit-learn's
// average_precision_score exactly (its precision_recall_curve keeps one point per distinct
// score, and it sums without interpolation); it is not the trapezoid under the curve that
// Zhou's EPM code reports, which interpolates linearly between thresholds and is optimistic.
//
// Undefined cases: AUC-ROC is NaN unless both classes occur; AP is NaN when no pair is linked
// (scikit-learn warns and returns 0 there). Empty input gives NaN for both.
//
// Thread-safety: pure functions.

#include <cstdint>
#include <span>

namespace svi {

struct LinkScores
{
    double aucRoc = 0.0;
    double aucPr = 0.0;
    std::int64_t linked = 0;   // n₊
    std::int64_t unlinked = 0; // n₋
};

// Both scores from one sort. `linked[i]` ≠ 0 marks a linked pair. Throws std::invalid_argument
// ("linkScores: scores[3] = nan, but must be a number") on a NaN score and when the sizes
// differ. Infinite scores are ranked like any other.
LinkScores linkScores(std::span<const double> scores, std::span<const std::uint8_t> linked);

// The single scores (each sorts once).
double aucRoc(std::span<const double> scores, std::span<const std::uint8_t> linked);
double averagePrecision(std::span<const double> scores, std::span<const std::uint8_t> linked);

} // namespace svi
