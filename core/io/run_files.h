#pragma once
// Files a run leaves behind, shared by the headless tool and the window: parameter values as
// JSON, metric values as text, traces as CSV, and atomic writes.

#include "core/base/params.h"
#include "core/data/count_data.h"
#include "core/data/graph_data.h"
#include "core/run/runner.h"
#include "core/run/trainer.h"

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace svi {

// A parameter value as JSON (int, real, bool or string).
QJsonValue paramToJson(const ParamValue& value);

// Reads a JSON value (number, bool or string) as the text parseParam accepts, so that a saved
// configuration is checked exactly like the command line and the form. Empty for null,
// arrays and objects.
std::string paramTextFromJson(const QJsonValue& value);

// Numbers JSON cannot hold (NaN, ±inf) become null.
QJsonValue jsonNumber(double value);

// A JSON number that is a whole number in [lo, hi], checked before any conversion (JSON numbers
// are doubles: 1e300 or 2.5 must not reach an integer cast). std::nullopt otherwise, also for
// values that are not numbers. Bounds beyond ±2⁵³ are clamped to it (doubles are exact up to
// there).
std::optional<std::int64_t> jsonInteger(const QJsonValue& value, std::int64_t lo, std::int64_t hi);

// "must be a whole number in [lo, hi]", for messages.
std::string wholeNumberRule(std::int64_t lo, std::int64_t hi);

// A metric for a CSV cell: 10 significant digits; "" for NaN, "inf"/"-inf" for infinities.
QString metricText(double value);

// Every metric key that appears in the trace, sorted.
std::set<std::string> metricKeys(const std::vector<Snapshot>& trace);

// CSV rows "step,epochs,train_seconds,wall_seconds,rho,elbo,<keys…>" for a trace. `lead` columns
// (header, value) are put before every row (e.g. the run and its algorithm when several runs share
// a file); the header line is written when `header` is true.
QByteArray traceCsv(const std::vector<Snapshot>& trace, const std::set<std::string>& keys,
                    const std::vector<std::pair<QString, QString>>& lead = {}, bool header = true);

// A trace as traceCsv writes it, read back: the columns step, epochs, train_seconds, rho and
// elbo (found by name) and wall_seconds when there (NaN when not: an older trace), every column
// after elbo a metric; columns before step (traceCsv's lead
// columns) are skipped. An empty cell is NaN for the fixed columns and no value for a metric
// (traceCsv writes a metric's NaN as an empty cell too, so it reads back as absent); "inf" and
// "-inf" are infinities. Throws DataError naming `file`, and the line and column of a bad cell.
std::vector<Snapshot> parseTraceCsv(const QByteArray& csv, const std::string& file);

// The learned loadings, one row per feature in the preview's order (decreasing E[π_k]):
// "feature,weight,<channel…>". `columns` names the channels (V1… when empty).
QByteArray loadingsCsv(const Preview& preview, const std::vector<std::string>& columns);

// A supervised model's posterior over its weights, one row per feature in the data's order:
// "feature,mean,sd" (q(w_j) = N(mean, sd²)).
QByteArray weightsCsv(const WeightSummary& weights);

// A regression model's predictive along one feature, one row per slice point in the slice's
// order: "<feature>,mean,sd,lower,upper" with lower/upper = mean ∓ 2 sd (the band the window
// draws); the first column is headed by the feature's name ("x" when it has none). Values
// missing from a slice whose sizes differ are empty cells.
QByteArray sliceCsv(const PredictionSlice& slice);

// A topic model's topics in the preview's order, one row per (topic, word):
// "topic,weight,rank,word,probability" (topic numbers 1-based).
QByteArray topicsCsv(const std::vector<TopicSummary>& topics);

// Recommendations: for each row u in `users`, its top n items not rated in training under
// `factors`, one line each: user_id,rank,item_id,title,score,held_out (the file's ids; title
// quoted; held_out 1 when the item is one of u's test ratings).
QByteArray recommendationsCsv(const RatingFactors& factors, const CountData& data,
                              const std::vector<std::int64_t>& users, int n);

// A covariance matrix with named rows and columns: a header ",<name…>", then one row per
// name "<name>,<values…>" (V1… when `names` is short).
QByteArray covarianceCsv(const Eigen::MatrixXd& covariance, const std::vector<std::string>& names);

// A network fit's communities, one row per node in the summary's order:
// "rank,node,name,community,degree" (node and community 1-based, community empty for none;
// degree counts the node's training edges).
QByteArray communitiesCsv(const GraphSummary& summary, const GraphData& graph);

// The held-out node pairs with what the fit predicts for them, in the graph's order:
// "i,j,name_i,name_j,linked,probability" (nodes 1-based, linked 0 or 1).
QByteArray linkPredictionsCsv(const GraphSummary& summary, const GraphData& graph);

// Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180).
QString csvField(const QString& text);

// Writes the whole file or nothing (QSaveFile). Throws DataError naming the file and the reason.
void writeFileAtomically(const QString& path, const QByteArray& bytes);

} // namespace svi
