#pragma once
// What the recommenders' trainers (PfTrainer, GmfTrainer) share: their evaluation on the
// held-out ratings and the preview of their factors.

#include "core/data/count_data.h"
#include "core/metrics/ranking_metrics.h"
#include "core/run/trainer.h"

#include <Eigen/Core>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace svi {

// The preview of a recommender: its factors as floats (users N×K, items M×K, the predicted
// score of user u for item i being offset + users.row(u) · items.row(i)), and the n of its top-n
// lists.
std::shared_ptr<Preview>
factorsPreview(const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& users,
               const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& items,
               double offset, int topN);

// The held-out measures of a recommender on `users` (rows with test ratings): the rating-scale
// ones at predict(u, i), scored by logDensity(rating, prediction)
// (RatingsEvaluation::addRatingMetrics), and the ranking ones at topN, every item the user has
// not rated in training or validation ranked by scoreAll(u, out) (M scores), beside the
// popularity baseline on the same users (`full`: every user with test ratings, otherwise the
// cheap subset). On several ranks each scores its share of the users; every rank gets the
// same metrics.
template <typename Predict, typename LogDensity, typename ScoreAll>
void addRecommenderMetrics(std::map<std::string, double>& metrics, const RatingsEvaluation& eval,
                           const CountData& data, const std::vector<std::int64_t>& users, bool full,
                           int topN, Predict&& predict, LogDensity&& logDensity,
                           ScoreAll&& scoreAll, Communicator& ranks = localCommunicator())
{
    eval.addRatingMetrics(metrics, data, users, predict, logDensity, ranks);
    const RankingScore r = rankingScore(data, users, topN, scoreAll, ranks);
    addRankingMetrics(metrics, r, full ? eval.popularityFull : eval.popularityCheap, topN);
}

} // namespace svi
