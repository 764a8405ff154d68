#pragma once
// The overlap consensus of BPFA on an image: overlapping patches that share their pixels.
//
// Paper 000's model treats the patches of an image as independent items, although every
// pixel lies in up to p² of them. Here each patch also sees its non-observed pixels, at the
// current estimate of the image there (the consensus ū: what the patches covering the pixel
// predict of it), as pseudo-observations whose precision is α times an observed pixel's:
//
//   p(y_i | x_i, Φ) ∝ Π_{d observed} N(y_id | x_i φ_{·d}, 1/γ)
//                   · Π_{d not observed} N(ū_{p(i,d)} | x_i φ_{·d}, 1/γ)^α
//
// (a tempered likelihood; α < 1 because the consensus of overlapping patches is strongly
// correlated with the patch's own prediction). Every local family and the global statistics
// take it as observed entries scaled by √α (Workspace::appendPseudo). ū at a non-observed
// pixel is the mean of the latest predictions of it by the n_p patches covering it, a patch
// not yet visited counting as predicting the start (the mean of the observed pixels in the
// (p+1)×(p+1) window around the pixel, widened until it holds one: starting every missing pixel
// at the image's mean level pulled the patches of a smooth image towards it, −1.4 dB on moon);
// after each local step the patch's predictions replace its earlier ones. (A running average moving
// each pixel 1/n_p of the way to each new prediction, without the per-patch store, lost 0.4 dB on
// house.) Observed pixels are never pseudo-observed. The weight may ramp up with the patch's
// visits, α·min(1, v/V) at visit v (ImageStructure, `overlap_ramp`), so that a patch fits the
// consensus once the patches around it have predicted it, not its start: at α from the first
// visit the 512×512 images, whose patches 3000 steps visit about three times, lost 0.1–0.8 dB;
// V = 3 gained on seven of nine images against that, up to 1.1 dB (docs/results.md).

#include "core/base/state_archive.h"
#include "core/data/dense_data.h"
#include "core/models/bpfa/bpfa_model.h"

#include <cstdint>

namespace svi::bpfa {

class OverlapConsensus
{
public:
    OverlapConsensus() = default;
    // The image's observed pixels at their normalised values, the others at the start (above).
    // Throws std::invalid_argument when the layout holds no pixel mask.
    explicit OverlapConsensus(const ImageLayout& layout);

    bool empty() const { return m_image.size() == 0; }
    // Appends every non-observed pixel of patch i to `ws` (gathered from item i) as a
    // pseudo-observation at ū with weight alpha. With `rng` and 0 < maxPixels < n (the patch's
    // n non-observed pixels), only maxPixels of them drawn without replacement, each with
    // weight alpha n / maxPixels: the same weight in all, in expectation the same statistics.
    void appendTo(Workspace& ws, std::int64_t i, double alpha, const GlobalView& view,
                  Rng* rng = nullptr, int maxPixels = 0) const;
    // Patch i's predictions (D values in normalised units, the patch row-major) replace its
    // earlier ones in ū at each of its non-observed pixels.
    void update(std::int64_t i, const float* prediction);
    // ū at pixel (row, col), normalised units.
    double value(int row, int col) const { return m_image(row, col); }
    // The number of patches covering pixel (row, col).
    int coverage(int row, int col) const;
    // The updates of patch i so far (its visits), counted to 255.
    int visits(std::int64_t i) const { return m_visits(i, 0); }
    // Checkpoints: ū, every patch's latest predictions and its visits.
    void visitState(StateArchive& archive)
    {
        archive.field("image", m_image);
        archive.field("predictions", m_pred);
        archive.field("visits", m_visits);
    }

private:
    int m_patch = 0, m_across = 0, m_down = 0; // patch side; patches per row and per column
    // ū, height × width. It is the sum of m_pred over the covering patches / n_p, kept
    // incrementally (and checkpointed, so that a resumed run adds in the same order).
    MatrixRD m_image;
    MatrixRU8 m_observed; // height × width: 1 where observed
    MatrixRF m_pred;      // patches × D: each patch's latest predictions (the start: none yet)
    MatrixRU8 m_visits;   // patches × 1: the updates of each patch, counted to 255
};

} // namespace svi::bpfa
