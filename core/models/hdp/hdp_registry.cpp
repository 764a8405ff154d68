#include "core/models/hdp/hdp.h"
#include "core/models/hdp/hdp_trainer.h"
#include "core/models/memory_terms.h"
#include "core/models/topics/topics.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

// λ, E[log β] and the evaluation's copy of E[β] (V × T each), the minibatch's per-document
// T × K tables and per-entry ζ, each thread's workspaces (its longest document × T and × K).
std::vector<MemoryTerm> hdpMemory(const DataSet& data, const ParamValues& v, bool batch)
{
    using namespace memory;
    const CountData& c = *data.counts;
    const double V = double(c.vocabularySize), T = number(v, "T"), K = number(v, "K");
    const double N = double(c.rows()), D = double(c.trainingRowCount());
    const double B = batch ? D : std::min(number(v, "minibatch", D), D);
    const double entries = N > 0 ? B * double(c.train.nonZeros()) / N : 0.0;
    const double W = widestRow(c.train);
    std::vector<MemoryTerm> terms = {
        {"λ, E[log β] and E[β]: 3 × V × T doubles", 3 * kDouble * V * T, "T"},
        {"the minibatch's document tables: its documents × T × K doubles",
         kDouble * B * T * (K + 1), batch ? "K" : "minibatch"},
        {"the minibatch's ζ: its entries × K doubles", entries * (kDouble * K + 16), "K"},
        {"the minibatch's word statistics: its words × T doubles",
         kDouble * std::min(V, entries) * T, "T"},
        {"each thread's workspaces: its longest document × (2T + 3K) doubles",
         threads() * kDouble * (W * (2 * T + 3 * K + 5) + 3 * K * T), "T"},
    };
    if (!batch && choice(v, "schedule") == "adaptive")
        terms.push_back({"the adaptive schedule's gradient and its average: 2 × V × T doubles",
                         2 * kDouble * V * T, "T"});
    return terms;
}

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
    e.params = HdpOptions::declare(algorithm).specs();
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<HdpTrainer>(data.requireCounts("the HDP"), algorithm,
                                            HdpOptions::fromParams(values), seed);
    };
    e.readOptions = optionsReader<HdpOptions>();
    e.memory = [algorithm](const DataSet& data, const ParamValues& values) {
        return hdpMemory(data, values, algorithm != HdpAlgorithm::Svi);
    };
    e.smallSettings = {{"T", std::int64_t(8)},
                       {"K", std::int64_t(4)},
                       {"minibatch", std::int64_t(20)},
                       {"eval_docs", std::int64_t(20)}};
    e.divergentSettings = {{"eta", 1e308}}; // Σ_w λ_kw overflows: E[log β] is NaN
    r.add(std::move(e));
}

} // namespace

ParamFields<HdpOptions> HdpOptions::declare(HdpAlgorithm algorithm)
{
    using O = HdpOptions;
    ParamFields<O> f;
    f.add(intParam("T", "Topics T (truncation)",
                   "corpus-level truncation: the most topics the fit can use", 150, 1, 100000),
          &O::T)
        .add(intParam("K", "Atoms per document K",
                      "document-level truncation: the most topics one document can use", 15, 1,
                      10000),
             &O::K);
    if (algorithm == HdpAlgorithm::Svi) {
        // Wang et al.'s large early steps (τ0 = 1, κ = 0.5) over 500 documents a step: on AP,
        // about 1.2 epochs each, held-out perplexity 3,230 against 3,613 with Wang et al.'s
        // 100 documents, which also took about three times the training time for as many
        // documents (docs/results.md, where the defaults were measured).
        f.add(intParam("minibatch", "Minibatch", "documents per stochastic step", 500, 1, kHuge),
              &O::minibatch);
        addStepSizeFields(f, 0.5, 1.0);
    }
    f.add(positiveParam("alpha", "Document concentration α",
                        "π'_jt ~ Beta(1, α): larger α spreads a document over more topics", 1.0),
          &O::alpha)
        .add(positiveParam("gamma", "Corpus concentration γ",
                           "β'_k ~ Beta(1, γ): larger γ lets the corpus use more topics", 1.0),
             &O::gamma)
        .add(positiveParam("eta", "Prior η", "β_k ~ Dirichlet(η) over the words of a topic", 0.01),
             &O::eta)
        .add(intParam("local_iters", "Local iterations", "ζ/φ/(a, b) updates per document at most",
                      100, 1, 100000),
             &O::localIters)
        .add(realParam("local_tol", "Local tolerance",
                       "stop a document's updates once its ELBO rises by less than tol·|ELBO|",
                       1e-4, 0.0, kHuge),
             &O::localTol)
        .add(boolParam("sort_topics", "Sort topics",
                       "after each step, order topics by decreasing stick statistic (Wang et al.)",
                       true, "keep the topics in the order they were made"),
             &O::sortTopics);
    addTopicEvaluationFields(f, 50); // 0.35 s of each snapshot is the global bound (T × V)
    return f;
}

const ParamFields<HdpOptions>& HdpOptions::fields()
{
    static const ParamFields<HdpOptions> f = declare(HdpAlgorithm::Svi);
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
