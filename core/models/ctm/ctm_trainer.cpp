#include "core/models/ctm/ctm_trainer.h"

#include "core/models/ctm/ctm_math.h"
#include "core/models/topics/topic_parts.h"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace svi {
namespace {

constexpr std::uint64_t kStreamInit = 0x7c7a01;
constexpr double kPseudoCount = 0.01; // the simple bound's and mean-field's topics: per word

// Γ's negative semi-definite part: −2Γ projected onto the PSD cone, halved back (eq. 59).
void projectCurvature(LgmGradients& g, CovarianceForm form)
{
    if (form == CovarianceForm::Diagonal) {
        g.gammaDiag = g.gammaDiag.cwiseMin(0.0);
        return;
    }
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(g.gammaFull);
    g.gammaFull = eig.eigenvectors() * eig.eigenvalues().cwiseMin(0.0).asDiagonal() *
                  eig.eigenvectors().transpose();
}

} // namespace

CtmTrainer::CtmTrainer(CountDataPtr corpus, LgmAlgorithm algorithm, const CtmOptions& options,
                       std::uint64_t seed, CtmMethod method)
    : m_data(std::move(corpus)), m_algorithm(algorithm), m_method(method), m_options(options),
      m_seed(seed), m_topicsOpt(options.topicsRate)
{
    m_options.check();
    lda::checkCorpus(m_data);
    if (algorithm != LgmAlgorithm::HybridMcSsvi && algorithm != LgmAlgorithm::SDsvi)
        throw std::invalid_argument("ctm: H-MC-SSVI or S-DSVI");
    const CountData& d = *m_data;
    m_docs = d.trainingRows();
    const int K = options.K, k1 = K - 1;
    const std::int64_t V = d.cols();
    const bool meanField = method == CtmMethod::MeanField;
    if (meanField) { // Blei & Lafferty's q(η) is diagonal; its topics are the M-step's
        m_options.covariance = CovarianceForm::Diagonal;
        m_options.bound = CtmBound::Optimal;
        m_mfCounts = Eigen::MatrixXd::Zero(K, V);
    }
    m_mfObjective = std::numeric_limits<double>::quiet_NaN();
    m_q.assign(m_docs.size(), GaussianQ(k1, m_options.covariance, 1.0));
    m_steps = QStepSizes(stepSizeOf(m_options), meanField ? 0 : m_docs.size());
    m_meanOpt.assign(m_docs.size(), AdaGrad(options.adagradRate));
    m_rootOpt = m_meanOpt;
    m_prior = GaussianPrior::isotropic(k1, 1.0); // μ = 0, Σ = I (App. A.5)
    m_sumMean = Eigen::VectorXd::Zero(k1);
    m_sumOuter = Eigen::MatrixXd::Zero(k1, k1);
    for (const GaussianQ& q : m_q) {
        m_sumMean += q.mean();
        m_sumOuter += q.covariance() + q.mean() * q.mean().transpose();
    }
    // Each topic ∝ a random training document's counts plus U(1, 2) per word (App. A.5).
    m_alpha.resize(K, V);
    for (int k = 0; k < K; ++k) {
        Rng rng = Rng::stream(seed, kStreamInit, std::uint64_t(k));
        const std::int64_t row = m_docs[std::size_t(rng.below(m_docs.size()))];
        Eigen::VectorXd w(V);
        for (std::int64_t v = 0; v < V; ++v)
            w[v] = 1.0 + rng.uniform();
        const auto cols = d.train.rowCols(row);
        const auto counts = d.train.rowCounts(row);
        for (std::size_t n = 0; n < cols.size(); ++n)
            w[cols[n]] += counts[n];
        m_alpha.row(k) = (w / w.sum()).array().log().transpose();
    }
    m_beta = m_alpha.transpose().array().exp(); // rows of α are normalised logs
    m_evalDocs = lda::EvaluationDocs(d, d.testRows, options.evalDocs, seed, 0x7c7a04);
    if (!meanField) {
        m_batchWords = Eigen::MatrixXd::Zero(K, V);
        m_batchMass = Eigen::VectorXd::Zero(K);
    }
    if (m_options.bound == CtmBound::Simple) {
        m_docTheta = MatrixRD::Zero(Eigen::Index(m_docs.size()), K);
        m_topicSums = Eigen::MatrixXd::Zero(K, V);
        m_topicTotals = Eigen::VectorXd::Zero(K);
    }
}

