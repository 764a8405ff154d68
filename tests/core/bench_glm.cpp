// The Bayesian GLM's step against the dense linear algebra it needs (not a test).
//
//   bench_glm TRAIN [TEST] [steps] [minibatch] [samples] [threads,...]
//
// Reads labelled data as `svi run` does (a9a and a9a.t: LIBSVM, z-scored, an intercept), then
// for each thread count times `steps` H-MC-SSVI steps (full covariance, Monte Carlo estimates,
// after 3 warm-up steps) and the floor of the same step: for one minibatch of the same size
// and chunking, gathering the rows, H m, ‖R h_i‖² (an n×D by D×D product), Hᵀα and HᵀΓH (a
// D×n by n×D product), the sum of the chunks' D×D matrices, and the D×D Cholesky
// factorisations and inverse of the covariance update — everything but the per-row Monte
// Carlo draws and the likelihood's derivatives. Prints seconds per step of both and their
// ratio.

#include "core/base/parallel.h"
#include "core/io/data_kinds.h"
#include "core/models/glm/glm_trainer.h"

#include <Eigen/Cholesky>
#include <array>
#include <cctype>
#include <cstdio>
#include <omp.h>
#include <sstream>
#include <string>

using namespace svi;

namespace {

std::vector<int> parseThreads(const std::string& text)
{
    std::vector<int> out;
    std::stringstream in(text);
    std::string item;
    while (std::getline(in, item, ','))
        out.push_back(std::stoi(item));
    return out;
}

// One step's dense linear algebra, chunked as the trainer chunks it.
double floorStep(const LabelledData& d, const std::vector<std::int64_t>& rows, const GaussianQ& q)
{
    const int D = d.cols();
    struct Chunk
    {
        MatrixRD x, work;
        Eigen::VectorXd m, v, a;
        LgmGradients g;
    };
    static std::array<Chunk, kChunks> chunks;
    const auto t0 = Clock::now();
    forChunks(std::int64_t(rows.size()), [&](int ci, std::int64_t b, std::int64_t e) {
        Chunk& c = chunks[std::size_t(ci)];
        c.x.resize(e - b, D);
        for (std::int64_t r = b; r < e; ++r)
            c.x.row(r - b) = d.x.row(rows[std::size_t(r)]);
        c.m.noalias() = c.x * q.mean();
        c.v.resize(e - b);
        q.marginalVariances(c.x, c.v, c.work);
        c.a = -0.1 * c.v; // stands in for α̂ and γ̂
        c.g.reset(D, q.form());
        c.g.addRows(c.x, c.m, c.a, q.form());
    });
    LgmGradients total;
    total.reset(D, q.form());
    for (int c = 0; c < int(std::min<std::size_t>(kChunks, rows.size())); ++c)
        total.add(chunks[std::size_t(c)].g, q.form());
    const Eigen::MatrixXd P =
        Eigen::MatrixXd::Identity(D, D) - 2.0 * total.gammaFull / double(rows.size());
    const Eigen::LLT<Eigen::MatrixXd> llt(P);
    const Eigen::MatrixXd S = llt.solve(Eigen::MatrixXd::Identity(D, D));
    const Eigen::LLT<Eigen::MatrixXd> root(S);
    volatile double sink = root.matrixU()(0, 0) + total.g[0];
    (void)sink;
    return secondsSince(t0);
}

} // namespace

int main(int argc, char** argv)
{
    if (argc < 2) {
        std::fprintf(stderr,
                     "usage: bench_glm TRAIN [TEST] [steps] [minibatch] [samples] [threads,...]\n");
        return 2;
    }
    int arg = 1;
    DataDescription desc;
    desc.files.push_back(argv[arg++]);
    if (arg < argc && !std::isdigit(static_cast<unsigned char>(argv[arg][0])))
        desc.files.push_back(argv[arg++]);
    const int steps = arg < argc ? std::stoi(argv[arg++]) : 50;
    const int minibatch = arg < argc ? std::stoi(argv[arg++]) : 2000;
    const int samples = arg < argc ? std::stoi(argv[arg++]) : 10;
    const std::vector<int> threads =
        parseThreads(arg < argc ? argv[arg++] : std::to_string(omp_get_max_threads()));

    const PreparedData prepared = prepareData(desc);
    const LabelledDataPtr data = prepared.built.data.requireLabelled("bench_glm");
    std::printf("%s\n%d timed steps, minibatch %d, %d samples per row, full covariance\n\n",
                prepared.built.summary.c_str(), steps, minibatch, samples);
    std::printf("%7s %14s %14s %7s\n", "threads", "s/step", "floor s/step", "ratio");
    for (int t : threads) {
        omp_set_num_threads(t);
        GlmOptions o;
        o.lgm.minibatch = minibatch;
        o.samples = samples;
        GlmTrainer trainer(data, LgmAlgorithm::HybridMcSsvi, o, 1);
        for (int s = 1; s <= 3; ++s)
            trainer.step(s);
        const auto t0 = Clock::now();
        for (int s = 4; s < 4 + steps; ++s)
            trainer.step(s);
        const double perStep = secondsSince(t0) / steps;
        StepRows rows(data->trainingRows, true, minibatch, 7);
        double floor = 0.0;
        for (int s = 0; s < 3 + steps; ++s) {
            rows.next();
            const double sec = floorStep(*data, rows.rows(), trainer.posterior());
            if (s >= 3)
                floor += sec;
        }
        floor /= steps;
        std::printf("%7d %14.5f %14.5f %7.2f\n", t, perStep, floor, perStep / floor);
    }
    return 0;
}
