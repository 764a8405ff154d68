// Synthetic data drawn from the BPFA prior (paper 000, Sec. 5.1: N × D with K true features),
// named by the pseudo-file "synthetic", then split like any table.

#include "core/data/table.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"
#include "core/models/bpfa/bpfa_synthetic.h"

namespace svi::kinds {

BuiltData buildTable(const Table& table, const TableOptions& options); // table_kind.cpp

namespace {

class RawSynthetic : public RawData
{
public:
    explicit RawSynthetic(Table t) : m_table(std::move(t)) {}
    std::string summary() const override { return m_table.source; }
    const Table& table() const { return m_table; }

private:
    Table m_table;
};

} // namespace

DataKindSpec synthetic()
{
    DataKindSpec k;
    k.key = "synthetic";
    k.label = "Synthetic";
    k.task = "data drawn from the BPFA prior; held-out entries (or rows) are predicted and "
             "scored";
    k.formats = "the name 'synthetic' (no file: the data are drawn from the model)";
    k.settings = {
        intParam("rows", "Rows N", "data points drawn", 100000, 1, 1e9),
        intParam("cols", "Columns D", "entries per data point", 40, 1, 100000),
        intParam("true_k", "True features K", "features of the generating dictionary", 80, 1,
                 100000),
        realParam("loading_var", "Loading variance",
                  "variance of the loadings φ_kd; 0 = 1/D, the prior of eq. 5", 0.0, 0.0, 1e9),
        realParam("heldout", "Held-out fraction",
                  "fraction of entries (or of rows) held out and scored", 0.075, 0.0, 0.99),
        paramNamed(TableOptions::params(), "split"),
        splitSeedParam("seed of the drawn data and of the held-out split"),
    };
    k.readSettings = {"rows", "cols", "true_k", "loading_var", "split_seed"};
    k.defaultModel = "bpfa";
    k.views = {DataView::Loadings};
    k.recognise = [](const FileProbe& f) { return f.path == "synthetic"; };
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        BpfaSyntheticOptions so;
        so.N = getInt(d.settings, "rows");
        so.D = int(getInt(d.settings, "cols"));
        so.K = int(getInt(d.settings, "true_k"));
        so.loadingVariance = getReal(d.settings, "loading_var");
        so.heldOut = 0.0; // split when built, like any table, so that rows can be held out too
        so.seed = std::uint64_t(getInt(d.settings, "split_seed"));
        const DenseDataPtr drawn = makeBpfaSynthetic(so).data; // standardised as a whole
        Table table;
        table.values = drawn->values;
        for (int c = 0; c < drawn->cols(); ++c)
            table.columns.push_back("y" + std::to_string(c + 1));
        table.markers.assign(table.columns.size(), std::string());
        table.source = drawn->source;
        return std::make_shared<RawSynthetic>(std::move(table));
    };
    // Nothing to read: the shape the settings ask for.
    k.inspect = [](const DataDescription& d) -> DataReport {
        return {{
            {"format", "format", std::string("drawn from the BPFA prior"), {}, {}},
            {"rows", "rows", getInt(d.settings, "rows"), {}, {}},
            {"cols", "cols", getInt(d.settings, "cols"), {}, {}},
            {"true_k", "true features", getInt(d.settings, "true_k"), {}, {}},
        }};
    };
    k.build = [](const RawData& raw, const DataDescription& d) {
        TableOptions o;
        o.standardise = false; // drawn standardised already
        o.heldOut = getReal(d.settings, "heldout");
        o.split =
            getChoice(d.settings, "split") == "rows" ? HeldOutSplit::Rows : HeldOutSplit::Entries;
        o.seed = std::uint64_t(getInt(d.settings, "split_seed"));
        return buildTable(static_cast<const RawSynthetic&>(raw).table(), o);
    };
    return k;
}

} // namespace svi::kinds
