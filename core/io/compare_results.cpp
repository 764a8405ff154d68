#include "core/io/compare_results.h"

#include "core/io/run_files.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

namespace svi {

Pick pickOf(const std::string& item, const std::string& model)
{
    const auto slash = item.find('/');
    return slash == std::string::npos ? Pick{model, item}
                                      : Pick{item.substr(0, slash), item.substr(slash + 1)};
}

std::vector<Pick> picksOf(const std::string& text, const std::string& model)
{
    std::vector<Pick> out;
    std::stringstream ss(text);
    for (std::string item; std::getline(ss, item, ',');)
        if (!item.empty())
            out.push_back(pickOf(item, model));
    return out;
}

std::string compareRunFolder(const std::string& model, const std::string& algorithm, int repeat,
                             int repeats)
{
    return model + "-" + algorithm + (repeats > 1 ? "-r" + std::to_string(repeat + 1) : "");
}
namespace {

// A row is better than the best so far only when strictly so: the first of equal rows wins.
int bestRow(const std::vector<const MeanSd*>& summaries, bool higherIsBetter)
{
    int best = -1;
    for (std::size_t r = 0; r < summaries.size(); ++r) {
        const double m = summaries[r]->mean;
        if (summaries[r]->n == 0 || !std::isfinite(m))
            continue;
        const double b = best < 0 ? 0.0 : summaries[std::size_t(best)]->mean;
        if (best < 0 || (higherIsBetter ? m > b : m < b))
            best = int(r);
    }
    return best;
}

QString qs(const std::string& s)
{
    return QString::fromStdString(s);
}

QByteArray cell(const std::string& s)
{
    return csvField(qs(s)).toUtf8();
}

QString terminationsText(const std::map<std::string, int>& terminations)
{
    QString out;
    for (const auto& [name, count] : terminations)
        out += (out.isEmpty() ? "" : ";") + qs(name) + ":" + QString::number(count);
    return out;
}

QJsonObject summaryJson(const MeanSd& s, bool best)
{
    return QJsonObject{{"n", s.n},
                       {"excluded", s.excluded},
                       {"mean", jsonNumber(s.mean)},
                       {"sd", jsonNumber(s.sd)},
                       {"best", best}};
}

QJsonValue seedJson(std::uint64_t seed)
{
    constexpr std::uint64_t exact = std::uint64_t(1) << 53;
    if (seed <= exact)
        return QJsonValue(double(seed));
    return QJsonValue(QString::number(seed));
}

QJsonObject runJson(const CompareRun& run)
{
    QJsonObject metrics;
    for (const auto& [key, value] : run.metrics)
        metrics.insert(qs(key), jsonNumber(value));
    return QJsonObject{{"repeat", run.repeat},
                       {"seed", seedJson(run.seed)},
                       {"termination", qs(run.termination)},
                       {"steps", double(run.steps)},
                       {"epochs", jsonNumber(run.epochs)},
                       {"seconds_per_step", jsonNumber(run.secondsPerStep)},
                       {"metrics", metrics}};
}

// --- LaTeX ---

// How one column's numbers are written: value / 10^exponent with `decimals` decimals.
struct ColumnFormat
{
    int decimals = 3;
    int exponent = 0;
};

// Four significant digits of the column's largest |mean|, the same decimals down the column
// (so the points line up under `r`); a power of ten taken out when the numbers would otherwise
// need many leading zeros or digits.
ColumnFormat columnFormat(const std::vector<const MeanSd*>& summaries)
{
    double largest = 0.0;
    for (const MeanSd* s : summaries)
        if (s->n > 0 && std::isfinite(s->mean))
            largest = std::max(largest, std::abs(s->mean));
    ColumnFormat f;
    if (largest == 0.0)
        return f;
    if (largest < 1e-3 || largest >= 1e5)
        f.exponent = int(std::floor(std::log10(largest)));
    const int magnitude = int(std::floor(std::log10(largest / std::pow(10.0, f.exponent))));
    f.decimals = std::clamp(3 - magnitude, 0, 6);
    return f;
}

// A number in text mode: "$-$4.700" (a hyphen is not a minus sign); "-0.000" loses its sign.
std::string texNumber(double value, const ColumnFormat& f)
{
    QString text = QString::number(value / std::pow(10.0, f.exponent), 'f', f.decimals);
    if (text.startsWith('-')) {
        const bool zero =
            std::none_of(text.begin(), text.end(), [](QChar c) { return c >= '1' && c <= '9'; });
        if (zero)
            text = text.mid(1);
        else
            text = "$-$" + text.mid(1);
    }
    return text.toStdString();
}

std::string texCell(const MeanSd& s, std::size_t runs, bool best, const ColumnFormat& f)
{
    if (s.n == 0 || !std::isfinite(s.mean))
        return "--";
    std::string mean = texNumber(s.mean, f);
    std::string out = best ? "\\textbf{" + mean + "}" : mean;
    if (s.n >= 2 && std::isfinite(s.sd))
        out += " $\\pm$ " + texNumber(s.sd, f);
    if (std::size_t(s.n) < runs)
        out += " ($n=" + std::to_string(s.n) + "$)";
    return out;
}

std::string texHeader(const std::string& title, bool higherIsBetter, const ColumnFormat& f)
{
    std::string out = latexEscape(title);
    if (f.exponent != 0)
        out += " ($\\times 10^{" + std::to_string(f.exponent) + "}$)";
    return out + (higherIsBetter ? " $\\uparrow$" : " $\\downarrow$");
}

} // namespace

CompareRun compareRunOf(const AlgorithmEntry& entry, std::uint64_t seed, int repeat,
                        const Summary& summary)
{
    CompareRun c;
    c.model = entry.model;
    c.algorithm = entry.algorithm;
    c.label = entry.label;
    c.repeat = repeat;
    c.seed = seed;
    if (summary.last)
        c.metrics = summary.last->metrics;
    c.secondsPerStep = summary.steps > 0 ? summary.trainSeconds / double(summary.steps)
                                         : std::numeric_limits<double>::quiet_NaN();
    c.steps = summary.steps;
    c.epochs = summary.epochs;
    c.termination = terminationName(summary.reason);
    return c;
}

MeanSd summarize(const std::vector<double>& values)
{
    MeanSd s;
    double sum = 0.0;
    for (double v : values) {
        if (std::isfinite(v)) {
            ++s.n;
            sum += v;
        } else {
            ++s.excluded;
        }
    }
    if (s.n == 0)
        return s;
    s.mean = sum / s.n;
    if (s.n < 2)
        return s;
    // Two passes: the squared deviations from the mean, not E[x²] − E[x]², which cancels
    // catastrophically for large, close values (a total log-likelihood of −1.2e7 ± 3).
    double squares = 0.0;
    for (double v : values)
        if (std::isfinite(v))
            squares += (v - s.mean) * (v - s.mean);
    s.sd = std::sqrt(squares / (s.n - 1));
    return s;
}

CompareTable aggregate(const std::vector<CompareRun>& runs, const std::vector<MetricSpec>& metrics)
{
    CompareTable table;
    for (const MetricSpec& m : metrics) {
        if (!m.compared)
            continue;
        if (std::any_of(table.columns.begin(), table.columns.end(),
                        [&](const CompareColumn& c) { return c.metric.key == m.key; }))
            continue;
        if (std::any_of(runs.begin(), runs.end(),
                        [&](const CompareRun& r) { return r.metrics.count(m.key) > 0; }))
            table.columns.push_back(CompareColumn{m, -1});
    }

    std::map<std::pair<std::string, std::string>, std::size_t> rowOf;
    for (const CompareRun& run : runs) {
        auto [it, added] = rowOf.try_emplace({run.model, run.algorithm}, table.rows.size());
        if (added) {
            CompareRow row;
            row.model = run.model;
            row.algorithm = run.algorithm;
            row.label = run.label;
            table.rows.push_back(std::move(row));
        }
        CompareRow& row = table.rows[it->second];
        row.runs.push_back(run);
        ++row.terminations[run.termination];
    }

    for (CompareRow& row : table.rows) {
        for (const CompareColumn& column : table.columns) {
            std::vector<double> values;
            for (const CompareRun& run : row.runs) {
                auto it = run.metrics.find(column.metric.key);
                if (it != run.metrics.end())
                    values.push_back(it->second);
            }
            row.metrics.push_back(summarize(values));
        }
        std::vector<double> seconds, steps;
        for (const CompareRun& run : row.runs) {
            seconds.push_back(run.secondsPerStep);
            steps.push_back(double(run.steps));
        }
        row.secondsPerStep = summarize(seconds);
        row.steps = summarize(steps);
    }

    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        std::vector<const MeanSd*> column;
        for (const CompareRow& row : table.rows)
            column.push_back(&row.metrics[c]);
        table.columns[c].bestRow = bestRow(column, table.columns[c].metric.higherIsBetter);
    }
    std::vector<const MeanSd*> seconds;
    for (const CompareRow& row : table.rows)
        seconds.push_back(&row.secondsPerStep);
    table.fastestRow = bestRow(seconds, false);
    return table;
}

