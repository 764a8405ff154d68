#include "core/models/bbvi/linear_black_box.h"

#include "core/base/parallel.h"
#include "core/base/params.h"
#include "core/data/preview.h"
#include "core/math/digamma.h"
#include "core/math/random.h"
#include "core/models/lgm/lgm_entries.h"
#include "core/models/memory_terms.h"

#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi {
namespace {

// A cheap evaluation's test rows at most (a full one takes them all).
constexpr std::size_t kCheapTestRows = 2000;
constexpr std::uint64_t kPredictiveStream = 0x70726564; // "pred"
const double kLogRoot2Pi = 0.5 * std::log(2.0 * std::numbers::pi);

double gammaLogDensity(double x, double shape, double rate)
{
    return shape * std::log(rate) - std::lgamma(shape) + (shape - 1.0) * std::log(x) - rate * x;
}

} // namespace

std::string randomEffectsName(RandomEffects e)
{
    switch (e) {
    case RandomEffects::Normal:
        return "normal";
    case RandomEffects::Gamma:
        return "gamma";
    case RandomEffects::None:
        break;
    }
    return "none";
}

RandomEffects randomEffectsFromName(const std::string& name)
{
    if (name == "normal")
        return RandomEffects::Normal;
    if (name == "gamma")
        return RandomEffects::Gamma;
    throw std::invalid_argument(fieldError("random_effects", name, "must be normal or gamma"));
}

ParamFields<LinearBbviOptions> LinearBbviOptions::declare(bool effects)
{
    using O = LinearBbviOptions;
    ParamFields<O> f;
    ParamSpec prior = lgmPriorVarianceParam();
    if (effects) {
        prior.help = "fixed effects w ~ N(0, σ_p² I): weakly informative on z-scored features";
        prior.defaultValue = 100.0;
    }
    f.add(likelihoodParam(), &O::likelihood)
        .add(prior, &O::priorVariance)
        .add(positiveParam("init_variance", "Initial variance",
                           "q(w_d) starts at N(0, init_variance)", 0.01),
             &O::initVariance);
    if (effects)
        f.add(choiceParam("random_effects", "Random effects",
                          "normal: η = xᵀw + b_g, b_g ~ N(0, 1/τ), τ ~ Gamma (Gamma-Normal); "
                          "gamma: rate u_g·exp(xᵀw), u_g ~ Gamma(α, α), α ~ Gamma (Gamma-Gamma, "
                          "poisson only)",
                          {"normal", "gamma"}, "normal"),
              &O::effects, randomEffectsName, randomEffectsFromName)
            .add(positiveParam("hyper_shape", "Hyperprior shape a₀",
                               "τ (normal effects) or α (gamma effects) ~ Gamma(a₀, b₀)", 1.0),
                 &O::hyperShape)
            .add(positiveParam("hyper_rate", "Hyperprior rate b₀",
                               "τ (normal effects) or α (gamma effects) ~ Gamma(a₀, b₀)", 1.0),
                 &O::hyperRate);
    f.add(positiveParam("noise_sd", "Noise σ",
                        "gaussian likelihood: y ~ N(η, σ²), on the standardised label", 1.0),
          &O::noiseSd);
    // The rate decays (κ = 0.6): measured on epil, a constant RMSprop rate left the bound
    // wandering between −599 and −671 where κ = 0.6 settled at −583 (AdaGrad at 0.5: −583).
    f.add(&O::bbvi, BbviOptions::declare(effects, effects ? 16 : 100, 5, 16, 0.6, true));
    return f;
}

const ParamFields<LinearBbviOptions>& LinearBbviOptions::fields()
{
    static const ParamFields<LinearBbviOptions> f = declare(true);
    return f;
}

LinearBlackBoxSettings LinearBbviOptions::settings(const LabelledDataPtr& data) const
{
    LinearBlackBoxSettings s;
    s.likelihood = likelihoodFor(likelihood, data);
    s.noiseSd = noiseSd;
    s.priorVariance = priorVariance;
    s.initVariance = initVariance;
    s.effects = effects;
    s.hyperShape = hyperShape;
    s.hyperRate = hyperRate;
    return s;
}

