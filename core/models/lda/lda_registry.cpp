#include "core/models/lda/lda.h"
#include "core/models/lda/lda_trainer.h"
#include "core/models/memory_terms.h"
#include "core/models/topics/topics.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

// λ and exp E[log β] (V × K each), the minibatch's word statistics, each thread's document
// workspace (its longest document × K), the minibatch's θ; the adaptive schedule's gradient
// averages. Nothing is kept per document across steps.
std::vector<MemoryTerm> ldaMemory(const DataSet& data, const ParamValues& v, LdaAlgorithm algorithm)
{
    const bool batch = algorithm == LdaAlgorithm::Batch;
    using namespace memory;
    const CountData& c = *data.counts;
    const double V = double(c.vocabularySize), K = number(v, "K"), N = double(c.rows());
    const double D = double(c.trainingRowCount()), nnz = double(c.train.nonZeros());
    const double B = batch ? D : std::min(number(v, "minibatch", D), D);
    const double entries = N > 0 ? B * nnz / N : 0.0; // a minibatch's (document, word) entries
    const double words = batch ? V : std::min(V, entries);
    std::vector<MemoryTerm> terms = {
        {"λ and exp E[log β]: 2 × V × K doubles", 2 * kDouble * V * K, "K"},
        {"the minibatch's word statistics: its words × K doubles", kDouble * words * K, "K"},
        {"each thread's workspace: its longest document × K doubles, and × K floats for the "
         "single-precision updates",
         threads() * widestRow(c.train) * (kDouble * (K + 4) + 4.0 * (K + 3)), "K"},
        {"the minibatch's θ and entries", kDouble * B * K + 24 * entries, "minibatch"},
    };
    if (algorithm == LdaAlgorithm::Streaming)
        terms.push_back(
            {"the minibatch posterior's rows: its words × K doubles", kDouble * words * K, "K"});
    if (sampledLocalStep(algorithm)) // each kept sweep's (word, topic) of every token
        terms.push_back({"the minibatch's kept assignments: its tokens × samples × 8 bytes",
                         8 * number(v, "samples", 1) * B * (N > 0 ? c.train.total() / N : 0.0),
                         "samples"});
    if ((algorithm == LdaAlgorithm::Svi || sampledLocalStep(algorithm)) &&
        choice(v, "schedule") == "adaptive")
        terms.push_back({"the adaptive schedule's gradient averages: 2 × V × K doubles",
                         2 * kDouble * V * K, "K"});
    return terms;
}

void add(Registry& r, LdaAlgorithm algorithm, std::string key, std::string label, std::string help)
{
    AlgorithmEntry e;
    e.model = "lda";
    // Its trainer holds to its rank's rows (heldRows); an asynchronous stream's ranks each take
    // their own documents of the whole corpus.
    e.readsParts = algorithm != LdaAlgorithm::Streaming;
    e.modelLabel = "Latent Dirichlet allocation";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"corpus"};
    e.metrics = topicMetrics();
    // SVI, batch VB, streaming VB; the sampled local steps offered beside them, unticked.
    e.compareRank = sampledLocalStep(algorithm) ? 0 : int(algorithm) + 1;
    e.params = LdaOptions::declare(algorithm).specs();
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<LdaTrainer>(data.requireCounts("LDA"), algorithm,
                                            LdaOptions::fromParams(values), seed);
    };
    e.readOptions = optionsReader<LdaOptions>();
    e.memory = [algorithm](const DataSet& data, const ParamValues& values) {
        return ldaMemory(data, values, algorithm);
    };
    e.smallSettings = {
        {"K", std::int64_t(4)}, {"minibatch", std::int64_t(20)}, {"eval_docs", std::int64_t(20)}};
    e.divergentSettings = {{"eta", 1e308}}; // Σ_w λ_kw overflows: E[log β] is NaN
    r.add(std::move(e));
}

} // namespace

