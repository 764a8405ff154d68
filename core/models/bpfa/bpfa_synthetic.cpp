#include "core/models/bpfa/bpfa_synthetic.h"

#include "core/math/random.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace svi {

BpfaSynthetic makeBpfaSynthetic(const BpfaSyntheticOptions& o)
{
    auto fail = [](const std::string& what) {
        throw std::invalid_argument("makeBpfaSynthetic: " + what);
    };
    if (o.N < 1)
        fail("N = " + std::to_string(o.N) + ", but must be ≥ 1");
    if (o.D < 1)
        fail("D = " + std::to_string(o.D) + ", but must be ≥ 1");
    if (o.K < 1)
        fail("K = " + std::to_string(o.K) + ", but must be ≥ 1");
    if (!(o.gammaW > 0) || !(o.gammaObs > 0))
        fail("gammaW and gammaObs must be > 0");
    if (!(o.heldOut >= 0.0 && o.heldOut < 1.0))
        fail("heldOut = " + std::to_string(o.heldOut) + ", but must be in [0, 1)");

    Rng rng = Rng::stream(o.seed, 0x73796e74ULL);
    if (!std::isfinite(o.loadingVariance))
        fail("loadingVariance must be finite");
    const double phiSd = std::sqrt(o.loadingVariance > 0 ? o.loadingVariance : 1.0 / double(o.D));
    Eigen::MatrixXd phi(o.K, o.D);
    for (int k = 0; k < o.K; ++k)
        for (int d = 0; d < o.D; ++d)
            phi(k, d) = rng.normal() * phiSd;
    Eigen::VectorXd pi(o.K);
    for (int k = 0; k < o.K; ++k)
        pi[k] = rng.beta(o.a / o.K, o.b * (o.K - 1) / o.K + (o.K == 1 ? o.b : 0.0));

    auto data = std::make_shared<DenseData>();
    data->values.resize(o.N, o.D);
    data->roles.resize(o.N, o.D);
    data->source = "synthetic BPFA data";
    Eigen::VectorXd x(o.K);
    for (std::int64_t i = 0; i < o.N; ++i) {
        for (int k = 0; k < o.K; ++k)
            x[k] = rng.uniform() < pi[k] ? rng.normal() / std::sqrt(o.gammaW) : 0.0;
        for (int d = 0; d < o.D; ++d) {
            const double y = x.dot(phi.col(d)) + rng.normal() / std::sqrt(o.gammaObs);
            data->values(i, d) = float(y);
            data->roles(i, d) =
                std::uint8_t(rng.uniform() < o.heldOut ? EntryRole::HeldOut : EntryRole::Observed);
        }
    }
    double scale = 1.0;
    if (o.standardise) {
        const double mean = data->values.cast<double>().mean();
        const double var = (data->values.cast<double>().array() - mean).square().mean();
        scale = var > 0 ? std::sqrt(var) : 1.0;
        data->values = ((data->values.array() - float(mean)) / float(scale)).matrix();
    }
    BpfaSynthetic out;
    out.noiseVariance = 1.0 / o.gammaObs / (scale * scale);
    out.data = std::move(data);
    return out;
}

} // namespace svi
