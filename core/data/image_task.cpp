#include "core/data/image_task.h"

#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace svi {
namespace {

// Stream ids of Rng::stream(seed, id): the pixel mask and the observation noise.
constexpr std::uint64_t kMaskStream = 0x6d61736bULL;    // "mask"
constexpr std::uint64_t kNoiseStream = 0x6e6f697365ULL; // "noise"

} // namespace

const ParamFields<InpaintOptions>& InpaintOptions::fields()
{
    using O = InpaintOptions;
    static const ParamFields<O> f =
        ParamFields<O>()
            .add(realParam("missing", "Missing fraction",
                           "fraction of pixels removed at random (held out and scored)", 0.8, 0.0,
                           0.99),
                 &O::missing)
            .add(realParam("noise", "Noise σ",
                           "σ of Gaussian noise added to the observed pixels, 0–255 scale", 0.0,
                           0.0, 255.0),
                 &O::noise)
            .add(intParam("patch", "Patch size",
                          "side p of the overlapping p×p patches (p² pixels each)", 8, 2, 32),
                 &O::patch)
            .add(splitSeedParam("seed of the corruption (which pixels are removed, the noise)"),
                 &O::seed);
    return f;
}

DenseDataPtr makeInpaintingData(const Eigen::ArrayXXf& image, const InpaintOptions& o,
                                const std::string& source)
{
    if (auto problem = o.validate())
        throw std::invalid_argument(*problem);
    const int H = int(image.rows()), W = int(image.cols()), p = o.patch;
    if (H < p || W < p)
        throw std::invalid_argument("image " + std::to_string(W) + "×" + std::to_string(H) +
                                    " is smaller than the " + std::to_string(p) + "×" +
                                    std::to_string(p) + " patch");
    for (int c = 0; c < W; ++c)
        for (int r = 0; r < H; ++r)
            if (!std::isfinite(image(r, c)))
                throw std::invalid_argument("image pixel (row " + std::to_string(r) + ", col " +
                                            std::to_string(c) + ") = " + formatNumber(image(r, c)) +
                                            ", but must be finite");

    // Exactly round((1 − missing)·H·W) observed pixels, chosen by a seeded partial
    // Fisher–Yates shuffle, so the fraction is exact and the mask depends only on the seed.
    const std::int64_t total = std::int64_t(H) * W;
    const auto keep = std::int64_t(std::llround((1.0 - o.missing) * double(total)));
    if (keep < 1)
        throw std::invalid_argument("missing = " + formatNumber(o.missing) +
                                    " leaves no observed pixel in a " + std::to_string(W) + "×" +
                                    std::to_string(H) + " image");

    ImageLayout L;
    L.width = W;
    L.height = H;
    L.patch = p;
    L.original = image;
    L.corrupted = Eigen::ArrayXXf::Zero(H, W);
    L.pixelObserved = MatrixRU8::Zero(H, W);

    std::vector<std::int64_t> order(static_cast<std::size_t>(total));
    std::iota(order.begin(), order.end(), std::int64_t(0));
    Rng pick = Rng::stream(o.seed, kMaskStream);
    for (std::int64_t j = 0; j < keep; ++j) {
        const auto k = j + std::int64_t(pick.below(std::uint64_t(total - j)));
        std::swap(order[std::size_t(j)], order[std::size_t(k)]);
    }
    for (std::int64_t j = 0; j < keep; ++j) {
        const std::int64_t idx = order[std::size_t(j)];
        L.pixelObserved(idx / W, idx % W) = 1;
    }

    // Noise is drawn in row-major pixel order from its own stream: reproducible, and not
    // clamped (the paper adds Gaussian noise to the integer pixels and keeps the result).
    Rng noise = Rng::stream(o.seed, kNoiseStream);
    double sum = 0.0, sumSq = 0.0;
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c) {
            if (!L.pixelObserved(r, c))
                continue;
            float v = image(r, c);
            if (o.noise > 0)
                v += float(o.noise * noise.normal());
            L.corrupted(r, c) = v;
            sum += v;
            sumSq += double(v) * v;
        }
    L.exactObserved = o.noise == 0.0;
    L.mean = sum / double(keep);
    const double var = std::max(0.0, sumSq / double(keep) - L.mean * L.mean);
    L.scale = std::max(std::sqrt(var), 1e-6);

    // Row-major planes of what every patch entry holds, so that cutting a patch is p
    // contiguous copies of p values.
    const float mean = float(L.mean), inv = float(1.0 / L.scale);
    MatrixRF plane(H, W);
    MatrixRU8 role(H, W);
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c) {
            const bool seen = L.pixelObserved(r, c) != 0;
            plane(r, c) = ((seen ? L.corrupted(r, c) : image(r, c)) - mean) * inv;
            role(r, c) = std::uint8_t(seen ? EntryRole::Observed : EntryRole::HeldOut);
        }

    auto data = std::make_shared<DenseData>();
    const int pr = L.patchesPerRow(), pc = L.patchesPerCol(), D = p * p;
    data->values.resize(L.patchCount(), D);
    data->roles.resize(L.patchCount(), D);
    data->source = source;
