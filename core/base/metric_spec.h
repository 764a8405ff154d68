#pragma once
// Declarations of the figures a trainer reports (Evaluation::metrics). Each registry entry
// declares its own; the runs table's columns, the metric menus, the Compare results and the
// command line's summary are generated from them.

#include <algorithm>
#include <string>
#include <vector>

namespace svi {

struct MetricSpec
{
    std::string key;       // "psnr", as in Evaluation::metrics and a trace's columns
    std::string label;     // "PSNR, full pass"
    std::string unit = {}; // "dB"; "" for a pure number
    bool higherIsBetter = true;
    // The figure a summary leads with. An entry may mark several (PSNR on images, held-out
    // log-likelihood on tables): the first one the run reports leads.
    bool headline = false;
    // A column of the Compare results; false for diagnostics (features in use, noise σ).
    bool compared = true;
    // The data kinds it is reported on (PSNR on images only); empty: every kind the entry fits.
    std::vector<std::string> dataKinds = {};
    // What a reader must know before setting the figure beside others of its name, one line
    // shown beside it wherever it is reported (the command line's summary and tables, the
    // window's results, the docs); "" for none. HPF's RMSE scores a Poisson mean, not a star
    // rating, against star ratings.
    std::string caveat = {};
    // A shorter name where the label does not fit (a chart's axis at a column's width):
    // "Perplexity" for "Perplexity, held-out words"; empty when the label is short already.
    std::string shortLabel = {};
    bool reportedOn(const std::string& kind) const
    {
        return dataKinds.empty() ||
               std::find(dataKinds.begin(), dataKinds.end(), kind) != dataKinds.end();
    }
};

// "PSNR, full pass (dB)".
inline std::string metricTitle(const MetricSpec& metric)
{
    return metric.unit.empty() ? metric.label : metric.label + " (" + metric.unit + ")";
}

// "PSNR (dB)": metricTitle with the short label, for narrow places.
inline std::string metricShortTitle(const MetricSpec& metric)
{
    const std::string& label = metric.shortLabel.empty() ? metric.label : metric.shortLabel;
    return metric.unit.empty() ? label : label + " (" + metric.unit + ")";
}

} // namespace svi
