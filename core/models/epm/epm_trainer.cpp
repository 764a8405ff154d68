#include "core/models/epm/epm_trainer.h"

#include "core/math/logistic.h"
#include "core/math/random.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace svi {
namespace {

// Stream ids (the first id of Rng::stream) apart from the engine's (1 and 2 + evaluation).
enum EpmStreamId : std::uint64_t {
    kEpmStreamInit = 0x45504d0001ULL,
    kEpmStreamLinkDraws = 0x45504d0002ULL,
};

} // namespace

namespace epm {

std::vector<double> heldOutProbability(const Graph& graph, int draws, const LinkDraw& draw,
                                       Communicator& ranks, Eigen::MatrixXd* links, int linkDraws)
{
    const auto& pairs = graph.heldOut;
    std::vector<double> prob(pairs.size(), 0.0);
    const int S = std::max(draws, 1);
    MatrixRD W;
    Eigen::VectorXd r;
    // This rank's share of the pairs (the others' stay 0 here), then every rank's.
    const Shard mine = ranks.shardOf(std::int64_t(pairs.size()));
    for (int s = 0; s < S; ++s) {
        draw(s, W, r);
        if (links && s < linkDraws) {
            const MatrixRD WR = W * r.asDiagonal();
            links->noalias() -= (-(WR * W.transpose())).array().expm1().matrix();
        }
        const std::int64_t H = mine.size();
        forChunksOf(H, H * r.size(), [&](int, std::int64_t begin, std::int64_t end) {
            for (std::int64_t k = mine.begin + begin; k < mine.begin + end; ++k)
                prob[std::size_t(k)] -=
                    std::expm1(-linkRate(W, r, pairs[std::size_t(k)].i, pairs[std::size_t(k)].j));
        });
    }
    ranks.sum(prob);
    for (double& p : prob)
        p /= double(S);
    if (links)
        *links /= double(std::clamp(linkDraws, 1, S));
    return prob;
}

Eigen::ArrayXd startingMeans(const Layout& L)
{
    Eigen::ArrayXd mean = Eigen::ArrayXd::Ones(L.size());
    mean.segment(L.w(), L.N * L.K).setConstant(1.0 / double(L.K));
    mean.segment(L.a(), L.N).setConstant(1.0 / double(L.K));
    return mean;
}

void evaluateLinks(Evaluation& ev, const Graph& graph, int evalDraws, bool full, bool point,
                   const LinkDraw& draw, Communicator& ranks, const MatrixRD& meanW,
                   const Eigen::VectorXd& meanR)
{
    // A snapshot averages at most kSnapshotDraws draws (each draws every N K + K gamma), the
    // preview's matrix at most kPreviewDraws of the same (N² K each).
    constexpr int kSnapshotDraws = 10, kPreviewDraws = 20;
    const int draws = point ? 1 : full ? evalDraws : std::min(evalDraws, kSnapshotDraws);
    const int nodes = graph.nodes;
    Eigen::MatrixXd linkSum;
    if (nodes <= kPreviewMaxNodes)
        linkSum = Eigen::MatrixXd::Zero(nodes, nodes);
    const std::vector<double> probability =
        heldOutProbability(graph, draws, draw, ranks, linkSum.size() > 0 ? &linkSum : nullptr,
                           point ? 1 : std::min(evalDraws, kPreviewDraws));
    addLinkMetrics(ev.metrics, graph.heldOut, probability);
    ev.metrics["communities_used"] = communitiesUsed(expectedCommunityCounts(graph, meanW, meanR));
    Eigen::MatrixXf links;
    if (linkSum.size() > 0) {
        links = linkSum.cast<float>();
        links.diagonal().setZero();
    }
    auto preview = std::make_shared<Preview>();
    preview->graph = graphSummary(meanW, meanR, std::move(links));
    ev.preview = std::move(preview);
}

} // namespace epm

EpmSgvbTrainer::EpmSgvbTrainer(GraphDataPtr data, SgvbMethod method, const EpmOptions& options,
                               std::uint64_t seed)
    : m_data(std::move(data)), m_options(options.checked()), m_method(method), m_seed(seed)
{
    if (!m_data)
        throw std::invalid_argument("EPM: no graph");
    m_graph = epm::Graph::from(*m_data);
    m_model = std::make_unique<epm::LogJoint>(m_graph, options.K, options.priors);
    const epm::Layout& L = m_model->layout();
    const double K = double(L.K);

    // The starting points (see the header): the paper's means, with the variance of a gamma of
    // shape 1 (init = moments) or of rate 1 (init = paper, its code's gamma start).
    Eigen::ArrayXd mean = epm::startingMeans(L), variance(L.size());
    variance = options.init == EpmInit::Paper ? mean : mean.square();
    Rng rng = Rng::stream(seed, kEpmStreamInit);
    if (method == SgvbMethod::Normal) {
        // Pre-images θ ~ N(0, 1) with sd 1: the engine puts θ at r⁻¹(m) with sd √v/σ(θ), which
        // is 1 for m = r(θ), v = σ(θ)².
        for (Eigen::Index i = 0; i < L.size(); ++i) {
            const double theta = rng.normal();
            mean[i] = softplus(theta);
            variance[i] = std::max(sigmoid(theta) * sigmoid(theta), 1e-300);
        }
    } else if (method == SgvbMethod::Map) {
        // A point has no spread to break the communities' symmetry: W starts at random.
        for (Eigen::Index i = 0; i < L.N * L.K; ++i)
            mean[L.w() + i] = rng.uniformOpen() / K;
    }
    m_sgvb.emplace(method, mean, variance, options.sgvb.optimizer, seed, options.sgvb.entropy);
}

