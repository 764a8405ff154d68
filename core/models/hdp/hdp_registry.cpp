#include "core/models/hdp/hdp.h"
#include "core/models/hdp/hdp_trainer.h"
#include "core/models/lda/lda.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

constexpr double kHuge = std::numeric_limits<double>::max();

std::vector<ParamSpec> hdpParams(bool svi)
{
    std::vector<ParamSpec> p;
    p.push_back(intParam("T", "Topics T (truncation)",
                         "corpus-level truncation: the most topics the fit can use", 150, 1,
                         100000));
    p.push_back(intParam("K", "Atoms per document K",
                         "document-level truncation: the most topics one document can use", 15, 1,
                         10000));
    if (svi) {
        // Wang et al.'s regime (small minibatches, large early steps): on AP it reaches LDA's
        // held-out perplexity within a minute, where LDA's τ0 = 64, κ = 0.7, 256 documents
        // leave one general topic holding most of the stick (README, Measured).
        p.push_back(
            intParam("minibatch", "Minibatch", "documents per stochastic step", 100, 1, 1e9));
        p.push_back(realParam("kappa", "Forgetting rate κ",
                              "step size ρ_t = (t + τ0)^(−κ); κ in [0.5, 1]", 0.5, 0.5, 1.0));
        p.push_back(
            realParam("tau0", "Delay τ0", "step size ρ_t = (t + τ0)^(−κ); τ0 ≥ 0", 1.0, 0.0, 1e9));
    }
    p.push_back(realParam("alpha", "Document concentration α",
                          "π'_jt ~ Beta(1, α): larger α spreads a document over more topics", 1.0,
                          1e-12, kHuge));
    p.push_back(realParam("gamma", "Corpus concentration γ",
                          "β'_k ~ Beta(1, γ): larger γ lets the corpus use more topics", 1.0, 1e-12,
                          kHuge));
    p.push_back(realParam("eta", "Prior η", "β_k ~ Dirichlet(η) over the words of a topic", 0.01,
                          1e-12, kHuge));
    p.push_back(intParam("local_iters", "Local iterations",
                         "ζ/φ/(a, b) updates per document at most", 100, 1, 100000));
    p.push_back(realParam("local_tol", "Local tolerance",
                          "stop a document's updates once its ELBO rises by less than tol·|ELBO|",
                          1e-4, 0.0, kHuge));
    p.push_back(
        ParamSpec{"sort_topics",
                  "Sort topics",
                  "after each step, order topics by decreasing stick statistic (Wang et al.)",
                  ParamType::Bool,
                  1.0,
                  0.0,
                  1.0,
                  {},
                  ""});
    const auto eval = topicEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

void add(Registry& r, HdpAlgorithm algorithm, std::string key, std::string label, std::string help)
{
    AlgorithmEntry e;
    e.model = "hdp";
    e.modelLabel = "Hierarchical Dirichlet process";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"corpus"};
    e.metrics = topicMetrics();
    e.compareRank = algorithm == HdpAlgorithm::Svi ? 1 : 2;
    e.params = hdpParams(algorithm == HdpAlgorithm::Svi);
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<HdpTrainer>(data.requireCounts("the HDP"), algorithm,
                                            HdpOptions::fromParams(values), seed);
    };
    r.add(std::move(e));
}

} // namespace

void registerHdp(Registry& r)
{
    add(r, HdpAlgorithm::Svi, "svi", "Online variational inference (Wang et al. 2011)",
        "minibatches of documents; λ and the corpus sticks blended with ρ_t (Hoffman et al. 2013, "
        "Fig. 9)");
    add(r, HdpAlgorithm::Batch, "batch", "Batch variational Bayes",
        "every step a full pass over the training documents with ρ = 1");
}

} // namespace svi