ParamFields<LdaOptions> LdaOptions::declare(LdaAlgorithm algorithm)
{
    using O = LdaOptions;
    ParamFields<O> f;
    f.add(intParam("K", "Topics K", "number of topics", 100, 1, 100000), &O::K);
    if (algorithm == LdaAlgorithm::Svi || sampledLocalStep(algorithm)) {
        f.add(intParam("minibatch", "Minibatch", "documents per stochastic step", 256, 1, kHuge),
              &O::minibatch);
        // τ0 = 4: on AP (2,021 training documents, ten epochs, two seeds) held-out perplexity
        // 2,854 and 2,973, against 2,910 / 3,038 at τ0 = 10, 3,597 at τ0 = 64 (its small early
        // steps: 23 of the 100 topics in use) and 3,133 at τ0 = 1 (docs/results.md).
        addStepSizeFields(f, 0.7, 4.0);
    }
    if (algorithm == LdaAlgorithm::Streaming)
        f.add(intParam("minibatch", "Minibatch", "documents per minibatch of the stream", 2048, 1,
                       kHuge),
              &O::minibatch)
            .add(intParam("minibatch_iters", "Minibatch iterations",
                          "batch VB iterations on each minibatch (local steps, then λ* = prior + "
                          "S), the posterior so far as its prior",
                          kStreamItersDefault, 1, 10000),
                 &O::streamIters)
            .add(choiceParam("distribute", "On several ranks",
                             "sync: each rank fits its part of every minibatch, the changes "
                             "summed (R ranks give the one-rank run); async: SDA-Bayes, each "
                             "rank streams its own documents and rank 0 adds every change as "
                             "it comes",
                             {"sync", "async"}, "sync"),
                 &O::distribute);
    if (sampledLocalStep(algorithm))
        f.add(intParam("burnin", "Burn-in sweeps",
                       "Gibbs sweeps over a document's tokens discarded (the first assigns each "
                       "token given those before it)",
                       2, 0, 10000),
              &O::burnin)
            .add(intParam("samples", "Kept sweeps",
                          "Gibbs sweeps averaged into the statistic (1/samples each)", 3, 1, 10000),
                 &O::samples);
    f.add(realParam("alpha", "Prior α",
                    "θ_d ~ Dirichlet(α) over the topics of a document; 0 means 1/K", 0.0, 0.0,
                    kHuge),
          &O::alpha)
        .add(positiveParam("eta", "Prior η", "β_k ~ Dirichlet(η) over the words of a topic", 0.01),
             &O::eta)
        .add(intParam("local_iters", "Local iterations", "γ/φ updates per document at most", 100, 1,
                      100000),
             &O::localIters)
        .add(realParam("local_tol", "Local tolerance",
                       "stop a document's updates once the mean |Δγ_k| < tol", 1e-3, 0.0, kHuge),
             &O::localTol);
    addTopicEvaluationFields(f, 200);
    return f;
}

const ParamFields<LdaOptions>& LdaOptions::fields()
{
    static const ParamFields<LdaOptions> f = [] {
        ParamFields<LdaOptions> all;
        all.merge(declare(LdaAlgorithm::Svi))
            .merge(declare(LdaAlgorithm::Streaming))
            .merge(declare(LdaAlgorithm::MimnoSvi));
        return all;
    }();
    return f;
}

void registerLda(Registry& r)
{
    add(r, LdaAlgorithm::Svi, "svi", "SVI (Hoffman et al. 2013)",
        "minibatches of documents; λ ← (1 − ρ_t)λ + ρ_t λ̂ (Fig. 6)");
    add(r, LdaAlgorithm::Batch, "batch", "Batch variational Bayes",
        "every step a full pass over the training documents with ρ = 1");
    add(r, LdaAlgorithm::Streaming, "streaming", "Streaming VB (Broderick et al. 2013)",
        "one pass over the documents; λ_b = λ_{b−1} + (λ*_b − λ_{b−1}), λ*_b the batch "
        "posterior of minibatch b with the posterior so far as prior");
    add(r, LdaAlgorithm::MimnoSvi, "mimno-svi", "Mimno-SVI (Mimno et al. 2012)",
        "SVI with each token's topic Gibbs-sampled under exp E_q[log β] (sparse draws), the kept "
        "sweeps' counts as the statistic");
    add(r, LdaAlgorithm::GibbsSsvi, "gibbs-ssvi", "Gibbs-SSVI (Hoffman & Blei 2014)",
        "SVI with β drawn from q(β) at each step's words and each token's topic Gibbs-sampled "
        "under it (the local posterior exact given β), the kept sweeps' counts as the statistic");
}

} // namespace svi
