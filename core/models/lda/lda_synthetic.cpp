#include "core/models/lda/lda_synthetic.h"

#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace svi {
namespace {

// A draw from Dir(a, …, a) of size n into out.
void dirichlet(Rng& rng, double a, double* out, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += out[i] = rng.gamma(a, 1.0);
    if (s <= 0.0) { // every draw underflowed (tiny a): put the mass on one component
        std::fill(out, out + n, 0.0);
        out[rng.below(std::uint64_t(n))] = 1.0;
        return;
    }
    for (int i = 0; i < n; ++i)
        out[i] /= s;
}

// Index of a draw from the distribution with cumulative sums `cum` (last = 1 up to rounding).
int drawIndex(Rng& rng, const std::vector<double>& cum)
{
    const double u = rng.uniform() * cum.back();
    const auto it = std::upper_bound(cum.begin(), cum.end(), u);
    return int(std::min<std::ptrdiff_t>(it - cum.begin(), std::ptrdiff_t(cum.size()) - 1));
}

void appendCounts(SparseRows& rows, const std::map<std::int32_t, float>& counts)
{
    std::vector<std::int32_t> cols;
    std::vector<float> values;
    for (const auto& [w, c] : counts) {
        cols.push_back(w);
        values.push_back(c);
    }
    rows.appendRow(cols, values);
}

} // namespace

LdaSynthetic makeLdaSynthetic(const LdaSyntheticOptions& o)
{
    auto bad = [](const std::string& field, const std::string& value, const std::string& rule) {
        return std::invalid_argument(field + " = " + value + ", but " + rule);
    };
    if (o.documents < 1)
        throw bad("documents", std::to_string(o.documents), "must be ≥ 1");
    if (o.V < 1)
        throw bad("V", std::to_string(o.V), "must be ≥ 1");
    if (o.K < 1)
        throw bad("K", std::to_string(o.K), "must be ≥ 1");
    if (o.wordsPerDocument < 2)
        throw bad("wordsPerDocument", std::to_string(o.wordsPerDocument), "must be ≥ 2");
    if (!(o.alpha > 0.0))
        throw bad("alpha", std::to_string(o.alpha), "must be > 0");
    if (!(o.eta > 0.0))
        throw bad("eta", std::to_string(o.eta), "must be > 0");
    if (!(o.testFraction >= 0.0 && o.testFraction < 1.0))
        throw bad("testFraction", std::to_string(o.testFraction), "must be in [0, 1)");

    LdaSynthetic out;
    const int K = o.K, V = o.V;
    out.betaT.resize(V, K);
    std::vector<std::vector<double>> cumBeta(static_cast<std::size_t>(K),
                                             std::vector<double>(static_cast<std::size_t>(V)));
    {
        Rng rng = Rng::stream(o.seed, 1);
        std::vector<double> b(static_cast<std::size_t>(V));
        for (int k = 0; k < K; ++k) {
            dirichlet(rng, o.eta, b.data(), V);
            double c = 0.0;
            for (int w = 0; w < V; ++w) {
                out.betaT(w, k) = b[std::size_t(w)];
                cumBeta[std::size_t(k)][std::size_t(w)] = c += b[std::size_t(w)];
            }
        }
    }

    const std::int64_t D = o.documents;
    const std::int64_t tests = std::llround(o.testFraction * double(D));
    std::vector<std::int64_t> order(static_cast<std::size_t>(D));
    for (std::int64_t d = 0; d < D; ++d)
        order[std::size_t(d)] = d;
    {
        Rng rng = Rng::stream(o.seed, 2);
        for (std::size_t i = 0; i < std::size_t(tests); ++i)
            std::swap(order[i], order[i + rng.below(order.size() - i)]);
    }
    auto data = std::make_shared<CountData>();
    data->testRows.assign(order.begin(), order.begin() + tests);
    std::sort(data->testRows.begin(), data->testRows.end());
    data->vocabularySize = V;
    for (int w = 0; w < V; ++w)
        data->columnNames.push_back(std::string(1, 'w').append(std::to_string(w)));
    data->source = "synthetic LDA corpus";

    out.theta.resize(D, K);
    std::vector<double> cumTheta(static_cast<std::size_t>(K));
    std::map<std::int32_t, float> first, second;
    for (std::int64_t d = 0; d < D; ++d) {
        Rng rng = Rng::stream(o.seed, 3, std::uint64_t(d));
        dirichlet(rng, o.alpha, out.theta.row(d).data(), K);
        double c = 0.0;
        for (int k = 0; k < K; ++k)
            cumTheta[std::size_t(k)] = c += out.theta(d, k);
        const int length =
            o.wordsPerDocument / 2 + int(rng.below(std::uint64_t(o.wordsPerDocument) + 1));
        const bool test = data->isTestRow(d);
        first.clear();
        second.clear();
        for (int n = 0; n < length; ++n) {
            const int z = drawIndex(rng, cumTheta);
            const auto w = std::int32_t(drawIndex(rng, cumBeta[std::size_t(z)]));
            (test && n >= length / 2 ? second : first)[w] += 1.0f;
        }
        appendCounts(data->train, first);
        appendCounts(data->heldOut, second);
    }
    data->finalise();
    out.data = std::move(data);
    return out;
}

} // namespace svi
