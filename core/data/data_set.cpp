#include "core/data/data_set.h"

#include <stdexcept>

namespace svi {

std::string dataShapeLabel(DataShape shape)
{
    switch (shape) {
    case DataShape::Count:
        return "counts (documents × words, users × items)";
    case DataShape::Labelled:
        return "labelled examples (features and a label)";
    case DataShape::Graph:
        return "a graph (edges among nodes)";
    case DataShape::Dense:
        break;
    }
    return "dense rows (image patches, cells, expression profiles)";
}

std::int64_t DataSet::rows() const
{
    return counts     ? counts->rows()
           : dense    ? dense->rows()
           : labelled ? labelled->rows()
           : graph    ? graph->rows()
                      : 0;
}

std::int64_t DataSet::cols() const
{
    return counts     ? counts->cols()
           : dense    ? dense->cols()
           : labelled ? labelled->cols()
           : graph    ? graph->cols()
                      : 0;
}

std::int64_t DataSet::trainingRowCount() const
{
    return counts     ? counts->trainingRowCount()
           : dense    ? dense->trainingRowCount()
           : labelled ? labelled->trainingRowCount()
           : graph    ? graph->trainingRowCount()
                      : 0;
}

std::string DataSet::source() const
{
    return counts     ? counts->source
           : dense    ? dense->source
           : labelled ? labelled->source
           : graph    ? graph->source
                      : "";
}

const DenseDataPtr& DataSet::requireDense(const std::string& model) const
{
    if (!dense)
        throw std::invalid_argument("data: " + model + " models " +
                                    dataShapeLabel(DataShape::Dense) + ", not " +
                                    dataShapeLabel(shape()));
    return dense;
}

const CountDataPtr& DataSet::requireCounts(const std::string& model) const
{
    if (!counts)
        throw std::invalid_argument("data: " + model + " models " +
                                    dataShapeLabel(DataShape::Count) + ", not " +
                                    dataShapeLabel(shape()));
    return counts;
}

} // namespace svi

namespace svi {

const LabelledDataPtr& DataSet::requireLabelled(const std::string& model) const
{
    if (!labelled)
        throw std::invalid_argument("data: " + model + " models " +
                                    dataShapeLabel(DataShape::Labelled) + ", not " +
                                    dataShapeLabel(shape()));
    return labelled;
}

} // namespace svi

namespace svi {

const GraphDataPtr& DataSet::requireGraph(const std::string& model) const
{
    if (!graph)
        throw std::invalid_argument("data: " + model + " models " +
                                    dataShapeLabel(DataShape::Graph) + ", not " +
                                    dataShapeLabel(shape()));
    return graph;
}

} // namespace svi
