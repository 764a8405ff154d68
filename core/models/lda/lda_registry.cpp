#include "core/models/lda/lda.h"
#include "core/models/lda/lda_trainer.h"

#include <limits>
#include <stdexcept>

namespace svi {
namespace {

void add(Registry& r, LdaAlgorithm algorithm, std::string key, std::string label, std::string help)
{
    AlgorithmEntry e;
    e.model = "lda";
    e.readsParts = true; // its trainer holds to its rank's rows (heldRows)
    e.modelLabel = "Latent Dirichlet allocation";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"corpus"};
    e.metrics = topicMetrics();
    e.compareRank = algorithm == LdaAlgorithm::Svi ? 1 : 2;
    e.params = LdaOptions::params(algorithm);
    e.make = [algorithm](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<LdaTrainer>(data.requireCounts("LDA"), algorithm,
                                            LdaOptions::fromParams(values), seed);
    };
    r.add(std::move(e));
}

} // namespace

std::vector<ParamSpec> LdaOptions::params(LdaAlgorithm algorithm)
{
    std::vector<ParamSpec> p;
    p.push_back(intParam("K", "Topics K", "number of topics", 100, 1, 100000));
    if (algorithm == LdaAlgorithm::Svi) {
        p.push_back(
            intParam("minibatch", "Minibatch", "documents per stochastic step", 256, 1, kHuge));
        const auto step = StepSizeOptions::params(0.7, 64.0);
        p.insert(p.end(), step.begin(), step.end());
    }
    p.push_back(realParam("alpha", "Prior α",
                          "θ_d ~ Dirichlet(α) over the topics of a document; 0 means 1/K", 0.0, 0.0,
                          kHuge));
    p.push_back(
        positiveParam("eta", "Prior η", "β_k ~ Dirichlet(η) over the words of a topic", 0.01));
    p.push_back(intParam("local_iters", "Local iterations", "γ/φ updates per document at most", 100,
                         1, 100000));
    p.push_back(realParam("local_tol", "Local tolerance",
                          "stop a document's updates once the mean |Δγ_k| < tol", 1e-3, 0.0,
                          kHuge));
    const auto eval = topicEvaluationParams();
    p.insert(p.end(), eval.begin(), eval.end());
    return p;
}

const ParamFields<LdaOptions>& LdaOptions::fields()
{
    static const ParamFields<LdaOptions> f = [] {
        ParamFields<LdaOptions> b;
        b.add("K", &LdaOptions::K).add("minibatch", &LdaOptions::minibatch);
        addStepSizeFields(b);
        b.add("alpha", &LdaOptions::alpha)
            .add("eta", &LdaOptions::eta)
            .add("local_iters", &LdaOptions::localIters)
            .add("local_tol", &LdaOptions::localTol)
            .add("eval_docs", &LdaOptions::evalDocs)
            .add("top_words", &LdaOptions::topWords);
        return b;
    }();
    return f;
}

std::vector<MetricSpec> topicMetrics()
{
    return {
        {"perplexity", "Perplexity, held-out words", "", false, true},
        {"heldout_loglik_per_word", "Held-out log-likelihood per word", "nats"},
        {"topics_used", "Topics in use", "", true, false, false},
    };
}

std::vector<ParamSpec> topicEvaluationParams()
{
    return {intParam("eval_docs", "Evaluation documents",
                     "test documents scored (and training documents in the ELBO estimate) at each "
                     "snapshot; a full evaluation uses all",
                     1000, 1, kHuge),
            intParam("top_words", "Top words", "words listed per topic", 10, 1, 1000)};
}

void registerLda(Registry& r)
{
    add(r, LdaAlgorithm::Svi, "svi", "SVI (Hoffman et al. 2013)",
        "minibatches of documents; λ ← (1 − ρ_t)λ + ρ_t λ̂ (Fig. 6)");
    add(r, LdaAlgorithm::Batch, "batch", "Batch variational Bayes",
        "every step a full pass over the training documents with ρ = 1");
}

} // namespace svi
