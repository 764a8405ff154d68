#include "core/models/bpfa/bpfa_overlap.h"

#include <algorithm>
#include <stdexcept>

namespace svi::bpfa {

OverlapConsensus::OverlapConsensus(const ImageLayout& layout)
    : m_patch(layout.patch), m_across(layout.patchesPerRow()), m_down(layout.patchesPerCol())
{
    if (layout.pixelObserved.rows() != layout.height ||
        layout.pixelObserved.cols() != layout.width || layout.corrupted.rows() != layout.height ||
        layout.corrupted.cols() != layout.width)
        throw std::invalid_argument("overlap_weight: the image task holds no pixel mask");
    m_observed = layout.pixelObserved;
    m_pred = MatrixRF::Zero(layout.patchCount(), m_patch * m_patch);
    m_image = MatrixRD::Zero(layout.height, layout.width);
    for (int r = 0; r < layout.height; ++r)
        for (int c = 0; c < layout.width; ++c)
            if (layout.pixelObserved(r, c))
                m_image(r, c) = (double(layout.corrupted(r, c)) - layout.mean) / layout.scale;
}

int OverlapConsensus::coverage(int row, int col) const
{
    const int down = std::min(row, m_down - 1) - std::max(0, row - m_patch + 1) + 1;
    const int across = std::min(col, m_across - 1) - std::max(0, col - m_patch + 1) + 1;
    return down * across;
}

void OverlapConsensus::appendTo(Workspace& ws, std::int64_t i, double alpha,
                                const GlobalView& view) const
{
    const int top = int(i / m_across), left = int(i % m_across);
    for (int d = 0; d < m_patch * m_patch; ++d) {
        const int r = top + d / m_patch, c = left + d % m_patch;
        if (!m_observed(r, c))
            ws.appendPseudo(d, m_image(r, c), alpha, view);
    }
}

void OverlapConsensus::update(std::int64_t i, const float* prediction)
{
    const int top = int(i / m_across), left = int(i % m_across);
    for (int d = 0; d < m_patch * m_patch; ++d) {
        const int r = top + d / m_patch, c = left + d % m_patch;
        if (m_observed(r, c))
            continue;
        m_image(r, c) += (double(prediction[d]) - double(m_pred(i, d))) / double(coverage(r, c));
        m_pred(i, d) = prediction[d];
    }
}

} // namespace svi::bpfa
