// Labelled features: LIBSVM text (a9a, cadata) or a table with a label column (the glmm CSVs),
// one file split at random into training and test rows or two files (training, test), the
// features z-scored on the training rows, for the supervised models of paper 002 (Bayesian
// GLM, mixed effects, sparse GP).

#include "core/data/labelled.h"
#include "core/inference/likelihoods.h"
#include "core/io/data_kinds.h"
#include "core/io/kinds/kinds.h"
#include "core/io/labelled_files.h"
#include "core/io/run_files.h"

#include <QString>
#include <algorithm>
#include <charconv>
#include <cmath>

namespace svi::kinds {
namespace {

class RawLabelled : public RawData
{
public:
    RawLabelled(LabelledData d, LabelledFormat format) : m_data(std::move(d)), m_format(format) {}
    std::string summary() const override
    {
        return groupedNumber(m_data.rows()) + " examples × " + groupedNumber(m_data.cols()) +
               " features (" + labelText(m_data) + ")";
    }
    // A LIBSVM file has no columns to pick; a table no dimension; a test file, no split.
    std::vector<std::string> ignoredSettings() const override
    {
        std::vector<std::string> out;
        if (m_format == LabelledFormat::Libsvm)
            out = {"label", "factors", "groups", "exclude"};
        else
            out = {"dimension"};
        if (!m_data.testRows.empty() || !m_data.trainingRows.empty())
            out.push_back("test_share");
        return out;
    }
    const LabelledData& data() const { return m_data; }

