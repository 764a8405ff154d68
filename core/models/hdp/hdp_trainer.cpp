#include "core/models/hdp/hdp_trainer.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <omp.h>
#include <stdexcept>

namespace svi {

using lda::MatrixRD;

namespace {

// Document completion fits γ until the mean |Δγ_k| falls below this (Hoffman's test, the
// default of LdaTrainer), with at most local_iters updates.
constexpr double kProportionTol = 1e-3;

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum StreamId : std::uint64_t {
    kStreamInit = 1,
    kStreamSampler,
    kStreamEvalPick,
};

} // namespace

HdpOptions HdpOptions::fromParams(const ParamValues& v)
{
    HdpOptions o;
    readParams(v,
               {{"T", &o.T},
                {"K", &o.K},
                {"local_iters", &o.localIters},
                {"eval_docs", &o.evalDocs},
                {"top_words", &o.topWords}},
               {{"alpha", &o.alpha},
                {"gamma", &o.gamma},
                {"eta", &o.eta},
                {"kappa", &o.kappa},
                {"tau0", &o.tau0},
                {"local_tol", &o.localTol}});
    if (v.count("minibatch"))
        o.minibatch = getInt(v, "minibatch");
    if (v.count("sort_topics"))
        o.sortTopics = getBool(v, "sort_topics");
    return o;
}

HdpTrainer::HdpTrainer(CountDataPtr data, HdpAlgorithm algorithm, const HdpOptions& o,
                       std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed)
{
    auto require = [](bool ok, const char* field, const std::string& value, const char* rule) {
        if (!ok)
            throw std::invalid_argument(fieldError(field, value, rule));
    };
    auto positive = [&](double x, const char* field) {
        require(x > 0.0 && std::isfinite(x), field, formatNumber(x), "must be > 0");
    };
    require(o.T >= 1, "T", std::to_string(o.T), "must be ≥ 1");
    require(o.K >= 1, "K", std::to_string(o.K), "must be ≥ 1");
    positive(o.alpha, "alpha");
    positive(o.gamma, "gamma");
    positive(o.eta, "eta");
    require(o.kappa >= 0.5 && o.kappa <= 1.0, "kappa", formatNumber(o.kappa),
            "must be in [0.5, 1]");
    require(o.tau0 >= 0.0 && std::isfinite(o.tau0), "tau0", formatNumber(o.tau0), "must be ≥ 0");
    require(o.minibatch >= 1, "minibatch", std::to_string(o.minibatch), "must be ≥ 1");
    require(o.localIters >= 1, "local_iters", std::to_string(o.localIters), "must be ≥ 1");
    require(o.localTol >= 0.0, "local_tol", formatNumber(o.localTol), "must be ≥ 0");
    require(o.evalDocs >= 1, "eval_docs", std::to_string(o.evalDocs), "must be ≥ 1");
    require(o.topWords >= 1, "top_words", std::to_string(o.topWords), "must be ≥ 1");

    if (!m_data || m_data->vocabularySize < 1 || m_data->rows() < 1)
        throw std::invalid_argument("data: the corpus is empty");
    const CountData& d = *m_data;
    if (d.heldOut.rows() != d.rows())
        throw std::invalid_argument("data: '" + d.source + "' has " + std::to_string(d.rows()) +
                                    " rows but " + std::to_string(d.heldOut.rows()) +
                                    " held-out rows");
    if (d.trainingRowCount() < 1)
        throw std::invalid_argument("data: '" + d.source + "' has no training documents");
    for (const SparseRows* rows : {&d.train, &d.heldOut}) {
        for (std::int32_t c : rows->cols)
            if (c < 0 || c >= d.vocabularySize)
                throw std::invalid_argument("data: '" + d.source + "' has word index " +
                                            std::to_string(c) + " outside the vocabulary of " +
                                            std::to_string(d.vocabularySize) + " words");
        for (float c : rows->counts)
            if (!(c > 0.0f) || !std::isfinite(c))
                throw std::invalid_argument("data: '" + d.source + "' has a count of " +
                                            formatNumber(c) +
                                            "; counts must be positive and finite");
    }

    m_T = o.T;
    m_K = o.K;
    m_V = d.vocabularySize;
    for (std::int64_t r = 0; r < d.rows(); ++r)
        m_maxWords = std::max<Eigen::Index>(m_maxWords, d.train.rowNonZeros(r));

    const std::int64_t D = d.trainingRowCount();
    m_schedule = RobbinsMonro{o.kappa, o.tau0};
    if (m_algorithm == HdpAlgorithm::Svi)
        m_sampler = std::make_unique<MinibatchSampler>(D, std::min(o.minibatch, D),
                                                       Rng::stream(m_seed, kStreamSampler)());
    else
        m_batch = d.trainingRows();

    // λ ~ Gamma(100, 1/100) elementwise (mean 1, sd 0.1), one stream per word, as LdaTrainer.
    m_lambdaT.resize(m_V, m_T);
    for (std::int64_t w = 0; w < m_V; ++w) {
        Rng rng = Rng::stream(m_seed, kStreamInit, std::uint64_t(w));
        for (int k = 0; k < m_T; ++k)
            m_lambdaT(w, k) = rng.gamma(100.0, 100.0);
    }
    m_sticks = Eigen::VectorXd::Ones(m_T);
    m_order.resize(std::size_t(m_T));
    std::iota(m_order.begin(), m_order.end(), 0);
    refreshExpectations();

    m_elboRows = seededSubset(d.trainingRows(), std::size_t(o.evalDocs),
                              Rng::stream(m_seed, kStreamEvalPick, 0));
    for (std::int64_t r : d.testRows)
        if (d.heldOut.rowNonZeros(r) > 0)
            m_allTestRows.push_back(r);
    m_evalTestRows = seededSubset(m_allTestRows, std::size_t(o.evalDocs),
                                  Rng::stream(m_seed, kStreamEvalPick, 1));
}

HdpTrainer::~HdpTrainer() = default;

std::int64_t HdpTrainer::itemsPerStep() const
{
    const std::int64_t D = m_data->trainingRowCount();
    return m_algorithm == HdpAlgorithm::Batch ? D : std::min(m_options.minibatch, D);
}

hdp::LocalOptions HdpTrainer::localOptions() const
{
    hdp::LocalOptions lo;
    lo.alpha = m_options.alpha;
    lo.maxIters = m_options.localIters;
    lo.tol = m_options.localTol;
    return lo;
}

void HdpTrainer::refreshExpectations()
{
    m_totals = lda::topicTotals(m_lambdaT);
    hdp::elogBetaT(m_lambdaT, m_totals, m_elogBetaT);
    hdp::corpusSticks(m_sticks, m_options.gamma, m_u, m_v);
    hdp::expectLogSticks(m_u, m_v, m_elogSticks);
}

Eigen::VectorXd HdpTrainer::expectedSticks() const
{
    return hdp::expectSticks(m_u, m_v);
}

void HdpTrainer::setGlobals(const MatrixRD& lambdaT, const Eigen::VectorXd& sticks)
{
    if (lambdaT.rows() != m_V || lambdaT.cols() != m_T)
        throw std::invalid_argument(
            "HdpTrainer::setGlobals: λ is " + std::to_string(lambdaT.rows()) + "×" +
            std::to_string(lambdaT.cols()) + ", but must be V×T = " + std::to_string(m_V) + "×" +
            std::to_string(m_T));
    if (sticks.size() != m_T)
        throw std::invalid_argument("HdpTrainer::setGlobals: s has " +
                                    std::to_string(sticks.size()) +
                                    " entries, but must have T = " + std::to_string(m_T));
    m_lambdaT = lambdaT;
    m_sticks = sticks;
    refreshExpectations();
}

void HdpTrainer::ensureWorkspaces()
{
    const std::size_t threads = std::size_t(std::max(omp_get_max_threads(), 1));
    if (m_workspaces.size() < threads)
        m_workspaces.resize(threads);
    for (hdp::LocalWorkspace& ws : m_workspaces)
        if (ws.T != m_T || ws.K != m_K || ws.elogBeta.rows() < m_maxWords)
            ws.resize(m_T, m_K, m_maxWords);
}

hdp::LocalWorkspace& HdpTrainer::fitDocument(const SparseRows& rows, std::int64_t row)
{
    hdp::LocalWorkspace& ws = m_workspaces[std::size_t(omp_get_thread_num())];
    ws.gather(m_elogBetaT, rows.rowCols(row), rows.rowCounts(row));
    hdp::localStep(ws, m_elogSticks, localOptions());
    return ws;
}

double HdpTrainer::step(std::int64_t t)
{
    const CountData& data = *m_data;
    double rho = 1.0;
    if (m_algorithm == HdpAlgorithm::Svi) {
        rho = m_schedule.rho(t);
        const std::vector<std::int64_t>& drawn = m_sampler->next();
        m_batch.resize(drawn.size());
        for (std::size_t j = 0; j < drawn.size(); ++j)
            m_batch[j] = data.trainingRows()[std::size_t(drawn[j])];
    }
    const std::int64_t B = std::int64_t(m_batch.size());
    const double scale = double(data.trainingRowCount()) / double(B);

    ensureWorkspaces(); // before the parallel loop: nothing allocates inside it
    auto t0 = Clock::now();
    m_stats.layout(data.train, m_batch, m_T, m_K);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t j = 0; j < B; ++j) {
        const std::int64_t row = m_batch[std::size_t(j)];
        const hdp::LocalWorkspace& ws = fitDocument(data.train, row);
        m_stats.record(j, data.train.rowCols(row), ws);
    }
    m_times.local = secondsSince(t0);

