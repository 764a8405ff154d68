#pragma once
// Image quality on the 0–255 scale.

#include "core/data/dense_data.h"

#include <Eigen/Core>

namespace svi {

// PSNR = 20 log10(255 / rmse) over all pixels. +inf when the images are identical.
// Throws std::invalid_argument when the sizes differ or the images are empty.
double psnr(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate);

// PSNR over the pixels where mask == 0 (the missing pixels). NaN when no pixel is missing.
double psnrMasked(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate,
                  const MatrixRU8& observedMask);

// PSNR over the pixels where mask != 0 (the observed pixels). NaN when none is observed.
double psnrObserved(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate,
                    const MatrixRU8& observedMask);

double mse(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate);

} // namespace svi
