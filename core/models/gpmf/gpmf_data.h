#pragma once
// The observations of generalized PMF (paper 002, Sec. 3.6, 4.4): the entries y_ij of a users ×
// items matrix as the chosen likelihood reads them, held twice for the column round robin
// (each user's entries, each item's entries), and the test entries; and the paper's
// artificial data, a fully observed matrix drawn from the model.
//
// What a stored value becomes (CountData::values says what it is):
//   - binary: 0/1 values as they are (a fully observed matrix); ratings on a scale keep only
//     their lowest and highest value, as 0 and 1 (the paper: MovieLens ratings 1 and 5), the
//     others are dropped;
//   - count: whole numbers ≥ 0 as they are (Last.fm plays; ratings are counted too if asked);
//   - ordinal: categories 1…C; ratings on a scale of whole stars are their categories, half
//     stars are rounded up (0.5 → 1, 3.5 → 4) or each half star is a category (y = 2x) as
//     `halfStars` says.
//
// Thread-safety: values, immutable once built.

#include "core/data/count_data.h"
#include "core/inference/likelihoods.h"
#include "core/run/data_kinds.h"

#include <Eigen/Core>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace svi::gpmf {

enum class Observation { Binary, Count, Ordinal };
enum class HalfStars { Round, Scale };

// "binary", "count", "ordinal" / "round", "scale"; fromName throws std::invalid_argument naming
// the field ("likelihood", "half_stars").
std::string observationName(Observation o);
Observation observationFromName(const std::string& name);
std::string halfStarsName(HalfStars h);
HalfStars halfStarsFromName(const std::string& name);

// The entries of each column of one side (a user's items, or an item's users), CSR: column c
// holds [start[c], start[c + 1]) of `other` (the other side's index) and `y`.
struct ColumnEntries
{
    std::vector<std::int64_t> start = {0};
    std::vector<std::int32_t> other;
    std::vector<float> y;
    std::int64_t columns() const { return std::int64_t(start.size()) - 1; }
    std::int64_t size(std::int64_t c) const
    {
        return start[std::size_t(c) + 1] - start[std::size_t(c)];
    }
    // Column c's other-side indices, ascending.
    std::span<const std::int32_t> others(std::int64_t c) const
    {
        return std::span(other).subspan(std::size_t(start[std::size_t(c)]), std::size_t(size(c)));
    }
};

struct TestEntry
{
    std::int32_t user = 0, item = 0;
    float y = 0.0f;
};

struct Observations
{
    Observation kind = Observation::Ordinal;
    int categories = 0;           // ordinal: C
    ColumnEntries byUser, byItem; // the training entries, twice
    std::vector<TestEntry> test;  // by user, then item
    std::int64_t dropped = 0;     // entries the mapping left out (binary: the middle ratings)
    bool unobservedZero = false;  // every (user, item) not in training is a 0
    std::string mapping;          // "ratings 1 → 0, 5 → 1; 3 others dropped", for the summary

    std::int64_t users() const { return byUser.columns(); }
    std::int64_t items() const { return byItem.columns(); }
    std::int64_t trainCount() const { return std::int64_t(byUser.y.size()); }
};

// The observations of `data` under `kind`. `categories` (ordinal): 0 takes the largest category
// present. `unobservedZero` (binary, count): every (user, item) outside training is an observed 0
// (implicit feedback); binary then reads every rating as 1. Throws std::invalid_argument naming the
// source, the user and item ids and the value for one the likelihood cannot read ("'u.data': user
// 3, item 12: 2.5 is not a count"), or the field for a mapping that does not fit the data (binary
// counts without observed zeros; an ordinal category above `categories`), or when no training entry
// remains.
Observations makeObservations(const CountData& data, Observation kind, int categories,
                              HalfStars halfStars, bool unobservedZero = false);

// The likelihood of `kind`: binary → logistic, count → Poisson with the logistic link,
// ordinal → makeOrdinalLikelihood(ordinalCuts(categories, delta), slope).
std::unique_ptr<Likelihood> makeObservationLikelihood(Observation kind, int categories,
                                                      double slope, double delta);

// The ordinal cut points as unconstrained parameters θ = (b_1, log(b_2 − b_1), …), back, and
// the gradient in θ of a function whose gradient in b is dB: ∂/∂θ_0 = Σ_l dB_l and ∂/∂θ_k =
// e^{θ_k} Σ_{l≥k} dB_l (b_l = θ_0 + Σ_{k=1..l} e^{θ_k}).
Eigen::ArrayXd paramsFromCuts(const std::vector<double>& cuts);
std::vector<double> cutsFromParams(const Eigen::ArrayXd& theta);
Eigen::ArrayXd cutParamGradient(const Eigen::ArrayXd& theta, const Eigen::VectorXd& dB);

// The paper's artificial data: U, V with columns ~ N(0, I_D), every entry y_ij ~ p(y | u_iᵀv_j)
// drawn, a seeded `testFraction` of the entries held out. kind "ratings", observedZeros, values
// "binary" / "counts" / "ordinal"; rows "user 1…", columns "item 1…". Seeded by `seed`.
struct SyntheticMatrixOptions
{
    std::int64_t users = 1000, items = 1000;
    int dim = 100;
    Observation kind = Observation::Binary;
    int categories = 5;
    double slope = 100.0, delta = 15.0;
    double testFraction = 0.2;
    std::uint64_t seed = 1;
};
CountDataPtr makeSyntheticMatrix(const SyntheticMatrixOptions& options);

// The data kind "synthetic-ratings": such a matrix, named by that pseudo-file, its options the
// kind's settings (gpmf_synthetic_kind.cpp).
DataKindSpec syntheticRatingsKind();

} // namespace svi::gpmf
