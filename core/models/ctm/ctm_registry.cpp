#include "core/inference/schedule.h"
#include "core/models/ctm/ctm.h"
#include "core/models/ctm/ctm_trainer.h"
#include "core/models/lgm/lgm_entries.h"
#include "core/models/memory_terms.h"
#include "core/models/topics/topics.h" // topicMetrics, addTopicEvaluationFields
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

namespace {

using CtmFields = ParamFields<CtmOptions>;

void addTopics(CtmFields& f)
{
    f.add(intParam("K", "Topics K", "number of topics (paper: 50)", 50, 2, 10000), &CtmOptions::K);
}

// What every method shares: the prior learnt or not, and the evaluation's settings.
void addSharedFields(CtmFields& f, const std::string& adagradHelp)
{
    using O = CtmOptions;
    f.add(positiveParam("adagrad_rate", "AdaGrad rate", adagradHelp, 1.0), &O::adagradRate)
        .add(boolParam("learn_prior", "Learn μ, Σ",
                       "by eq. 60–61, after each document (mean-field: each pass)", true,
                       "keep μ, Σ at their starting values"),
             &O::learnPrior)
        .add(intParam("local_iters", "Test document steps",
                      "natural steps fitting a test document's observed half", 100, 1, 100000),
             &O::localIters)
        .add(intParam("eval_docs", "Evaluation documents",
                      "documents a live evaluation uses; a full pass uses all", 30, 1, kHuge),
             &O::evalDocs)
        .add(intParam("top_words", "Top words", "words listed per topic", 10, 1, 1000),
             &O::topWords);
}

} // namespace

ParamFields<CtmOptions> CtmOptions::declare(LgmAlgorithm algorithm)
{
    using O = CtmOptions;
    CtmFields f;
    addTopics(f);
    f.add(choiceParam("bound", "Bound",
                      "optimal: the topics summed out inside the logarithm (eq. 56); simple: "
                      "Σ_k log β_kw E_q[h_k] (App. A.2, eq. 73), the topics by their closed "
                      "form",
                      {"optimal", "simple"}, "optimal"),
          &O::bound, ctmBoundName, ctmBoundFromName)
        .add(choiceParam("covariance", "Covariance of q(η_d)",
                         "diagonal (the paper's runs) or full, (K − 1)² per document",
                         {"diagonal", "full"}, "diagonal"),
             &O::covariance, covarianceName, covarianceFromName)
        .add(intParam("samples", "Samples of η", "draws of η per document update (paper: 10)", 10,
                      1, 1e6),
             &O::samples);
    if (algorithm == LgmAlgorithm::HybridMcSsvi) // 1/n at a document's n-th visit, or adaptive
        addStepSizeFields(f, 1.0, 0.0);
    f.add(positiveParam("topics_rate", "Topics' rate",
                        "AdaGrad's rate for the topics' logits (eq. 62)", 1.0),
          &O::topicsRate)
        .add(intParam("topics_batch", "Documents per topics step",
                      "optimal bound: eq. 62's gradient is gathered over this many documents "
                      "before one AdaGrad step of the topics (the paper: 1; a step costs K × V)",
                      64, 1, 1e6),
             &O::topicsBatch);
    addSharedFields(f, "gradient steps of each document's q (eq. 69, 71; paper: 1.0) and of a "
                       "test document's");
    return f;
}

ParamFields<CtmOptions> CtmOptions::declareMeanField()
{
    CtmFields f;
    addTopics(f);
    f.add(intParam("var_iters", "E-step rounds",
                   "mean-field: rounds of a document's coordinate ascent at most (Blei & "
                   "Lafferty's code: 20), fewer when the bound settles to 10⁻⁶",
                   20, 1, 100000),
          &CtmOptions::varIters);
    addSharedFields(f, "the mean steps fitting a test document's q (H-MC-SSVI's, so that every "
                       "method's globals are scored alike)");
    return f;
}

const ParamFields<CtmOptions>& CtmOptions::fields()
{
    static const CtmFields f = [] {
        CtmFields all = declare(LgmAlgorithm::HybridMcSsvi);
        all.merge(declareMeanField()); // var_iters
        return all;
    }();
    return f;
}

