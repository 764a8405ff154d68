#include "core/models/recommender/recommender_parts.h"

namespace svi {

std::shared_ptr<Preview>
factorsPreview(const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& users,
               const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>& items,
               double offset, int topN)
{
    auto f = std::make_shared<RatingFactors>();
    f->users = users.cast<float>();
    f->items = items.cast<float>();
    f->offset = offset;
    f->topN = topN;
    auto preview = std::make_shared<Preview>();
    preview->factors = std::move(f);
    return preview;
}

} // namespace svi