CtmTrainer::~CtmTrainer() = default;

void CtmTrainer::visitState(StateArchive& a)
{
    const bool meanField = m_method == CtmMethod::MeanField;
    const bool simple = m_options.bound == CtmBound::Simple; // never for mean-field
    a.field("q", m_q);
    if (!meanField) { // lgmUpdate's AdaGrad states: the mean's always, the root's for S-DSVI
        a.field("mean_opt", m_meanOpt);
        if (m_steps.adaptive())
            a.field("step_sizes", m_steps);
        if (m_algorithm == LgmAlgorithm::SDsvi)
            a.field("root_opt", m_rootOpt);
    }
    if (m_options.learnPrior) {
        // The prior is listed, not formed again from the sums: mean-field sets it only at the
        // end of a pass while the sums move with every document, and a Σ whose Cholesky
        // factorisation failed keeps the last one.
        a.field("sum_mean", m_sumMean);
        a.field("sum_outer", m_sumOuter);
        a.field("prior_mean", m_prior.mean);
        a.field("prior_precision", m_prior.precision);
        a.field("prior_log_det", m_prior.logDetCovariance);
    }
    a.field("non_finite", m_nonFinite);
    if (meanField) {
        // β is the last M-step's, while the pass's counts already hold this pass's documents.
        a.field("topics", m_beta);
        a.field("pass_counts", m_mfCounts);
        a.field("pass_bound", m_mfBoundSum);
        a.field("objective", m_mfObjective);
    } else if (simple) {
        a.field("closed_form", m_closedForm);
        a.field("doc_theta", m_docTheta);
        a.field("topic_sums", m_topicSums);
        a.field("topic_totals", m_topicTotals);
    } else {
        a.field("alpha", m_alpha);
        a.field("topics_opt", m_topicsOpt);
        // A batch of eq. 62's gradients spans topics_batch steps.
        a.field("batch_words", m_batchWords);
        a.field("batch_mass", m_batchMass);
        a.field("batch_count", m_batchCount);
    }
    if (!a.loading() || meanField)
        return;
    // β as the steps form it: exp α (the simple bound's random start until its closed form),
    // then the closed form from the sums, when next read.
    if (simple && m_closedForm) {
        m_topicsStale = true;
    } else {
        m_beta = m_alpha.transpose().array().exp();
        m_topicsStale = false;
    }
}

void CtmTrainer::DrawSums::reset(int k1, bool full, int K, Eigen::Index words, bool topics)
{
    grad = Eigen::VectorXd::Zero(k1);
    hess = Eigen::MatrixXd::Zero(full ? k1 : 0, full ? k1 : 0);
    hessDiag = Eigen::VectorXd::Zero(k1);
    if (topics) {
        topicMass = Eigen::VectorXd::Zero(K);
        wordTopic = MatrixRD::Zero(words, K);
    }
}

