#include "core/models/bpfa/bpfa_spatial.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace svi::bpfa {

NeighbourCoupling::NeighbourCoupling(const ImageLayout& layout, int K)
    : m_across(layout.patchesPerRow()), m_down(layout.patchesPerCol())
{
    m_ez = MatrixRU8::Zero(layout.patchCount(), K);
    m_visited = MatrixRU8::Zero(layout.patchCount(), 1);
}

int NeighbourCoupling::neighbours(std::int64_t i, std::int64_t out[4]) const
{
    const int top = int(i / m_across), left = int(i % m_across);
    int n = 0;
    if (top > 0)
        out[n++] = i - m_across;
    if (left > 0)
        out[n++] = i - 1;
    if (left + 1 < m_across)
        out[n++] = i + 1;
    if (top + 1 < m_down)
        out[n++] = i + m_across;
    return n;
}

void NeighbourCoupling::shiftPrior(Workspace& ws, std::int64_t i, double beta,
                                   const GlobalView& view) const
{
    std::int64_t nb[4];
    const int n = neighbours(i, nb);
    const int K = int(m_ez.cols());
    int visited = 0;
    for (int j = 0; j < n; ++j) {
        if (!m_visited(nb[j], 0))
            continue;
        ++visited;
        const std::uint8_t* e = m_ez.row(nb[j]).data();
        for (int k = 0; k < K; ++k)
            ws.shift[k] += beta * double(e[k]) * (1.0 / 255.0);
    }
    if (visited > 0)
        for (int k = 0; k < K; ++k)
            ws.shift[k] -= beta * visited * view.pi[k];
}

void NeighbourCoupling::update(std::int64_t i, const float* ez)
{
    const int K = int(m_ez.cols());
    for (int k = 0; k < K; ++k)
        m_ez(i, k) = std::uint8_t(std::lround(std::clamp(ez[k], 0.0f, 1.0f) * 255.0f));
    m_visited(i, 0) = 1;
}

double NeighbourCoupling::stored(std::int64_t i, int k) const
{
    return m_visited(i, 0) ? double(m_ez(i, k)) / 255.0 : -1.0;
}

ImageStructure::ImageStructure(const ImageLayout& layout, int K, double overlapWeight,
                               double coupling, int overlapPixels, int overlapRamp)
    : m_alpha(overlapWeight), m_beta(coupling), m_D(layout.patch * layout.patch),
      m_pixels(overlapPixels), m_ramp(overlapRamp)
{
    if (overlapWeight > 0.0) {
        m_overlap = OverlapConsensus(layout);
        m_width += m_D;
    }
    if (coupling > 0.0) {
        m_coupling = NeighbourCoupling(layout, K);
        m_width += K;
    }
}

void ImageStructure::apply(Workspace& ws, std::int64_t i, const GlobalView& view, Rng* rng) const
{
    if (!m_overlap.empty()) {
        const int v = m_overlap.visits(i);
        const double alpha =
            m_ramp > 0 && v < m_ramp ? m_alpha * double(v) / double(m_ramp) : m_alpha;
        if (alpha > 0.0)
            m_overlap.appendTo(ws, i, alpha, view, rng, m_pixels);
    }
    if (!m_coupling.empty())
        m_coupling.shiftPrior(ws, i, m_beta, view);
}

void ImageStructure::recordExpectations(const Workspace& ws, float* record) const
{
    if (m_coupling.empty())
        return;
    float* ez = record + (m_overlap.empty() ? 0 : m_D);
    for (int k = 0; k < ws.K; ++k)
        ez[k] = float(ws.ez[k]);
}

void ImageStructure::update(std::int64_t i, const float* record)
{
    if (!m_overlap.empty()) {
        m_overlap.update(i, record);
        record += m_D;
    }
    if (!m_coupling.empty())
        m_coupling.update(i, record);
}

void ImageStructure::update(const std::vector<std::int64_t>& items, const MatrixRF& records)
{
    for (std::size_t j = 0; j < items.size(); ++j)
        update(items[j], records.row(std::int64_t(j)).data());
}

void ImageStructure::update(const std::vector<std::int64_t>& batch,
                            const std::vector<std::int64_t>& positions, const MatrixRF& records,
                            Communicator& ranks)
{
    // Each rank fills its items' rows of the whole minibatch's records; the sum gives every
    // rank all of them (x + 0 = x: exactly the floats), applied in the same order.
    const std::int64_t B = std::int64_t(batch.size());
    const int W = m_width;
    m_buffer.assign(std::size_t(B * W), 0.0);
    for (std::size_t j = 0; j < positions.size(); ++j)
        for (int d = 0; d < W; ++d)
            m_buffer[std::size_t(positions[j] * W + d)] = records(std::int64_t(j), d);
    ranks.sum(m_buffer);
    m_records.resize(B, W);
    for (std::int64_t b = 0; b < B; ++b)
        for (int d = 0; d < W; ++d)
            m_records(b, d) = float(m_buffer[std::size_t(b * W + d)]);
    update(batch, m_records);
}

void ImageStructure::visitState(StateArchive& archive)
{
    if (!m_overlap.empty())
        archive.field("overlap", m_overlap);
    if (!m_coupling.empty())
        archive.field("coupling", m_coupling);
}

} // namespace svi::bpfa