    // "binary label: -1 / +1", "count label y", "real label median_house_value".
    static std::string labelText(const LabelledData& d)
    {
        const std::string name = d.labelName == "label" ? "" : " " + d.labelName;
        if (d.labelKind == LabelKind::Binary && d.classes.size() == 2)
            return "binary label" + name + ": " + d.classes[0] + " / " + d.classes[1];
        return labelKindName(d.labelKind) + " label" + name;
    }

private:
    LabelledData m_data;
    LabelledFormat m_format;
};

// The shortest text that reads back to the same double.
QByteArray number(double v)
{
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, v);
    return QByteArray(buf, qsizetype(r.ptr - buf));
}

// The rows as LIBSVM lines: the label on the file's own scale (a binary label as its class),
// then the features' non-zero values as the model sees them.
QByteArray libsvmLines(const LabelledData& d, const std::vector<std::int64_t>& rows)
{
    QByteArray out;
    for (const std::int64_t i : rows) {
        const double y = d.y(i);
        if (d.labelKind == LabelKind::Binary && d.classes.size() == 2)
            out += QByteArray::fromStdString(d.classes[y > 0.5 ? 1 : 0]);
        else
            out += number(y * d.labelScale + d.labelMean);
        for (int c = 0; c < d.cols(); ++c)
            if (const double v = d.x(i, c); v != 0.0)
                out += ' ' + QByteArray::number(c + 1) + ':' + number(v);
        out += '\n';
    }
    return out;
}

// The split as LIBSVM files, with the features as the models see them (z-scored with the
// training rows' mean and sd when standardise is on, the intercept column included): another
// tool then fits exactly the design matrix svi fits, and scores the same test rows. The labels
// are written on the file's own scale. features.txt names the columns and says how they were
// transformed (LIBSVM's own tools take no comment lines, so the .svm files have none).
std::string writeLabelledSplit(const BuiltData& built, const std::string& folder)
{
    const LabelledData& d = *built.data.labelled;
    const QString dir = QString::fromStdString(folder);
    writeFileAtomically(dir + "/train.svm", libsvmLines(d, d.trainingRows));
    writeFileAtomically(dir + "/test.svm", libsvmLines(d, d.testRows));
    // What the columns are, told from the data rather than the settings (which BuiltData does
    // not keep): every feature with mean 0 and sd 1 or 0 over the training rows.
    bool standardised = !d.trainingRows.empty();
    for (int c = 0; c < d.cols() && standardised; ++c) {
        if (c == d.interceptColumn)
            continue;
        double sum = 0.0, squares = 0.0;
        for (const std::int64_t i : d.trainingRows)
            sum += d.x(i, c), squares += d.x(i, c) * d.x(i, c);
        const double n = double(d.trainingRows.size()), mean = sum / n;
        const double variance = squares / n - mean * mean;
        standardised =
            std::abs(mean) < 1e-9 && (std::abs(variance - 1.0) < 1e-6 || variance < 1e-12);
    }
    QByteArray names = "# The columns of train.svm and test.svm (index name), as the models see "
                       "them: features ";
    names += standardised ? "z-scored with the training rows' mean and sd (sd 0: centred only)"
                          : "as read";
    names += d.interceptColumn >= 0 ? ", then an intercept column of ones" : "";
    names += ". Labels on the file's own scale.\n";
    for (int c = 0; c < d.cols(); ++c)
        names += QByteArray::number(c + 1) + ' ' +
                 QByteArray::fromStdString(d.featureNames[std::size_t(c)]) + '\n';
    writeFileAtomically(dir + "/features.txt", names);
    // Grouped rows (mixed effects): each row's group name, one a line, in the .svm files' order.
    std::string groupFiles;
    if (!d.group.empty()) {
        const auto groupLines = [&d](const std::vector<std::int64_t>& rows) {
            QByteArray out;
            for (const std::int64_t i : rows)
                out +=
                    QByteArray::fromStdString(d.groupNames[std::size_t(d.group[std::size_t(i)])]) +
                    '\n';
            return out;
        };
        writeFileAtomically(dir + "/train_groups.txt", groupLines(d.trainingRows));
        writeFileAtomically(dir + "/test_groups.txt", groupLines(d.testRows));
        groupFiles = ", train_groups.txt, test_groups.txt";
    }
    return groupedNumber(d.trainingRowCount()) + " training and " +
           groupedNumber(std::int64_t(d.testRows.size())) + " test examples × " +
           std::to_string(d.cols()) + " features (train.svm, test.svm, features.txt" + groupFiles +
           ")";
}

// What the one file holds, read as read() reads it (every line, so that a bad one is named).
DataReport inspectLabelled(const DataDescription& d)
{
    LabelledFileFacts facts;
    const LabelledData data =
        readLabelledFiles(d.files, LabelledReadOptions::fromParams(d.settings), &facts);
    const bool libsvm = facts.format == LabelledFormat::Libsvm;
    DataReport r;
    r.lines.push_back({"format", "format", facts.formatName, {}, {}});
    r.lines.push_back({"rows", "rows", data.rows(), "examples", {}});
    r.lines.push_back(
        {"features",
         "features",
         std::int64_t(data.cols()),
         !libsvm ? "(factors one-hot encoded; beside the intercept, less each factor's first level)"
         : getInt(d.settings, "dimension") > 0 ? "(as the dimension setting says)"
                                               : "(the highest index)",
         {}});
    if (!libsvm)
        r.lines.push_back({"label", "label", data.labelName, {}, {}});
    r.lines.push_back({"label_kind", "label kind", labelKindName(data.labelKind), {}, {}});
    if (data.labelKind == LabelKind::Binary) {
        const auto ones = std::int64_t((data.y.array() > 0.5).count());
        r.lines.push_back({"classes", "class", data.classes, {}, "classes"});
        r.lines.push_back({"class_codes", "coded", std::vector<double>{0.0, 1.0}, {}, "classes"});
        r.lines.push_back({"class_counts",
                           "examples",
                           std::vector<double>{double(data.rows() - ones), double(ones)},
                           {},
                           "classes"});
    } else {
        r.lines.push_back({"label_min", "smallest label", data.y.minCoeff(), {}, {}});
        r.lines.push_back({"label_max", "largest label", data.y.maxCoeff(), {}, {}});
    }
    if (libsvm)
        r.lines.push_back({"nonzeros", "non-zeros", facts.nonZeros, "index:value pairs", {}});
    if (!data.groupNames.empty())
        r.lines.push_back({"groups", "groups", std::int64_t(data.groupNames.size()), "levels", {}});
    if (!libsvm) {
        r.lines.push_back({"columns", "column", facts.columns, {}, "columns"});
        r.lines.push_back({"roles", "read as", facts.roles, {}, "columns"});
    }
    return r;
}

// Labels drawn from a model instead of the file's (paper 002, experiment 4.2): w ~ N(0, I) over
// the features as the models see them (standardised, with the intercept), for gme plus
// w2 ~ Rayleigh(τ) and f_i = x_iᵀw + √w2 ε_i, and y_i ~ p(y | f_i); seeded by split_seed.
std::vector<ParamSpec> syntheticLabelParams()
{
    return {choiceParam("synthetic_labels", "Synthetic labels",
                        "none: the file's labels; glm: drawn from the GLM with w ~ N(0, I) on "
                        "the features; gme: and noise of variance w2 ~ Rayleigh(τ) on each f_i "
                        "(paper 002, 4.2)",
                        {"none", "glm", "gme"}, "none"),
            choiceParam("synthetic_likelihood", "Synthetic likelihood",
                        "p(y | f) of synthetic labels (the paper's: Poisson with logistic link)",
                        unparameterisedLikelihoodNames(), "poisson-logistic"),
            positiveParam("synthetic_tau", "Synthetic τ", "gme labels: w2 ~ Rayleigh(τ) (paper: 5)",
                          5.0)};
}

// `data` with its labels replaced as the settings ask; the text for the summary ("" when the
// file's labels are kept).
std::string drawLabels(LabelledData& data, const ParamValues& settings)
{
    const std::string how = getChoice(settings, "synthetic_labels");
    if (how == "none")
        return {};
    const auto lik =
        makeLikelihood(likelihoodFromName(getChoice(settings, "synthetic_likelihood")));
    Rng rng = Rng::stream(std::uint64_t(getInt(settings, "split_seed")), 0x1abe15);
    Eigen::VectorXd w(data.cols());
    for (Eigen::Index j = 0; j < w.size(); ++j)
        w[j] = rng.normal();
    const double w2 = how == "gme" ? getReal(settings, "synthetic_tau") *
                                         std::sqrt(-2.0 * std::log(rng.uniformOpen()))
                                   : 0.0;
    for (std::int64_t i = 0; i < data.rows(); ++i)
        data.y[i] = lik->sample(data.x.row(i).dot(w) + std::sqrt(w2) * rng.normal(), rng);
    data.labelMean = 0.0;
    data.labelScale = 1.0;
    data.classes.clear();
    if (lik->classifies()) {
        data.labelKind = LabelKind::Binary;
        data.classes = {"0", "1"};
    } else {
        data.labelKind =
            lik->kind() == LikelihoodKind::Gaussian ? LabelKind::Real : LabelKind::Count;
    }
    data.labelName = "synthetic";
    return "labels drawn from the " + how + " prior, " + likelihoodName(lik->kind()) +
           (how == "gme" ? ", w2 = " + formatNumber(std::round(w2 * 1000) / 1000) : "");
}

} // namespace

