// LDA training speed and where the time goes (not a test).
//
//   bench_lda CORPUS.dat [steps] [K] [minibatch] [threads,...]
//
// Reads a corpus in LDA-C format (one document per line: "N word:count ..."; a minimal reader
// of its own, so the benchmark does not depend on the loaders), trains SVI with κ = 0.7,
// τ0 = 64, α = 1/K, η = 0.01 (Hoffman et al. 2013's AP settings) for `steps` minibatches after
// one warm-up step, once per thread count, and prints documents per second, seconds per step
// and the split of a step into local steps, λ update and exp(E[log β]). Also times ψ over a
// V×K array with Boost.Math and with lda::digamma.

#include "core/models/lda/lda_trainer.h"

#include <algorithm>
#include <boost/math/special_functions/digamma.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <omp.h>
#include <sstream>
#include <string>

using namespace svi;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0)
{
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

CountDataPtr readLdaC(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw std::runtime_error("cannot open " + path);
    auto data = std::make_shared<CountData>();
    std::string line;
    std::int32_t maxWord = -1;
    std::vector<std::pair<std::int32_t, float>> entries;
    std::vector<std::int32_t> cols;
    std::vector<float> counts;
    while (std::getline(in, line)) {
        std::istringstream ls(line);
        int n = 0;
        if (!(ls >> n))
            continue;
        entries.clear();
        std::string tok;
        while (ls >> tok) {
            const auto colon = tok.find(':');
            entries.emplace_back(std::stoi(tok.substr(0, colon)), std::stof(tok.substr(colon + 1)));
        }
        std::sort(entries.begin(), entries.end());
        cols.clear();
        counts.clear();
        for (const auto& [w, c] : entries) {
            if (!cols.empty() && cols.back() == w) {
                counts.back() += c;
                continue;
            }
            cols.push_back(w);
            counts.push_back(c);
            maxWord = std::max(maxWord, w);
        }
        data->train.appendRow(cols, counts);
        data->heldOut.appendRow({}, {});
    }
    data->vocabularySize = maxWord + 1;
    data->source = path;
    data->finalise();
    return data;
}

} // namespace

// The local steps of the first 500 training documents under the trained topics: their mean
// γ updates, of which exact (double, every topic) ones, and the topics in play when the
// single-precision phase handed over (topic_model.h, localStep).
void localProfile(LdaTrainer& trainer, const CountData& data, const LdaOptions& o)
{
    lda::LocalWorkspace ws;
    Eigen::Index longest = 0;
    const std::int64_t docs = std::min<std::int64_t>(500, data.rows());
    for (std::int64_t r = 0; r < docs; ++r)
        longest = std::max<Eigen::Index>(longest, data.train.rowNonZeros(r));
    ws.resize(o.K, longest);
    double iterations = 0.0, dense = 0.0, active = 0.0;
    for (std::int64_t r = 0; r < docs; ++r) {
        ws.gather(trainer.expElogBetaT(), data.train.rowCols(r), data.train.rowCounts(r));
        lda::localStep(ws, {trainer.alpha(), o.localIters, o.localTol});
        iterations += ws.iterations;
        dense += ws.denseIterations;
        active += ws.activeTopics;
    }
    std::printf("  local steps of %lld documents: %.1f γ updates, %.2f of them exact; %.1f of %d "
                "topics in play\n",
                (long long)docs, iterations / double(docs), dense / double(docs),
                active / double(docs), o.K);
}

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s CORPUS.dat [steps] [K] [minibatch] [threads,...]\n",
                     argv[0]);
        return 2;
    }
    const int steps = argc > 2 ? std::atoi(argv[2]) : 30;
    LdaOptions o;
    o.K = argc > 3 ? std::atoi(argv[3]) : 100;
    o.minibatch = argc > 4 ? std::atoll(argv[4]) : 256;
    o.kappa = 0.7;
    o.tau0 = 64.0;
    o.eta = 0.01;
    std::vector<int> threadCounts = {1, 2};
    if (argc > 5) {
        threadCounts.clear();
        std::istringstream ts(argv[5]);
        std::string t;
        while (std::getline(ts, t, ','))
            threadCounts.push_back(std::atoi(t.c_str()));
    }

    const auto t0 = Clock::now();
    const CountDataPtr data = readLdaC(argv[1]);
    std::printf("%s: %lld documents, %lld words, %.0f tokens, %lld distinct (document, word) "
                "pairs; read in %.2f s\n",
                argv[1], (long long)data->rows(), (long long)data->vocabularySize,
                data->train.total(), (long long)data->train.nonZeros(), since(t0));
    std::printf(
        "K = %d, minibatch %lld, kappa %.2f, tau0 %.0f, local_iters %d, local_tol %g, %d steps\n\n",
        o.K, (long long)o.minibatch, o.kappa, o.tau0, o.localIters, o.localTol, steps);

    for (int threads : threadCounts) {
        omp_set_num_threads(threads);
        LdaTrainer trainer(data, LdaAlgorithm::Svi, o, 1);
        trainer.step(1); // warm-up: workspaces, page faults
        double local = 0.0, update = 0.0, expectation = 0.0;
        const auto start = Clock::now();
        for (int t = 2; t <= steps + 1; ++t) {
            trainer.step(t);
            local += trainer.lastStepTimes().local;
            update += trainer.lastStepTimes().update;
            expectation += trainer.lastStepTimes().expectation;
        }
        const double seconds = since(start);
        const double docs = double(steps) * double(trainer.itemsPerStep());
        const auto e0 = Clock::now();
        const Evaluation ev = trainer.evaluate(false);
        const double evalSeconds = since(e0);
        std::printf("%d thread%s: %.0f documents/s, %.4f s/step (local steps %.1f %%, λ update "
                    "%.1f %%, exp(E[log β]) %.1f %%); evaluate(false) %.2f s, ELBO %.6g\n",
                    threads, threads > 1 ? "s" : "", docs / seconds, seconds / steps,
                    100.0 * local / seconds, 100.0 * update / seconds,
                    100.0 * expectation / seconds, evalSeconds, ev.elbo);
        if (threads == threadCounts.front())
            localProfile(trainer, *data, o);
    }

    // ψ over a V×K array, one thread: what the recomputation of E[log β] costs per step.
    omp_set_num_threads(1);
    const Eigen::Index n = data->vocabularySize * o.K;
    std::vector<double> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i)
        x[std::size_t(i)] = 0.01 + double(i % 1000) * 0.37;
    auto b0 = Clock::now();
    for (Eigen::Index i = 0; i < n; ++i)
        y[std::size_t(i)] = boost::math::digamma(x[std::size_t(i)]);
    const double boostSeconds = since(b0);
    const double check = y[std::size_t(n / 2)];
    b0 = Clock::now();
    lda::digamma(x.data(), y.data(), n);
    const double ownSeconds = since(b0);
    std::printf("\npsi over %lld values: boost::math::digamma %.1f ms, lda::digamma %.1f ms "
                "(%.1f×); |difference| at the middle value %.2g\n",
                (long long)n, 1e3 * boostSeconds, 1e3 * ownSeconds, boostSeconds / ownSeconds,
                std::abs(check - y[std::size_t(n / 2)]));
    return 0;
}
