#include "core/models/lda/lda_trainer.h"

#include "core/base/parallel.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <omp.h>
#include <stdexcept>

namespace svi {

using lda::LocalWorkspace;
using lda::MatrixRD;

namespace {

// Stream ids (the first id of Rng::stream) so that no two uses share random numbers.
enum StreamId : std::uint64_t {
    kStreamInit = 1,
    kStreamSampler,
    kStreamEvalPick,
};

// A topic is "in use" when it holds more than a tenth of an even share (1/K) of the expected
// word assignments: a dead topic keeps about α per document, far below that.
double inUseShare(int K)
{
    return 0.1 / double(K);
}

} // namespace

LdaOptions LdaOptions::fromParams(const ParamValues& v)
{
    LdaOptions o;
    readParams(v,
               {{"K", &o.K},
                {"local_iters", &o.localIters},
                {"eval_docs", &o.evalDocs},
                {"top_words", &o.topWords}},
               {{"alpha", &o.alpha},
                {"eta", &o.eta},
                {"kappa", &o.kappa},
                {"tau0", &o.tau0},
                {"local_tol", &o.localTol}});
    if (v.count("minibatch"))
        o.minibatch = getInt(v, "minibatch");
    StepSizeOptions step{o.schedule, o.kappa, o.tau0, o.adaptiveInit};
    step.read(v);
    o.schedule = step.schedule;
    o.adaptiveInit = step.adaptiveInit;
    return o;
}

LdaTrainer::LdaTrainer(CountDataPtr data, LdaAlgorithm algorithm, const LdaOptions& o,
                       std::uint64_t seed)
    : m_data(std::move(data)), m_algorithm(algorithm), m_options(o), m_seed(seed)
{
    auto require = [](bool ok, const char* field, const std::string& value, const char* rule) {
        if (!ok)
            throw std::invalid_argument(fieldError(field, value, rule));
    };
    require(o.K >= 1, "K", std::to_string(o.K), "must be ≥ 1");
    require(o.alpha >= 0.0 && std::isfinite(o.alpha), "alpha", formatNumber(o.alpha),
            "must be ≥ 0 (0 means 1/K)");
    require(o.eta > 0.0 && std::isfinite(o.eta), "eta", formatNumber(o.eta), "must be > 0");
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

    m_K = o.K;
    m_V = d.vocabularySize;
    m_alpha = o.alphaValue();
    for (std::int64_t r = 0; r < d.rows(); ++r)
        m_maxWords = std::max<Eigen::Index>(m_maxWords, d.train.rowNonZeros(r));

    const std::int64_t D = d.trainingRowCount();
    m_stepSizer = StepSizer({o.schedule, o.kappa, o.tau0, o.adaptiveInit});
    if (m_algorithm == LdaAlgorithm::Svi)
        m_sampler = std::make_unique<MinibatchSampler>(D, std::min(o.minibatch, D),
                                                       Rng::stream(m_seed, kStreamSampler)());
    else
        m_batch = d.trainingRows();

    // λ ~ Gamma(100, 1/100) elementwise (mean 1, sd 0.1): nearly flat topics with enough
    // asymmetry to break the symmetry between them. One stream per word.
    m_lambdaT.resize(m_V, m_K);
    for (std::int64_t w = 0; w < m_V; ++w) {
        Rng rng = Rng::stream(m_seed, kStreamInit, std::uint64_t(w));
        for (int k = 0; k < m_K; ++k)
            m_lambdaT(w, k) = rng.gamma(100.0, 100.0);
    }
    refreshExpectations();

    // The cheap evaluation's documents: fixed seeded subsets, so that its trace is smooth.
    m_elboRows = seededSubset(d.trainingRows(), std::size_t(o.evalDocs),
                              Rng::stream(m_seed, kStreamEvalPick, 0));
    // Rows with held-out entries: the test documents of document completion; for ratings,
    // also training rows whose held-out entries were never seen.
    for (std::int64_t r = 0; r < d.rows(); ++r)
        if (d.heldOut.rowNonZeros(r) > 0)
            m_scoredRows.push_back(r);
    m_evalScoredRows = seededSubset(m_scoredRows, std::size_t(o.evalDocs),
                                    Rng::stream(m_seed, kStreamEvalPick, 1));
}

LdaTrainer::~LdaTrainer() = default;

std::int64_t LdaTrainer::itemsPerStep() const
{
    const std::int64_t D = m_data->trainingRowCount();
    return m_algorithm == LdaAlgorithm::Batch ? D : std::min(m_options.minibatch, D);
}

void LdaTrainer::refreshExpectations()
{
    m_totals = lda::topicTotals(m_lambdaT);
    lda::expElogBetaT(m_lambdaT, m_totals, m_expElogBetaT);
}

void LdaTrainer::setLambdaT(const MatrixRD& lambdaT)
{
    if (lambdaT.rows() != m_V || lambdaT.cols() != m_K)
        throw std::invalid_argument(
            "LdaTrainer::setLambdaT: λ is " + std::to_string(lambdaT.rows()) + "×" +
            std::to_string(lambdaT.cols()) + ", but must be V×K = " + std::to_string(m_V) + "×" +
            std::to_string(m_K));
    m_lambdaT = lambdaT;
    refreshExpectations();
}

void LdaTrainer::ensureWorkspaces()
{
    const std::size_t threads = std::size_t(std::max(omp_get_max_threads(), 1));
    if (m_workspaces.size() < threads)
        m_workspaces.resize(threads);
    for (LocalWorkspace& ws : m_workspaces)
        if (ws.K != m_K || ws.beta.rows() < m_maxWords)
            ws.resize(m_K, m_maxWords);
}

LocalWorkspace& LdaTrainer::workspace()
{
    return m_workspaces[std::size_t(omp_get_thread_num())];
}

LocalWorkspace& LdaTrainer::fitDocument(const SparseRows& rows, std::int64_t row)
{
    LocalWorkspace& ws = workspace();
    ws.gather(m_expElogBetaT, rows.rowCols(row), rows.rowCounts(row));
    lda::localStep(ws, {m_alpha, m_options.localIters, m_options.localTol});
    return ws;
}

void LdaTrainer::nextBatch()
{
    // The sampler draws positions among the training rows.
    const std::vector<std::int64_t>& drawn = m_sampler->next();
    m_batch.resize(drawn.size());
    for (std::size_t j = 0; j < drawn.size(); ++j)
        m_batch[j] = m_data->trainingRows()[std::size_t(drawn[j])];
}

double LdaTrainer::step(std::int64_t t)
{
    const CountData& data = *m_data;
    const bool svi = m_algorithm == LdaAlgorithm::Svi;
    const double scale = double(data.trainingRowCount()) / double(itemsPerStep());
    // The adaptive schedule starts its averages from gradients at the initial λ (Ranganath et
    // al. 2013, Algorithm 1): minibatches drawn before the first update.
    while (svi && m_stepSizer.needsWarmUp()) {
        nextBatch();
        localPhase();
        lda::topicGradient(m_lambdaT, m_expElogBetaT, m_stats, m_options.eta, scale, m_gradient);
        m_stepSizer.warmUp(m_gradient);
    }
    if (svi)
        nextBatch();
    localPhase();

    const auto t0 = Clock::now();
    double rho = 1.0;
    if (svi && m_stepSizer.adaptive()) {
        lda::topicGradient(m_lambdaT, m_expElogBetaT, m_stats, m_options.eta, scale, m_gradient);
        rho = m_stepSizer.rho(t, &m_gradient);
        m_lambdaT.reshaped<Eigen::RowMajor>() += rho * m_gradient;
    } else {
        rho = svi ? m_stepSizer.rho(t, nullptr) : 1.0;
        lda::updateTopics(m_lambdaT, m_expElogBetaT, m_stats, m_options.eta, scale, rho);
    }
    m_times.update += secondsSince(t0);

    const auto t1 = Clock::now();
    refreshExpectations();
    m_times.expectation = secondsSince(t1);
    return rho;
}

void LdaTrainer::localPhase()
{
    const CountData& data = *m_data;
    const std::int64_t B = std::int64_t(m_batch.size());

    ensureWorkspaces(); // before the parallel loop: nothing allocates inside it
    auto t0 = Clock::now();
    m_stats.layout(data.train, m_batch, m_K);
#pragma omp parallel for schedule(dynamic, 1)
    for (std::int64_t j = 0; j < B; ++j) {
        const std::int64_t row = m_batch[std::size_t(j)];
        const LocalWorkspace& ws = fitDocument(data.train, row);
        m_stats.record(j, data.train.rowCols(row), ws);
    }
    m_times.local = secondsSince(t0);

    t0 = Clock::now();
    m_stats.groupByWord(m_V);
    m_times.update = secondsSince(t0);
}

bool LdaTrainer::diverged() const
{
    return !m_lambdaT.allFinite() || !(m_lambdaT.array() > 0.0).all();
}

Evaluation LdaTrainer::evaluate(bool full)
{
    if (full) {
        Evaluation ev = evaluateOn(m_data->trainingRows(), m_scoredRows, true);
        if (!interrupted())
            return ev;
        // An interrupted full pass is incomplete: report the cheap evaluation instead.
    }
    return evaluateOn(m_elboRows, m_evalScoredRows, false);
}

Evaluation LdaTrainer::evaluateOn(const std::vector<std::int64_t>& elboRows,
                                  const std::vector<std::int64_t>& scoredRows, bool stopOnInterrupt)
{
    const CountData& data = *m_data;
    ensureWorkspaces();

    // ELBO and topic usage over training documents: Σ_d L_d and Σ_d (γ_d − α), where
    // γ_dk − α = Σ_w n_dw φ_dwk is the expected number of words of d assigned to topic k.
    const std::int64_t n = std::int64_t(elboRows.size());
    std::vector<double> cElbo(kChunks, 0.0);
    MatrixRD cUsage = MatrixRD::Zero(kChunks, m_K);
    forChunks(n, [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            if (stopOnInterrupt && interrupted())
                return;
            LocalWorkspace& ws = fitDocument(data.train, elboRows[std::size_t(j)]);
            cUsage.row(c) += (ws.gamma.array() - m_alpha).matrix().transpose();
            cElbo[std::size_t(c)] += lda::documentElbo(ws, m_alpha);
        }
    });

