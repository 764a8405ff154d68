#include "core/data/image_task.h"

#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace svi {
namespace {

std::string num(double v)
{
    std::ostringstream o;
    o << v;
    return o.str();
}

} // namespace

std::optional<std::string> InpaintOptions::validate() const
{
    if (!(missing >= 0.0 && missing < 1.0))
        return "missing = " + num(missing) + ", but must be in [0, 1)";
    if (!(noise >= 0.0) || !std::isfinite(noise))
        return "noise = " + num(noise) + ", but must be ≥ 0";
    if (patch < 2 || patch > 64)
        return "patch = " + std::to_string(patch) + ", but must be in [2, 64]";
    return std::nullopt;
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
    if (!image.allFinite())
        throw std::invalid_argument("image contains NaN or infinite pixel values");

    ImageLayout L;
    L.width = W;
    L.height = H;
    L.patch = p;
    L.original = image;
    L.corrupted = Eigen::ArrayXXf::Zero(H, W);
    L.pixelObserved = MatrixRU8::Zero(H, W);

    // Exactly round((1 − missing)·H·W) observed pixels, chosen by a seeded partial shuffle.
    const std::int64_t total = std::int64_t(H) * W;
    const auto keep = std::int64_t(std::llround((1.0 - o.missing) * double(total)));
    std::vector<std::int64_t> order(static_cast<std::size_t>(total));
    std::iota(order.begin(), order.end(), std::int64_t(0));
    Rng pick = Rng::stream(o.seed, 0x6d61736bULL);
    for (std::int64_t j = 0; j < keep; ++j)
        std::swap(order[std::size_t(j)], order[std::size_t(j + std::int64_t(pick.below(std::uint64_t(total - j))))]);
    Rng noise = Rng::stream(o.seed, 0x6e6f697365ULL);
    for (std::int64_t j = 0; j < keep; ++j) {
        const std::int64_t idx = order[std::size_t(j)];
        L.pixelObserved(idx / W, idx % W) = 1;
    }
    double sum = 0.0, sumSq = 0.0;
    std::int64_t count = 0;
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
            ++count;
        }
    if (count > 0) {
        L.mean = sum / double(count);
        const double var = std::max(0.0, sumSq / double(count) - L.mean * L.mean);
        L.scale = std::max(std::sqrt(var), 1e-6);
    } else {
        L.mean = 0.0;
        L.scale = 1.0;
    }

    auto data = std::make_shared<DenseData>();
    const int pr = W - p + 1, pc = H - p + 1, D = p * p;
    const std::int64_t N = std::int64_t(pr) * pc;
    data->values.resize(N, D);
    data->roles.resize(N, D);
    data->source = source;
    const float mean = float(L.mean), inv = float(1.0 / L.scale);
#pragma omp parallel for schedule(static)
    for (int r0 = 0; r0 < pc; ++r0) {
        for (int c0 = 0; c0 < pr; ++c0) {
            const std::int64_t i = std::int64_t(r0) * pr + c0;
            float* vals = data->values.row(i).data();
            std::uint8_t* roles = data->roles.row(i).data();
            for (int dr = 0; dr < p; ++dr)
                for (int dc = 0; dc < p; ++dc) {
                    const int r = r0 + dr, c = c0 + dc, d = dr * p + dc;
                    if (L.pixelObserved(r, c)) {
                        vals[d] = (L.corrupted(r, c) - mean) * inv;
                        roles[d] = std::uint8_t(EntryRole::Observed);
                    } else {
                        vals[d] = (image(r, c) - mean) * inv;
                        roles[d] = std::uint8_t(EntryRole::HeldOut);
                    }
                }
        }
    }
    data->image = std::move(L);
    return data;
}

Eigen::ArrayXXf reconstructImage(const ImageLayout& L, const MatrixRF& est)
{
    const int p = L.patch, pr = L.patchesPerRow(), pc = L.patchesPerCol();
    if (est.rows() != L.patchCount() || est.cols() != p * p)
        throw std::invalid_argument("reconstructImage: estimates are " + std::to_string(est.rows()) +
                                    "×" + std::to_string(est.cols()) + ", but the layout needs " +
                                    std::to_string(L.patchCount()) + "×" + std::to_string(p * p));
    Eigen::ArrayXXd sum = Eigen::ArrayXXd::Zero(L.height, L.width);
    // Rows of patches are accumulated in parallel in two interleaved passes so that no two
    // threads write the same pixel row at once (patches of origin rows r and r + p never
    // overlap).
    for (int phase = 0; phase < 2; ++phase) {
#pragma omp parallel for schedule(static)
        for (int block = phase; block < (pc + p - 1) / p; block += 2) {
            for (int r0 = block * p; r0 < std::min(pc, (block + 1) * p); ++r0)
                for (int c0 = 0; c0 < pr; ++c0) {
                    const float* e = est.row(std::int64_t(r0) * pr + c0).data();
                    for (int dr = 0; dr < p; ++dr)
                        for (int dc = 0; dc < p; ++dc)
                            sum(r0 + dr, c0 + dc) += e[dr * p + dc];
                }
        }
    }
    Eigen::ArrayXXf out(L.height, L.width);
    for (int r = 0; r < L.height; ++r) {
        const int nr = std::min(r, pc - 1) - std::max(0, r - p + 1) + 1;
        for (int c = 0; c < L.width; ++c) {
            const int nc = std::min(c, pr - 1) - std::max(0, c - p + 1) + 1;
            const double v = sum(r, c) / double(nr * nc) * L.scale + L.mean;
            out(r, c) = float(std::clamp(v, 0.0, 255.0));
        }
    }
    return out;
}

Eigen::ArrayXXf tileAtoms(const Eigen::MatrixXd& atoms, int p, int maxTiles)
{
    if (p < 1 || atoms.cols() != p * p)
        throw std::invalid_argument("tileAtoms: atoms have " + std::to_string(atoms.cols()) +
                                    " entries, but patch " + std::to_string(p) + " needs " +
                                    std::to_string(p * p));
    const int n = int(std::min<Eigen::Index>(atoms.rows(), std::max(maxTiles, 0)));
    const int cols = std::max(1, int(std::ceil(std::sqrt(double(std::max(n, 1))))));
    const int rows = std::max(1, (n + cols - 1) / cols);
    Eigen::ArrayXXf img = Eigen::ArrayXXf::Constant(rows * (p + 1) + 1, cols * (p + 1) + 1, 128.0f);
    for (int j = 0; j < n; ++j) {
        const double lo = atoms.row(j).minCoeff(), hi = atoms.row(j).maxCoeff();
        const int r0 = 1 + (j / cols) * (p + 1), c0 = 1 + (j % cols) * (p + 1);
        for (int d = 0; d < p * p; ++d) {
            const double v = hi > lo ? 255.0 * (atoms(j, d) - lo) / (hi - lo) : 128.0;
            img(r0 + d / p, c0 + d % p) = float(v);
        }
    }
    return img;
}

} // namespace svi
