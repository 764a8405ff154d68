#include "core/data/data_set.h"

#include <stdexcept>

namespace svi {

std::string dataShapeLabel(DataShape shape)
{
    return shape == DataShape::Count ? "counts (documents × words, users × items)"
                                     : "dense rows (image patches, cells, expression profiles)";
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
