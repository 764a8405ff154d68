#include "core/models/epm/epm_black_box.h"

#include "core/math/random.h"
#include "core/models/bbvi/positive_black_box.h"
#include "core/models/epm/epm_trainer.h"
#include "core/models/memory_terms.h"

#include <limits>

namespace svi {
namespace {

constexpr std::uint64_t kLinkStream = 0x45504d0003ULL; // apart from the SGVB trainer's

} // namespace

ParamFields<EpmBbviOptions> EpmBbviOptions::declare()
{
    using O = EpmBbviOptions;
    // One item (the whole graph): no minibatch to choose, no local steps; RMSprop at 0.1
    // decaying with κ = 0.6 as on the GLMM.
    return ParamFields<O>()
        .add(epm::communitiesParam(), &O::K)
        .add(&O::priors, epm::Priors::declare())
        .add(&O::bbvi, BbviOptions::declare(false, 1, 0, 16, 0.6, true))
        .add(epm::evalDrawsParam(), &O::evalDraws);
}

const ParamFields<EpmBbviOptions>& EpmBbviOptions::fields()
{
    static const ParamFields<EpmBbviOptions> f = declare();
    return f;
}

struct EpmBlackBoxTrainer::Parts
{
    epm::Graph graph;
    std::unique_ptr<epm::LogJoint> joint;
};

EpmBlackBoxTrainer::EpmBlackBoxTrainer(GraphDataPtr data, const EpmBbviOptions& options,
                                       std::uint64_t seed)
    : EpmBlackBoxTrainer(
          [&] {
              if (!data)
                  throw std::invalid_argument("EPM: no graph");
              auto parts = std::make_shared<Parts>();
              parts->graph = epm::Graph::from(*data);
              parts->joint = std::make_unique<epm::LogJoint>(parts->graph, options.checked().K,
                                                             options.priors);
              return parts;
          }(),
          options, seed)
{
}

namespace {

// The start of gamma SGVB's init = moments: the paper's means (w, a: 1/K; the rest 1), with the
// variance of a gamma of shape 1.
std::unique_ptr<BlackBoxModel> startingModel(const std::shared_ptr<const epm::LogJoint>& joint)
{
    Eigen::ArrayXd mean = epm::startingMeans(joint->layout());
    Eigen::ArrayXd variance = mean.square();
    return std::make_unique<PositiveBlackBoxModel>(joint, std::move(mean), std::move(variance));
}

} // namespace

EpmBlackBoxTrainer::EpmBlackBoxTrainer(std::shared_ptr<Parts> parts, const EpmBbviOptions& options,
                                       std::uint64_t seed)
    : BlackBoxTrainer(
          startingModel(std::shared_ptr<const epm::LogJoint>(parts, parts->joint.get())),
          options.bbvi, seed),
      m_parts(std::move(parts)), m_options(options.checked()), m_seed(seed)
{
}

void EpmBlackBoxTrainer::report(Evaluation& ev, bool full, std::uint64_t id) const
{
    const epm::Layout& L = m_parts->joint->layout();
    const QLayout& q = model().globals();
    const Eigen::Index n = L.N * L.K + L.K; // W then r, the first variables
    Eigen::MatrixXd z(n, 1), logQ(n, 1), score(2 * n, 1);
    Eigen::ArrayXd mean(q.variables()), variance(q.variables());
    q.moments(engine().global(), mean, variance);
    const epm::MatrixRD meanW = Eigen::Map<const epm::MatrixRD>(mean.data() + L.w(), L.N, L.K);
    const Eigen::VectorXd meanR = mean.segment(L.r(), L.K).matrix();
    epm::evaluateLinks(
        ev, m_parts->graph, m_options.evalDraws, full, false,
        [&](int s, epm::MatrixRD& W, Eigen::VectorXd& r) {
            Rng rng = Rng::stream(m_seed, kLinkStream, id, std::uint64_t(s));
            q.drawMany(engine().global(), 0, n, std::span(&rng, 1), z, logQ, score);
            W = Eigen::Map<const epm::MatrixRD>(z.data() + L.w(), L.N, L.K);
            r = z.col(0).segment(L.r(), L.K);
        },
        localCommunicator(), meanW, meanR);
}

void addEpmBbviEntry(Registry& r, const AlgorithmEntry& sgvb)
{
    AlgorithmEntry e = sgvb;
    e.algorithm = "bbvi";
    e.label = "BBVI";
    e.help = "black-box VI (paper 004 §2.5): score-function gradients of gamma SGVB's q from S "
             "draws, Rao-Blackwellised over each variable's blanket, with control variates "
             "(or, estimator = reparam, its reparameterised gradient at S draws)";
    e.compareRank = 0; // outside paper 003's Figure 3: Compare runs it when ticked
    e.params = EpmBbviOptions::declare().specs();
    e.bound = "a Monte Carlo estimate of the evidence lower bound of the training pairs, from "
              "elbo_samples draws of q";
    e.make = [](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<EpmBlackBoxTrainer>(data.requireGraph("EPM"),
                                                    EpmBbviOptions::fromParams(values), seed);
    };
    e.readOptions = optionsReader<EpmBbviOptions>();
    // S draws of every variable with their scores, and per draw the blankets (or gradients):
    // about 10 × draws doubles per variable; the graph and the preview as gamma SGVB's.
    e.memory = [base = sgvb.memory](const DataSet& data, const ParamValues& v) {
        using namespace memory;
        std::vector<MemoryTerm> terms;
        for (MemoryTerm& t : base(data, v))
            if (t.setting != "K")
                terms.push_back(std::move(t));
        const double V = double(data.graph->nodes), K = number(v, "K");
        terms.push_back({"S draws of q with their scores and blankets: about 10 × draws × nodes "
                         "× K doubles",
                         10 * kDouble * number(v, "draws") * (V * K + K + 2 * V), "draws"});
        return terms;
    };
    e.smallSettings = {{"K", std::int64_t(3)},
                       {"eval_draws", std::int64_t(2)},
                       {"elbo_samples", std::int64_t(2)},
                       {"draws", std::int64_t(4)},
                       {"variance_repeats", std::int64_t(2)}};
    r.add(std::move(e));
}

} // namespace svi
