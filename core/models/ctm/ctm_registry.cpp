#include "core/inference/schedule.h"
#include "core/models/ctm/ctm.h"
#include "core/models/ctm/ctm_trainer.h"
#include "core/models/glm/glm.h" // addLgmAlgorithms
#include "core/models/lda/lda.h" // topicMetrics
#include "core/run/registry.h"

#include <limits>
#include <stdexcept>

namespace svi {

std::string ctmBoundName(CtmBound b)
{
    return b == CtmBound::Optimal ? "optimal" : "simple";
}

CtmBound ctmBoundFromName(const std::string& name)
{
    if (name == "optimal")
        return CtmBound::Optimal;
    if (name == "simple")
        return CtmBound::Simple;
    throw std::invalid_argument(fieldError("bound", name, "must be optimal or simple"));
}

std::vector<ParamSpec> CtmOptions::params(LgmAlgorithm algorithm)
{
    constexpr double kHuge = std::numeric_limits<double>::max();
    std::vector<ParamSpec> p;
    p.push_back(intParam("K", "Topics K", "number of topics (paper: 50)", 50, 2, 10000));
    p.push_back(choiceParam("bound", "Bound",
                            "optimal: the topics summed out inside the logarithm (eq. 56); simple: "
                            "Σ_k log β_kw E_q[h_k] (App. A.2, eq. 73), the topics by their closed "
                            "form",
                            {"optimal", "simple"}, "optimal"));
    p.push_back(choiceParam("covariance", "Covariance of q(η_d)",
                            "diagonal (the paper's runs) or full, (K − 1)² per document",
                            {"diagonal", "full"}, "diagonal"));
    p.push_back(intParam("samples", "Samples of η", "draws of η per document update (paper: 10)",
                         10, 1, 1e6));
    if (algorithm == LgmAlgorithm::HybridMcSsvi) {
        const auto rate = StepSizeOptions::robbinsMonroParams(1.0, 0.0);
        p.insert(p.end(), rate.begin(), rate.end()); // 1/n at a document's n-th visit
    }
    p.push_back(positiveParam("adagrad_rate", "AdaGrad rate",
                              "gradient steps of each document's q (eq. 69, 71; paper: 1.0)", 1.0));
    p.push_back(positiveParam("topics_rate", "Topics' rate",
                              "AdaGrad's rate for the topics' logits (eq. 62)", 1.0));
    p.push_back(intParam("topics_batch", "Documents per topics step",
                         "optimal bound: eq. 62's gradient is gathered over this many documents "
                         "before one AdaGrad step of the topics (the paper: 1; a step costs K × V)",
                         64, 1, 1e6));
    p.push_back(boolParam("learn_prior", "Learn μ, Σ", "by eq. 60–61 after each document", true));
    p.push_back(intParam("local_iters", "Test document steps",
                         "natural steps fitting a test document's observed half", 100, 1, 100000));
    p.push_back(intParam("eval_docs", "Evaluation documents",
                         "documents a live evaluation uses; a full pass uses all", 500, 1, kHuge));
    p.push_back(intParam("top_words", "Top words", "words listed per topic", 10, 1, 1000));
    return p;
}

std::vector<ParamSpec> CtmOptions::allParams()
{
    return params(LgmAlgorithm::HybridMcSsvi);
}

const ParamFields<CtmOptions>& CtmOptions::fields()
{
    static const ParamFields<CtmOptions> f =
        ParamFields<CtmOptions>()
            .add("K", &CtmOptions::K)
            .add("bound", &CtmOptions::bound, ctmBoundName, ctmBoundFromName)
            .add("covariance", &CtmOptions::covariance, covarianceName, covarianceFromName)
            .add("samples", &CtmOptions::samples)
            .add("kappa", &CtmOptions::kappa)
            .add("tau0", &CtmOptions::tau0)
            .add("adagrad_rate", &CtmOptions::adagradRate)
            .add("topics_rate", &CtmOptions::topicsRate)
            .add("topics_batch", &CtmOptions::topicsBatch)
            .add("learn_prior", &CtmOptions::learnPrior)
            .add("local_iters", &CtmOptions::localIters)
            .add("eval_docs", &CtmOptions::evalDocs)
            .add("top_words", &CtmOptions::topWords);
    return f;
}

void registerCtm(Registry& r)
{
    const std::vector<LgmAlgorithmEntry> algorithms = {
        {LgmAlgorithm::HybridMcSsvi, "h-mc-ssvi", "H-MC-SSVI",
         "each document's covariance by the natural-gradient step with the PSD projection (eq. "
         "59), its mean by AdaGrad (eq. 69)"},
        {LgmAlgorithm::SDsvi, "s-dsvi", "S-DSVI",
         "AdaGrad on each document's mean (eq. 69) and Cholesky factor (eq. 71)"},
    };
    std::vector<MetricSpec> metrics = topicMetrics();
    metrics.push_back(
        {"test_nll_per_word", "Test NLL per word (importance sampling)", "nats", false});
    addLgmAlgorithms<CtmOptions>(
        r,
        {"ctm",
         "Correlated topic model",
         "the optimal bound (56), −Σ_d KL(q(η_d) ‖ N(μ, Σ)) + Σ_d Σ_w c_dw E_q[log Σ_k h_k(η_d) "
         "β_kw] (or the simple bound (73)), 10 draws per document, over eval_docs training "
         "documents scaled unless a full pass",
         {"corpus"},
         metrics},
        algorithms,
        [](const DataSet& data, LgmAlgorithm algorithm, const CtmOptions& options,
           std::uint64_t seed) {
            return std::make_unique<CtmTrainer>(data.requireCounts("CTM"), algorithm, options,
                                                seed);
        });
}

} // namespace svi
