#pragma once
// CountData: a sparse N×V matrix of non-negative counts in CSR (documents × words, users ×
// items), with a reproducible held-out split.
//
// What models read:
//   - `train`: the entries a model may learn from. For a training row, all of its entries; for
//     a test row (`testRows`), only the part that conditions its local inference (the first
//     half of a held-out document's words in document completion).
//   - `heldOut`: the entries to score, same shape; empty rows where nothing is held out. For
//     documents, a test row's other half; for ratings, the held-out (user, item) test entries.
//   - `validation`: ratings only (empty otherwise): a further small held-out set, scored
//     separately, for choosing settings and stopping without touching the test set.
// A (row, column) pair is in at most one of train, heldOut and validation.
// Training code iterates `trainingRows()` only; a row in `testRows` never changes the globals.
// Immutable once built and shared through std::shared_ptr<const CountData>.

#include "core/base/shard.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace svi {

class DocumentStream; // core/data/document_stream.h

// Compressed sparse rows: row r holds entries [rowStart[r], rowStart[r+1]) of `cols`/`counts`,
// with strictly increasing column indices within a row.
struct SparseRows
{
    std::vector<std::int64_t> rowStart = {0}; // rows + 1
    std::vector<std::int32_t> cols;
    std::vector<float> counts; // > 0 (≥ 0 when CountData::observedZeros)

    std::int64_t rows() const { return std::int64_t(rowStart.size()) - 1; }
    std::int64_t nonZeros() const { return std::int64_t(cols.size()); }
    std::int64_t rowNonZeros(std::int64_t r) const
    {
        return rowStart[std::size_t(r) + 1] - rowStart[std::size_t(r)];
    }
    std::span<const std::int32_t> rowCols(std::int64_t r) const
    {
        return {cols.data() + rowStart[std::size_t(r)], std::size_t(rowNonZeros(r))};
    }
    std::span<const float> rowCounts(std::int64_t r) const
    {
        return {counts.data() + rowStart[std::size_t(r)], std::size_t(rowNonZeros(r))};
    }
    double rowTotal(std::int64_t r) const
    {
        double s = 0.0;
        for (float c : rowCounts(r))
            s += c;
        return s;
    }
    double total() const
    {
        double s = 0.0;
        for (float c : counts)
            s += c;
        return s;
    }
    // Appends one row from (col, count) pairs sorted by col, count > 0 (≥ 0 when zeros are
    // observed).
    void appendRow(std::span<const std::int32_t> rowCols, std::span<const float> rowCounts)
    {
        cols.insert(cols.end(), rowCols.begin(), rowCols.end());
        counts.insert(counts.end(), rowCounts.begin(), rowCounts.end());
        rowStart.push_back(std::int64_t(cols.size()));
    }
};

struct CountData
{
    SparseRows train;                // N rows × V columns
    SparseRows heldOut;              // N rows × V columns (rows with nothing held out are empty)
    SparseRows validation;           // N rows × V columns, or no rows at all (documents)
    std::int64_t vocabularySize = 0; // V
    std::vector<std::string> columnNames; // V words / items, or empty
    std::vector<std::string> rowNames;    // N document / user names, or empty
    std::vector<std::int64_t> testRows;   // ascending; rows outside training
    std::string source;                   // file name or description, for messages
    std::string kind = "documents";       // "documents" or "ratings" (for labels)
    // What a stored value is, for a model whose likelihood depends on it (generalized PMF's
    // "auto"): "counts" (words, plays), "stars" (ratings on a scale), "binary" (0 or 1),
    // "ordinal" (categories 1…C).
    std::string values = "counts";
    // Whether zeros are stored as observed entries (a fully observed matrix). Otherwise every
    // stored value is > 0 and an absent entry is unobserved (ratings) or zero (counts).
    bool observedZeros = false;
    // Ratings: the file's user and item ids of each row and column (empty for documents).
    std::vector<std::int64_t> rowIds, columnIds;
    // The rows this process holds when the data were read in parts, each rank of a distributed
    // run reading only its own (every other row is then empty here, and held by another rank);
    // unset when every row was read. Communicator::ownedRows turns it into the rows a rank
    // trains on and evaluates.
    std::optional<Shard> heldRows;
    // Out of core (a corpus read as a stream): the documents after the rows here, read once in
    // order by a streaming trainer as it goes. The rows here are then the stream's head: its
    // test documents and the training documents that came with them, which the trainer takes
    // first. Null for data held whole. A trainer that cannot stream refuses data with a stream.
    std::shared_ptr<DocumentStream> stream;

    std::int64_t rows() const { return train.rows(); }
    std::int64_t cols() const { return vocabularySize; }
    bool isTestRow(std::int64_t r) const;
    // Rows the model trains on, ascending (every row not in testRows).
    const std::vector<std::int64_t>& trainingRows() const { return m_trainingRows; }
    std::int64_t trainingRowCount() const { return std::int64_t(m_trainingRows.size()); }
    // Fills the training-row list from testRows; call once after building.
    void finalise();

private:
    std::vector<std::int64_t> m_trainingRows;
};

using CountDataPtr = std::shared_ptr<const CountData>;

} // namespace svi
