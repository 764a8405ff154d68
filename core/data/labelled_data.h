#pragma once
// LabelledData: N examples of D real features with a label each (a9a's income class,
// California house values, grouped counts), split into training and test rows: what the
// supervised models of paper 002 (Bayesian GLM, GME, sparse GP) fit.
//
// The features are stored dense, already transformed as the data kind's settings ask (factor
// columns one-hot encoded (the first level left out beside an intercept), z-scored with the
// training rows' mean and standard deviation, an intercept column of ones appended), so that a
// model reads only x_i and y_i. Labels keep their values as read, except that a label with exactly
// two values is coded 0/1 (LIBSVM's −1/+1, a CSV's "no"/"yes"): `classes` then names the two.
// Immutable once built and shared through std::shared_ptr<const LabelledData>.

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace svi {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// What the labels are, as read: the likelihoods a model may put on them follow from it.
enum class LabelKind {
    Binary, // two values, coded 0/1 (classes names them)
    Count,  // non-negative integers, more than two values
    Real    // anything else
};

struct LabelledData
{
    MatrixRD x;        // N×D features, transformed (see above)
    Eigen::VectorXd y; // N labels
    LabelKind labelKind = LabelKind::Real;
    std::vector<std::string> classes;      // Binary: the names of label 0 and label 1
    std::vector<std::string> featureNames; // D names ("age", "workclass=Private", "x17", "1")
    // The columns [first, end) of each factor's 0/1 level columns, as read (tables). With an
    // intercept the first level of each is left out (the reference level, as R's treatment
    // contrasts): all its levels beside a column of ones would be collinear.
    std::vector<std::pair<int, int>> factorColumns;
    std::string labelName; // "label", or the CSV column's name
    // Per row: its group (0 … groupNames.size() − 1) when a group column was given (mixed
    // effects), otherwise empty.
    std::vector<std::int32_t> group;
    std::vector<std::string> groupNames;
    // Rows a model learns from and rows it is scored on, each ascending, disjoint, together
    // every row.
    std::vector<std::int64_t> trainingRows;
    std::vector<std::int64_t> testRows;
    // Per row: the file and line it was read from, for messages naming a bad label
    // ("'a9a.t' line 17"); lines count from 1.
    std::vector<std::int32_t> fileOfRow;
    std::vector<std::int64_t> lineOfRow;
    std::vector<std::string> files;
    // The standardisation applied to a real label (y stored = (y read − labelMean) /
    // labelScale), so that errors can be reported on the label's own scale; 0 and 1 otherwise.
    double labelMean = 0.0;
    double labelScale = 1.0;
    // The index of the intercept column (all ones), or −1 when there is none.
    int interceptColumn = -1;
    std::string source; // file name(s), for messages

    std::int64_t rows() const { return x.rows(); }
    int cols() const { return int(x.cols()); }
    std::int64_t trainingRowCount() const { return std::int64_t(trainingRows.size()); }
    // "'a9a.t' line 17", for a message about row i.
    std::string where(std::int64_t i) const
    {
        if (i < 0 || std::size_t(i) >= lineOfRow.size() || fileOfRow.empty())
            return "'" + source + "' row " + std::to_string(i + 1);
        return "'" + files[std::size_t(fileOfRow[std::size_t(i)])] + "' line " +
               std::to_string(lineOfRow[std::size_t(i)]);
    }
};

using LabelledDataPtr = std::shared_ptr<const LabelledData>;

} // namespace svi
