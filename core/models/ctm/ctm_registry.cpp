#include "core/inference/schedule.h"
#include "core/models/ctm/ctm.h"

#include <limits>

namespace svi {

std::vector<ParamSpec> CtmOptions::params(LgmAlgorithm algorithm)
{
    constexpr double kHuge = std::numeric_limits<double>::max();
    std::vector<ParamSpec> p;
    p.push_back(intParam("K", "Topics K", "number of topics (paper: 50)", 50, 2, 10000));
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
            .add("covariance", &CtmOptions::covariance, covarianceName, covarianceFromName)
            .add("samples", &CtmOptions::samples)
            .add("kappa", &CtmOptions::kappa)
            .add("tau0", &CtmOptions::tau0)
            .add("adagrad_rate", &CtmOptions::adagradRate)
            .add("topics_rate", &CtmOptions::topicsRate)
            .add("learn_prior", &CtmOptions::learnPrior)
            .add("local_iters", &CtmOptions::localIters)
            .add("eval_docs", &CtmOptions::evalDocs)
            .add("top_words", &CtmOptions::topWords);
    return f;
}

} // namespace svi