void CtmTrainer::sumDraws(const GaussianQ& q, std::span<const std::int32_t> words,
                          std::span<const float> counts, Rng& rng, Shard draws, bool topics,
                          DrawSums& sums) const
{
    const int k1 = m_options.K - 1, S = m_options.samples;
    const bool full = q.form() == CovarianceForm::Full;
    const bool simple = m_options.bound == CtmBound::Simple;
    topics = topics && !simple;
    sums.reset(k1, full, m_options.K, Eigen::Index(words.size()), topics);
    Eigen::VectorXd z(k1), eta(k1), theta, r;
    const Eigen::VectorXd logs = simple ? wordLogs(words, counts) : Eigen::VectorXd();
    for (int s = 0; s < S; ++s) {
        for (int k = 0; k < k1; ++k) // every draw's normals, the others' draws too
            z[k] = rng.normal();
        if (!draws.contains(s))
            continue;
        q.draw(z, eta);
        if (simple)
            ctm::simpleTerms(eta, logs, sums.grad, full ? &sums.hess : nullptr,
                             full ? nullptr : &sums.hessDiag, theta);
        else
            ctm::documentTerms(eta, words, counts, m_beta, sums.grad, full ? &sums.hess : nullptr,
                               theta, r, full ? nullptr : &sums.hessDiag);
        if (!topics)
            continue;
        for (std::size_t n = 0; n < words.size(); ++n) { // c_w r_wk at this draw
            r = theta.cwiseProduct(m_beta.row(words[n]).transpose());
            r *= double(counts[n]) / r.sum();
            sums.wordTopic.row(Eigen::Index(n)) += r.transpose() / S;
            sums.topicMass += r / S;
        }
    }
}

void CtmTrainer::finishEstimate(const DrawSums& sums, CovarianceForm form, LgmGradients& out) const
{
    const int k1 = m_options.K - 1, S = m_options.samples;
    out.reset(k1, form);
    out.g = sums.grad / S;
    if (form == CovarianceForm::Full)
        out.gammaFull = 0.5 * sums.hess / S;
    else
        out.gammaDiag = 0.5 * sums.hessDiag / S;
}

void CtmTrainer::estimateInto(const GaussianQ& q, std::span<const std::int32_t> words,
                              std::span<const float> counts, Rng& rng, LgmGradients& out,
                              Eigen::VectorXd* topicMass, MatrixRD* wordTopic) const
{
    DrawSums sums;
    sumDraws(q, words, counts, rng, {0, m_options.samples}, topicMass != nullptr, sums);
    finishEstimate(sums, q.form(), out);
    if (!topicMass)
        return;
    if (m_options.bound == CtmBound::Simple) {
        *topicMass = Eigen::VectorXd::Zero(m_options.K);
        *wordTopic = MatrixRD::Zero(Eigen::Index(words.size()), m_options.K);
        return;
    }
    *topicMass = std::move(sums.topicMass);
    *wordTopic = std::move(sums.wordTopic);
}

Eigen::VectorXd CtmTrainer::wordLogs(std::span<const std::int32_t> words,
                                     std::span<const float> counts) const
{
    Eigen::VectorXd logs = Eigen::VectorXd::Zero(m_options.K);
    for (std::size_t n = 0; n < words.size(); ++n)
        for (int k = 0; k < m_options.K; ++k)
            logs[k] += double(counts[n]) *
                       (m_closedForm ? closedFormLog(k, words[n]) : std::log(m_beta(words[n], k)));
    return logs;
}

std::int64_t CtmTrainer::documentOf(std::int64_t t) const
{
    return (t - 1) % std::int64_t(m_docs.size());
}

std::int64_t CtmTrainer::visitOf(std::int64_t t) const
{
    return (t - 1) / std::int64_t(m_docs.size()) + 1;
}

void CtmTrainer::localDocument(std::int64_t doc, std::int64_t t, std::uint64_t key)
{
    const GaussianQ& q = m_q[std::size_t(doc)];
    const std::int64_t row = m_docs[std::size_t(doc)];
    m_stepRng = Rng::stream(m_seed, key ? key : std::uint64_t(t), std::uint64_t(row));
    sumDraws(q, m_data->train.rowCols(row), m_data->train.rowCounts(row), m_stepRng,
             communicator().shardOf(m_options.samples), true, m_sums);
}

void CtmTrainer::stepGradients(CovarianceForm form)
{
    finishEstimate(m_sums, form, m_grads);
    if (m_algorithm == LgmAlgorithm::HybridMcSsvi)
        projectCurvature(m_grads, form);
}

