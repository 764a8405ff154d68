#include "core/models/gpfa/gpfa_synthetic.h"

#include "core/base/parallel.h"
#include "core/base/params.h"
#include "core/math/random.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace svi {
namespace {

constexpr std::uint64_t kLoadingsStream = 0x6770666177ULL; // "gpfaw"
constexpr std::uint64_t kRowStream = 0x6770666179ULL;      // "gpfay"

void require(bool ok, const std::string& field, const std::string& value, const std::string& rule)
{
    if (!ok)
        throw std::invalid_argument(fieldError("makeGpfaSynthetic: " + field, value, rule));
}

} // namespace

DenseDataPtr makeGpfaSynthetic(const GpfaSyntheticOptions& o)
{
    require(o.N >= 1, "N", std::to_string(o.N), "must be ≥ 1");
    require(o.D >= 1, "D", std::to_string(o.D), "must be ≥ 1");
    require(o.K >= 1, "K", std::to_string(o.K), "must be ≥ 1");
    require(o.density >= 0.0 && o.density <= 1.0, "density", formatNumber(o.density),
            "must be in [0, 1]");
    require(o.noiseVariance >= 0.0 && std::isfinite(o.noiseVariance), "noiseVariance",
            formatNumber(o.noiseVariance), "must be ≥ 0 and finite");

    Eigen::MatrixXd w(o.D, o.K);
    Rng rng = Rng::stream(o.seed, kLoadingsStream);
    for (int k = 0; k < o.K; ++k)
        for (int d = 0; d < o.D; ++d)
            w(d, k) = rng.uniform() < o.density ? rng.uniform() : 0.0;

    auto data = std::make_shared<DenseData>();
    data->values.resize(o.N, o.D);
    data->roles.setConstant(o.N, o.D, std::uint8_t(EntryRole::Observed));
    data->source = "synthetic GPFA data";
    const double noiseSd = std::sqrt(o.noiseVariance);
    forChunks(o.N, [&](int, std::int64_t begin, std::int64_t end) {
        Eigen::VectorXd x(o.K), y(o.D);
        for (std::int64_t i = begin; i < end; ++i) {
            Rng r = Rng::stream(o.seed, kRowStream, std::uint64_t(i));
            for (int k = 0; k < o.K; ++k)
                x[k] = r.normal();
            y.noalias() = w * x;
            for (int d = 0; d < o.D; ++d)
                data->values(i, d) = float(y[d] + noiseSd * r.normal());
        }
    });
    data->trueLoadings = std::move(w);
    return data;
}

} // namespace svi
