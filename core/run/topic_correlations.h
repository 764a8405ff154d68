#pragma once
// Correlations between topics (TopicCorrelations, trainer.h): built from a covariance over
// topics, and the strongest pairs the window lists beside its heatmap. Pure functions.

#include "core/run/trainer.h"

#include <Eigen/Core>
#include <memory>
#include <vector>

namespace svi {

// corr_ij = Σ_ij / sqrt(Σ_ii Σ_jj) of a symmetric covariance Σ, with exactly 1 on the diagonal;
// NaN in the row and column of an index whose variance Σ_ii is not positive and finite, and
// where Σ_ij is not finite. Throws std::invalid_argument unless Σ is square.
Eigen::MatrixXd correlationMatrix(const Eigen::MatrixXd& covariance);

// The correlations of `covariance`, whose rows and columns are the model's topics `topics`
// (0-based numbers, in that order). Throws std::invalid_argument unless Σ is square with one
// row per topic.
std::shared_ptr<const TopicCorrelations> topicCorrelations(const Eigen::MatrixXd& covariance,
                                                           std::vector<int> topics);

// Two topics (model numbers, a listed before b in `among`) and their correlation.
struct TopicPair
{
    int a = 0, b = 0;
    double r = 0.0;
};

// The pairs of distinct topics most correlated: `positive` the at most n with r > 0, largest
// first; `negative` the at most n with r < 0, most negative first (both by |r|, ties in the
// order of `among`). Only the topics of `among` that `c` covers count (so the caller picks,
// say, the topics in use); every topic of `c` when `among` is empty. NaN correlations are
// skipped. Throws std::invalid_argument when n < 0.
struct StrongestPairs
{
    std::vector<TopicPair> positive, negative;
};
StrongestPairs strongestPairs(const TopicCorrelations& c, int n,
                              const std::vector<int>& among = {});

} // namespace svi
