#pragma once
// The data a trainer is built on, in one of the closed set of shapes: dense rows with a mask
// (image patches, cells, expression profiles), sparse counts (documents × words, users ×
// items), labelled examples (features and a label each) or a graph (edges among nodes). Which kind
// of data it came from (an image, a table, a corpus, ratings) is the data kind's business
// (core/run/data_kinds.h); models see only the shape.

#include "core/data/count_data.h"
#include "core/data/dense_data.h"
#include "core/data/graph_data.h"
#include "core/data/labelled_data.h"

#include <string>

namespace svi {

enum class DataShape { Dense, Count, Labelled, Graph };

// "dense rows (image patches, cells, expression profiles)" / "counts (documents × words, users
// × items)" / "labelled examples (features and a label)" / "a graph (edges among nodes)", for
// messages.
std::string dataShapeLabel(DataShape shape);

// Exactly one of the shapes is set (or none: an empty value).
struct DataSet
{
    DenseDataPtr dense;
    CountDataPtr counts;
    LabelledDataPtr labelled;
    GraphDataPtr graph;

    DataSet() = default;
    DataSet(DenseDataPtr d) : dense(std::move(d)) {}       // NOLINT: implicit on purpose
    DataSet(CountDataPtr c) : counts(std::move(c)) {}      // NOLINT
    DataSet(LabelledDataPtr l) : labelled(std::move(l)) {} // NOLINT
    DataSet(GraphDataPtr g) : graph(std::move(g)) {}       // NOLINT
    DataShape shape() const
    {
        return counts     ? DataShape::Count
               : labelled ? DataShape::Labelled
               : graph    ? DataShape::Graph
                          : DataShape::Dense;
    }
    explicit operator bool() const { return dense || counts || labelled || graph; }
    std::int64_t rows() const;
    std::int64_t cols() const;
    std::int64_t trainingRowCount() const;
    // The file name(s) or description the data came from.
    std::string source() const;
    // The data in the shape `model` (a label for the message) needs; otherwise throws
    // std::invalid_argument "data: <model> models <shape>, not <the other shape>".
    const DenseDataPtr& requireDense(const std::string& model) const;
    const CountDataPtr& requireCounts(const std::string& model) const;
    const LabelledDataPtr& requireLabelled(const std::string& model) const;
    const GraphDataPtr& requireGraph(const std::string& model) const;
};

} // namespace svi