void addLinearBbviEntry(Registry& r, const std::string& model, const std::string& modelLabel,
                        bool effects, int compareRank)
{
    AlgorithmEntry e;
    e.model = model;
    e.modelLabel = modelLabel;
    e.algorithm = "bbvi";
    e.label = "BBVI";
    e.help = "black-box VI (paper 004 §2.5): score-function gradients from S draws of q, "
             "Rao-Blackwellised, with control variates";
    e.dataKinds = {"labelled"};
    e.compareRank = compareRank;
    e.params = LinearBbviOptions::declare(effects).specs();
    e.readOptions = optionsReader<LinearBbviOptions>();
    e.metrics = supervisedMetrics();
    e.metrics.push_back(gradientVarianceMetric());
    e.bound = "a Monte Carlo estimate of the evidence lower bound from elbo_samples draws of q, "
              "over eval_items " +
              std::string(effects ? "groups" : "training rows") + " scaled by N/n (0: all)";
    e.make = [modelLabel, effects](const DataSet& data, const ParamValues& values,
                                   std::uint64_t seed) {
        const LabelledDataPtr& d = data.requireLabelled(modelLabel);
        LinearBbviOptions o = LinearBbviOptions::fromParams(values);
        if (!effects)
            o.effects = RandomEffects::None;
        return std::make_unique<LinearBlackBoxTrainer>(d, o.settings(d), o.bbvi, seed);
    };
    // The draws of a step: S × (the globals' λ, score and blankets, and the minibatch's
    // locals); the per-group row lists; the predictive's draws of every group's effect.
    e.memory = [effects](const DataSet& data, const ParamValues& v) {
        using namespace memory;
        const double D = double(data.cols()), S = number(v, "draws");
        const double B = number(v, "minibatch");
        const double G = effects && data.labelled ? double(data.labelled->groupNames.size()) : 0.0;
        return std::vector<MemoryTerm>{
            {"S draws of q: about 8 × draws × (D + 8 × minibatch) doubles",
             kDouble * 8.0 * S * (D + 8.0 * std::min(B, std::max(G, B))), "draws"},
            {"the groups' q and the predictive's draws of their effects",
             kDouble * G * (6.0 + number(v, "elbo_samples")), "data"}};
    };
    e.smallSettings = {{"draws", std::int64_t(4)},
                       {"minibatch", std::int64_t(20)},
                       {"elbo_samples", std::int64_t(4)},
                       {"variance_repeats", std::int64_t(2)}};
    if (effects)
        e.smallSettings["local_steps"] = std::int64_t(1);
    // A prior variance of 1e-320 (subnormal): w²/σ_p² overflows, the prior's log density is
    // −∞ at any draw, and so are the gradient's weights.
    e.divergentSettings = {{"prior_variance", 1e-320}};
    r.add(std::move(e));
}

LinearBlackBoxModel::LinearBlackBoxModel(LabelledDataPtr data,
                                         const LinearBlackBoxSettings& settings)
    : m_data(std::move(data)), m_settings(settings),
      m_lik(makeLikelihood(settings.likelihood, settings.noiseSd))
{
    if (!m_data)
        throw std::invalid_argument("data: none");
    const LabelledData& d = *m_data;
    for (std::int64_t i = 0; i < d.rows(); ++i)
        if (const auto why = m_lik->outsideSupport(d.y[i]))
            throw std::invalid_argument("cannot fit " + d.where(i) + ", label: " + *why +
                                        " (likelihood = " + likelihoodName(m_lik->kind()) + ")");
    if (!d.x.allFinite())
        throw std::invalid_argument("data: a feature of '" + d.source + "' is not finite");
    if (d.trainingRows.empty())
        throw std::invalid_argument("data: no training rows in '" + d.source + "'");
    std::vector<QBlock> globals = {{"w", QFamily::Normal, d.cols()}};
    if (settings.effects != RandomEffects::None) {
        if (d.group.empty())
            throw std::invalid_argument(
                fieldError("groups", "",
                           "must name the column of the groups (subjects) whose "
                           "random effects the model fits"));
        if (settings.effects == RandomEffects::Gamma &&
            settings.likelihood != LikelihoodKind::Poisson)
            throw std::invalid_argument(
                fieldError("random_effects", "gamma",
                           "scales a Poisson rate: it needs likelihood = poisson, not " +
                               likelihoodName(settings.likelihood)));
        const bool normal = settings.effects == RandomEffects::Normal;
        globals.push_back({normal ? "precision" : "shape", QFamily::Gamma, 1});
        m_locals = QLayout({{"effect", normal ? QFamily::Normal : QFamily::Gamma, 1}});
        m_groups = std::int64_t(d.groupNames.size());
        m_groupRows.resize(std::size_t(m_groups));
        for (const std::int64_t i : d.trainingRows)
            m_groupRows[std::size_t(d.group[std::size_t(i)])].push_back(i);
    }
    m_globals = QLayout(std::move(globals));
    if (settings.likelihood == LikelihoodKind::Poisson) {
        m_logFactorial.resize(std::size_t(d.rows()));
        for (std::int64_t i = 0; i < d.rows(); ++i)
            m_logFactorial[std::size_t(i)] = std::lgamma(d.y[i] + 1.0);
    }
}

