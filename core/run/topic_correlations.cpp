#include "core/run/topic_correlations.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace svi {

Eigen::MatrixXd correlationMatrix(const Eigen::MatrixXd& covariance)
{
    if (covariance.rows() != covariance.cols())
        throw std::invalid_argument("correlationMatrix: covariance is " +
                                    std::to_string(covariance.rows()) + "×" +
                                    std::to_string(covariance.cols()) + ", but must be square");
    const Eigen::Index n = covariance.rows();
    const double nan = std::numeric_limits<double>::quiet_NaN();
    Eigen::VectorXd sd(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const double v = covariance(i, i);
        sd[i] = v > 0 && std::isfinite(v) ? std::sqrt(v) : nan;
    }
    Eigen::MatrixXd corr(n, n);
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j) {
            const double s = covariance(i, j);
            if (std::isnan(sd[i]) || std::isnan(sd[j]) || !std::isfinite(s))
                corr(i, j) = nan;
            else if (i == j)
                corr(i, j) = 1.0;
            else // rounding can take |Σ_ij| a hair past sd_i sd_j
                corr(i, j) = std::clamp(s / (sd[i] * sd[j]), -1.0, 1.0);
        }
    return corr;
}

std::shared_ptr<const TopicCorrelations> topicCorrelations(const Eigen::MatrixXd& covariance,
                                                           std::vector<int> topics)
{
    if (covariance.rows() != Eigen::Index(topics.size()))
        throw std::invalid_argument("topicCorrelations: covariance has " +
                                    std::to_string(covariance.rows()) + " rows, but " +
                                    std::to_string(topics.size()) + " topics are named");
    auto c = std::make_shared<TopicCorrelations>();
    c->matrix = correlationMatrix(covariance);
    c->topics = std::move(topics);
    return c;
}

StrongestPairs strongestPairs(const TopicCorrelations& c, int n, const std::vector<int>& among)
{
    if (n < 0)
        throw std::invalid_argument("strongestPairs: n = " + std::to_string(n) +
                                    ", but must be ≥ 0");
    // Positions in the matrix of the topics considered, in the order given.
    std::vector<Eigen::Index> at;
    if (among.empty()) {
        for (std::size_t i = 0; i < c.topics.size(); ++i)
            at.push_back(Eigen::Index(i));
    } else {
        for (int t : among) {
            const auto it = std::find(c.topics.begin(), c.topics.end(), t);
            if (it != c.topics.end() &&
                std::find(at.begin(), at.end(), Eigen::Index(it - c.topics.begin())) == at.end())
                at.push_back(Eigen::Index(it - c.topics.begin()));
        }
    }
    StrongestPairs out;
    for (std::size_t x = 0; x < at.size(); ++x)
        for (std::size_t y = x + 1; y < at.size(); ++y) {
            const double r = c.matrix(at[x], at[y]);
            const TopicPair p{c.topics[std::size_t(at[x])], c.topics[std::size_t(at[y])], r};
            if (r > 0)
                out.positive.push_back(p);
            else if (r < 0)
                out.negative.push_back(p);
        }
    auto keep = [n](std::vector<TopicPair>& pairs) {
        std::stable_sort(pairs.begin(), pairs.end(), [](const TopicPair& p, const TopicPair& q) {
            return std::abs(p.r) > std::abs(q.r);
        });
        if (pairs.size() > std::size_t(n))
            pairs.resize(std::size_t(n));
    };
    keep(out.positive);
    keep(out.negative);
    return out;
}

} // namespace svi