#pragma omp parallel for schedule(static)
    for (int r0 = 0; r0 < pc; ++r0)
        for (int c0 = 0; c0 < pr; ++c0) {
            const std::int64_t i = std::int64_t(r0) * pr + c0;
            float* vals = data->values.data() + i * D;
            std::uint8_t* roles = data->roles.data() + i * D;
            for (int dr = 0; dr < p; ++dr) {
                std::copy_n(&plane(r0 + dr, c0), p, vals + dr * p);
                std::copy_n(&role(r0 + dr, c0), p, roles + dr * p);
            }
        }
    data->image = std::move(L);
    return data;
}

Eigen::ArrayXXf reconstructImage(const ImageLayout& L, const MatrixRF& est, bool keepObserved)
{
    const int p = L.patch;
    if (p < 1 || L.width < p || L.height < p)
        throw std::invalid_argument("reconstructImage: layout " + std::to_string(L.width) + "×" +
                                    std::to_string(L.height) + " with patch " + std::to_string(p) +
                                    " holds no patch");
    const int pr = L.patchesPerRow(), pc = L.patchesPerCol();
    if (est.rows() != L.patchCount() || est.cols() != p * p)
        throw std::invalid_argument("reconstructImage: patchEstimates are " +
                                    std::to_string(est.rows()) + "×" + std::to_string(est.cols()) +
                                    ", but the layout needs " + std::to_string(L.patchCount()) +
                                    "×" + std::to_string(p * p));
    using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    MatrixRD sum = MatrixRD::Zero(L.height, L.width);
    // Rows of patches are accumulated in parallel in two interleaved passes over blocks of p
    // origin rows, so that no two threads write the same pixel row at once (block b touches
    // pixel rows [b·p, (b + 2)·p − 1), which blocks b ± 2 do not).
    const int blocks = (pc + p - 1) / p;
    for (int phase = 0; phase < 2; ++phase) {
#pragma omp parallel for schedule(static)
        for (int block = phase; block < blocks; block += 2) {
            for (int r0 = block * p; r0 < std::min(pc, (block + 1) * p); ++r0)
                for (int c0 = 0; c0 < pr; ++c0) {
                    const float* e = est.data() + (std::int64_t(r0) * pr + c0) * p * p;
                    for (int dr = 0; dr < p; ++dr) {
                        double* out = &sum(r0 + dr, c0);
                        for (int dc = 0; dc < p; ++dc)
                            out[dc] += e[dr * p + dc];
                    }
                }
        }
    }
    // Pixel (r, c) is covered by nr(r)·nc(c) patches.
    Eigen::ArrayXXf out(L.height, L.width);
    for (int c = 0; c < L.width; ++c) {
        const int nc = std::min(c, pr - 1) - std::max(0, c - p + 1) + 1;
        for (int r = 0; r < L.height; ++r) {
            const int nr = std::min(r, pc - 1) - std::max(0, r - p + 1) + 1;
            const double v = sum(r, c) / double(nr * nc) * L.scale + L.mean;
            out(r, c) = float(std::clamp(v, 0.0, 255.0));
        }
    }
    return keepObserved ? keepObservedPixels(L, std::move(out)) : out;
}

Eigen::ArrayXXf keepObservedPixels(const ImageLayout& L, Eigen::ArrayXXf fit)
{
    if (!L.exactObserved)
        return fit;
    for (int c = 0; c < L.width; ++c)
        for (int r = 0; r < L.height; ++r)
            if (L.pixelObserved(r, c))
                fit(r, c) = std::clamp(L.corrupted(r, c), 0.0f, 255.0f);
    return fit;
}

Eigen::ArrayXXf tileAtoms(const Eigen::MatrixXd& atoms, int p, int maxTiles, int scale, int border)
{
    if (p < 1 || atoms.cols() != p * p)
        throw std::invalid_argument("tileAtoms: atoms have " + std::to_string(atoms.cols()) +
                                    " entries, but patch " + std::to_string(p) + " needs " +
                                    std::to_string(p * p));
    if (scale < 1 || border < 0)
        throw std::invalid_argument("tileAtoms: scale = " + std::to_string(scale) +
                                    " and border = " + std::to_string(border) +
                                    ", but must be ≥ 1 and ≥ 0");
    const int n = int(std::min<Eigen::Index>(atoms.rows(), std::max(maxTiles, 0)));
    const int cols = std::max(1, int(std::ceil(std::sqrt(double(std::max(n, 1))))));
    const int rows = std::max(1, (n + cols - 1) / cols);
    const int tile = p * scale, step = tile + border;
    Eigen::ArrayXXf img =
        Eigen::ArrayXXf::Constant(rows * step + border, cols * step + border, 128.0f);
    for (int j = 0; j < n; ++j) {
        const double lo = atoms.row(j).minCoeff(), hi = atoms.row(j).maxCoeff();
        const int r0 = border + (j / cols) * step, c0 = border + (j % cols) * step;
        for (int d = 0; d < p * p; ++d) {
            const double v = hi > lo ? 255.0 * (atoms(j, d) - lo) / (hi - lo) : 128.0;
            img.block(r0 + (d / p) * scale, c0 + (d % p) * scale, scale, scale)
                .setConstant(float(v));
        }
    }
    return img;
}

Eigen::ArrayXXf atomsFileImage(const Eigen::MatrixXd& atoms, int patch)
{
    return tileAtoms(atoms, patch, 256, kAtomFileScale, kAtomFileBorder);
}

} // namespace svi
