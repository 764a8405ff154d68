#include "core/models/bpfa/bpfa_overlap.h"

#include <algorithm>
#include <stdexcept>

namespace svi::bpfa {

namespace {
constexpr int kMaxPatchPixels = 32 * 32; // the largest patch an image task declares
}

OverlapConsensus::OverlapConsensus(const ImageLayout& layout)
    : m_patch(layout.patch), m_across(layout.patchesPerRow()), m_down(layout.patchesPerCol())
{
    if (layout.pixelObserved.rows() != layout.height ||
        layout.pixelObserved.cols() != layout.width || layout.corrupted.rows() != layout.height ||
        layout.corrupted.cols() != layout.width)
        throw std::invalid_argument("overlap_weight: the image task holds no pixel mask");
    if (m_patch * m_patch > kMaxPatchPixels)
        throw std::invalid_argument("overlap_weight: patches of more than 32×32 pixels");
    m_observed = layout.pixelObserved;
    const int H = layout.height, W = layout.width;
    m_image = MatrixRD::Zero(H, W);
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c)
            if (layout.pixelObserved(r, c))
                m_image(r, c) = (double(layout.corrupted(r, c)) - layout.mean) / layout.scale;
    // The start: every non-observed pixel at the mean of the observed pixels in the
    // (p+1)×(p+1) window around it (summed-area tables), widened until it holds one; rounded to
    // a float, as the predictions are stored, so that updates replace exactly what they add.
    MatrixRD sum = MatrixRD::Zero(H + 1, W + 1), count = MatrixRD::Zero(H + 1, W + 1);
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c) {
            const double o = m_observed(r, c) ? 1.0 : 0.0;
            sum(r + 1, c + 1) = sum(r, c + 1) + sum(r + 1, c) - sum(r, c) + o * m_image(r, c);
            count(r + 1, c + 1) = count(r, c + 1) + count(r + 1, c) - count(r, c) + o;
        }
    auto box = [](const MatrixRD& t, int r0, int c0, int r1, int c1) {
        return t(r1, c1) - t(r0, c1) - t(r1, c0) + t(r0, c0);
    };
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c) {
            if (m_observed(r, c))
                continue;
            for (int h = std::max(1, m_patch / 2); h <= std::max(H, W); h *= 2) {
                const int r0 = std::max(0, r - h), c0 = std::max(0, c - h);
                const int r1 = std::min(H, r + h + 1), c1 = std::min(W, c + h + 1);
                if (const double n = box(count, r0, c0, r1, c1); n > 0.0) {
                    m_image(r, c) = double(float(box(sum, r0, c0, r1, c1) / n));
                    break;
                }
            }
        }
    // Every patch starts out predicting the start: ū is then the mean of the stored predictions.
    const int D = m_patch * m_patch;
    m_pred = MatrixRF::Zero(layout.patchCount(), D);
    m_visits = MatrixRU8::Zero(layout.patchCount(), 1);
    for (std::int64_t i = 0; i < layout.patchCount(); ++i) {
        const int top = int(i / m_across), left = int(i % m_across);
        for (int d = 0; d < D; ++d) {
            const int r = top + d / m_patch, c = left + d % m_patch;
            if (!m_observed(r, c))
                m_pred(i, d) = float(m_image(r, c));
        }
    }
}

int OverlapConsensus::coverage(int row, int col) const
{
    const int down = std::min(row, m_down - 1) - std::max(0, row - m_patch + 1) + 1;
    const int across = std::min(col, m_across - 1) - std::max(0, col - m_patch + 1) + 1;
    return down * across;
}

void OverlapConsensus::appendTo(Workspace& ws, std::int64_t i, double alpha, const GlobalView& view,
                                Rng* rng, int maxPixels) const
{
    const int top = int(i / m_across), left = int(i % m_across);
    const int D = m_patch * m_patch;
    if (rng == nullptr || maxPixels <= 0) {
        for (int d = 0; d < D; ++d) {
            const int r = top + d / m_patch, c = left + d % m_patch;
            if (!m_observed(r, c))
                ws.appendPseudo(d, m_image(r, c), alpha, view);
        }
        return;
    }
    // The non-observed pixels, then the first maxPixels of a partial shuffle.
    int pick[kMaxPatchPixels];
    int n = 0;
    for (int d = 0; d < D; ++d)
        if (!m_observed(top + d / m_patch, left + d % m_patch))
            pick[n++] = d;
    const int m = std::min(n, maxPixels);
    const double weight = alpha * double(n) / double(m);
    for (int j = 0; j < m; ++j) {
        std::swap(pick[j], pick[j + int(rng->below(std::uint64_t(n - j)))]);
        const int d = pick[j];
        ws.appendPseudo(d, m_image(top + d / m_patch, left + d % m_patch), weight, view);
    }
}

void OverlapConsensus::update(std::int64_t i, const float* prediction)
{
    if (m_visits(i, 0) < 255)
        ++m_visits(i, 0);
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
