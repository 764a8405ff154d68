// The artificial matrices of paper 002's generalized PMF experiments (Sec. 4.4): every entry of
// a users × items matrix drawn from the model with one of its likelihoods, named by the
// pseudo-file "synthetic-ratings". A data kind the model brings (Registry::addDataKind).

#include "core/models/gpmf/gpmf_data.h"
#include "core/run/data_kinds.h"

namespace svi::gpmf {
namespace {

class RawSyntheticRatings : public RawData
{
public:
    std::string summary() const override { return "a matrix drawn from generalized PMF"; }
};

gpmf::SyntheticMatrixOptions optionsOf(const ParamValues& s)
{
    gpmf::SyntheticMatrixOptions o;
    o.users = getInt(s, "rows");
    o.items = getInt(s, "cols");
    o.dim = int(getInt(s, "true_d"));
    o.kind = gpmf::observationFromName(getChoice(s, "likelihood"));
    o.categories = int(getInt(s, "categories"));
    o.slope = getReal(s, "slope");
    o.delta = getReal(s, "delta");
    o.testFraction = getReal(s, "heldout");
    o.seed = std::uint64_t(getInt(s, "split_seed"));
    return o;
}

} // namespace

DataKindSpec syntheticRatingsKind()
{
    DataKindSpec k;
    k.key = "synthetic-ratings";
    k.label = "Synthetic ratings";
    k.task = "a fully observed users × items matrix drawn from generalized PMF (U, V columns "
             "~ N(0, I)); a share of the entries is held out and scored";
    k.formats = "the name 'synthetic-ratings' (no file: the matrix is drawn from the model)";
    k.settings = {
        intParam("rows", "Users (rows)", "users of the matrix (paper: 1,000)", 1000, 1, 1e7),
        intParam("cols", "Items (columns)", "items of the matrix (paper: 1,000)", 1000, 1, 1e7),
        intParam("true_d", "True dimensions D", "rows of the generating U and V (paper: 100)", 100,
                 1, 10000),
        choiceParam("likelihood", "Likelihood",
                    "binary (logistic), count (Poisson, logistic link) or ordinal",
                    {"binary", "count", "ordinal"}, "binary"),
        intParam("categories", "Categories C", "ordinal: categories 1…C", 5, 2, 1000),
        positiveParam("slope", "Ordinal slope", "ordinal: the slope s (paper: 100)", 100.0),
        positiveParam("delta", "Ordinal spacing δ", "ordinal: cut points δ(k − C/2) (paper: 15)",
                      15.0),
        realParam("heldout", "Held-out fraction", "entries held out and scored (paper: 0.2)", 0.2,
                  0.0, 0.99),
        splitSeedParam("seed of the drawn matrix and of the held-out split"),
    };
    k.defaultModel = "gpmf";
    k.views = {DataView::Recommendations};
    k.recognise = [](const FileProbe& f) { return f.path == "synthetic-ratings"; };
    // Every entry observed: the drawn matrix's entries as read and as built (about 40 bytes an
    // entry), and the generating U and V.
    k.memory = [](const DataDescription& d) {
        const double rows = double(getInt(d.settings, "rows")),
                     cols = double(getInt(d.settings, "cols")),
                     trueD = double(getInt(d.settings, "true_d"));
        return std::vector<MemoryTerm>{
            {"the drawn matrix: rows × cols entries, 40 bytes each", 40 * rows * cols, "rows"},
            {"the generating U and V", 8 * (rows + cols) * trueD, "true_d"},
        };
    };
    k.read = [](const DataDescription&) -> std::shared_ptr<const RawData> {
        return std::make_shared<RawSyntheticRatings>();
    };
    k.inspect = [](const DataDescription& d) -> DataReport {
        const gpmf::SyntheticMatrixOptions o = optionsOf(d.settings);
        return {{
            {"format", "format", std::string("drawn from generalized PMF"), {}, {}},
            {"users", "users", o.users, {}, {}},
            {"items", "items", o.items, {}, {}},
            {"likelihood", "likelihood", gpmf::observationName(o.kind), {}, {}},
        }};
    };
    k.build = [](const RawData&, const DataDescription& d) {
        const gpmf::SyntheticMatrixOptions o = optionsOf(d.settings);
        BuiltData out;
        out.data.counts = gpmf::makeSyntheticMatrix(o);
        const CountData& c = *out.data.counts;
        out.summary = std::to_string(o.users) + " users × " + std::to_string(o.items) + " items, " +
                      gpmf::observationName(o.kind) + ", fully observed · " +
                      std::to_string(c.train.nonZeros()) + " training and " +
                      std::to_string(c.heldOut.nonZeros()) + " test entries";
        out.facts = {{"users", double(o.users)},
                     {"items", double(o.items)},
                     {"train", double(c.train.nonZeros())},
                     {"test", double(c.heldOut.nonZeros())}};
        return out;
    };
    return k;
}

} // namespace svi::gpmf
