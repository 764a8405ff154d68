#pragma once
// A text file of one record per line (an LDA-C corpus, a ratings or a CSV table) split among
// `parts` readers — the ranks of a distributed run — so that each reads only its part: the
// byte range [size·r/parts, size·(r+1)/parts) moved forward to line starts. The line that
// starts at byte p belongs to the part whose range holds p, so the parts, in order, are the
// file's bytes exactly: no line is cut, none is read twice, none is lost. A line longer than a
// part leaves the parts it covers empty. Finding a boundary reads only the bytes from it to the
// next end of line (a line ends at '\n'; "\r\n" ends it too, its '\r' being the line's).
//
// Only a file that can be read from any offset splits: a compressed one (gzip) cannot, and is
// refused with a DataError saying so; the caller then reads it whole. Reentrant; any thread.

#include "core/base/communicator.h"
#include "core/io/data_error.h"

#include <QString>
#include <cstdint>
#include <string>

namespace svi {

// Bytes [begin, end) of a file: whole lines, begin at a line start (or at the end of the file).
struct LineShard
{
    std::int64_t begin = 0, end = 0;
    std::int64_t size() const { return end - begin; }
    bool operator==(const LineShard&) const = default;
};

// Part `part` of `parts` (0 ≤ part < parts) of the file `path`. Throws DataError naming the
// file when it cannot be read or is compressed, std::invalid_argument for a bad part.
LineShard lineShard(const QString& path, int part, int parts);

// The bytes of that part (its lines, with their ends of line). Throws as lineShard.
std::string readLineShard(const QString& path, int part, int parts, LineShard* where = nullptr);

// Whether the file `path` is gzip'd (its first two bytes; false when it cannot be read): a part
// reader then lets the file be read whole.
bool isGzipped(const std::string& path);

// Runs `task` on every rank of `ranks` (collective); then every rank throws the DataError of the
// lowest rank whose task threw one — the parts are in file order, so the first in the file — so
// that all stop together, saying the same.
template <typename Task> void failTogether(Communicator& ranks, Task&& task)
{
    std::string error;
    try {
        task();
    } catch (const DataError& e) {
        error = e.what();
        if (error.empty())
            error = "a data error without a message";
    }
    if (const std::string first = ranks.firstMessage(error); !first.empty())
        throw DataError(first);
}

} // namespace svi
