#pragma once
// DenseData: an N×D real matrix with a per-entry role (observed / held out / missing).
//
// This is what loaders produce for image patches, cytometry cells and expression matrices,
// and what dense models (BPFA) consume. It is immutable once built and shared between runs
// and threads through std::shared_ptr<const DenseData>: the 255,025 patches of a 512×512
// image are held once, however many runs use them.

#include "core/base/shard.h"

#include <Eigen/Core>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

// Role of one entry. Training code reads only Observed entries; evaluation reads HeldOut
// entries (their true value is known and stored); Missing entries are unknown.
enum class EntryRole : std::uint8_t { Missing = 0, Observed = 1, HeldOut = 2 };

using MatrixRF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixRU8 = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Geometry and normalisation of an image cut into overlapping p×p patches, so that patch
// predictions can be put back into an image. Pixel values are on the 0–255 scale.
struct ImageLayout
{
    int width = 0;
    int height = 0;
    int patch = 8;
    // normalised = (pixel − mean) / scale, applied to every pixel of every patch.
    double mean = 0.0;
    double scale = 1.0;
    // Row-major height×width images, 0–255.
    Eigen::ArrayXXf original;  // the clean image (height rows × width cols)
    Eigen::ArrayXXf corrupted; // what the model sees: observed pixels (noise added), 0 elsewhere
    MatrixRU8 pixelObserved;   // 1 where the pixel is observed
    // The observed pixels are exact (no noise was added): a reconstruction keeps them and
    // fills only the removed ones.
    bool exactObserved = false;

    int patchesPerRow() const { return width - patch + 1; }
    int patchesPerCol() const { return height - patch + 1; }
    std::int64_t patchCount() const { return std::int64_t(patchesPerRow()) * patchesPerCol(); }
};

struct DenseData
{
    MatrixRF values;                      // the rows held × D; meaningful where role is Observed
                                          // or HeldOut
    MatrixRU8 roles;                      // the rows held × D of EntryRole
    std::vector<std::string> columnNames; // may be empty
    // Rows the model trains on, ascending, of the whole data set (also when read in parts);
    // empty = every row. Rows left out are test rows (a row split): only their local inference
    // sees their observed entries.
    std::vector<std::int64_t> trainingRows;
    std::string source;               // file name or description, for messages
    std::optional<ImageLayout> image; // set when the rows are image patches
    // The loadings that generated the data, D × K (a column per factor) in the units of
    // `values`: set by synthetic kinds only, so that a factor model can score its recovery
    // (the Amari error); empty otherwise.
    Eigen::MatrixXd trueLoadings;
    // The rows [begin, end) of the whole data set this process holds when the data were read in
    // parts, each rank of a distributed run reading only its own; unset when every row was read.
    // `values` and `roles` then hold those rows only (row i of the data set at i − begin), and
    // `wholeRows` counts the rows of the whole data set. Communicator::ownedRows turns it into
    // the rows a rank trains on and evaluates. Every accessor below takes the data set's row
    // numbers; only `values` and `roles` are indexed by the rows held.
    std::optional<Shard> heldRows;
    std::int64_t wholeRows = 0;

    // Rows of the whole data set.
    std::int64_t rows() const { return heldRows ? wholeRows : values.rows(); }
    // Row i of the data set in `values` and `roles` (i itself unless read in parts).
    std::int64_t heldRow(std::int64_t i) const { return heldRows ? i - heldRows->begin : i; }
    std::int64_t trainingRowCount() const
    {
        return trainingRows.empty() ? rows() : std::int64_t(trainingRows.size());
    }
    // The j-th training row (0 ≤ j < trainingRowCount()).
    std::int64_t trainingRow(std::int64_t j) const
    {
        return trainingRows.empty() ? j : trainingRows[std::size_t(j)];
    }
    int cols() const { return int(values.cols()); }
    // Entries of row i (a row held): value, role, and the row's D values and roles.
    float value(std::int64_t i, int d) const { return values(heldRow(i), d); }
    std::uint8_t role(std::int64_t i, int d) const { return roles(heldRow(i), d); }
    const float* valueRow(std::int64_t i) const { return values.row(heldRow(i)).data(); }
    const std::uint8_t* roleRow(std::int64_t i) const { return roles.row(heldRow(i)).data(); }
    bool observed(std::int64_t i, int d) const
    {
        return role(i, d) == std::uint8_t(EntryRole::Observed);
    }
    bool heldOut(std::int64_t i, int d) const
    {
        return role(i, d) == std::uint8_t(EntryRole::HeldOut);
    }
};

using DenseDataPtr = std::shared_ptr<const DenseData>;

} // namespace svi
