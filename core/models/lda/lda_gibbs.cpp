#include "core/models/lda/lda_gibbs.h"

#include <algorithm>

namespace svi::lda {

void WordBuckets::build(const MatrixRD& expElogBetaT, std::span<const std::int32_t> words)
{
    const Eigen::Index K = expElogBetaT.cols(), n = Eigen::Index(words.size());
    if (m_sums.rows() < n || m_sums.cols() != K)
        m_sums.resize(std::max(n, m_sums.rows()), K);
    if (m_row.size() < std::size_t(expElogBetaT.rows()))
        m_row.assign(std::size_t(expElogBetaT.rows()), -1);
#pragma omp parallel for schedule(static)
    for (Eigen::Index j = 0; j < n; ++j) {
        const double* e = expElogBetaT.row(words[std::size_t(j)]).data();
        double* c = m_sums.row(j).data();
        double s = 0.0;
        for (Eigen::Index k = 0; k < K; ++k)
            c[k] = (s += e[k]);
        m_row[std::size_t(words[std::size_t(j)])] = std::int32_t(j);
    }
}

int WordBuckets::draw(std::int32_t w, double u) const
{
    const double* c = m_sums.row(m_row[std::size_t(w)]).data();
    const Eigen::Index K = m_sums.cols();
    const double* at = std::upper_bound(c, c + K, u);
    return int(std::min<std::ptrdiff_t>(at - c, K - 1)); // u at the total's rounding: the last
}

void GibbsWorkspace::resize(int K)
{
    count.assign(std::size_t(K), 0);
    slot.assign(std::size_t(K), -1);
    inUse.clear();
    inUse.reserve(std::size_t(K));
}

void GibbsWorkspace::reset(std::int64_t tokens)
{
    for (std::int32_t k : inUse) {
        count[std::size_t(k)] = 0;
        slot[std::size_t(k)] = -1;
    }
    inUse.clear();
    word.resize(std::size_t(tokens));
    topic.assign(std::size_t(tokens), -1);
}

void GibbsWorkspace::add(std::int64_t token, int k)
{
    topic[std::size_t(token)] = k;
    if (count[std::size_t(k)]++ == 0) {
        slot[std::size_t(k)] = std::int32_t(inUse.size());
        inUse.push_back(k);
    }
}

void GibbsWorkspace::remove(std::int64_t token)
{
    const int k = topic[std::size_t(token)];
    topic[std::size_t(token)] = -1;
    if (--count[std::size_t(k)] == 0) { // out of use: the last topic listed takes its place
        const std::int32_t at = slot[std::size_t(k)], last = inUse.back();
        inUse[std::size_t(at)] = last;
        slot[std::size_t(last)] = at;
        inUse.pop_back();
        slot[std::size_t(k)] = -1;
    }
}

int drawTopic(const GibbsWorkspace& ws, const double* expElogBetaRow, const WordBuckets& buckets,
              std::int32_t w, double alpha, Rng& rng)
{
    double documentMass = 0.0;
    for (std::int32_t k : ws.inUse)
        documentMass += ws.count[std::size_t(k)] * expElogBetaRow[k];
    const double smoothingMass = alpha * buckets.total(w);
    double u = rng.uniform() * (documentMass + smoothingMass);
    if (u < documentMass) {
        for (std::int32_t k : ws.inUse) {
            u -= ws.count[std::size_t(k)] * expElogBetaRow[k];
            if (u < 0.0)
                return k;
        }
        return ws.inUse.back(); // rounding at the bucket's end
    }
    return buckets.draw(w, (u - documentMass) / alpha);
}

void sampleDocument(GibbsWorkspace& ws, std::span<const std::int32_t> words,
                    std::span<const float> counts, const MatrixRD& expElogBetaT,
                    const WordBuckets& buckets, double alpha, int burnin, int kept, Rng& rng,
                    std::vector<WordTopic>& out)
{
    std::int64_t tokens = 0;
    for (float c : counts)
        tokens += std::int64_t(c);
    ws.reset(tokens);
    std::int64_t at = 0;
    for (std::size_t j = 0; j < words.size(); ++j)
        for (std::int64_t c = 0; c < std::int64_t(counts[j]); ++c)
            ws.word[std::size_t(at++)] = words[j];
    const int sweeps = burnin + kept;
    for (int sweep = 0; sweep < sweeps; ++sweep) {
        for (std::int64_t i = 0; i < tokens; ++i) {
            const std::int32_t w = ws.word[std::size_t(i)];
            if (sweep > 0)
                ws.remove(i);
            ws.add(i, drawTopic(ws, expElogBetaT.row(w).data(), buckets, w, alpha, rng));
        }
        if (sweep >= burnin)
            for (std::int64_t i = 0; i < tokens; ++i)
                out.push_back({ws.word[std::size_t(i)], ws.topic[std::size_t(i)]});
    }
}

void drawTopicRows(const MatrixRD& lambdaT, Blend blend, const Eigen::VectorXd& totals,
                   std::span<const std::int32_t> words, std::uint64_t seed, std::uint64_t streamId,
                   std::uint64_t step, MatrixRD& out)
{
    const Eigen::Index K = lambdaT.cols(), n = Eigen::Index(words.size());
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) {
        const std::int32_t w = words[std::size_t(i)];
        Rng rng = Rng::stream(seed, streamId, step, std::uint64_t(w));
        for (Eigen::Index k = 0; k < K; ++k)
            out(w, k) = rng.gamma(blend.scale * lambdaT(w, k) + blend.offset, 1.0);
    }
    // Per topic: the drawn gammas' sum and λ's over the words, in word order.
    Eigen::VectorXd drawn = Eigen::VectorXd::Zero(K), held = Eigen::VectorXd::Zero(K);
    for (Eigen::Index i = 0; i < n; ++i) {
        const std::int32_t w = words[std::size_t(i)];
        drawn += out.row(w).transpose();
        held += (blend.scale * lambdaT.row(w).array() + blend.offset).matrix().transpose();
    }
    Rng rest = Rng::stream(seed, streamId, step, std::uint64_t(lambdaT.rows()));
    for (Eigen::Index k = 0; k < K; ++k) {
        // The other words' mass (positive unless the words are the whole vocabulary).
        const double mass = totals[k] - held[k];
        drawn[k] += mass > 1e-12 * totals[k] ? rest.gamma(mass, 1.0) : 0.0;
    }
    const Eigen::RowVectorXd inverse = drawn.cwiseInverse().transpose();
#pragma omp parallel for schedule(static)
    for (Eigen::Index i = 0; i < n; ++i) {
        const std::int32_t w = words[std::size_t(i)];
        out.row(w) = out.row(w).cwiseProduct(inverse).cwiseMax(1e-300);
    }
}

} // namespace svi::lda
