// GpmfTrainer's held-out measures (gpmf_trainer.h): the predictive of each test entry under the
// normal approximation of f_ij = u_iᵀv_j that paper 002 used (App. A.5).

#include "core/models/gpmf/gpmf_trainer.h"

#include <algorithm>
#include <cmath>

namespace svi {
namespace {

struct TestSums
{
    double n = 0, nll = 0, wrong = 0, sq = 0, abs = 0;
    double rel = 0, relN = 0, zeroWrong = 0, zeroN = 0;
    void add(const TestSums& o)
    {
        n += o.n, nll += o.nll, wrong += o.wrong, sq += o.sq, abs += o.abs;
        rel += o.rel, relN += o.relN, zeroWrong += o.zeroWrong, zeroN += o.zeroN;
    }
};

} // namespace

double productVariance(const Eigen::VectorXd& mu, const Eigen::MatrixXd& Su,
                       const Eigen::VectorXd& mv, const Eigen::MatrixXd& Sv)
{
    return Su.cwiseProduct(Sv).sum() + mu.dot(Sv * mu) + mv.dot(Su * mv);
}

void GpmfTrainer::addTestMetrics(Evaluation& ev, const std::vector<std::int64_t>& allEntries) const
{
    if (allEntries.empty())
        return;
    // This rank's share of the entries; the sums then over the ranks.
    const Shard mine = communicator().shardOf(std::int64_t(allEntries.size()));
    const std::vector<std::int64_t> entries(allEntries.begin() + mine.begin,
                                            allEntries.begin() + mine.end);
    const bool fullCov = m_options.covariance == CovarianceForm::Full;
    // Full q: tr(S_u S_v) is D² once both covariances are formed, D³ from their roots; so the
    // users' covariances are formed once, and each item's once per run of its entries.
    std::vector<std::int32_t> users;
    for (std::int64_t e : entries)
        if (users.empty() || users.back() != m_obs.test[std::size_t(e)].user)
            users.push_back(m_obs.test[std::size_t(e)].user); // entries ascend by user
    std::vector<Eigen::MatrixXd> userCov(fullCov ? users.size() : 0);
#pragma omp parallel for schedule(dynamic, 8)
    for (std::int64_t k = 0; k < std::int64_t(userCov.size()); ++k)
        userCov[std::size_t(k)] = m_users[std::size_t(users[std::size_t(k)])].covariance();
    const auto slotOf = [&](std::int32_t u) {
        return std::lower_bound(users.begin(), users.end(), u) - users.begin();
    };

    std::vector<std::int64_t> order(entries);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return m_obs.test[std::size_t(a)].item < m_obs.test[std::size_t(b)].item;
    });
    const bool binary = m_obs.kind == gpmf::Observation::Binary;
    const bool count = m_obs.kind == gpmf::Observation::Count;
    std::array<TestSums, kChunks> parts{};
    forChunks(std::int64_t(order.size()), [&](int ci, std::int64_t begin, std::int64_t end) {
        TestSums& s = parts[std::size_t(ci)];
        Eigen::MatrixXd itemCov;
        std::int32_t formed = -1;
        for (std::int64_t r = begin; r < end; ++r) {
            const gpmf::TestEntry& t = m_obs.test[std::size_t(order[std::size_t(r)])];
            const GaussianQ& qu = m_users[std::size_t(t.user)];
            const GaussianQ& qv = m_items[std::size_t(t.item)];
            const double m = qu.mean().dot(qv.mean());
            double v = 0.0;
            if (fullCov) {
                if (formed != t.item) {
                    itemCov = qv.covariance();
                    formed = t.item;
                }
                v = productVariance(qu.mean(), userCov[std::size_t(slotOf(t.user))], qv.mean(),
                                    itemCov);
            } else {
                const Eigen::VectorXd su = qu.variances(), sv = qv.variances();
                v = su.dot(sv) + qu.mean().cwiseAbs2().dot(sv) + qv.mean().cwiseAbs2().dot(su);
            }
            const double y = t.y;
            s.n += 1.0;
            s.nll -= m_lik->logPredictive(y, m, v, m_ghPredict);
            if (binary) {
                const double p1 = std::exp(m_lik->logPredictive(1.0, m, v, m_ghPredict));
                s.wrong += (p1 > 0.5) != (y == 1.0) ? 1.0 : 0.0;
                continue;
            }
            const double yHat = m_lik->predictiveMean(m, v, m_ghPredict);
            s.sq += (yHat - y) * (yHat - y);
            s.abs += std::abs(yHat - y);
            if (count && y > 0.0) {
                s.rel += std::abs(yHat - y) / y;
                s.relN += 1.0;
            } else if (count) {
                s.zeroWrong += yHat >= 0.5 ? 1.0 : 0.0;
                s.zeroN += 1.0;
            }
        }
    });
    TestSums t;
    for (const TestSums& s : parts)
        t.add(s);
    double sums[9] = {t.n, t.nll, t.wrong, t.sq, t.abs, t.rel, t.relN, t.zeroWrong, t.zeroN};
    communicator().sum(sums);
    t = {sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], sums[6], sums[7], sums[8]};
    ev.metrics["test_nll"] = t.nll / t.n;
    ev.metrics["heldout_loglik"] = -t.nll / t.n;
    if (binary) {
        ev.metrics["test_error"] = 100.0 * t.wrong / t.n;
        return;
    }
    ev.metrics["rmse"] = std::sqrt(t.sq / t.n);
    if (!count)
        ev.metrics["test_abs_error"] = t.abs / t.n;
    if (t.relN > 0)
        ev.metrics["test_relative_error"] = t.rel / t.relN;
    if (t.zeroN > 0)
        ev.metrics["test_nonzero_error"] = 100.0 * t.zeroWrong / t.zeroN;
}

} // namespace svi