    t0 = Clock::now();
    m_stats.groupByWord(m_V);
    hdp::updateTopics(m_lambdaT, m_stats, m_options.eta, scale, rho);
    hdp::updateStickStatistic(m_sticks, m_stats, scale, rho);
    if (m_options.sortTopics)
        m_order = hdp::sortTopics(m_lambdaT, m_sticks);
    m_times.update = secondsSince(t0);

    t0 = Clock::now();
    refreshExpectations();
    m_times.expectation = secondsSince(t0);
    return rho;
}

bool HdpTrainer::diverged() const
{
    return !m_lambdaT.allFinite() || !(m_lambdaT.array() > 0.0).all() || !m_sticks.allFinite() ||
           !(m_sticks.array() >= 0.0).all();
}

Evaluation HdpTrainer::evaluate(bool full)
{
    if (full) {
        Evaluation ev = evaluateOn(m_data->trainingRows(), m_allTestRows, true);
        if (!interrupted())
            return ev;
        // An interrupted full pass is incomplete: report the cheap evaluation instead.
    }
    return evaluateOn(m_elboRows, m_evalTestRows, false);
}

Evaluation HdpTrainer::evaluateOn(const std::vector<std::int64_t>& elboRows,
                                  const std::vector<std::int64_t>& testRows, bool stopOnInterrupt)
{
    const CountData& data = *m_data;
    ensureWorkspaces();

    // ELBO: the local optimum of each training document in the subset.
    const std::int64_t n = std::int64_t(elboRows.size());
    std::vector<double> cElbo(kChunks, 0.0);
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            if (stopOnInterrupt && interrupted())
                return;
            cElbo[std::size_t(c)] += fitDocument(data.train, elboRows[std::size_t(j)]).elbo;
        }
    });

    // Document completion through the LDA reading of the fit (see the header).
    const Eigen::VectorXd weight = expectedSticks();
    Eigen::VectorXd alphaVec = m_options.alpha * weight;
    // A stick weight can underflow for a very long tail of unused topics; γ_k must stay > 0.
    alphaVec = alphaVec.cwiseMax(std::numeric_limits<double>::min());
    MatrixRD meanBetaT = m_lambdaT;
    meanBetaT.array().rowwise() /= m_totals.transpose().array();
    const std::size_t threads = std::size_t(std::max(omp_get_max_threads(), 1));
    if (m_ldaWorkspaces.size() < threads)
        m_ldaWorkspaces.resize(threads);
    for (lda::LocalWorkspace& ws : m_ldaWorkspaces)
        if (ws.K != m_T || ws.beta.rows() < m_maxWords)
            ws.resize(m_T, m_maxWords);

    const std::int64_t m = std::int64_t(testRows.size());
    std::vector<double> cLl(kChunks, 0.0), cWords(kChunks, 0.0);
    forChunks(m, [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            if (stopOnInterrupt && interrupted())
                return;
            const std::int64_t row = testRows[std::size_t(j)];
            lda::LocalWorkspace& ws = m_ldaWorkspaces[std::size_t(omp_get_thread_num())];
            ws.gather(meanBetaT, data.train.rowCols(row), data.train.rowCounts(row));
            hdp::fitProportions(ws, alphaVec, m_options.localIters, kProportionTol);
            ws.next = ws.gamma / ws.gamma.sum(); // E[θ]
            const auto words = data.heldOut.rowCols(row);
            const auto counts = data.heldOut.rowCounts(row);
            double ll = 0.0, total = 0.0;
            for (std::size_t i = 0; i < words.size(); ++i) {
                const double p = meanBetaT.row(words[i]).dot(ws.next.transpose());
                ll += double(counts[i]) * std::log(p);
                total += double(counts[i]);
            }
            cLl[std::size_t(c)] += ll;
            cWords[std::size_t(c)] += total;
        }
    });

    auto sum = [](const std::vector<double>& v) {
        return std::accumulate(v.begin(), v.end(), 0.0);
    };
    Evaluation ev;
    const double D = double(data.trainingRowCount());
    ev.hasBound = n > 0;
    ev.elbo = n > 0 ? hdp::stickElbo(m_u, m_v, m_options.gamma) +
                          lda::globalElbo(m_lambdaT, m_options.eta) + D / double(n) * sum(cElbo)
                    : std::numeric_limits<double>::quiet_NaN();
    const double words = sum(cWords);
    if (words > 0) {
        const double perWord = sum(cLl) / words;
        ev.metrics["heldout_loglik_per_word"] = perWord;
        ev.metrics["perplexity"] = std::exp(-perWord);
    }
    // A topic is in use when its expected stick weight exceeds a tenth of an even share.
    const double threshold = 0.1 / double(m_T);
    ev.metrics["topics_used"] = double((weight.array() > threshold).count());
    ev.preview = makePreview(weight);
    return ev;
}

