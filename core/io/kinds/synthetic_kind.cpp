// Synthetic data named by the pseudo-file "synthetic", then split like any table: drawn from
// the BPFA prior (paper 000, Sec. 5.1: N × D with K true features; the default generator) or as
// paper 003's GPFA experiment (Sec. 4.2: sparse non-negative loadings, whose true values reach
// the trainer in DenseData::trueLoadings for the Amari error).

#include "core/data/table.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/models/gpfa/gpfa_synthetic.h"

namespace svi::kinds {

BuiltData buildTable(const Table& table, const TableOptions& options); // table_kind.cpp

namespace {

class RawSynthetic : public RawData
{
public:
    RawSynthetic(Table t, Eigen::MatrixXd loadings)
        : m_table(std::move(t)), m_loadings(std::move(loadings))
    {
    }
    std::string summary() const override { return m_table.source; }
    // The GPFA generator's loadings have no variance setting.
    std::vector<std::string> ignoredSettings() const override
    {
        return m_loadings.size() > 0 ? std::vector<std::string>{"loading_var"}
                                     : std::vector<std::string>{};
    }
    const Table& table() const { return m_table; }
    // The true loadings (D × K), when the generator says what they are; empty otherwise.
    const Eigen::MatrixXd& loadings() const { return m_loadings; }

private:
    Table m_table;
    Eigen::MatrixXd m_loadings;
};

bool gpfaGenerator(const DataDescription& d)
{
    return getChoice(d.settings, "generator") == "gpfa";
}

} // namespace

DataKindSpec synthetic()
{
    DataKindSpec k;
    k.key = "synthetic";
    k.label = "Synthetic";
    k.task = "data drawn from a factor model (BPFA's prior, or paper 003's sparse non-negative "
             "loadings); held-out entries (or rows) are predicted and scored";
    k.formats = "the name 'synthetic' (no file: the data are drawn from the model)";
    k.settings = {
        choiceParam("generator", "Generator",
                    "bpfa: the BPFA prior (paper 000, Sec. 5.1), standardised; gpfa: paper 003's "
                    "GPFA data, y = W x + ε, W_dk ~ 0.8 δ₀ + 0.2 U[0, 1], x ~ N(0, I), noise "
                    "variance 0.1, left as drawn (the paper: cols 50, true_k 10)",
                    {"bpfa", "gpfa"}, "bpfa"),
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
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        Table table;
        if (gpfaGenerator(d)) {
            GpfaSyntheticOptions go;
            go.N = getInt(d.settings, "rows");
            go.D = int(getInt(d.settings, "cols"));
            go.K = int(getInt(d.settings, "true_k"));
            go.seed = std::uint64_t(getInt(d.settings, "split_seed"));
            const DenseDataPtr drawn = makeGpfaSynthetic(go);
            table.values = drawn->values;
            for (int c = 0; c < drawn->cols(); ++c)
                table.columns.push_back("y" + std::to_string(c + 1));
            table.markers.assign(table.columns.size(), std::string());
            table.source = drawn->source;
            return std::make_shared<RawSynthetic>(std::move(table), drawn->trueLoadings);
        }
        BpfaSyntheticOptions so;
        so.N = getInt(d.settings, "rows");
        so.D = int(getInt(d.settings, "cols"));
        so.K = int(getInt(d.settings, "true_k"));
        so.loadingVariance = getReal(d.settings, "loading_var");
        so.heldOut = 0.0; // split when built, like any table, so that rows can be held out too
        so.seed = std::uint64_t(getInt(d.settings, "split_seed"));
        const DenseDataPtr drawn = makeBpfaSynthetic(so).data; // standardised as a whole
        table.values = drawn->values;
        for (int c = 0; c < drawn->cols(); ++c)
            table.columns.push_back("y" + std::to_string(c + 1));
        table.markers.assign(table.columns.size(), std::string());
        table.source = drawn->source;
        return std::make_shared<RawSynthetic>(std::move(table), Eigen::MatrixXd());
    };
    // Nothing to read: the shape the settings ask for.
    k.inspect = [](const DataDescription& d) -> DataReport {
        return {{
            {"format",
             "format",
             std::string(gpfaGenerator(d) ? "drawn as paper 003's GPFA data"
                                          : "drawn from the BPFA prior"),
             {},
             {}},
            {"rows", "rows", getInt(d.settings, "rows"), {}, {}},
            {"cols", "cols", getInt(d.settings, "cols"), {}, {}},
            {"true_k", "true features", getInt(d.settings, "true_k"), {}, {}},
        }};
    };
    k.build = [](const RawData& raw, const DataDescription& d) {
        TableOptions o;
        // BPFA's draw is standardised already; GPFA's is left in the units of its loadings
        // (zero mean by construction), so that they stay the truth the fit is scored against.
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
