#include "core/metrics/ranking_metrics.h"

#include "core/base/parallel.h"
#include "core/base/params.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace svi {

std::vector<std::int32_t> topItems(std::span<const double> scores,
                                   std::initializer_list<std::span<const std::int32_t>> exclude,
                                   int n, RankingScratch& scratch)
{
    const std::size_t M = scores.size();
    if (scratch.excluded.size() != M)
        scratch.excluded.assign(M, 0);
    for (const auto& list : exclude)
        for (std::int32_t i : list)
            scratch.excluded[std::size_t(i)] = 1;
    scratch.candidates.clear();
    for (std::size_t i = 0; i < M; ++i)
        if (!scratch.excluded[i])
            scratch.candidates.push_back(std::int32_t(i));
    for (const auto& list : exclude)
        for (std::int32_t i : list)
            scratch.excluded[std::size_t(i)] = 0;

    const auto better = [&](std::int32_t a, std::int32_t b) {
        const double sa = scores[std::size_t(a)], sb = scores[std::size_t(b)];
        return sa > sb || (sa == sb && a < b);
    };
    const std::size_t top = std::min(std::size_t(std::max(n, 0)), scratch.candidates.size());
    std::partial_sort(scratch.candidates.begin(), scratch.candidates.begin() + std::ptrdiff_t(top),
                      scratch.candidates.end(), better);
    return {scratch.candidates.begin(), scratch.candidates.begin() + std::ptrdiff_t(top)};
}

int countHits(std::span<const std::int32_t> top, std::span<const std::int32_t> relevant)
{
    int hits = 0;
    for (std::int32_t i : top)
        hits += std::binary_search(relevant.begin(), relevant.end(), i) ? 1 : 0;
    return hits;
}

RankingScore averageRanking(const std::vector<Eigen::Vector3d>& sums, std::int64_t users)
{
    RankingScore s;
    s.users = users;
    if (users == 0)
        return s;
    Eigen::Vector3d total = Eigen::Vector3d::Zero();
    for (const Eigen::Vector3d& p : sums)
        total += p;
    total /= double(users);
    s.precision = total[0];
    s.recall = total[1];
    s.normalizedPrecision = total[2];
    return s;
}

void addRankingMetrics(std::map<std::string, double>& metrics, const RankingScore& model,
                       const RankingScore& popularity, int n)
{
    if (model.users == 0)
        return;
    metrics[atKey("precision", n)] = model.precision;
    metrics[atKey("recall", n)] = model.recall;
    metrics[atKey("normalized_precision", n)] = model.normalizedPrecision;
    metrics[atKey("popularity_precision", n)] = popularity.precision;
    metrics[atKey("popularity_recall", n)] = popularity.recall;
}

namespace {

// Whether the data hold only this rank's rows (the collectives below are then needed; the
// same answer on every rank).
bool readInParts(const CountData& data, const Communicator& ranks)
{
    return data.heldRows && ranks.distributed();
}

} // namespace

Eigen::VectorXd popularityScores(const CountData& data, Communicator& ranks)
{
    Eigen::VectorXd s = Eigen::VectorXd::Zero(data.cols());
    for (std::int32_t i : data.train.cols)
        s[i] += 1.0;
    if (readInParts(data, ranks))
        ranks.sum({s.data(), std::size_t(s.size())});
    return s;
}

