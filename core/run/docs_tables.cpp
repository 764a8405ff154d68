#include "core/run/docs_tables.h"

#include <algorithm>
#include <sstream>

namespace svi {
namespace {

std::string code(const std::string& text)
{
    return text.empty() ? std::string() : "`" + text + "`";
}

// One row of a model's parameter table: a declaration shared by the algorithms listed. Two
// declarations of the same key that differ in anything shown (a default, a range, the help)
// are two rows, so that each algorithm's default is right.
struct ParamRow
{
    const ParamSpec* spec;
    std::vector<std::string> algorithms;
};

bool sameDeclaration(const ParamSpec& a, const ParamSpec& b)
{
    return a.key == b.key && a.label == b.label && a.help == b.help && a.offHelp == b.offHelp &&
           a.type == b.type && defaultText(a) == defaultText(b) && rangeText(a) == rangeText(b);
}

std::vector<ParamRow> paramRows(const std::vector<const AlgorithmEntry*>& entries)
{
    std::vector<ParamRow> rows;
    for (const AlgorithmEntry* e : entries) {
        for (const ParamSpec& p : e->params) {
            auto it = std::find_if(rows.begin(), rows.end(),
                                   [&](const ParamRow& r) { return sameDeclaration(*r.spec, p); });
            if (it == rows.end())
                rows.push_back(ParamRow{&p, {e->algorithm}});
            else
                it->algorithms.push_back(e->algorithm);
        }
    }
    // A key that comes in several variants keeps its variants together, at the place of its
    // first one, so that a reader finds every default of `local_tol` in one spot.
    std::vector<ParamRow> grouped;
    for (const ParamRow& row : rows) {
        if (std::any_of(grouped.begin(), grouped.end(),
                        [&](const ParamRow& g) { return g.spec->key == row.spec->key; }))
            continue;
        for (const ParamRow& same : rows)
            if (same.spec->key == row.spec->key)
                grouped.push_back(same);
    }
    return grouped;
}

// "all", "all but `gibbs`" or the list, whichever is shortest to read.
std::string algorithmsText(const std::vector<std::string>& algorithms,
                           const std::vector<const AlgorithmEntry*>& entries)
{
    auto list = [](const std::vector<std::string>& keys) {
        std::string out;
        for (const std::string& k : keys)
            out += (out.empty() ? "" : ", ") + code(k);
        return out;
    };
    std::vector<std::string> missing;
    for (const AlgorithmEntry* e : entries)
        if (std::find(algorithms.begin(), algorithms.end(), e->algorithm) == algorithms.end())
            missing.push_back(e->algorithm);
    if (missing.empty())
        return "all";
    if (missing.size() < algorithms.size())
        return "all but " + list(missing);
    return list(algorithms);
}

void modelTables(std::ostringstream& out, const Registry& registry, const std::string& model)
{
    const std::vector<const AlgorithmEntry*> entries = registry.algorithms(model);
    const AlgorithmEntry& first = *entries.front();
    out << "### " << markdownCell(first.modelLabel) << " (" << code(model) << ")\n\n";

    std::vector<std::string> kinds;
    for (const AlgorithmEntry* e : entries)
        for (const std::string& k : e->dataKinds)
            if (std::find(kinds.begin(), kinds.end(), k) == kinds.end())
                kinds.push_back(k);
    out << "Data:";
    for (std::size_t i = 0; i < kinds.size(); ++i)
        out << (i == 0 ? " " : ", ") << code(kinds[i]);
    out << ".\n\n";

    out << "| algorithm | label | what it does | its ELBO trace |\n| --- | --- | --- | --- |\n";
    for (const AlgorithmEntry* e : entries)
        out << "| " << code(e->algorithm) << " | " << markdownCell(e->label)
            << (registry.defaultAlgorithm(e->model) == e ? " (default)" : "") << " | "
            << markdownCell(e->help) << " | " << markdownCell(e->boundText()) << " |\n";
    out << "\n";

    out << "| key | label | default | range | algorithms | help |\n"
           "| --- | --- | --- | --- | --- | --- |\n";
    for (const ParamRow& row : paramRows(entries)) {
        const ParamSpec& p = *row.spec;
        out << "| " << code(p.key) << " | " << markdownCell(p.label) << " | "
            << markdownCell(code(defaultText(p))) << " | " << markdownCell(rangeText(p)) << " | "
            << algorithmsText(row.algorithms, entries) << " | " << markdownCell(helpWithOffText(p))
            << " |\n";
    }
    out << "\n";

    // A note column when a metric declares a caveat.
    const std::vector<MetricSpec> metrics = registry.metricsOf({model});
    const bool notes = std::any_of(metrics.begin(), metrics.end(),
                                   [](const MetricSpec& m) { return !m.caveat.empty(); });
    out << "| metric | label | unit | better |" << (notes ? " note |" : "") << "\n"
        << "| --- | --- | --- | --- |" << (notes ? " --- |" : "") << "\n";
    for (const MetricSpec& m : metrics) {
        out << "| " << code(m.key) << " | " << markdownCell(m.label) << " | "
            << markdownCell(m.unit) << " | "
            << (!m.compared        ? "not compared"
                : m.higherIsBetter ? "higher"
                                   : "lower")
            << " |";
        if (notes)
            out << " " << markdownCell(m.caveat) << " |";
        out << "\n";
    }
}

} // namespace

std::string markdownCell(const std::string& text)
{
    std::string out;
    bool inCode = false;
    for (char c : text) {
        // Inside a code span only '|' needs (and accepts) an escape: GFM splits table cells
        // before it parses code spans.
        if (c == '`')
            inCode = !inCode;
        if (c == '\n' || c == '\r') {
            out += ' ';
            continue;
        }
        if (c == '|' || (!inCode && (c == '\\' || c == '*' || c == '~' || c == '<')))
            out += '\\';
        out += c;
    }
    return out;
}

std::string markdownTables(const Registry& registry)
{
    std::ostringstream out;
    const std::vector<std::string> models = registry.models();
    for (std::size_t i = 0; i < models.size(); ++i) {
        if (i > 0)
            out << "\n";
        modelTables(out, registry, models[i]);
    }
    return out.str();
}

} // namespace svi