    // Document completion: γ from the observed half (the `train` row), each held-out word
    // scored by log Σ_k E[θ_k] E[β_kw] with E[β_kw] = λ_kw / Σ_v λ_kv.
    const std::int64_t m = std::int64_t(scoredRows.size());
    std::vector<double> cLl(kChunks, 0.0), cWords(kChunks, 0.0);
    const Eigen::ArrayXd invTotals = m_totals.array().inverse();
    forChunks(m, [&](int c, std::int64_t begin, std::int64_t end) {
        for (std::int64_t j = begin; j < end; ++j) {
            if (stopOnInterrupt && interrupted())
                return;
            const std::int64_t row = scoredRows[std::size_t(j)];
            LocalWorkspace& ws = fitDocument(data.train, row);
            // ws.next is free after the local step: it holds E[θ_k] / Σ_v λ_kv.
            ws.next.array() = ws.gamma.array() / ws.gamma.sum() * invTotals;
            const auto words = data.heldOut.rowCols(row);
            const auto counts = data.heldOut.rowCounts(row);
            double ll = 0.0, total = 0.0;
            for (std::size_t i = 0; i < words.size(); ++i) {
                const double p = m_lambdaT.row(words[i]).dot(ws.next.transpose());
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
    ev.elbo = n > 0 ? lda::globalElbo(m_lambdaT, m_options.eta) + D / double(n) * sum(cElbo)
                    : std::numeric_limits<double>::quiet_NaN();
    const double words = sum(cWords);
    if (words > 0) {
        const double perWord = sum(cLl) / words;
        ev.metrics["heldout_loglik_per_word"] = perWord;
        ev.metrics["perplexity"] = std::exp(-perWord);
    }
    Eigen::VectorXd usage = Eigen::VectorXd::Zero(m_K);
    for (int c = 0; c < kChunks; ++c)
        usage += cUsage.row(c).transpose();
    const double mass = usage.sum();
    Eigen::VectorXd weight =
        mass > 0 ? Eigen::VectorXd(usage / mass) : Eigen::VectorXd::Constant(m_K, 1.0 / m_K);
    ev.metrics["topics_used"] = double((weight.array() > inUseShare(m_K)).count());
    ev.preview = makePreview(weight);
    return ev;
}

std::shared_ptr<Preview> LdaTrainer::makePreview(const Eigen::VectorXd& weight) const
{
    auto preview = std::make_shared<Preview>();
    std::vector<int> order;
    for (int k = 0; k < m_K; ++k)
        if (weight[k] > inUseShare(m_K))
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
