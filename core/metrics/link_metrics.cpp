#include "core/metrics/link_metrics.h"

#include "core/base/params.h"
#include "core/math/constants.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

namespace svi {
namespace {

void checkArguments(const char* who, std::span<const double> scores,
                    std::span<const std::uint8_t> linked)
{
    if (scores.size() != linked.size())
        throw std::invalid_argument(std::string(who) + ": " + std::to_string(scores.size()) +
                                    " scores for " + std::to_string(linked.size()) +
                                    " labels (must be as many)");
    for (std::size_t i = 0; i < scores.size(); ++i)
        if (std::isnan(scores[i]))
            throw std::invalid_argument(
                fieldError(std::string(who) + ": scores[" + std::to_string(i) + "]", "nan",
                           "must be a number"));
}

} // namespace

LinkScores linkScores(std::span<const double> scores, std::span<const std::uint8_t> linked)
{
    checkArguments("linkScores", scores, linked);
    const std::size_t n = scores.size();
    LinkScores out;
    for (std::uint8_t l : linked)
        (l ? out.linked : out.unlinked) += 1;

    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(),
              [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });

    // Walk the distinct scores from the top. For a run of tied scores holding g₊ linked and g₋
    // unlinked pairs, with fp unlinked pairs above it: each of its linked pairs beats the
    // n₋ − fp − g₋ unlinked pairs below and ties the g₋ beside it, which is the mid-rank sum's
    // share of the run (both count a tie as one half). The precision–recall point is taken
    // after the whole run, so that a tie is one threshold.
    const double nPos = double(out.linked), nNeg = double(out.unlinked);
    double wins = 0.0, ap = 0.0;
    double tp = 0.0, fp = 0.0, recallBefore = 0.0;
    for (std::size_t begin = 0; begin < n;) {
        std::size_t end = begin;
        double gPos = 0.0, gNeg = 0.0;
        while (end < n && scores[order[end]] == scores[order[begin]]) {
            (linked[order[end]] ? gPos : gNeg) += 1.0;
            ++end;
        }
        wins += gPos * (nNeg - fp - gNeg) + 0.5 * gPos * gNeg;
        tp += gPos;
        fp += gNeg;
        if (nPos > 0.0) {
            const double recall = tp / nPos;
            ap += (recall - recallBefore) * (tp / (tp + fp));
            recallBefore = recall;
        }
        begin = end;
    }
    out.aucRoc = nPos > 0.0 && nNeg > 0.0 ? wins / (nPos * nNeg) : kNaN;
    out.aucPr = nPos > 0.0 ? ap : kNaN;
    return out;
}

double aucRoc(std::span<const double> scores, std::span<const std::uint8_t> linked)
{
    return linkScores(scores, linked).aucRoc;
}

double averagePrecision(std::span<const double> scores, std::span<const std::uint8_t> linked)
{
    return linkScores(scores, linked).aucPr;
}

} // namespace svi