QByteArray compareCsv(const CompareTable& table)
{
    QByteArray out = "model,algorithm,label,runs";
    for (const CompareColumn& c : table.columns)
        out += "," + cell(c.metric.key + "_mean") + "," + cell(c.metric.key + "_sd");
    out += ",seconds_per_step_mean,seconds_per_step_sd,steps_mean,terminations\n";
    for (const CompareRow& row : table.rows) {
        out += cell(row.model) + "," + cell(row.algorithm) + "," + cell(row.label) + "," +
               QByteArray::number(qint64(row.runs.size()));
        for (const MeanSd& s : row.metrics)
            out += "," + metricText(s.mean).toUtf8() + "," + metricText(s.sd).toUtf8();
        out += "," + metricText(row.secondsPerStep.mean).toUtf8() + "," +
               metricText(row.secondsPerStep.sd).toUtf8() + "," +
               metricText(row.steps.mean).toUtf8() + "," +
               csvField(terminationsText(row.terminations)).toUtf8() + "\n";
    }
    return out;
}

QByteArray compareJson(const CompareTable& table)
{
    QJsonArray metrics;
    for (const CompareColumn& c : table.columns)
        metrics.append(QJsonObject{{"key", qs(c.metric.key)},
                                   {"label", qs(c.metric.label)},
                                   {"unit", qs(c.metric.unit)},
                                   {"direction", c.metric.higherIsBetter ? "higher" : "lower"}});
    QJsonArray rows;
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const CompareRow& row = table.rows[r];
        QJsonObject terminations;
        for (const auto& [name, count] : row.terminations)
            terminations.insert(qs(name), count);
        QJsonObject summary;
        for (std::size_t c = 0; c < table.columns.size(); ++c)
            summary.insert(qs(table.columns[c].metric.key),
                           summaryJson(row.metrics[c], table.columns[c].bestRow == int(r)));
        summary.insert("seconds_per_step",
                       summaryJson(row.secondsPerStep, table.fastestRow == int(r)));
        summary.insert("steps", summaryJson(row.steps, false));
        QJsonArray perRun;
        for (const CompareRun& run : row.runs)
            perRun.append(runJson(run));
        rows.append(QJsonObject{{"model", qs(row.model)},
                                {"algorithm", qs(row.algorithm)},
                                {"label", qs(row.label)},
                                {"runs", int(row.runs.size())},
                                {"terminations", terminations},
                                {"summary", summary},
                                {"per_run", perRun}});
    }
    return QJsonDocument(QJsonObject{{"metrics", metrics}, {"rows", rows}})
        .toJson(QJsonDocument::Indented);
}