double CtmTrainer::globalDocument(std::int64_t doc, double rho, std::int64_t t, bool globalsToo)
{
    GaussianQ& q = m_q[std::size_t(doc)];
    const std::int64_t row = m_docs[std::size_t(doc)];
    stepGradients(q.form());
    if (m_options.bound == CtmBound::Simple) {
        m_topicMass = Eigen::VectorXd::Zero(m_options.K);
        m_wordTopic = MatrixRD::Zero(Eigen::Index(m_data->train.rowCols(row).size()), m_options.K);
    } else {
        m_topicMass = m_sums.topicMass;
        m_wordTopic = m_sums.wordTopic;
    }
    if (m_steps.adaptive()) // the document's own rate; else the ρ given
        rho = m_steps.rho(std::size_t(doc), m_algorithm, q, m_grads, m_prior);
    const GaussianQ before = q;
    const double used = lgmUpdate(m_algorithm, q, m_grads, m_prior, rho,
                                  m_meanOpt[std::size_t(doc)], m_rootOpt[std::size_t(doc)]);
    q.releasePrecision();
    if (globalsToo) {
        if (m_options.learnPrior) {
            trackPrior(before, q);
            setPriorFromSums();
        }
        if (m_options.bound == CtmBound::Simple)
            updateSimpleTopics(doc, t, m_stepRng); // the draws go on from the estimate's
        else
            stepTopics(row);
    }
    return used;
}

double CtmTrainer::updateDocument(std::int64_t doc, double rho, std::int64_t t, bool globalsToo)
{
    localDocument(doc, t);
    return globalDocument(doc, rho, t, globalsToo);
}

StagedTrainer::Round CtmTrainer::localStep(std::int64_t t)
{
    m_statistic.clear();
    if (m_method == CtmMethod::MeanField) {
        m_meanFieldRho = stepMeanField(t);
        return Round::Update;
    }
    m_stepDoc = documentOf(t);
    // The adaptive rate starts a document's averages from draws at its initial q (Ranganath et
    // al. 2013, Algorithm 1), each from a stream of its own.
    const bool warm = m_steps.needsWarmUp(std::size_t(m_stepDoc));
    localDocument(m_stepDoc, t, warm ? m_steps.nextWarmUpKey() : 0);
    m_statistic.dense(m_sums.grad);
    if (m_options.covariance == CovarianceForm::Full)
        m_statistic.dense(m_sums.hess);
    else
        m_statistic.dense(m_sums.hessDiag);
    if (m_options.bound == CtmBound::Optimal) {
        m_statistic.dense(m_sums.topicMass);
        m_statistic.dense(m_sums.wordTopic);
    }
    return warm ? Round::WarmUp : Round::Update;
}

void CtmTrainer::warmUp()
{
    GaussianQ& q = m_q[std::size_t(m_stepDoc)];
    stepGradients(q.form());
    m_steps.warmUp(std::size_t(m_stepDoc), m_algorithm, q, m_grads, m_prior);
    q.releasePrecision();
}

double CtmTrainer::globalUpdate(std::int64_t t)
{
    if (m_method == CtmMethod::MeanField)
        return m_meanFieldRho;
    return globalDocument(documentOf(t), m_steps.scheduled(visitOf(t)), t, true);
}