StagedTrainer::Round EpmSgvbTrainer::localStep(std::int64_t t)
{
    m_rate = m_sgvb->optimizer().rate();
    const Eigen::ArrayXd& x = m_sgvb->drawStep(t);
    m_statistic.clear();
    m_model->itemTerms(x, communicator().shardOf(m_model->itemCount()), m_statistic);
    return Round::Update;
}

double EpmSgvbTrainer::globalUpdate(std::int64_t)
{
    m_sgvb->ascend(m_model->fromItemTerms(m_sgvb->drawn(), m_sgvb->gradient()));
    return m_rate;
}

void EpmSgvbTrainer::visitState(StateArchive& a)
{
    a.field("sgvb", *m_sgvb);
    a.field("evaluations", m_evaluations);
}

void EpmSgvbTrainer::drawLinkParameters(std::uint64_t id, std::uint64_t draw, epm::MatrixRD& W,
                                        Eigen::VectorXd& r) const
{
    const epm::Layout& L = m_model->layout();
    W.resize(L.N, L.K);
    r.resize(L.K);
    const Eigen::Index n = L.N * L.K + L.K; // W then r, contiguous in x
    const Eigen::Index P = L.size();
    const Eigen::ArrayXd& theta = m_sgvb->parameters();
    const auto put = [&](Eigen::Index v, double x) {
        if (v < L.N * L.K)
            W(v / L.K, v % L.K) = x;
        else
            r[v - L.N * L.K] = x;
    };
    // A gamma or normal draw costs some tens of multiply-adds.
    epm::forChunksOf(n, 30 * n, [&](int chunk, std::int64_t begin, std::int64_t end) {
        Rng rng = Rng::stream(m_seed, kEpmStreamLinkDraws, (id << 24) + draw, std::uint64_t(chunk));
        for (std::int64_t v = begin; v < end; ++v) {
            double x;
            switch (m_method) {
            case SgvbMethod::Gamma:
                // a = r(α), b = r(β), floored as the engine floors them.
                x = rng.gamma(flooredSoftplus(theta[v]), flooredSoftplus(theta[P + v]));
                break;
            case SgvbMethod::Normal:
                x = softplus(theta[v] + flooredSoftplus(theta[P + v]) * rng.normal());
                break;
            case SgvbMethod::Map:
            default:
                x = softplus(theta[v]);
                break;
            }
            put(v, std::max(x, std::numeric_limits<double>::min()));
        }
    });
}

std::vector<double> EpmSgvbTrainer::heldOutProbability(int draws, Eigen::MatrixXd* links,
                                                       int linkDraws) const
{
    return epm::heldOutProbability(
        m_graph, m_method == SgvbMethod::Map ? 1 : draws,
        [&](int s, epm::MatrixRD& W, Eigen::VectorXd& r) {
            drawLinkParameters(m_evaluations, std::uint64_t(s), W, r);
        },
        communicator(), links, linkDraws);
}

Evaluation EpmSgvbTrainer::evaluate(bool full)
{
    Evaluation ev;
    const std::uint64_t id = ++m_evaluations;
    ev.elbo = m_sgvb->elbo(*m_model, m_options.sgvb.elboSamples, id, communicator());
    if (m_method != SgvbMethod::Map && m_options.sgvb.varianceRepeats >= 2)
        ev.metrics["grad_variance"] =
            m_sgvb->gradientVariance(*m_model, m_options.sgvb.varianceRepeats, id);
    // The held-out pairs and the preview from draws of q (the point for MAP), the communities
    // from the posterior means.
    const epm::Layout& L = m_model->layout();
    const Eigen::ArrayXd mean = m_sgvb->mean();
    const epm::MatrixRD meanW = Eigen::Map<const epm::MatrixRD>(mean.data() + L.w(), L.N, L.K);
    const Eigen::VectorXd meanR = mean.segment(L.r(), L.K).matrix();
    epm::evaluateLinks(
        ev, m_graph, m_options.evalDraws, full, m_method == SgvbMethod::Map,
        [&](int s, epm::MatrixRD& W, Eigen::VectorXd& r) {
            drawLinkParameters(m_evaluations, std::uint64_t(s), W, r);
        },
        communicator(), meanW, meanR);
    return ev;
}

} // namespace svi