double LinearBlackBoxModel::rowLogLik(std::int64_t i, double eta) const
{
    // Poisson counts, the GLMM's common case: log y! once per row, not once per draw.
    if (!m_logFactorial.empty())
        return m_data->y[i] * eta - std::exp(eta) - m_logFactorial[std::size_t(i)];
    return m_lik->logLik(m_data->y[i], eta);
}

std::int64_t LinearBlackBoxModel::itemCount() const
{
    return m_settings.effects == RandomEffects::None ? m_data->trainingRowCount() : m_groups;
}

std::int64_t LinearBlackBoxModel::itemOfRow(std::int64_t i) const
{
    return m_settings.effects == RandomEffects::None ? -1
                                                     : std::int64_t(m_data->group[std::size_t(i)]);
}

double LinearBlackBoxModel::linearPredictor(std::int64_t i,
                                            const Eigen::Ref<const Eigen::ArrayXd>& w,
                                            double effect) const
{
    const LabelledData& d = *m_data;
    const Eigen::Index D = d.cols();
    double eta = d.x.row(i).dot(w.head(D).matrix());
    // A gamma effect multiplies the Poisson rate: log u adds to the log link's η.
    if (m_settings.effects == RandomEffects::Normal)
        eta += effect;
    else if (m_settings.effects == RandomEffects::Gamma)
        eta += std::log(effect);
    return eta;
}

double LinearBlackBoxModel::rowSlope(std::int64_t i, double eta) const
{
    if (!m_logFactorial.empty())
        return m_data->y[i] - std::exp(eta);
    double d1 = 0.0, d2 = 0.0;
    m_lik->derivatives(m_data->y[i], eta, d1, d2);
    return d1;
}