double CtmTrainer::stepMeanField(std::int64_t t)
{
    const std::int64_t D = std::int64_t(m_docs.size()), doc = (t - 1) % D;
    const std::int64_t row = m_docs[std::size_t(doc)];
    if (doc == 0) { // a pass begins: its sufficient statistics from nothing
        m_mfCounts.setZero();
        m_mfBoundSum = 0.0;
    }
    GaussianQ& q = m_q[std::size_t(doc)];
    const GaussianQ before = q;
    m_mfDoc.lambda = q.mean();
    m_mfDoc.nu2 = q.variances();
    const auto words = m_data->train.rowCols(row);
    const auto counts = m_data->train.rowCounts(row);
    m_mfBoundSum +=
        ctm::fitMeanField({words, counts, m_beta, m_prior}, m_mfDoc, m_options.varIters);
    if (!m_mfDoc.lambda.allFinite() || !m_mfDoc.nu2.allFinite()) {
        m_nonFinite = true;
        return 1.0;
    }
    q.setMean(m_mfDoc.lambda);
    q.setRoot(m_mfDoc.nu2.cwiseSqrt());
    trackPrior(before, q);
    for (std::size_t n = 0; n < words.size(); ++n)
        m_mfCounts.col(words[n]) +=
            double(counts[n]) * m_mfDoc.phi.row(Eigen::Index(n)).transpose();
    if (doc == D - 1)
        meanFieldMStep();
    return 1.0;
}

void CtmTrainer::meanFieldMStep()
{
    // The objective of the pass just ended, under its globals (meanFieldObjective()).
    m_mfObjective = m_mfBoundSum + kPseudoCount * m_beta.array().log().sum();
    const Eigen::VectorXd totals = m_mfCounts.rowwise().sum();
    const double V = double(m_data->cols());
    for (Eigen::Index k = 0; k < m_mfCounts.rows(); ++k)
        m_beta.col(k) =
            ((m_mfCounts.row(k).array() + kPseudoCount) / (totals[k] + kPseudoCount * V))
                .transpose();
    m_nonFinite = m_nonFinite || !totals.allFinite();
    if (m_options.learnPrior)
        setPriorFromSums();
}

void CtmTrainer::trackPrior(const GaussianQ& before, const GaussianQ& after)
{
    m_sumMean += after.mean() - before.mean();
    m_sumOuter += after.covariance() + after.mean() * after.mean().transpose() -
                  before.covariance() - before.mean() * before.mean().transpose();
}

void CtmTrainer::setPriorFromSums()
{
    const double D = double(m_docs.size());
    const int k1 = m_options.K - 1;
    m_prior.mean = m_sumMean / D;
    Eigen::MatrixXd sigma = m_sumOuter / D - m_prior.mean * m_prior.mean.transpose();
    sigma.diagonal().array() += 1e-8; // rounding in the running sums must not break Σ
    const Eigen::LLT<Eigen::MatrixXd> llt(sigma);
    if (llt.info() != Eigen::Success)
        return; // keep the last Σ; the next documents' updates restore it
    m_prior.precision = llt.solve(Eigen::MatrixXd::Identity(k1, k1));
    m_prior.logDetCovariance = 2.0 * Eigen::MatrixXd(llt.matrixL()).diagonal().array().log().sum();
}

Eigen::MatrixXd CtmTrainer::topicsGradient(const Eigen::MatrixXd& wordParts,
                                           const Eigen::VectorXd& mass, double scale) const
{
    // ∂/∂α_ku = scale · (Σ_w c_w r_wk δ_wu − β_ku Σ_w c_w r_wk) (eq. 62).
    return scale * (wordParts - (m_beta.transpose().array().colwise() * mass.array()).matrix());
}

Eigen::MatrixXd CtmTrainer::topicsGradient(std::int64_t row) const
{
    const auto words = m_data->train.rowCols(row);
    Eigen::MatrixXd parts = Eigen::MatrixXd::Zero(m_options.K, m_data->cols());
    for (std::size_t n = 0; n < words.size(); ++n)
        parts.col(words[n]) = m_wordTopic.row(Eigen::Index(n)).transpose();
    return topicsGradient(parts, m_topicMass, double(m_docs.size()));
}

