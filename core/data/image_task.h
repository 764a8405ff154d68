#pragma once
// The inpainting / denoising task on a grey image: corruption, normalisation, patch cutting
// and reconstruction by averaging overlapping patch estimates. No Qt: images here are Eigen
// arrays on the 0–255 scale (rows = height). Loading files is in core/io.

#include "core/base/param_fields.h"
#include "core/data/dense_data.h"

#include <cstdint>
#include <optional>
#include <string>

namespace svi {

struct InpaintOptions : DeclaredOptions<InpaintOptions>
{
    InpaintOptions() { readDefaults(); }

    double missing{}; // fraction of pixels removed
    double noise{};   // σ of Gaussian noise added to observed pixels, 0–255 scale
    int patch{};      // patch side p
    std::uint64_t seed{};

    // The settings' declarations (keys missing, noise, patch, split_seed) bound to the fields:
    // forms, saved configurations, defaults and validate() all come from them.
    static const ParamFields<InpaintOptions>& fields();

    bool operator==(const InpaintOptions&) const = default;
};

// Builds the patch data set of `image` (height×width, 0–255) for the task. Every overlapping
// p×p patch becomes one row (row-major over the patch, patches ordered row by row). Observed
// pixels become Observed entries; removed pixels become HeldOut entries carrying the clean
// value, so the held-out likelihood can be scored. Values are normalised to zero mean and
// unit variance using the observed pixels. Throws std::invalid_argument on bad options or an
// image smaller than a patch.
DenseDataPtr makeInpaintingData(const Eigen::ArrayXXf& image, const InpaintOptions& options,
                                const std::string& source);

// Averages overlapping patch estimates (N×D, normalised units, one row per patch in the
// order of makeInpaintingData) into an image on the 0–255 scale, clamped to [0, 255]. With
// layout.exactObserved (a task without noise) the observed pixels keep their values, unless
// keepObserved is false: then every pixel is the model's fit (to score that fit).
Eigen::ArrayXXf reconstructImage(const ImageLayout& layout, const MatrixRF& patchEstimates,
                                 bool keepObserved = true);
// The fit of reconstructImage(…, false) with the observed pixels put back where
// layout.exactObserved: what reconstructImage(…, true) gives, without averaging again.
Eigen::ArrayXXf keepObservedPixels(const ImageLayout& layout, Eigen::ArrayXXf fit);

// Lays out dictionary atoms (one per row of `atoms`, p·p entries each, row-major tiles) as a
// near-square grid of p×p tiles separated by 1-pixel grey borders; each tile is stretched to
// 0–255 by its own range (a constant atom is mid-grey). At most maxTiles atoms are shown. With
// `scale` > 1 each atom pixel is a scale × scale block (nearest neighbour) and the borders are
// `border` pixels wide.
Eigen::ArrayXXf tileAtoms(const Eigen::MatrixXd& atoms, int patch, int maxTiles = 256,
                          int scale = 1, int border = 1);

// The atoms as a file shows them (a run folder's atoms.png, the window's export): tileAtoms
// with each atom pixel kAtomFileScale pixels wide and kAtomFileBorder-pixel borders, so that a
// reader sees them at their natural size (256 atoms of 8×8: 1,058 pixels square, not 145).
inline constexpr int kAtomFileScale = 8;
inline constexpr int kAtomFileBorder = 2;
Eigen::ArrayXXf atomsFileImage(const Eigen::MatrixXd& atoms, int patch);

} // namespace svi