void LinearBlackBoxModel::factors(std::span<const std::int64_t> items,
                                  const Eigen::Ref<const Eigen::ArrayXd>& zGlobal,
                                  const Eigen::Ref<const Eigen::ArrayXd>& zLocal,
                                  FactorSums& out) const
{
    const LabelledData& d = *m_data;
    const Eigen::Index D = d.cols();
    const double v = m_settings.priorVariance;
    const bool grad = out.wantGradient;
    for (Eigen::Index j = 0; j < D && out.wantGlobal; ++j) {
        const double f = -0.5 * zGlobal[j] * zGlobal[j] / v - 0.5 * std::log(v) - kLogRoot2Pi;
        out.global += f;
        out.globalBlanket[j] += f;
        if (grad)
            out.globalGradient[j] -= zGlobal[j] / v;
    }
    // A row's likelihood: its value, and with gradients its slope in η times ∂η/∂w = x_i
    // (into the items' gradient of w) and, returned, its slope for the effect's.
    const auto row = [&](std::int64_t i, double effect, double& slope) {
        const double eta = linearPredictor(i, zGlobal, effect);
        if (grad) {
            slope = rowSlope(i, eta);
            if (out.wantItemBlanket)
                out.itemGradient.head(D) += slope * d.x.row(i).transpose().array();
        }
        return rowLogLik(i, eta);
    };
    double slope = 0.0;
    if (m_settings.effects == RandomEffects::None) {
        double sum = 0.0;
        for (const std::int64_t item : items)
            sum += row(d.trainingRows[std::size_t(item)], 0.0, slope);
        out.items += sum;
        // Every row's likelihood holds every weight.
        if (out.wantItemBlanket)
            out.itemBlanket.head(D) += sum;
        return;
    }
    const bool normal = m_settings.effects == RandomEffects::Normal;
    const double hyper = zGlobal[D];
    if (out.wantGlobal) {
        const double a0 = m_settings.hyperShape, b0 = m_settings.hyperRate;
        const double prior = gammaLogDensity(hyper, a0, b0);
        out.global += prior;
        out.globalBlanket[D] += prior;
        if (grad)
            out.globalGradient[D] += (a0 - 1.0) / hyper - b0;
    }
    // The effects' priors' slopes in τ or α that do not depend on the effect: ½/τ; log α + 1
    // − ψ(α).
    const double hyperSlope =
        grad ? (normal ? 0.5 / hyper : std::log(hyper) + 1.0 - digamma(hyper)) : 0.0;
    double likelihoods = 0.0, links = 0.0, linkSlopes = 0.0;
    for (std::size_t j = 0; j < items.size(); ++j) {
        const double effect = zLocal[Eigen::Index(j)];
        // The effect's prior: N(0, 1/τ) or Gamma(α, α); it holds the effect and τ or α.
        const double link =
            normal ? 0.5 * std::log(hyper) - 0.5 * hyper * effect * effect - kLogRoot2Pi
                   : gammaLogDensity(effect, hyper, hyper);
        double lik = 0.0, effectSlope = 0.0;
        for (const std::int64_t i : m_groupRows[std::size_t(items[j])]) {
            lik += row(i, effect, slope);
            effectSlope += slope;
        }
        out.localBlanket[Eigen::Index(j)] += link + lik;
        likelihoods += lik;
        links += link;
        if (grad) {
            // ∂η/∂b = 1; ∂η/∂u = 1/u (η holds log u). The prior: −τ b; (α − 1)/u − α.
            out.localGradient[Eigen::Index(j)] +=
                normal ? effectSlope - hyper * effect
                       : effectSlope / effect + (hyper - 1.0) / effect - hyper;
            linkSlopes +=
                hyperSlope + (normal ? -0.5 * effect * effect : std::log(effect) - effect);
        }
    }
    out.items += likelihoods + links;
    if (out.wantItemBlanket) {
        out.itemBlanket.head(D) += likelihoods;
        out.itemBlanket[D] += links;
        if (grad)
            out.itemGradient[D] += linkSlopes;
    }
}

void LinearBlackBoxModel::start(Eigen::ArrayXd& global, Eigen::MatrixXd& local,
                                std::uint64_t seed) const
{
    (void)seed; // a deterministic start: the posterior's symmetry needs no breaking
    m_globals.setBlockMoments(global, 0, 0.0, m_settings.initVariance);
    if (m_settings.effects == RandomEffects::None)
        return;
    // τ or α at its prior's mean, with the prior's variance at most 1; effects at the prior
    // they imply, narrowed.
    const double a0 = m_settings.hyperShape, b0 = m_settings.hyperRate;
    m_globals.setBlockMoments(global, 1, a0 / b0, std::min(a0 / (b0 * b0), 1.0));
    Eigen::ArrayXd column(m_locals.parameters());
    if (m_settings.effects == RandomEffects::Normal)
        m_locals.setBlockMoments(column, 0, 0.0, 0.01);
    else
        m_locals.setBlockMoments(column, 0, 1.0, 0.01);
    local.colwise() = column.matrix();
}

LinearBlackBoxTrainer::LinearBlackBoxTrainer(const LabelledDataPtr& data,
                                             const LinearBlackBoxSettings& settings,
                                             const BbviOptions& options, std::uint64_t seed)
    : BlackBoxTrainer(std::make_unique<LinearBlackBoxModel>(data, settings), options, seed),
      m_evalTest(
          seededSubset(data->testRows, kCheapTestRows, Rng::stream(seed, kPredictiveStream))),
      m_seed(seed)
{
}

