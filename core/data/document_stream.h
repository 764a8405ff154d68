#pragma once
// DocumentStream: the documents of a corpus too long to hold, read once, in the order of the
// file, as a streaming algorithm uses them (out-of-core streaming VB, paper 004 §2.6). The
// vocabulary is fixed before the first document; a document is a row of word ids below its size
// and counts > 0. No Qt: the readers of core/io implement it.
//
// Threading: one consumer thread calls read() and atEnd(); an implementation may read ahead on a
// thread of its own.

#include "core/data/count_data.h"

#include <atomic>
#include <cstdint>

namespace svi {

class DocumentStream
{
public:
    virtual ~DocumentStream() = default;
    // Appends up to n documents to `rows` and returns how many it appended: fewer than n only at
    // the end of the stream. Throws the reader's error (a DataError naming the file, line and
    // field) when the input is malformed, at the document where it is.
    virtual std::int64_t read(std::int64_t n, SparseRows& rows) = 0;
    // Whether every document has been read (waits for the input to say so).
    virtual bool atEnd() = 0;
    // Documents read() has returned so far.
    virtual std::int64_t documentsRead() const = 0;
    // Takes the stream for one trainer: true the first time, false after (a second run on the
    // same data — a comparison, a re-run — must read the data again, not the stream's rest).
    bool claim() { return !m_claimed.exchange(true); }

private:
    std::atomic<bool> m_claimed = false;
};

} // namespace svi
