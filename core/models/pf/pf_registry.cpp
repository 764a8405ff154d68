#include "core/models/memory_terms.h"
#include "core/models/pf/pf.h"
#include "core/models/pf/pf_black_box.h"
#include "core/models/pf/pf_trainer.h"
#include "core/models/recommender/recommender.h"
#include "core/models/topics/topics.h"

#include <limits>

namespace svi {
namespace {

// A Poisson model fits every user × item cell, an unrated one as 0: its mean rate is the
// expected count of a rating event, far below the stars, so rmse and accuracy score it on a
// scale it does not model. They are kept (against PMF, GMF on the same split, and to show it),
// with the caveat beside them. BBVI's gradient variance is declared for every algorithm, so
// that Compare has one column set.
std::vector<MetricSpec> pfMetrics()
{
    std::vector<MetricSpec> metrics = recommenderMetrics(
        "the Poisson mean counts ratings as events (an unrated item as 0); it is not a star "
        "rating");
    metrics.push_back(gradientVarianceMetric());
    return metrics;
}

// The coordinate-ascent algorithms also fit a corpus (documents as users, words as items) and
// score its held-out words as LDA does. Counts of words are not ratings on a scale (rmse,
// accuracy), nor are there validation ratings or BBVI's gradients on a corpus.
std::vector<MetricSpec> pfTextMetrics()
{
    std::vector<MetricSpec> metrics = pfMetrics();
    for (MetricSpec& m : metrics)
        if (m.key == "rmse" || m.key == "accuracy" || m.key == "validation_loglik" ||
            m.key == gradientVarianceMetric().key)
            m.dataKinds = {"ratings"};
    for (MetricSpec& m : wordMetrics()) {
        m.dataKinds = {"corpus"};
        metrics.push_back(std::move(m));
    }
    return metrics;
}

void add(Registry& r, bool hierarchical, PfAlgorithm algorithm, std::string key, std::string label,
         std::string help)
{
    AlgorithmEntry e;
    e.model = hierarchical ? "hpf" : "pmf";
    e.modelLabel =
        hierarchical ? "Hierarchical Poisson factorization" : "Poisson matrix factorization";
    e.algorithm = std::move(key);
    e.label = std::move(label);
    e.help = std::move(help);
    e.dataKinds = {"ratings", "corpus"};
    e.metrics = pfTextMetrics();
    e.compareRank = int(algorithm) + 1; // SVI, batch VB, streaming VB
    e.readsParts = true;                // its trainer holds to its rank's rows (heldRows)
    e.params = PfOptions::declare(hierarchical, algorithm).specs();
    e.make = [hierarchical, algorithm](const DataSet& data, const ParamValues& values,
                                       std::uint64_t seed) {
        return std::make_unique<PfTrainer>(data.requireCounts(hierarchical ? "HPF" : "PMF"),
                                           algorithm, PfOptions::fromParams(values, hierarchical),
                                           seed);
    };
    // The users' and items' factors (shape, rate, mean and E[log], N + M rows × K), the items'
    // gradient, the minibatch's statistics (every rating for batch), the evaluation.
    e.memory = [algorithm](const DataSet& data, const ParamValues& v) {
        using namespace memory;
        const CountData& c = *data.counts;
        const double N = double(c.rows()), M = double(c.cols()), K = number(v, "K");
        const double nnz = double(c.train.nonZeros());
        const bool batch = algorithm == PfAlgorithm::Batch;
        const double B = batch ? N : std::min(number(v, "minibatch", N), N);
        const double ratings = N > 0 ? B * nnz / N : 0.0;
        std::vector<MemoryTerm> terms = {
            {"the factors: 4 × (users + items) × K doubles", 4 * kDouble * (N + M) * K, "K"},
            {"the items' gradient: 2 × items × K doubles", 2 * kDouble * M * K, "K"},
            {"the minibatch's statistics",
             24 * ratings + 2 * kDouble * B * K + kDouble * K * std::min(M, ratings),
             batch ? "data" : "minibatch"},
            recommenderEvaluation(c, K),
        };
        if (algorithm == PfAlgorithm::Svi && choice(v, "schedule") == "adaptive")
            terms.push_back({"the adaptive schedule's averages", 2 * kDouble * M * K, "K"});
        return terms;
    };
    e.readOptions = [hierarchical](const ParamValues& values) {
        return PfOptions::fromParams(values, hierarchical).checked().toParams();
    };
    e.smallSettings = {
        {"K", std::int64_t(4)}, {"minibatch", std::int64_t(10)}, {"eval_users", std::int64_t(20)}};
    // θ's shapes (HPF's a, PMF's c) of 1e308 overflow the item rates.
    e.divergentSettings = {{hierarchical ? "a" : "c", 1e308}};
    r.add(std::move(e));
}

} // namespace

ParamFields<PfOptions> PfOptions::declare(bool hierarchical, PfAlgorithm algorithm)
{
    using O = PfOptions;
    ParamFields<O> f;
    f.add(intParam("K", "Factors K", "number of latent factors", 100, 1, kHuge), &O::K);
    if (algorithm != PfAlgorithm::Batch) {
        if (algorithm == PfAlgorithm::Svi)
            f.add(intParam("minibatch", "Minibatch", "users per stochastic step", 100, 1, kHuge),
                  &O::minibatch)
                .add(&O::stepSize, StepSizeOptions::declare(0.75, 1.0));
        else
            f.add(intParam("minibatch", "Minibatch", "users per minibatch of the stream", 100, 1,
                           kHuge),
                  &O::minibatch);
        f.add(intParam("local_iters", "Local iterations", "φ → γ → κ rounds per user at most", 100,
                       1, 100000),
              &O::localIters)
            .add(realParam("local_tol", "Local tolerance",
                           "stop a user's rounds once the mean |Δγshp| < tol", 1e-3, 0.0, kHuge),
                 &O::localTol);
    }
    f.add(&O::priors, pf::Priors::declare(hierarchical));
    addRecommenderEvaluationFields(f);
    ParamSpec topWords = topWordsParam();
    topWords.help = "items (a corpus's words) listed per factor, as topics";
    f.add(topWords, &O::topWords);
    return f;
}

const ParamFields<PfOptions>& PfOptions::fields()
{
    static const ParamFields<PfOptions> f = [] {
        ParamFields<PfOptions> all;
        all.merge(declare(true, PfAlgorithm::Svi)).merge(declare(false, PfAlgorithm::Svi));
        return all;
    }();
    return f;
}

PfOptions PfOptions::fromParams(const ParamValues& values, bool hierarchical)
{
    PfOptions o = DeclaredOptions::fromParams(values);
    o.priors.hierarchical = hierarchical;
    return o;
}

void registerPoissonFactorization(Registry& r)
{
    for (bool hierarchical : {true, false}) {
        add(r, hierarchical, PfAlgorithm::Svi, "svi", "SVI (users local, items global)",
            "minibatches of users; λ ← (1 − ρ_t)λ + ρ_t λ̂ with scale N/|B|");
        add(r, hierarchical, PfAlgorithm::Batch, "batch", "Batch variational Bayes",
            "coordinate ascent over the non-zero ratings: φ, users, items each step");
        add(r, hierarchical, PfAlgorithm::Streaming, "streaming",
            "Streaming VB (Broderick et al. 2013)",
            "one pass over the users; the items' posterior after each minibatch is the one "
            "before it plus the minibatch's statistic");
        addPfBbviEntry(r, hierarchical, pfTextMetrics()); // one column set
    }
}

} // namespace svi