void LinearBlackBoxTrainer::report(Evaluation& ev, bool full, std::uint64_t id) const
{
    const LinearBlackBoxModel& m = linear();
    const LabelledData& d = m.data();
    const QLayout& g = m.globals();
    const QLayout& l = m.locals();
    const BlackBoxVi& e = engine();
    const int draws = std::max(e.options().elboSamples, 1);
    const std::vector<std::int64_t>& rows = full ? d.testRows : m_evalTest;
    if (!rows.empty()) {
        // Draws of q shared by the rows: w and every group's effect, S times.
        struct Totals
        {
            double nll = 0.0, wrong = 0.0, sq = 0.0;
        };
        std::vector<Eigen::ArrayXd> w(std::size_t(draws), Eigen::ArrayXd(g.variables()));
        Eigen::MatrixXd effects(std::max<std::int64_t>(m.itemCount(), 1), draws);
        effects.setZero();
        {
            Eigen::ArrayXd logQ(g.variables()), score(g.parameters());
            Eigen::ArrayXd z1(1), logQ1(1), score1(l.parameters());
            for (int s = 0; s < draws; ++s) {
                Rng rng = Rng::stream(m_seed, kPredictiveStream, id, std::uint64_t(s));
                g.draw(e.global(), rng, w[std::size_t(s)], logQ, score);
                if (!l.empty())
                    for (std::int64_t i = 0; i < m.itemCount(); ++i) {
                        l.draw(e.local().col(i).array(), rng, z1, logQ1, score1);
                        effects(i, s) = z1[0];
                    }
            }
        }
        std::vector<Totals> partial(kChunks);
        forChunks(std::int64_t(rows.size()), [&](int c, std::int64_t begin, std::int64_t end) {
            Totals t;
            Eigen::ArrayXd logLik(draws); // per row: log p(y_i | η) at each draw
            for (std::int64_t r = begin; r < end; ++r) {
                const std::int64_t i = rows[std::size_t(r)];
                const std::int64_t item = m.itemOfRow(i);
                double top = -std::numeric_limits<double>::infinity(), mean = 0.0;
                for (int s = 0; s < draws; ++s) {
                    const double eta =
                        m.linearPredictor(i, w[std::size_t(s)], item >= 0 ? effects(item, s) : 0.0);
                    logLik[s] = m.likelihood().logLik(d.y[i], eta);
                    top = std::max(top, logLik[s]);
                    mean += m.likelihood().mean(eta) / draws;
                }
                // log of the mean of p(y | η_s) over the draws.
                t.nll -= top + std::log((logLik - top).exp().mean());
                if (m.likelihood().classifies())
                    t.wrong += (mean > 0.5) != (d.y[i] > 0.5) ? 1.0 : 0.0;
                else
                    t.sq += (mean - d.y[i]) * (mean - d.y[i]);
            }
            partial[std::size_t(c)] = t;
        });
        Totals t;
        for (const Totals& p : partial)
            t.nll += p.nll, t.wrong += p.wrong, t.sq += p.sq;
        const double n = double(rows.size());
        ev.metrics["test_nll"] = t.nll / n + std::log(d.labelScale);
        if (m.likelihood().classifies())
            ev.metrics["test_error"] = 100.0 * t.wrong / n;
        else
            ev.metrics["test_rmse"] = std::sqrt(t.sq / n) * d.labelScale;
    }
    // q(w), then the hyperparameter's q (its gamma's mean and sd), as the weights' table.
    Eigen::ArrayXd mean(g.variables()), variance(g.variables());
    g.moments(e.global(), mean, variance);
    auto weights = std::make_shared<WeightSummary>();
    for (int j = 0; j < d.cols(); ++j)
        weights->names.push_back(std::size_t(j) < d.featureNames.size() &&
                                         !d.featureNames[std::size_t(j)].empty()
                                     ? d.featureNames[std::size_t(j)]
                                     : "x" + std::to_string(j + 1));
    if (m.effects() == RandomEffects::Normal)
        weights->names.emplace_back("τ (precision of the random effects)");
    else if (m.effects() == RandomEffects::Gamma)
        weights->names.emplace_back("α (shape and rate of the random effects)");
    weights->mean = mean.matrix();
    weights->sd = variance.sqrt().matrix();
    auto preview = std::make_shared<Preview>();
    preview->weights = std::move(weights);
    ev.preview = std::move(preview);
}

} // namespace svi
