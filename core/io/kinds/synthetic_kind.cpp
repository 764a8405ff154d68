// Synthetic data named by the pseudo-file "synthetic", then split like any table: N × D drawn
// by one of the generators the models register (core/run/registry.h), e.g. from the BPFA prior
// (paper 000, Sec. 5.1; the default) or as paper 003's GPFA experiment, whose true loadings
// reach the trainer in DenseData::trueLoadings for the Amari error.

#include "core/data/table.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"

#include <stdexcept>

namespace svi::kinds {

BuiltData buildTable(const Table& table, const TableOptions& options); // table_kind.cpp

namespace {

class RawSynthetic : public RawData
{
public:
    RawSynthetic(Table t, Eigen::MatrixXd loadings, std::vector<std::string> ignored)
        : m_table(std::move(t)), m_loadings(std::move(loadings)), m_ignored(std::move(ignored))
    {
    }
    std::string summary() const override { return m_table.source; }
    std::vector<std::string> ignoredSettings() const override { return m_ignored; }
    const Table& table() const { return m_table; }
    // The true loadings (D × K), when the generator says what they are; empty otherwise.
    const Eigen::MatrixXd& loadings() const { return m_loadings; }

private:
    Table m_table;
    Eigen::MatrixXd m_loadings;
    std::vector<std::string> m_ignored;
};

} // namespace

DataKindSpec synthetic(const std::vector<TableGenerator>& generators)
{
    if (generators.empty())
        throw std::invalid_argument("the synthetic data kind needs a registered generator");
    std::vector<std::string> keys;
    std::string help;
    for (const TableGenerator& g : generators) {
        keys.push_back(g.key);
        help += (help.empty() ? "" : "; ") + g.key + ": " + g.help;
    }
    const auto generatorOf = [generators](const DataDescription& d) -> TableGenerator {
        const std::string key = getChoice(d.settings, "generator");
        for (const TableGenerator& g : generators)
            if (g.key == key)
                return g;
        return generators.front(); // unreachable: the setting is checked against `keys`
    };
    DataKindSpec k;
    k.key = "synthetic";
    k.label = "Synthetic";
    k.task = "data drawn from a factor model (BPFA's prior, or paper 003's sparse non-negative "
             "loadings); held-out entries (or rows) are predicted and scored";
    k.formats = "the name 'synthetic' (no file: the data are drawn from the model)";
    k.settings = {
        choiceParam("generator", "Generator", help, keys, keys.front()),
        intParam("rows", "Rows N", "data points drawn", 100000, 1, 1e9),
        intParam("cols", "Columns D", "entries per data point", 40, 1, 100000),
        intParam("true_k", "True features K", "features of the generating dictionary", 80, 1,
                 100000),
        realParam("loading_var", "Loading variance",
                  "variance of the loadings φ_kd; 0 = 1/D, the prior of eq. 5", 0.0, 0.0, 1e9),
        realParam("heldout", "Held-out fraction",
                  "fraction of entries (or of rows) held out and scored", 0.075, 0.0, 0.99),
        paramNamed(TableOptions::allParams(), "split"),
        splitSeedParam("seed of the drawn data and of the held-out split"),
    };
    k.readSettings = {"generator", "rows", "cols", "true_k", "loading_var", "split_seed"};
    k.defaultModel = "bpfa";
    k.views = {DataView::Loadings};
    k.recognise = [](const FileProbe& f) { return f.path == "synthetic"; };
    // The drawn table, its copy as read and the built data with its mask: about 16 bytes an
    // entry; the draw's factors besides.
    k.memory = [](const DataDescription& d) {
        const double rows = double(getInt(d.settings, "rows")),
                     cols = double(getInt(d.settings, "cols")),
                     trueK = double(getInt(d.settings, "true_k"));
        return std::vector<MemoryTerm>{
            {"the drawn table: rows × cols entries, 16 bytes each", 16 * rows * cols, "rows"},
            {"the draw's factors: rows × true_k doubles", 8 * rows * trueK, "true_k"},
        };
    };
    k.read = [generatorOf](const DataDescription& d) -> std::shared_ptr<const RawData> {
        const TableGenerator g = generatorOf(d);
        SyntheticTableOptions o;
        o.rows = getInt(d.settings, "rows");
        o.cols = int(getInt(d.settings, "cols"));
        o.trueK = int(getInt(d.settings, "true_k"));
        o.loadingVariance = getReal(d.settings, "loading_var");
        o.seed = std::uint64_t(getInt(d.settings, "split_seed"));
        const DenseDataPtr drawn = g.draw(o);
        Table table;
        table.values = drawn->values;
        for (int c = 0; c < drawn->cols(); ++c)
            table.columns.push_back("y" + std::to_string(c + 1));
        table.markers.assign(table.columns.size(), std::string());
        table.source = drawn->source;
        return std::make_shared<RawSynthetic>(std::move(table), drawn->trueLoadings,
                                              g.ignoredSettings);
    };
    // Nothing to read: the shape the settings ask for.
    k.inspect = [generatorOf](const DataDescription& d) -> DataReport {
        return {{
            {"format", "format", generatorOf(d).drawn, {}, {}},
            {"rows", "rows", getInt(d.settings, "rows"), {}, {}},
            {"cols", "cols", getInt(d.settings, "cols"), {}, {}},
            {"true_k", "true features", getInt(d.settings, "true_k"), {}, {}},
        }};
    };
    k.build = [](const RawData& raw, const DataDescription& d) {
        TableOptions o;
        // As drawn (TableGenerator::draw): standardised by the generator that should be.
        o.standardise = false;
        o.heldOut = getReal(d.settings, "heldout");
        o.split =
            getChoice(d.settings, "split") == "rows" ? HeldOutSplit::Rows : HeldOutSplit::Entries;
        o.seed = std::uint64_t(getInt(d.settings, "split_seed"));
        const auto& synthetic = static_cast<const RawSynthetic&>(raw);
        BuiltData out = buildTable(synthetic.table(), o);
        if (synthetic.loadings().size() > 0) {
            auto withTruth = std::make_shared<DenseData>(*out.data.dense);
            withTruth->trueLoadings = synthetic.loadings();
            out.data = DataSet(DenseDataPtr(std::move(withTruth)));
        }
        return out;
    };
    return k;
}

} // namespace svi::kinds