std::vector<double> ratingScale(const CountData& data, Communicator& ranks)
{
    std::vector<double> v(data.train.counts.begin(), data.train.counts.end());
    const auto distinct = [&v] {
        std::sort(v.begin(), v.end());
        v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    distinct();
    if (readInParts(data, ranks)) {
        v = ranks.allGatherValues<double>(v);
        distinct();
    }
    return v;
}

double nearestRating(const std::vector<double>& scale, double x)
{
    if (scale.empty())
        return x;
    const auto it = std::lower_bound(scale.begin(), scale.end(), x);
    if (it == scale.begin())
        return *it;
    if (it == scale.end())
        return scale.back();
    return (x - *(it - 1) <= *it - x) ? *(it - 1) : *it;
}

std::vector<std::int32_t> recommendations(const RatingFactors& factors, const CountData& data,
                                          std::int64_t u, int n)
{
    if (u < 0 || u >= factors.users.rows() || factors.items.rows() != data.cols())
        throw std::invalid_argument("recommendations: user " + std::to_string(u) +
                                    " is not a row of the factors, or they do not fit the data");
    const Eigen::VectorXd scores =
        (factors.items * factors.users.row(u).transpose()).cast<double>();
    RankingScratch scratch;
    return topItems({scores.data(), std::size_t(scores.size())}, {data.train.rowCols(u)}, n,
                    scratch);
}

void refuseParts(const CountData& d, const std::string& who)
{
    if (d.heldRows && d.heldRows->size() != d.rows())
        throw std::invalid_argument(
            "data: '" + d.source + "' was read in parts (this rank holds users [" +
            std::to_string(d.heldRows->begin) + ", " + std::to_string(d.heldRows->end) + ") of " +
            std::to_string(d.rows()) + "), but " + who +
            " needs every user's ratings on every rank: run it on its own, so that every rank "
            "reads the file whole");
}

void checkRatingsData(const CountDataPtr& data, bool readsParts, bool foldsIn)
{
    if (!data || data->cols() < 1 || data->rows() < 1)
        throw std::invalid_argument("data: there are no ratings");
    const CountData& d = *data;
    if (!readsParts)
        refuseParts(d, "this model");
    if (d.heldOut.rows() != d.rows() ||
        (d.validation.rows() != 0 && d.validation.rows() != d.rows()))
        throw std::invalid_argument("data: '" + d.source + "' has " + std::to_string(d.rows()) +
                                    " users but held-out or validation rows of another count");
    if (!d.testRows.empty() && !foldsIn)
        throw std::invalid_argument(
            "data: '" + d.source +
            "' has test rows (documents held out whole); recommenders score "
            "held-out ratings of training users (a ratings file)");
    if (d.stream)
        throw std::invalid_argument("data: '" + d.source +
                                    "' is read out of core, as a stream: this model needs its "
                                    "data in memory (out_of_core = false)");
    if (d.trainingRowCount() < 1 || (d.train.nonZeros() < 1 && !d.heldRows))
        throw std::invalid_argument("data: '" + d.source + "' has no training ratings");
    for (const SparseRows* rows : {&d.train, &d.heldOut, &d.validation}) {
        for (std::int32_t c : rows->cols)
            if (c < 0 || c >= d.cols())
                throw std::invalid_argument("data: '" + d.source + "' has item index " +
                                            std::to_string(c) + " outside the " +
                                            std::to_string(d.cols()) + " items");
        for (float c : rows->counts)
            if (!(c > 0.0f) || !std::isfinite(c))
                throw std::invalid_argument("data: '" + d.source + "' has a rating of " +
                                            formatNumber(c) +
                                            "; ratings must be positive and finite");
    }
}

RatingsEvaluation::RatingsEvaluation(const CountData& d, int evalUsers, int topN,
                                     std::uint64_t seed, std::uint64_t pick, Communicator& ranks)
    : scale(ratingScale(d, ranks))
{
    if (!ranks.distributed()) // a trainer that does not read parts, given data read in parts
        refuseParts(d, "this model's evaluation");
    for (std::int64_t r = 0; r < d.rows(); ++r)
        if (d.heldOut.rowNonZeros(r) > 0)
            scoredUsers.push_back(r);
    // Read in parts: every rank's, in rank order, which is row order (each holds a contiguous
    // range of rows).
    if (readInParts(d, ranks))
        scoredUsers = ranks.allGatherValues<std::int64_t>(scoredUsers);
    elboUsers = seededSubset(d.trainingRows(), std::size_t(evalUsers), Rng::stream(seed, pick, 0));
    cheapScoredUsers =
        seededSubset(scoredUsers, std::size_t(evalUsers), Rng::stream(seed, pick, 1));
    const Eigen::VectorXd popularity = popularityScores(d, ranks);
    const auto byPopularity = [&](std::int64_t, Eigen::VectorXd& out) { out = popularity; };
    popularityFull = rankingScore(d, scoredUsers, topN, byPopularity, ranks);
    popularityCheap = rankingScore(d, cheapScoredUsers, topN, byPopularity, ranks);
}

std::string atKey(const std::string& name, int n)
{
    return name + "_at_" + std::to_string(n);
}

} // namespace svi
