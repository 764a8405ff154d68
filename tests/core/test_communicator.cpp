// What the Communicator computes without a transport (core/base/communicator.h): shares of n
// items that partition them, the rows a rank owns (its shard, or the rows it holds when the
// data were read in parts), the items of a list among those rows, the positions of a row range
// in a sorted list, and the agreement on the first rank's message, whose collective sum is
// played here by a communicator that adds what the other ranks would.

#include "core/base/communicator.h"

#include <QtTest>
#include <numeric>
#include <random>

using namespace svi;

namespace {

// Rank `r` of `R`; sum() adds `others` (what the other ranks put in).
class FakeRanks : public Communicator
{
public:
    FakeRanks(int r, int R) : m_r(r), m_R(R) {}
    int rank() const override { return m_r; }
    int size() const override { return m_R; }
    void sum(std::span<double> values) override
    {
        for (std::size_t i = 0; i < values.size() && i < others.size(); ++i)
            values[i] += others[i];
    }
    std::vector<double> others;

private:
    int m_r, m_R;
};

// Rank r's message as it stands in the slots that firstMessage sums.
void put(std::vector<double>& buffer, int r, const std::string& message)
{
    for (std::size_t i = 0; i < message.size(); ++i)
        buffer[std::size_t(r) * Communicator::kMessageBytes + i] +=
            double(static_cast<unsigned char>(message[i])) + 1.0;
}

} // namespace

class TestCommunicator : public QObject
{
    Q_OBJECT
private slots:
    void sharesPartitionTheItems();
    void ownedRowsAndMine();
    void positionsOfARowRange();
    void firstMessageIsTheLowestRanks();
    void statisticPacksAndUnpacks();
    void localHasNoPointToPoint();
};

void TestCommunicator::sharesPartitionTheItems()
{
    for (int R = 1; R <= 7; ++R)
        for (std::int64_t n = 0; n <= 40; ++n) {
            std::int64_t next = 0;
            for (int r = 0; r < R; ++r) {
                const Shard s = FakeRanks(r, R).shardOf(n);
                QCOMPARE(s.begin, next);
                QVERIFY(s.size() >= n / R && s.size() <= n / R + 1);
                next = s.end;
            }
            QCOMPARE(next, n);
        }
}

void TestCommunicator::ownedRowsAndMine()
{
    const FakeRanks second(1, 3);
    QCOMPARE(second.ownedRows(30, std::nullopt), (Shard{10, 20}));
    QCOMPARE(second.ownedRows(30, Shard{4, 9}), (Shard{4, 9})); // data read in parts
    const std::vector<std::int64_t> items = {25, 3, 12, 10, 19, 20, 7, 11};
    QCOMPARE(second.mine(items, Shard{10, 20}), (std::vector<std::int64_t>{12, 10, 19, 11}));
    // One rank: every item, whatever the rows.
    QCOMPARE(localCommunicator().mine(items, Shard{0, 1}), items);
}

void TestCommunicator::positionsOfARowRange()
{
    std::mt19937 rng(3);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<std::int64_t> rows;
        for (std::int64_t r = 0; r < 60; ++r)
            if (rng() % 3 != 0)
                rows.push_back(r);
        const std::int64_t a = rng() % 61, b = a + rng() % (61 - a);
        const Shard p = positionsIn(rows, Shard{a, b});
        for (std::int64_t j = 0; j < std::int64_t(rows.size()); ++j)
            QCOMPARE(j >= p.begin && j < p.end,
                     rows[std::size_t(j)] >= a && rows[std::size_t(j)] < b);
    }
}

void TestCommunicator::firstMessageIsTheLowestRanks()
{
    QCOMPARE(localCommunicator().firstMessage("alone"), std::string("alone"));
    const std::size_t L = Communicator::kMessageBytes;
    FakeRanks third(2, 4);
    third.others.assign(4 * L, 0.0);
    QCOMPARE(third.firstMessage(""), std::string()); // nobody failed
    QCOMPARE(third.firstMessage("mine: line 7 ü"), std::string("mine: line 7 ü"));
    put(third.others, 3, "a later rank");
    QCOMPARE(third.firstMessage("mine"), std::string("mine"));
    put(third.others, 1, "cannot read 'docs.ldac' line 12");
    QCOMPARE(third.firstMessage("mine"), std::string("cannot read 'docs.ldac' line 12"));
    // A message longer than a slot is cut to it.
    FakeRanks first(0, 2);
    first.others.assign(2 * L, 0.0);
    QCOMPARE(first.firstMessage(std::string(L + 50, 'x')), std::string(L, 'x'));
}

// A statistic's buffers travel as bytes and come back into buffers listed alike: dense values,
// sparse sets of any size (none included) resized to what was sent. A dense buffer of another
// size, bytes left over or missing are errors, not a silent misreading.
void TestCommunicator::statisticPacksAndUnpacks()
{
    Eigen::VectorXd a(3), b(1);
    a << 1.5, -2.0, 3.25;
    b << 7.0;
    SparseRowSum s, none;
    s.index = {2, 9};
    s.rows.resize(2, 4);
    s.rows << 1, 2, 3, 4, 5, 6, 7, 8;
    none.rows.resize(0, 4);
    GlobalStatistic out;
    out.dense(a);
    out.sparse(s);
    out.sparse(none);
    out.dense(b);
    const std::string bytes = out.pack();

    Eigen::VectorXd a2(3), b2(1);
    SparseRowSum s2, none2;
    none2.index = {5}; // replaced by what was sent: no rows
    none2.rows.setOnes(1, 4);
    GlobalStatistic in;
    in.dense(a2);
    in.sparse(s2);
    in.sparse(none2);
    in.dense(b2);
    in.unpack(bytes);
    QCOMPARE(a2, a);
    QCOMPARE(b2, b);
    QCOMPARE(s2.index, s.index);
    QCOMPARE(s2.rows, s.rows);
    QVERIFY(none2.index.empty());
    QCOMPARE(none2.rows.rows(), Eigen::Index(0));

    Eigen::VectorXd wrong(2);
    GlobalStatistic other;
    other.dense(wrong);
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, other.unpack(bytes));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, in.unpack(bytes + "x"));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, in.unpack(bytes.substr(0, bytes.size() - 1)));
}

// One process has no other rank to send to.
void TestCommunicator::localHasNoPointToPoint()
{
    Communicator& local = localCommunicator();
    QVERIFY(!local.servesFromAThread());
    QVERIFY_THROWS_EXCEPTION(std::logic_error, local.send(0, 1, "x"));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, local.receive(0, 1));
    QVERIFY_THROWS_EXCEPTION(std::logic_error, local.probe(0, 1));
}

QTEST_GUILESS_MAIN(TestCommunicator)
#include "test_communicator.moc"