void CtmTrainer::stepTopics(std::int64_t row)
{
    // Eq. 62's gradient gathered over topics_batch documents (the paper: 1): its sparse part at
    // each document's words, its dense part −β_ku Σ_w c_w r_wk as the topics' masses, so that a
    // document costs K per word and the K × V step is taken once per batch, with the mean.
    const auto words = m_data->train.rowCols(row);
    for (std::size_t n = 0; n < words.size(); ++n)
        m_batchWords.col(words[n]) += m_wordTopic.row(Eigen::Index(n)).transpose();
    m_batchMass += m_topicMass;
    if (++m_batchCount < m_options.topicsBatch)
        return;
    m_topicsOpt.ascend(
        m_alpha, topicsGradient(m_batchWords, m_batchMass, double(m_docs.size()) / m_batchCount));
    m_batchWords.setZero();
    m_batchMass.setZero();
    m_batchCount = 0;
    // Renormalise each topic's logits (log-sum-exp), so that β_k = exp α_k sums to 1.
    for (Eigen::Index k = 0; k < m_alpha.rows(); ++k) {
        const double top = m_alpha.row(k).maxCoeff();
        m_alpha.row(k).array() -= top + std::log((m_alpha.row(k).array() - top).exp().sum());
    }
    m_nonFinite = m_nonFinite || !m_alpha.allFinite();
    m_beta = m_alpha.transpose().array().exp();
}

void CtmTrainer::updateSimpleTopics(std::int64_t doc, std::int64_t t, Rng& rng)
{
    // β_k ∝ Σ_d c_dw E_q[h_k(η_d)] + 0.01 (App. A.2; the pseudo-count keeps words no training
    // document holds possible), kept as running sums over the documents' latest E_q[h] (N_MC
    // draws from the updated q): a document costs K per word, and β itself is formed only when
    // read (refreshTopics). The topics keep their random start through the first pass, so that
    // every document's E_q[h] reflects them before the closed form takes over (from a flat start
    // it would make every topic the corpus's word frequencies).
    const std::int64_t row = m_docs[std::size_t(doc)];
    const GaussianQ& q = m_q[std::size_t(doc)];
    const int k1 = m_options.K - 1;
    Eigen::VectorXd mean = Eigen::VectorXd::Zero(m_options.K), z(k1), eta(k1), theta(m_options.K);
    for (int s = 0; s < m_options.samples; ++s) {
        for (int k = 0; k < k1; ++k)
            z[k] = rng.normal();
        q.draw(z, eta);
        ctm::logisticNormal(eta, theta);
        mean += theta / m_options.samples;
    }
    const auto words = m_data->train.rowCols(row);
    const auto counts = m_data->train.rowCounts(row);
    const Eigen::VectorXd change = mean - m_docTheta.row(doc).transpose();
    m_nonFinite = m_nonFinite || !change.allFinite();
    for (std::size_t n = 0; n < words.size(); ++n) {
        m_topicSums.col(words[n]) += double(counts[n]) * change;
        m_topicTotals += double(counts[n]) * change;
    }
    m_docTheta.row(doc) = mean.transpose();
    m_closedForm = m_closedForm || t >= std::int64_t(m_docs.size());
    m_topicsStale = m_closedForm;
}

double CtmTrainer::closedFormLog(std::int64_t k, std::int32_t w) const
{
    return std::log(m_topicSums(k, w) + kPseudoCount) -
           std::log(m_topicTotals[k] + kPseudoCount * double(m_data->cols()));
}

void CtmTrainer::refreshTopics() const
{
    if (!m_topicsStale)
        return;
    for (Eigen::Index k = 0; k < m_topicSums.rows(); ++k)
        m_beta.col(k) = ((m_topicSums.row(k).array() + kPseudoCount) /
                         (m_topicTotals[k] + kPseudoCount * double(m_data->cols())))
                            .transpose();
    m_topicsStale = false;
}

const MatrixRD& CtmTrainer::topicsByWord() const
{
    refreshTopics();
    return m_beta;
}

bool CtmTrainer::diverged() const
{
    // The topics are checked where they change (once per step of eq. 62, K per document for
    // the closed form): scanning K × V after every document would cost more than the step.
    return m_nonFinite || !m_prior.mean.allFinite() || !m_prior.precision.allFinite();
}

} // namespace svi
