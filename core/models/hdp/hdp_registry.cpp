#include "core/models/hdp/hdp.h"
#include "core/models/hdp/hdp_trainer.h"
#include "core/models/lda/lda.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

void add(Registry& r, HdpAlgorithm algorithm, std::string key, std::string label, std::string help)
{
    AlgorithmEntry e;
    e.model = "hdp";
    e.readsParts = true; // its trainer holds to its rank's rows (heldRows)
    e.modelLabel = "Hierarchical Dirichlet process";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"corpus"};
    e.metrics = topicMetrics();
    e.compareRank = algorithm == HdpAlgorithm::Svi ? 1 : 2;
    e.params = HdpOptions::params(algorithm);
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<HdpTrainer>(data.requireCounts("the HDP"), algorithm,
                                            HdpOptions::fromParams(values), seed);
    };
    r.add(std::move(e));
}

} // namespace

std::vector<ParamSpec> HdpOptions::params(HdpAlgorithm algorithm)
{
    std::vector<ParamSpec> p;
    p.push_back(intParam("T", "Topics T (truncation)",
                         "corpus-level truncation: the most topics the fit can use", 150, 1,
                         100000));
    p.push_back(intParam("K", "Atoms per document K",
                         "document-level truncation: the most topics one document can use", 15, 1,
                         10000));
    if (algorithm == HdpAlgorithm::Svi) {
        // Wang et al.'s regime (small minibatches, large early steps): on AP it reaches LDA's
        // held-out perplexity within a minute, where LDA's τ0 = 64, κ = 0.7, 256 documents
        // leave one general topic holding most of the stick (docs/models.md, where the
        // defaults come from).
        p.push_back(
            intParam("minibatch", "Minibatch", "documents per stochastic step", 100, 1, kHuge));
        const auto rate = StepSizeOptions::robbinsMonroParams(0.5, 1.0);
        p.insert(p.end(), rate.begin(), rate.end());
    }
    p.push_back(positiveParam("alpha", "Document concentration α",
                              "π'_jt ~ Beta(1, α): larger α spreads a document over more topics",
                              1.0));
    p.push_back(positiveParam("gamma", "Corpus concentration γ",
                              "β'_k ~ Beta(1, γ): larger γ lets the corpus use more topics", 1.0));
    p.push_back(
        positiveParam("eta", "Prior η", "β_k ~ Dirichlet(η) over the words of a topic", 0.01));
    p.push_back(intParam("local_iters", "Local iterations",
                         "ζ/φ/(a, b) updates per document at most", 100, 1, 100000));
    p.push_back(realParam("local_tol", "Local tolerance",
                          "stop a document's updates once its ELBO rises by less than tol·|ELBO|",
                          1e-4, 0.0, kHuge));
    p.push_back(boolParam(
        "sort_topics", "Sort topics",
        "after each step, order topics by decreasing stick statistic (Wang et al.)", true));
    const auto eval = topicEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

const ParamFields<HdpOptions>& HdpOptions::fields()
{
    static const ParamFields<HdpOptions> f = ParamFields<HdpOptions>()
                                                 .add("T", &HdpOptions::T)
                                                 .add("K", &HdpOptions::K)
                                                 .add("minibatch", &HdpOptions::minibatch)
                                                 .add("kappa", &HdpOptions::kappa)
                                                 .add("tau0", &HdpOptions::tau0)
                                                 .add("alpha", &HdpOptions::alpha)
                                                 .add("gamma", &HdpOptions::gamma)
                                                 .add("eta", &HdpOptions::eta)
                                                 .add("local_iters", &HdpOptions::localIters)
                                                 .add("local_tol", &HdpOptions::localTol)
                                                 .add("sort_topics", &HdpOptions::sortTopics)
                                                 .add("eval_docs", &HdpOptions::evalDocs)
                                                 .add("top_words", &HdpOptions::topWords);
    return f;
}

void registerHdp(Registry& r)
{
    add(r, HdpAlgorithm::Svi, "svi", "Online variational inference (Wang et al. 2011)",
        "minibatches of documents; λ and the corpus sticks blended with ρ_t (Hoffman et al. 2013, "
        "Fig. 9)");
    add(r, HdpAlgorithm::Batch, "batch", "Batch variational Bayes",
        "every step a full pass over the training documents with ρ = 1");
}

} // namespace svi