DataKindSpec labelled()
{
    DataKindSpec k;
    k.key = "labelled";
    k.label = "Labelled";
    k.task = "supervised: a label is predicted from features; the model learns on the training "
             "rows and is scored on the test rows (a test file, or a share drawn at random)";
    k.formats = "LIBSVM / SVMlight text (optionally gzip'd; a second file = the test set); a "
                "CSV / TSV with a label column when read as Labelled data (the data kind chosen, "
                "or a model that takes only labelled data)";
    k.settings = LabelledReadOptions::allParams();
    for (const ParamSpec& p : LabelledOptions::allParams())
        k.settings.push_back(p);
    for (const ParamSpec& p : syntheticLabelParams())
        k.settings.push_back(p);
    for (const ParamSpec& p : LabelledReadOptions::allParams())
        k.readSettings.push_back(p.key);
    k.severalFiles = true;
    k.defaultModel = "glm";
    k.views = {DataView::Weights};
    // A table is labelled data only when asked for (the data kind chosen, or a model that takes
    // labelled data and not tables: withKindFor): by default it is a table.
    k.recognise = [](const FileProbe& f) { return f.content == "libsvm"; };
    k.reads = [](const FileProbe& f) { return f.content == "libsvm" || f.content == "delimited"; };
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        const LabelledFormat format = labelledFormatOf(d.files.front());
        return std::make_shared<RawLabelled>(
            readLabelledFiles(d.files, LabelledReadOptions::fromParams(d.settings)), format);
    };
    k.inspect = inspectLabelled;
    k.build = [](const RawData& raw, const DataDescription& d) {
        LabelledDataPtr data = makeLabelledData(static_cast<const RawLabelled&>(raw).data(),
                                                LabelledOptions::fromParams(d.settings));
        std::string drawn;
        if (getChoice(d.settings, "synthetic_labels") != "none") {
            auto copy = std::make_shared<LabelledData>(*data);
            drawn = drawLabels(*copy, d.settings);
            data = std::move(copy);
        }
        BuiltData out;
        out.data = data;
        const auto test = std::int64_t(data->testRows.size());
        out.summary = groupedNumber(data->trainingRowCount()) + " train + " + groupedNumber(test) +
                      " test examples × " + groupedNumber(data->cols()) + " features (" +
                      RawLabelled::labelText(*data) + (drawn.empty() ? "" : "; " + drawn) + ")";
        out.facts = {{"rows", double(data->rows())},
                     {"train", double(data->trainingRowCount())},
                     {"test", double(test)},
                     {"features", double(data->cols())}};
        if (data->labelKind == LabelKind::Binary)
            out.facts.emplace_back("positives", double((data->y.array() > 0.5).count()));
        if (!data->groupNames.empty()) {
            out.summary += " · " + groupedNumber(std::int64_t(data->groupNames.size())) + " groups";
            out.facts.emplace_back("groups", double(data->groupNames.size()));
        }
        return out;
    };
    k.writeSplit = writeLabelledSplit;
    return k;
}

} // namespace svi::kinds
