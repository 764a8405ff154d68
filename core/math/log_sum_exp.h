#pragma once
// log Σ_k exp(l_k) in one pass and without storage: the running maximum and the sum of
// exp(l_k − max), rescaled when the maximum grows. −inf terms add nothing; an empty sum is −inf.
// A value; any thread.

#include <cmath>
#include <limits>

namespace svi {

class LogSumExp
{
public:
    void add(double l)
    {
        if (!(l > -std::numeric_limits<double>::infinity()))
            return; // −inf (and NaN, which a caller's term would have made visible elsewhere)
        if (l <= m_max) {
            m_sum += std::exp(l - m_max);
        } else {
            m_sum = m_sum * std::exp(m_max - l) + 1.0;
            m_max = l;
        }
    }
    double value() const { return m_sum > 0.0 ? m_max + std::log(m_sum) : m_max; }

private:
    double m_max = -std::numeric_limits<double>::infinity();
    double m_sum = 0.0;
};

} // namespace svi
