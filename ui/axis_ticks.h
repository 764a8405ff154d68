#pragma once
// Round axis ticks for the charts (PlotView) and the custom-painted views (weights, predictive
// slice): steps of 1, 2 or 5 × 10^k, tick labels without the −0 or 1e-17 of accumulated
// rounding, the power of ten a long label is scaled by, and the range a chart's axis is fitted
// to. Pure functions.

#include <QPointF>
#include <QString>
#include <QVector>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace svi::ui {

// A round step (1, 2 or 5 × 10^k) giving about `ticks` intervals over `span` (> 0, finite);
// 1 when `span` is not.
inline double tickStep(double span, int ticks)
{
    if (!(span > 0) || !std::isfinite(span))
        return 1.0;
    const double raw = span / std::max(ticks, 1);
    const double mag = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0})
        if (m * mag >= raw)
            return m * mag;
    return 10.0 * mag;
}

// The multiples of `step` in [lo, hi], ascending (at most 100); empty when lo < hi does not
// hold. Each is computed as k × step (not by repeated addition), so 0.3 stays 0.3.
inline std::vector<double> ticksWithStep(double lo, double hi, double step)
{
    std::vector<double> out;
    if (!(lo < hi) || !std::isfinite(lo) || !std::isfinite(hi) || !(step > 0))
        return out;
    const double eps = 1e-9 * step;
    for (double k = std::ceil((lo - eps) / step); k * step <= hi + eps && out.size() < 100; ++k)
        out.push_back(k * step);
    return out;
}

// The multiples of tickStep(hi − lo, ticks) in [lo, hi], as ticksWithStep.
inline std::vector<double> niceTicks(double lo, double hi, int ticks)
{
    return ticksWithStep(lo, hi, tickStep(hi - lo, ticks));
}

// The round steps (1, 2 or 5 × 10^k) from about span / 50 up to the first ≥ span, ascending;
// empty when span is not finite and > 0.
inline std::vector<double> roundSteps(double span)
{
    std::vector<double> out;
    if (!(span > 0) || !std::isfinite(span))
        return out;
    const double mag = std::pow(10.0, std::floor(std::log10(span / 50.0)));
    for (int k = 0; k < 30; ++k)
        for (double m : {1.0, 2.0, 5.0}) {
            out.push_back(m * mag * std::pow(10.0, k));
            if (out.back() >= span)
                return out;
        }
    return out;
}

// A tick's label on an axis of ticks `step` apart: as many decimals as the step needs (0.5,
// 1.0, 1.5; 20, 40), in exponent form for very large or very small steps; 0 for a value within
// rounding of it.
inline QString tickLabel(double value, double step)
{
    if (!(step > 0) || !std::isfinite(step) || !std::isfinite(value))
        return QString::number(value, 'g', 4);
    if (std::abs(value) < 1e-9 * step)
        value = 0.0;
    const int stepExp = int(std::floor(std::log10(step) + 1e-9));
    if (step >= 1e-4 && std::max(std::abs(value), step) < 1e7)
        return QString::number(value, 'f', std::max(0, -stepExp));
    const int valueExp = value == 0.0 ? stepExp : int(std::floor(std::log10(std::abs(value))));
    return QString::number(value, 'g', std::clamp(valueExp - stepExp + 1, 1, 15));
}

// The power of ten (a multiple of 3) by which the tick labels of an axis reaching ±maxAbs are
// divided, so that they read "-2, -1, 0" with "×10⁶" in the title rather than "-2e+06": 0 for
// 10⁻³ ≤ maxAbs < 10⁵ (and for 0 or a non-finite value).
inline int tickExponent(double maxAbs)
{
    if (!(maxAbs > 0) || !std::isfinite(maxAbs) || (maxAbs >= 1e-3 && maxAbs < 1e5))
        return 0;
    return 3 * int(std::floor(std::log10(maxAbs) / 3.0));
}

// "×10⁶", "×10⁻³"; empty for 0.
inline QString exponentText(int exponent)
{
    if (exponent == 0)
        return {};
    static const QChar digits[] = {QChar(0x2070), QChar(0x00B9), QChar(0x00B2), QChar(0x00B3),
                                   QChar(0x2074), QChar(0x2075), QChar(0x2076), QChar(0x2077),
                                   QChar(0x2078), QChar(0x2079)};
    QString out = QString(QChar(0x00D7)) + "10";
    if (exponent < 0)
        out += QChar(0x207B);
    for (const QChar c : QString::number(std::abs(exponent)))
        out += digits[c.digitValue()];
    return out;
}

// The y values an axis is fitted to, from each series' points in x order (non-finite values
// are skipped). Every value, unless a series' start holds a transient: when the values in the
// first `skip` of each series' x span would make the range more than `ratio` times that of the
// rest, the rest alone (a series of one or two points counts whole). `clipped` says the range
// leaves out some values; lo > hi when there are none.
struct DataRange
{
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    bool clipped = false;
    bool empty() const { return !(lo <= hi); }
    double span() const { return hi - lo; }
    void add(double y)
    {
        lo = std::min(lo, y);
        hi = std::max(hi, y);
    }
};

inline DataRange settledRange(const std::vector<const QVector<QPointF>*>& series,
                              double skip = 0.05, double ratio = 2.0)
{
    DataRange all, rest;
    for (const QVector<QPointF>* points : series) {
        double x0 = std::numeric_limits<double>::infinity(), x1 = -x0;
        int finite = 0;
        for (const QPointF& p : *points)
            if (std::isfinite(p.x()) && std::isfinite(p.y())) {
                x0 = std::min(x0, p.x());
                x1 = std::max(x1, p.x());
                ++finite;
            }
        const double cut = finite > 2 ? x0 + skip * (x1 - x0) : x0;
        for (const QPointF& p : *points) {
            if (!std::isfinite(p.x()) || !std::isfinite(p.y()))
                continue;
            all.add(p.y());
            if (p.x() >= cut && (finite <= 2 || p.x() > x0))
                rest.add(p.y());
        }
    }
    if (all.empty() || rest.empty())
        return all;
    if (all.span() > ratio * rest.span()) {
        rest.clipped = true;
        return rest;
    }
    return all;
}

// [lo, hi] widened by `share` of its span on each side; a span that is zero (or rounding) gets
// ± 5 % of the value (at least 10⁻⁶), since an axis cannot show a span of a few ulps.
inline std::pair<double, double> paddedRange(double lo, double hi, double share = 0.04)
{
    const double scale = std::max(std::abs(lo), std::abs(hi));
    double pad = (hi - lo) * share;
    if (!(pad > 1e-9 * scale))
        pad = std::max(1e-6, scale * 0.05);
    return {lo - pad, hi + pad};
}

} // namespace svi::ui
