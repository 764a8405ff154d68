#include "core/metrics/image_metrics.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace svi {
namespace {

void checkSizes(const char* fn, const Eigen::ArrayXXf& a, const Eigen::ArrayXXf& b)
{
    if (a.size() == 0 || a.rows() != b.rows() || a.cols() != b.cols())
        throw std::invalid_argument(std::string(fn) + ": images are " + std::to_string(a.cols()) +
                                    "×" + std::to_string(a.rows()) + " and " +
                                    std::to_string(b.cols()) + "×" + std::to_string(b.rows()) +
                                    "; they must have the same non-empty size");
}

double psnrFromMse(double m)
{
    if (m == 0.0)
        return std::numeric_limits<double>::infinity();
    return 20.0 * std::log10(255.0 / std::sqrt(m));
}

} // namespace

double mse(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate)
{
    checkSizes("mse", reference, estimate);
    return (reference.cast<double>() - estimate.cast<double>()).square().mean();
}

double psnr(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate)
{
    checkSizes("psnr", reference, estimate);
    return psnrFromMse(mse(reference, estimate));
}

namespace {

// PSNR over the pixels whose mask entry is (!= 0) == `observed`.
double psnrWhere(const char* fn, const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate,
                 const MatrixRU8& observedMask, bool observed)
{
    checkSizes(fn, reference, estimate);
    if (observedMask.rows() != reference.rows() || observedMask.cols() != reference.cols())
        throw std::invalid_argument(
            std::string(fn) + ": observedMask is " + std::to_string(observedMask.cols()) + "×" +
            std::to_string(observedMask.rows()) + ", but the images are " +
            std::to_string(reference.cols()) + "×" + std::to_string(reference.rows()));
    double sum = 0.0;
    std::int64_t n = 0;
    for (Eigen::Index r = 0; r < reference.rows(); ++r)
        for (Eigen::Index c = 0; c < reference.cols(); ++c)
            if ((observedMask(r, c) != 0) == observed) {
                const double e = double(reference(r, c)) - estimate(r, c);
                sum += e * e;
                ++n;
            }
    if (n == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return psnrFromMse(sum / double(n));
}

} // namespace

double psnrMasked(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate,
                  const MatrixRU8& observedMask)
{
    return psnrWhere("psnrMasked", reference, estimate, observedMask, false);
}

double psnrObserved(const Eigen::ArrayXXf& reference, const Eigen::ArrayXXf& estimate,
                    const MatrixRU8& observedMask)
{
    return psnrWhere("psnrObserved", reference, estimate, observedMask, true);
}

} // namespace svi