QByteArray compareTex(const CompareTable& table)
{
    const bool severalModels =
        std::any_of(table.rows.begin(), table.rows.end(),
                    [&](const CompareRow& r) { return r.model != table.rows.front().model; });

    // The number columns: every metric, then seconds per step.
    struct NumberColumn
    {
        std::string title;
        bool higherIsBetter;
        int best;
        std::vector<const MeanSd*> cells;
    };
    std::vector<NumberColumn> columns;
    for (std::size_t c = 0; c < table.columns.size(); ++c) {
        NumberColumn column{metricTitle(table.columns[c].metric),
                            table.columns[c].metric.higherIsBetter,
                            table.columns[c].bestRow,
                            {}};
        for (const CompareRow& row : table.rows)
            column.cells.push_back(&row.metrics[c]);
        columns.push_back(std::move(column));
    }
    NumberColumn seconds{"s/step", false, table.fastestRow, {}};
    for (const CompareRow& row : table.rows)
        seconds.cells.push_back(&row.secondsPerStep);
    columns.push_back(std::move(seconds));

    std::string spec = severalModels ? "l l" : "l";
    std::string header = severalModels ? "Model & Algorithm" : "Algorithm";
    std::vector<ColumnFormat> formats;
    for (const NumberColumn& c : columns) {
        formats.push_back(columnFormat(c.cells));
        spec += " r";
        header += " & " + texHeader(c.title, c.higherIsBetter, formats.back());
    }

    std::string out = "% Generated by SVI Workbench's Compare; needs \\usepackage{booktabs}.\n";
    out += "\\begin{tabular}{" + spec + "}\n\\toprule\n" + header + " \\\\\n\\midrule\n";
    for (std::size_t r = 0; r < table.rows.size(); ++r) {
        const CompareRow& row = table.rows[r];
        std::string line = severalModels ? latexEscape(row.model) + " & " : "";
        line += latexEscape(row.label.empty() ? row.algorithm : row.label);
        for (std::size_t c = 0; c < columns.size(); ++c)
            line += " & " + texCell(*columns[c].cells[r], row.runs.size(),
                                    columns[c].best == int(r), formats[c]);
        out += line + " \\\\\n";
    }
    out += "\\bottomrule\n\\end{tabular}\n";
    return QByteArray::fromStdString(out);
}

