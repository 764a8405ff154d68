#include "core/io/table_part.h"

#include "core/io/data_error.h"
#include "core/io/data_files.h"
#include "core/io/fcs_file.h"
#include "core/io/line_shard.h"
#include "core/io/table_text.h"

#include <QFile>
#include <algorithm>

namespace svi {
namespace {

// Bytes [begin, end) of a file (whole lines: begin at a line start, end at one or at the end),
// handed out in blocks of whole lines of about a megabyte, so that reading a part costs a block
// of memory, not the part's size (a line longer than a block is handed whole).
class LineBlocks
{
public:
    LineBlocks(const std::string& path, LineShard part)
        : m_path(path), m_file(QString::fromStdString(path)), m_left(part.size())
    {
        if (!m_file.open(QIODevice::ReadOnly) || !m_file.seek(part.begin))
            failFile(path, m_file.errorString().toStdString());
    }
    // The next block (valid until the next call); false at the end of the part.
    bool next(std::string_view& block)
    {
        m_buffer.erase(0, m_handed);
        m_handed = 0;
        for (;;) {
            if (m_left == 0 && m_buffer.empty())
                return false;
            if (m_left > 0) {
                const std::size_t kept = m_buffer.size();
                const std::int64_t n = std::min<std::int64_t>(kBlock, m_left);
                m_buffer.resize(kept + std::size_t(n));
                if (m_file.read(m_buffer.data() + kept, n) != n)
                    failFile(m_path, "cannot read its part: " + m_file.errorString().toStdString());
                m_left -= n;
            }
            const std::size_t lineEnd = m_buffer.rfind('\n');
            if (m_left > 0 && lineEnd == std::string::npos)
                continue; // a line longer than the block: read on
            m_handed = m_left == 0 ? m_buffer.size() : lineEnd + 1;
            block = std::string_view(m_buffer.data(), m_handed);
            return true;
        }
    }

private:
    static constexpr std::int64_t kBlock = 1 << 20;
    std::string m_path;
    QFile m_file;
    std::int64_t m_left;
    std::string m_buffer;
    std::size_t m_handed = 0;
};

// Runs `task`, keeping its DataError's message (also when it has none); "" when it succeeded.
template <typename Task> std::string attempt(Task&& task)
{
    try {
        task();
    } catch (const DataError& e) {
        const std::string m = e.what();
        return m.empty() ? std::string("a data error without a message") : m;
    }
    return {};
}

// Every rank throws the DataError of the lowest rank whose `error` is not empty.
void agree(Communicator& ranks, const std::string& error)
{
    if (const std::string first = ranks.firstMessage(error); !first.empty())
        throw DataError(first);
}

// FCS files: the files' events in order, split evenly; each rank reads its events of each file
// (an empty range still checks the file as the whole reading does).
TableRead fcsPart(const std::vector<std::string>& paths, Communicator& ranks)
{
    std::vector<std::int64_t> events;
    TableRead out;
    agree(ranks, attempt([&] {
              for (const std::string& p : paths)
                  events.push_back(readFcs(p, false).events);
          }));
    std::int64_t total = 0;
    for (std::int64_t e : events)
        total += e;
    const Shard mine = ranks.shardOf(total);
    std::vector<Table> tables;
    agree(ranks, attempt([&] {
              std::int64_t offset = 0;
              for (std::size_t f = 0; f < paths.size(); ++f) {
                  const std::int64_t b =
                      std::clamp(mine.begin - offset, std::int64_t(0), events[f]);
                  const std::int64_t e = std::clamp(mine.end - offset, std::int64_t(0), events[f]);
                  tables.push_back(std::move(readFcs(paths[f], true, Shard{b, e}).table));
                  offset += events[f];
              }
              if (tables.size() == 1) {
                  out.table = std::move(tables.front());
                  return;
              }
              try {
                  out.table = combineTables(tables);
              } catch (const std::invalid_argument& e) {
                  throw DataError(std::string("cannot combine the FCS files: ") + e.what());
              }
          }));
    out.where = TablePart{mine.begin, total, &ranks};
    return out;
}

// One delimited file: this rank's lines, with the whole file's layout and line numbers.
std::optional<TableRead> delimitedPart(const std::string& path, const TableReadOptions& options,
                                       Communicator& ranks)
{
    const int R = ranks.size(), r = ranks.rank();
    // This part's lines (read once to count them: the number of its first line in the file
    // needs the counts of the parts before it).
    LineShard part;
    double lineCount = 0;
    agree(ranks, attempt([&] {
              part = lineShard(QString::fromStdString(path), r, R);
              LineBlocks blocks(path, part);
              std::string_view block;
              while (blocks.next(block))
                  lineCount += double(std::count(block.begin(), block.end(), '\n'));
          }));
    std::vector<double> lines(std::size_t(R), 0.0);
    lines[std::size_t(r)] = lineCount;
    ranks.sum(lines);
    std::int64_t firstLine = 1;
    for (int q = 0; q < r; ++q)
        firstLine += std::int64_t(lines[std::size_t(q)]);

    tabletext::DelimitedLines read;
    const std::string error = attempt([&] {
        LineBlocks blocks(path, part);
        std::int64_t next = firstLine;
        read = tabletext::readDelimitedLines(
            path, options, part.size(), [&](std::string_view& block, std::int64_t& number) {
                if (!blocks.next(block))
                    return false;
                number = next;
                next += std::int64_t(std::count(block.begin(), block.end(), '\n'));
                return true;
            });
    });
    // Per rank: its rows; then whether a line left a quote open, and whether a line gave the
    // unnamed last column a value (all ranks).
    std::vector<double> facts(std::size_t(R) + 2, 0.0);
    facts[std::size_t(r)] = double(read.values.rows());
    facts[std::size_t(R)] = read.quotedBreak ? 1.0 : 0.0;
    facts[std::size_t(R) + 1] = read.lastColumnEmpty ? 0.0 : 1.0;
    ranks.sum(facts);
    if (facts[std::size_t(R)] > 0)
        return std::nullopt; // records cross lines: the parts are not whole records
    agree(ranks, error);

    TableRead out;
    std::int64_t firstRow = 0, total = 0;
    for (int q = 0; q < R; ++q) {
        if (q < r)
            firstRow += std::int64_t(facts[std::size_t(q)]);
        total += std::int64_t(facts[std::size_t(q)]);
    }
    Table& t = out.table;
    t.values = std::move(read.values);
    t.columns = std::move(read.columns);
    if (read.lastColumnUnnamed && facts[std::size_t(R) + 1] == 0 && t.columns.size() > 1) {
        // Every line of the file ended with a delimiter: that is not a column.
        t.values.conservativeResize(t.values.rows(), t.values.cols() - 1);
        t.columns.pop_back();
    }
    t.markers.assign(t.columns.size(), std::string());
    t.source = path;
    out.where = TablePart{firstRow, total, &ranks};
    return out;
}

} // namespace

std::optional<TableRead> readTablePart(const std::vector<std::string>& paths,
                                       const TableReadOptions& options, Communicator& ranks)
{
    if (paths.empty() || options.transpose)
        return std::nullopt;
    const bool allFcs = std::all_of(paths.begin(), paths.end(), [](const std::string& p) {
        return dataFileKind(p) == DataFileKind::Fcs;
    });
    if (allFcs)
        return fcsPart(paths, ranks);
    if (paths.size() != 1 || dataFileKind(paths.front()) != DataFileKind::Delimited ||
        isGzipped(paths.front()))
        return std::nullopt;
    return delimitedPart(paths.front(), options, ranks);
}

} // namespace svi
