#pragma once
// Held-out evaluation of recommenders on ratings (CountData of kind "ratings"), following
// Gopalan, Hofman & Blei (2015, §4): for each user with held-out (test) ratings, every item
// the user did not rate in training or validation is ranked by its predicted score; of the
// top n, the hits are the items in the user's test set. Per user,
//   precision@n = hits / n,   recall@n = hits / |test_u|,
//   normalized precision@n = hits / min(n, |test_u|)
// (the last is Gopalan et al.'s "normalized precision", which a perfect ranking brings to 1
// even for users with fewer than n test items), averaged over the users scored. Ties are
// broken towards the lower item index, so a ranking is deterministic.
//
// Also the rating-scale errors of paper 004's Table 1: RMSE of the predicted score against
// the held-out rating, and accuracy, the share of held-out ratings whose prediction rounded to
// the nearest value of the rating scale (the distinct values of the training ratings) equals
// the rating. Paper 004 does not define its accuracy; this is our reading of it.

#include "core/base/communicator.h"
#include "core/data/count_data.h"
#include "core/data/preview.h"

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace svi {

// Buffers for ranking one user's items; one per thread, reused.
struct RankingScratch
{
    std::vector<std::int32_t> candidates;
    std::vector<unsigned char> excluded; // all zero between calls
};

// The top n items by `scores` (size M), best first, leaving out the items in `exclude` (each
// span sorted or not). Fewer than n when fewer items remain.
std::vector<std::int32_t> topItems(std::span<const double> scores,
                                   std::initializer_list<std::span<const std::int32_t>> exclude,
                                   int n, RankingScratch& scratch);

// How many of `top` are in `relevant` (sorted ascending).
int countHits(std::span<const std::int32_t> top, std::span<const std::int32_t> relevant);

// Averages of precision@n, recall@n and normalized precision@n over users.
struct RankingScore
{
    double precision = 0.0;
    double recall = 0.0;
    double normalizedPrecision = 0.0;
    std::int64_t users = 0; // users scored (with ≥ 1 test item)
};

// Scores `users` (rows of `data` with held-out entries) with scoreFn(u, out) filling the M
// item scores of user u. Parallel over users; deterministic.
// On several ranks each scores its share of the users (Communicator::mine) and the sums are
// summed: every rank gets the same score.
template <typename ScoreFn>
RankingScore rankingScore(const CountData& data, std::span<const std::int64_t> users, int n,
                          ScoreFn&& scoreFn, Communicator& ranks = localCommunicator());

// The popularity baseline's scores: each item's number of training ratings (of every rank's
// users, summed over `ranks`, when the data were read in parts).
Eigen::VectorXd popularityScores(const CountData& data, Communicator& ranks = localCommunicator());

// The distinct training rating values, ascending (the rating scale for accuracy; of every
// rank's users when the data were read in parts).
std::vector<double> ratingScale(const CountData& data, Communicator& ranks = localCommunicator());
// The value of `scale` nearest to x (ties to the lower).
double nearestRating(const std::vector<double>& scale, double x);

// The top n items for user u under `factors`, leaving out what u rated in training (for the
// window's and the CLI's recommendation lists).
std::vector<std::int32_t> recommendations(const RatingFactors& factors, const CountData& data,
                                          std::int64_t u, int n);

// "precision_at_20" etc.
std::string atKey(const std::string& name, int n);

// Adds precision_at_n, recall_at_n, normalized_precision_at_n and the popularity baseline's
// popularity_precision_at_n, popularity_recall_at_n (when any user was scored).
void addRankingMetrics(std::map<std::string, double>& metrics, const RankingScore& model,
                       const RankingScore& popularity, int n);

// Checks the data contract of every recommender: users and items present, held-out and
// validation rows matching the users, item indices in range, ratings positive and finite, some
// training ratings (for data read in parts, the reader has checked those of every rank: a rank
// may hold none). Data read in parts (CountData::heldRows, some rows not held) are refused
// unless the caller `readsParts` — trains on and evaluates only its rank's rows, summing
// what needs every row — since a recommender that reads every row would silently see the
// other ranks' users as users without ratings. Test rows (documents held out whole, whose
// observed half conditions them) are refused unless the caller `foldsIn` — fits their factors
// at evaluation from that half. Throws std::invalid_argument "data: …" naming the problem.
void checkRatingsData(const CountDataPtr& data, bool readsParts = false, bool foldsIn = false);
// Throws std::invalid_argument when `data` were read in parts and some rows are not held here
// (see checkRatingsData), naming `who`.
void refuseParts(const CountData& data, const std::string& who);

// What a recommender's evaluation holds fixed from the start: the rating scale, the users with
// test ratings (all, and a seeded subset of evalUsers for cheap evaluations), a seeded subset of
// training users for the ELBO estimate, and the popularity baseline on both user sets.
// On several ranks (`ranks`), each scores the baseline on its share of the users. When the
// data were read in parts (data.heldRows: each rank holds its users' rows only), what depends
// on every user — the rating scale, the users with test ratings, the items' popularity — is
// gathered or summed over the ranks, so that every rank holds what one rank reading the whole
// file does. Collective then: every rank builds it, with the same arguments. Data read in parts
// with a communicator of one rank (a trainer that does not read parts) are refused
// (refuseParts).
struct RatingsEvaluation
{
    RatingsEvaluation() = default;
    // `pick` seeds the subsets (stream ids pick·0 and pick·1 of Rng::stream(seed, pick, ·)).
    RatingsEvaluation(const CountData& data, int evalUsers, int topN, std::uint64_t seed,
                      std::uint64_t pick, Communicator& ranks = localCommunicator());

    std::vector<double> scale;
    std::vector<std::int64_t> scoredUsers, elboUsers, cheapScoredUsers;
    RankingScore popularityFull, popularityCheap;

    // heldout_loglik, rmse and accuracy over the test ratings of `users`, validation_loglik over
    // their validation ratings, given predict(u, i) and logDensity(y, prediction). Parallel over
    // users; sums in a fixed order. On several ranks each scores its share of the users
    // (Communicator::mine) and the sums are summed: every rank gets the same metrics.
    template <typename Predict, typename LogDensity>
    void addRatingMetrics(std::map<std::string, double>& metrics, const CountData& data,
                          const std::vector<std::int64_t>& users, Predict&& predict,
                          LogDensity&& logDensity, Communicator& ranks = localCommunicator()) const;
};

// --- implementation of the templates ---

template <typename Predict, typename LogDensity>
void RatingsEvaluation::addRatingMetrics(std::map<std::string, double>& metrics,
                                         const CountData& data,
                                         const std::vector<std::int64_t>& allUsers,
                                         Predict&& predict, LogDensity&& logDensity,
                                         Communicator& ranks) const
{
    constexpr int kParts = 16; // fixed partial sums, added in order
    struct Sums
    {
        double ll = 0, se = 0, correct = 0, n = 0, vll = 0, vn = 0;
    };
    std::vector<Sums> parts(kParts);
    const std::vector<std::int64_t> users =
        ranks.mine(allUsers, ranks.ownedRows(data.rows(), data.heldRows));
    const std::int64_t count = std::int64_t(users.size());
#pragma omp parallel for schedule(dynamic, 1)
    for (int p = 0; p < kParts; ++p) {
        Sums& s = parts[std::size_t(p)];
        for (std::int64_t j = count * p / kParts; j < count * (p + 1) / kParts; ++j) {
            const std::int64_t u = users[std::size_t(j)];
            const auto score = [&](const SparseRows& rows, double& ll, double& n, bool errors) {
                const auto cols = rows.rowCols(u);
                const auto ys = rows.rowCounts(u);
                for (std::size_t e = 0; e < cols.size(); ++e) {
                    const double y = ys[e];
                    const double pred = predict(u, cols[e]);
                    ll += logDensity(y, pred);
                    n += 1.0;
                    if (errors) {
                        s.se += (y - pred) * (y - pred);
                        s.correct += nearestRating(scale, pred) == y ? 1.0 : 0.0;
                    }
                }
            };
            score(data.heldOut, s.ll, s.n, true);
            if (data.validation.rows() > u)
                score(data.validation, s.vll, s.vn, false);
        }
    }
    Sums t;
    for (const Sums& s : parts) {
        t.ll += s.ll, t.se += s.se, t.correct += s.correct, t.n += s.n;
        t.vll += s.vll, t.vn += s.vn;
    }
    double summed[6] = {t.ll, t.se, t.correct, t.n, t.vll, t.vn};
    ranks.sum(summed);
    t = {summed[0], summed[1], summed[2], summed[3], summed[4], summed[5]};
    if (t.n > 0) {
        metrics["heldout_loglik"] = t.ll / t.n;
        metrics["rmse"] = std::sqrt(t.se / t.n);
        metrics["accuracy"] = t.correct / t.n;
    }
    if (t.vn > 0)
        metrics["validation_loglik"] = t.vll / t.vn;
}

// Per-part sums of precision, recall and normalized precision → averages over `users`.
RankingScore averageRanking(const std::vector<Eigen::Vector3d>& sums, std::int64_t users);

template <typename ScoreFn>
RankingScore rankingScore(const CountData& data, std::span<const std::int64_t> allUsers, int n,
                          ScoreFn&& scoreFn, Communicator& ranks)
{
    constexpr int kParts = 16; // fixed partial sums, added in order
    const std::vector<std::int64_t> users =
        ranks.mine(allUsers, ranks.ownedRows(data.rows(), data.heldRows));
    std::vector<Eigen::Vector3d> sums(kParts, Eigen::Vector3d::Zero());
    std::vector<std::int64_t> scored(kParts, 0);
    const std::int64_t count = std::int64_t(users.size());
    const std::int64_t parts = std::min<std::int64_t>(kParts, std::max<std::int64_t>(count, 1));
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t p = 0; p < parts; ++p) {
        RankingScratch scratch;
        Eigen::VectorXd scores(data.cols());
        for (std::int64_t j = count * p / parts; j < count * (p + 1) / parts; ++j) {
            const std::int64_t u = users[std::size_t(j)];
            const auto test = data.heldOut.rowCols(u);
            if (test.empty())
                continue;
            scoreFn(u, scores);
            std::span<const std::int32_t> validation;
            if (data.validation.rows() > u)
                validation = data.validation.rowCols(u);
            const auto top = topItems({scores.data(), std::size_t(scores.size())},
                                      {data.train.rowCols(u), validation}, n, scratch);
            const int hits = countHits(top, test);
            sums[std::size_t(p)] += Eigen::Vector3d(
                double(hits) / double(n), double(hits) / double(test.size()),
                double(hits) / double(std::min<std::size_t>(std::size_t(n), test.size())));
            ++scored[std::size_t(p)];
        }
    }
    Eigen::Vector4d total = Eigen::Vector4d::Zero(); // the three sums and the users scored
    for (std::int64_t p = 0; p < kParts; ++p) {
        total.head<3>() += sums[std::size_t(p)];
        total(3) += double(scored[std::size_t(p)]);
    }
    ranks.sum(std::span<double>(total.data(), 4));
    return averageRanking({total.head<3>()}, std::int64_t(total(3)));
}

} // namespace svi