std::string latexEscape(const std::string& text)
{
    // Non-ASCII symbols as UTF-8 byte sequences: pdflatex's utf8 input knows accented Latin
    // letters (Lázaro) but not Greek or math symbols, which the labels do use.
    static const std::vector<std::pair<std::string, std::string>> symbols = {
        {"α", "$\\alpha$"}, {"β", "$\\beta$"},    {"γ", "$\\gamma$"},  {"δ", "$\\delta$"},
        {"Δ", "$\\Delta$"}, {"ε", "$\\epsilon$"}, {"ζ", "$\\zeta$"},   {"η", "$\\eta$"},
        {"θ", "$\\theta$"}, {"κ", "$\\kappa$"},   {"λ", "$\\lambda$"}, {"μ", "$\\mu$"},
        {"ξ", "$\\xi$"},    {"π", "$\\pi$"},      {"ρ", "$\\rho$"},    {"σ", "$\\sigma$"},
        {"τ", "$\\tau$"},   {"φ", "$\\phi$"},     {"ψ", "$\\psi$"},    {"ω", "$\\omega$"},
        {"′", "$'$"},       {"−", "$-$"},         {"×", "$\\times$"},  {"±", "$\\pm$"},
        {"≥", "$\\geq$"},   {"≤", "$\\leq$"},     {"→", "$\\to$"},     {"∞", "$\\infty$"},
        {"…", "\\ldots{}"}, {"–", "--"},          {"—", "---"},
    };
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const char ch = text[i];
        switch (ch) {
        case '&':
        case '%':
        case '$':
        case '#':
        case '_':
        case '{':
        case '}':
            out += '\\';
            out += ch;
            ++i;
            continue;
        case '~':
            out += "\\textasciitilde{}";
            ++i;
            continue;
        case '^':
            out += "\\textasciicircum{}";
            ++i;
            continue;
        case '\\':
            out += "\\textbackslash{}";
            ++i;
            continue;
        default:
            break;
        }
        bool matched = false;
        if (static_cast<unsigned char>(ch) >= 0x80) {
            for (const auto& [from, to] : symbols) {
                if (text.compare(i, from.size(), from) == 0) {
                    out += to;
                    i += from.size();
                    matched = true;
                    break;
                }
            }
        }
        if (!matched)
            out += text[i++];
    }
    return out;
}

} // namespace svi