namespace {

// α and β (K × V each) with the bound's own K × V arrays (the optimal bound's word sums,
// AdaGrad's squares and gradient; the simple bound's topic sums; mean-field's counts), each
// document's q(η) kept for every training document, and the (K−1) × (K−1) matrices of the
// prior and each thread's draws.
std::vector<MemoryTerm> ctmMemory(const DataSet& data, const ParamValues& v, LgmAlgorithm a,
                                  bool meanField)
{
    using namespace memory;
    const CountData& c = *data.counts;
    const double V = double(c.vocabularySize), K = number(v, "K"), k1 = std::max(K - 1, 1.0);
    const double D = double(c.trainingRowCount());
    const bool full = choice(v, "covariance") == "full", sdsvi = a == LgmAlgorithm::SDsvi;
    const bool simple = choice(v, "bound") == "simple";
    const double perDocument = meanField ? 16 * k1 + 200
                               : full    ? kDouble * (k1 * k1 * (sdsvi ? 2 : 1) + 2 * k1)
                                         : kDouble * k1 * (sdsvi ? 4 : 3) + 200;
    std::vector<MemoryTerm> terms = {
        {"the topics' arrays: " + std::string(meanField ? "3" : "5") + " × K × V doubles",
         (meanField ? 3 : 5) * kDouble * K * V, "K"},
        {"each document's q(η): the training documents × (K−1)" +
             std::string(full && !meanField ? "² doubles" : " doubles"),
         D * perDocument, full ? "covariance" : "K"},
        {"the (K−1) × (K−1) matrices of the prior and the threads' draws",
         (11 + 4 * threads() + (full ? 15 : 0)) * kDouble * k1 * k1, "K"},
        {"the evaluation's scores", 16 * double(c.rows()) + kDouble * K * number(v, "eval_docs"),
         "eval_docs"},
    };
    if (simple && !meanField)
        terms.push_back({"the simple bound's θ of every document", kDouble * D * K, "K"});
    if (!meanField && a == LgmAlgorithm::HybridMcSsvi && choice(v, "schedule") == "adaptive")
        terms.push_back({"each document's adaptive-rate average: (K−1)" +
                             std::string(full ? "²" : "") + " doubles",
                         D * kDouble * (full ? k1 * k1 : k1), "K"});
    return terms;
}

} // namespace

void registerCtm(Registry& r)
{
    const std::vector<LgmAlgorithmEntry> algorithms = {
        {LgmAlgorithm::HybridMcSsvi,
         "each document's covariance by the natural-gradient step with the PSD projection (eq. "
         "59), its mean by AdaGrad (eq. 69)"},
        {LgmAlgorithm::SDsvi,
         "AdaGrad on each document's mean (eq. 69) and Cholesky factor (eq. 71)"},
    };
    std::vector<MetricSpec> metrics = topicMetrics();
    metrics.push_back({.key = "test_nll_per_word",
                       .label = "Test NLL per word (importance sampling)",
                       .unit = "nats",
                       .higherIsBetter = false,
                       .shortLabel = "Test NLL per word"});
    LgmModelEntry model{
        "ctm",
        "Correlated topic model",
        "the optimal bound (56), −Σ_d KL(q(η_d) ‖ N(μ, Σ)) + Σ_d Σ_w c_dw E_q[log Σ_k h_k(η_d) "
        "β_kw] (or the simple bound (73)), 10 draws per document, over eval_docs training "
        "documents scaled unless a full pass",
        {"corpus"},
        metrics,
        {{"K", std::int64_t(3)},
         {"samples", std::int64_t(2)},
         {"local_iters", std::int64_t(2)},
         {"eval_docs", std::int64_t(10)}},
        // A mean's rate of 1e308: the first AdaGrad step sends a document's mean to ±1e308,
        // whose KL to the prior is infinite.
        {{"adagrad_rate", 1e308}}};
    model.memory = [](const DataSet& data, const ParamValues& values, LgmAlgorithm a) {
        return ctmMemory(data, values, a, false);
    };
    addLgmAlgorithms<CtmOptions>(r, model, algorithms,
                                 [](const DataSet& data, LgmAlgorithm algorithm,
                                    const CtmOptions& options, std::uint64_t seed) {
                                     return std::make_unique<CtmTrainer>(data.requireCounts("CTM"),
                                                                         algorithm, options, seed);
                                 });

    // Blei & Lafferty's variational EM, the baseline: its E-step fits each document's q(η) (and
    // the words' topics), which the trace scores by the same bound as the others'.
    AlgorithmEntry e;
    e.model = model.model;
    e.modelLabel = model.modelLabel;
    e.algorithm = "mean-field";
    e.label = "Mean-field";
    e.help = "Blei & Lafferty's variational EM: each document's λ, ν², φ, ζ by coordinate ascent, "
             "β, μ, Σ after each pass";
    e.dataKinds = model.dataKinds;
    e.compareRank = int(algorithms.size()) + 1;
    e.params = CtmOptions::declareMeanField().specs();
    e.readOptions = optionsReader<CtmOptions>();
    e.memory = [](const DataSet& data, const ParamValues& values) {
        return ctmMemory(data, values, LgmAlgorithm::HybridMcSsvi, true);
    };
    e.smallSettings = model.smallSettings;
    e.divergentSettings = model.divergentSettings;
    e.metrics = model.metrics;
    e.bound = "the optimal bound (56) at each document's q(η_d) = N(λ_d, diag ν²_d) from the "
              "E-step, 10 draws per document, over eval_docs training documents scaled unless a "
              "full pass (above the mean-field bound the E-step maximises)";
    e.make = [](const DataSet& data, const ParamValues& values, std::uint64_t seed) {
        return std::make_unique<CtmTrainer>(data.requireCounts("CTM"), LgmAlgorithm::HybridMcSsvi,
                                            CtmOptions::fromParams(values), seed,
                                            CtmMethod::MeanField);
    };
    r.add(std::move(e));
}

} // namespace svi