std::shared_ptr<Preview> HdpTrainer::makePreview(const Eigen::VectorXd& weight) const
{
    auto preview = std::make_shared<Preview>();
    const double threshold = 0.1 / double(m_T);
    std::vector<int> order;
    for (int k = 0; k < m_T; ++k)
        if (weight[k] > threshold)
            order.push_back(k);
    std::stable_sort(order.begin(), order.end(),
                     [&](int x, int y) { return weight[x] > weight[y]; });
    const std::vector<std::string>& names = m_data->columnNames;
    const std::size_t top =
        std::min<std::size_t>(std::size_t(m_options.topWords), std::size_t(m_V));
    std::vector<std::int32_t> words(static_cast<std::size_t>(m_V));
    for (int k : order) {
        TopicSummary s;
        s.index = k;
        s.weight = weight[k];
        std::iota(words.begin(), words.end(), 0);
        std::partial_sort(words.begin(), words.begin() + std::ptrdiff_t(top), words.end(),
                          [&](std::int32_t a, std::int32_t b) {
                              const double la = m_lambdaT(a, k), lb = m_lambdaT(b, k);
                              return la > lb || (la == lb && a < b);
                          });
        for (std::size_t i = 0; i < top; ++i) {
            const std::int32_t w = words[i];
            s.words.push_back(std::size_t(w) < names.size() ? names[std::size_t(w)]
                                                            : std::to_string(w));
            s.probs.push_back(m_lambdaT(w, k) / m_totals[k]);
        }
        preview->topics.push_back(std::move(s));
    }
    return preview;
}

} // namespace svi
