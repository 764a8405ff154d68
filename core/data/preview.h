#pragma once
// Preview: what a fit shows of itself, as plain values (Eigen and the standard library only) —
// the reconstructed image, the dictionary, the topics, a recommender's factors, a posterior over
// weights, a predictive slice, communities, a covariance. Trainers publish one with each
// evaluation (core/run/trainer.h); the window, the CLI and the metrics read it.

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// One topic of a topic model, as the UI and the CLI list it.
struct TopicSummary
{
    int index = 0;       // the model's topic number (0-based)
    double weight = 0.0; // its share of the corpus (E[θ] summed, or the stick weight), in [0, 1]
    std::vector<std::string> words; // top words, most probable first
    std::vector<double> probs;      // E[β_kw] of those words
};

// A recommender's fitted factors, as floats: the predicted score of user u for item i is
// offset + users.row(u) · items.row(i) (Poisson factorization: E[θ_u]ᵀE[β_i], the Poisson
// mean; Gaussian MF: the posterior mean rating). Rows and columns are those of the CountData.
struct RatingFactors
{
    Eigen::MatrixXf users; // N×K
    Eigen::MatrixXf items; // M×K
    double offset = 0.0;
    int topN = 0; // the n of its top-n lists and measures (the model's top_n)
};

// A supervised model's posterior over its weights, q(w_j) = N(mean_j, sd_j²), one entry per
// feature, in the data's feature order (the window plots the largest, the CLI writes them all).
struct WeightSummary
{
    std::vector<std::string> names;
    Eigen::VectorXd mean;
    Eigen::VectorXd sd;
};

// A regression model's predictive along one feature, the others held at their training mean:
// the window draws the mean with a band of ± 2 sd and the test rows' labels against that
// feature (a partial view: those rows' other features vary). Feature values on the scale the
// model sees them (z-scored when the data kind standardises), labels on their own scale.
struct PredictionSlice
{
    std::string feature;            // its name ("x1", "MedInc")
    std::string label;              // the label's name
    Eigen::VectorXd x;              // the feature's values along the slice, ascending
    Eigen::VectorXd mean, sd;       // the predictive mean and sd of y at each
    Eigen::VectorXd pointX, pointY; // test rows (a seeded sample): feature value and label
};

// A topic model's correlations between its topics (the correlated topic model's prior
// N(μ, Σ) over η): `matrix`(i, j) = Σ_ij / sqrt(Σ_ii Σ_jj) between the model's topics
// topics[i] and topics[j] (0-based topic numbers, as TopicSummary::index), symmetric with 1 on
// the diagonal; NaN in the row and column of a topic whose variance is not positive and
// finite. A topic without a variance of its own (the CTM's reference topic, η ≡ 0) is not
// listed. topicCorrelations() (core/run/topic_correlations.h) builds one from Σ.
struct TopicCorrelations
{
    std::vector<int> topics;
    Eigen::MatrixXd matrix; // topics.size() square
};

// A network model's fit (the edge partition model): each node's dominant latent community, the
// nodes in an order that groups them by community, and the predicted link probabilities, so
// that the window can draw the adjacency matrix in that order beside what the model predicts.
struct GraphSummary
{
    // Per node (GraphData's order): the community k with the largest share of the node's
    // expected links (argmax_k r_k w_ik Σ_j w_jk, or the model's own measure); −1 for none.
    std::vector<int> community;
    // A permutation of the nodes: the communities by decreasing weight, and within one the
    // nodes by decreasing membership.
    std::vector<int> order;
    // N×N, symmetric, zero diagonal: P(y_ij = 1) under the fit (GraphData's node order).
    Eigen::MatrixXf linkProbability;
    // Per community: its weight (the EPM's E[r_k]), indexed as `community`.
    Eigen::VectorXd communityWeights;
};

// A model of the data's covariance (gamma process factor analysis): its estimate of Cov(y)
// beside the training rows' empirical covariance, D×D each in the data's column order.
struct CovarianceSummary
{
    Eigen::MatrixXd model;
    Eigen::MatrixXd empirical;
};

// What the UI or the CLI can show of the current fit. Immutable once published.
struct Preview
{
    // Reconstructed image (0–255, height×width), when the data are image patches and either a
    // full pass was made or the live preview is on (see Trainer::setLivePreview).
    std::optional<Eigen::ArrayXXf> reconstruction;
    // True when `reconstruction` comes from a full pass under the current globals; false when
    // it is the running reconstruction refreshed by the minibatches.
    bool reconstructionFull = false;
    // Learned dictionary: one row per feature, ordered by decreasing weight.
    Eigen::MatrixXd atoms;
    Eigen::VectorXd atomWeights; // E[π_k] in the same order
    // What the atoms and their weights are, for titles and tooltips: BPFA's dictionary
    // E[φ_k] weighted by E[π_k]; another factor model says what its own are.
    std::string atomName = "E[φ_k]";
    std::string atomWeightName = "E[π_k]";
    int atomWidth = 0; // p for image patches (atoms are p×p tiles), 0 otherwise
    // Topic models: the topics in use, by decreasing weight, with their top words.
    std::vector<TopicSummary> topics;
    // Topic models with correlated topics: the correlations between topics (every topic that
    // has a variance, whether in use or not); null for a model whose topics are independent.
    std::shared_ptr<const TopicCorrelations> correlations;
    // Recommenders: the factors, from which the window lists any user's top items.
    std::shared_ptr<const RatingFactors> factors;
    // Supervised models: the posterior over the weights.
    std::shared_ptr<const WeightSummary> weights;
    // Regression models over a kernel (the sparse GP): the predictive along one feature.
    std::shared_ptr<const PredictionSlice> slice;
    // Network models: communities and predicted links.
    std::shared_ptr<const GraphSummary> graph;
    // Models of a covariance: the estimate beside the empirical one.
    std::shared_ptr<const CovarianceSummary> covariance;
};

} // namespace svi
