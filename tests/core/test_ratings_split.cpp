// Ratings split: makeRatingsData's per-user split (exact test counts, random rounding of the
// validation count, reproducibility, independence between users, binarisation, the return of
// unscorable held-out entries), its options and their declarations. The readers:
// test_ratings.cpp.

#include "core/data/ratings.h"
#include "core/math/random.h"
#include "tests/core/data_testing.h"

#include <QtTest>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

using namespace svi;
using namespace data_testing;

namespace {

// One rating by file ids.
struct Triple
{
    std::int64_t user, item;
    float value;
};

// Ratings from triples as a reader makes them: ids re-indexed in ascending order, entries in
// the given order, lines from 1.
Ratings makeRatings(const std::vector<Triple>& triples, const std::string& source = "synthetic")
{
    Ratings r;
    r.source = source;
    for (const Triple& t : triples) {
        r.userIds.push_back(t.user);
        r.itemIds.push_back(t.item);
    }
    for (auto* ids : {&r.userIds, &r.itemIds}) {
        std::sort(ids->begin(), ids->end());
        ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
    }
    const auto index = [](const std::vector<std::int64_t>& ids, std::int64_t id) {
        return std::int32_t(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
    };
    for (std::size_t k = 0; k < triples.size(); ++k)
        r.entries.push_back({index(r.userIds, triples[k].user), index(r.itemIds, triples[k].item),
                             triples[k].value, std::int64_t(k) + 1});
    return r;
}

// `users` users (ids 7, 10, 13, …) rating between lo and hi distinct items each among `items`
// (ids 100, 102, …), 1 to 5 stars, from a fixed seed.
std::vector<Triple> randomTriples(std::int64_t users, std::int64_t items, std::int64_t lo,
                                  std::int64_t hi, std::uint64_t seed)
{
    Rng rng = Rng::stream(seed, 0);
    std::vector<Triple> out;
    std::vector<std::int64_t> pool(std::size_t(items), 0);
    for (std::int64_t u = 0; u < users; ++u) {
        const std::int64_t n =
            std::min(items, lo + std::int64_t(rng.below(std::uint64_t(hi - lo + 1))));
        for (std::int64_t i = 0; i < items; ++i)
            pool[std::size_t(i)] = i;
        for (std::int64_t k = 0; k < n; ++k) {
            std::swap(pool[std::size_t(k)],
                      pool[std::size_t(k) + rng.below(std::uint64_t(items - k))]);
            out.push_back({7 + 3 * u, 100 + 2 * pool[std::size_t(k)], float(1 + rng.below(5))});
        }
    }
    // File order shuffled, as in u.data.
    for (std::size_t k = out.size(); k > 1; --k)
        std::swap(out[k - 1], out[rng.below(k)]);
    return out;
}

using Cells = std::map<std::pair<std::int64_t, std::int64_t>, float>; // (user id, item id) → y

// The entries of one part of the split, by file ids.
Cells cellsOf(const CountData& d, const SparseRows& m)
{
    Cells out;
    for (std::int64_t r = 0; r < m.rows(); ++r) {
        const auto cols = m.rowCols(r);
        const auto counts = m.rowCounts(r);
        for (std::size_t j = 0; j < cols.size(); ++j)
            out[{d.rowIds[std::size_t(r)], d.columnIds[std::size_t(cols[j])]}] = counts[j];
    }
    return out;
}

// One user's entries of one part, by item id.
std::map<std::int64_t, float> userCells(const CountData& d, const SparseRows& m,
                                        std::int64_t userId)
{
    std::map<std::int64_t, float> out;
    const auto it = std::lower_bound(d.rowIds.begin(), d.rowIds.end(), userId);
    if (it == d.rowIds.end() || *it != userId)
        return out;
    const std::int64_t r = it - d.rowIds.begin();
    for (std::size_t j = 0; j < m.rowCols(r).size(); ++j)
        out[d.columnIds[std::size_t(m.rowCols(r)[j])]] = m.rowCounts(r)[j];
    return out;
}

// Rows well formed: one per user, columns strictly increasing and in range, counts > 0.
bool wellFormed(const SparseRows& m, std::int64_t rows, std::int64_t cols)
{
    if (m.rows() != rows || m.rowStart.front() != 0 || m.rowStart.back() != m.nonZeros() ||
        m.cols.size() != m.counts.size())
        return false;
    for (std::int64_t r = 0; r < rows; ++r) {
        const auto c = m.rowCols(r);
        for (std::size_t j = 0; j < c.size(); ++j)
            if (c[j] < 0 || c[j] >= cols || (j > 0 && c[j] <= c[j - 1]) || !(m.rowCounts(r)[j] > 0))
                return false;
    }
    return true;
}

} // namespace

class TestRatingsSplit : public QObject
{
    Q_OBJECT

private slots:
    void options_data();
    void options();
    void paramsRoundTrip();
    void splitPartitions();
    void splitCountsPerUser();
    void validationOverall();
    void splitReproducible();
    void splitIndependentOfOtherUsers();
    void splitKeepsATrainingRating();
    void binarize();
    void returnedToTraining();
    void splitErrors();
};

// --- the split ---------------------------------------------------------------------------------

void TestRatingsSplit::options_data()
{
    QTest::addColumn<double>("binarize");
    QTest::addColumn<double>("test");
    QTest::addColumn<double>("validation");
    QTest::addColumn<QString>("expected");
    const double nan = std::numeric_limits<double>::quiet_NaN();
    QTest::newRow("binarize negative") << -1.0 << 0.2 << 0.01 << "binarize = -1, but must be ≥ 0";
    QTest::newRow("binarize nan") << nan << 0.2 << 0.01 << "binarize = nan, but must be finite";
    QTest::newRow("binarize inf") << std::numeric_limits<double>::infinity() << 0.2 << 0.01
                                  << "binarize = inf, but must be ≥ 0";
    QTest::newRow("test 1") << 0.0 << 1.0 << 0.0 << "test_fraction = 1, but must be in [0, 0.99]";
    QTest::newRow("test negative")
        << 0.0 << -0.1 << 0.0 << "test_fraction = -0.1, but must be in [0, 0.99]";
    QTest::newRow("validation 1") << 0.0 << 0.2 << 1.0
                                  << "validation_fraction = 1, but must be in [0, 0.99]";
    QTest::newRow("validation nan")
        << 0.0 << 0.2 << nan << "validation_fraction = nan, but must be finite";
    QTest::newRow("sum 1") << 0.0 << 0.75 << 0.25
                           << "validation_fraction = 0.25, but must be < 1 − test_fraction = 0.25";
}

void TestRatingsSplit::options()
{
    QFETCH(double, binarize);
    QFETCH(double, test);
    QFETCH(double, validation);
    QFETCH(QString, expected);
    QVERIFY(!RatingsOptions{}.validate());
    RatingsOptions o;
    o.binarize = binarize;
    o.testFraction = test;
    o.validationFraction = validation;
    const std::optional<std::string> problem = o.validate();
    QVERIFY(problem);
    QVERIFY2(str(plainSettingRefs(*problem)).startsWith(expected), problem->c_str());
    const QString msg =
        str(plainSettingRefs(invalidOf([&] {
                                 makeRatingsData(makeRatings(randomTriples(5, 4, 2, 4, 1)), o);
                             }).toStdString()));
    QVERIFY2(msg.startsWith(expected), qPrintable(msg));
}

void TestRatingsSplit::paramsRoundTrip()
{
    QCOMPARE(RatingsOptions::fromParams(defaultValues(RatingsOptions::allParams())),
             RatingsOptions{});
    QStringList keys;
    for (const ParamSpec& p : RatingsOptions::allParams())
        keys << str(p.key);
    QCOMPARE(keys, QStringList({"binarize", "test_fraction", "validation_fraction", "split_seed"}));
    ParamValues v = defaultValues(RatingsOptions::allParams());
    v["split_seed"] = std::int64_t(9);
    v["binarize"] = 3.5;
    v["test_fraction"] = 0.1;
    v["validation_fraction"] = 0.0;
    const RatingsOptions o = RatingsOptions::fromParams(v);
    QCOMPARE(o.seed, std::uint64_t(9));
    QCOMPARE(o.binarize, 3.5);
    QCOMPARE(o.testFraction, 0.1);
    QCOMPARE(o.validationFraction, 0.0);
    // The declared ranges are checked by resolveParams, naming the key.
    const auto bad = resolveParams(RatingsOptions::allParams(), {{"test_fraction", 1.5}});
    QVERIFY(std::holds_alternative<ParamError>(bad));
    QCOMPARE(str(std::get<ParamError>(bad).key), QString("test_fraction"));
}

// Train, test and validation are disjoint, together the input, in well-formed rows; the
// labels come from the ratings.
void TestRatingsSplit::splitPartitions()
{
    const std::vector<Triple> triples = randomTriples(300, 40, 1, 30, 11);
    Ratings r = makeRatings(triples, "syn.data");
    r.itemTitles.assign(std::size_t(r.items()), "");
    r.itemTitles[0] = "First";
    for (double test : {0.0, 0.2, 0.5}) {
        RatingsOptions o;
        o.testFraction = test;
        o.validationFraction = 0.05;
        RatingsSplitStats s;
        const CountDataPtr d = makeRatingsData(r, o, &s);
        QCOMPARE(d->kind, std::string("ratings"));
        QCOMPARE(d->source, std::string("syn.data"));
        QCOMPARE(d->rows(), r.users());
        QCOMPARE(d->cols(), r.items());
        QCOMPARE(d->rowIds, r.userIds);
        QCOMPARE(d->columnIds, r.itemIds);
        QCOMPARE(str(d->rowNames[1]), QString("user 10"));
        QCOMPARE(str(d->columnNames[0]), QString("First"));
        QCOMPARE(str(d->columnNames[1]), QString("102")); // no title: the id
        QVERIFY(d->testRows.empty());
        QCOMPARE(d->trainingRowCount(), r.users());
        for (const SparseRows* m : {&d->train, &d->heldOut, &d->validation})
            QVERIFY(wellFormed(*m, r.users(), r.items()));

        const Cells train = cellsOf(*d, d->train), test2 = cellsOf(*d, d->heldOut),
                    validation = cellsOf(*d, d->validation);
        Cells all;
        for (const Triple& t : triples)
            all[{t.user, t.item}] = t.value;
        Cells joined = train;
        for (const Cells* part : {&test2, &validation})
            for (const auto& [key, y] : *part)
                QVERIFY(joined.emplace(key, y).second); // disjoint
        QCOMPARE(joined, all);
        QCOMPARE(s.users, r.users());
        QCOMPARE(s.items, r.items());
        QCOMPARE(s.train, std::int64_t(train.size()));
        QCOMPARE(s.test, std::int64_t(test2.size()));
        QCOMPARE(s.validation, std::int64_t(validation.size()));
        QCOMPARE(s.droppedBelowThreshold, std::int64_t(0));
        std::int64_t withoutTest = 0;
        for (std::int64_t u = 0; u < d->rows(); ++u)
            withoutTest += d->heldOut.rowNonZeros(u) == 0;
        QCOMPARE(s.usersWithoutTest, withoutTest);
        if (test == 0.0)
            QCOMPARE(s.usersWithoutTest, r.users());
    }
}

// round(0.2 n) test entries for every user; the validation count is 0.01 n rounded down or up.
void TestRatingsSplit::splitCountsPerUser()
{
    // Many users on few items: every item keeps training ratings, nothing is returned.
    const Ratings r = makeRatings(randomTriples(500, 30, 1, 30, 5));
    RatingsOptions o;
    o.validationFraction = 0.05;
    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(r, o, &s);
    QCOMPARE(s.returnedToTraining, std::int64_t(0));
    std::vector<std::int64_t> n(std::size_t(r.users()), 0);
    for (const Rating& e : r.entries)
        ++n[std::size_t(e.user)];
    std::int64_t roundedUp = 0, withoutTest = 0;
    for (std::int64_t u = 0; u < r.users(); ++u) {
        const std::int64_t nu = n[std::size_t(u)];
        const std::int64_t test = d->heldOut.rowNonZeros(u), val = d->validation.rowNonZeros(u);
        QCOMPARE(test, std::min(std::int64_t(std::llround(0.2 * double(nu))), nu - 1));
        const double v = 0.05 * double(nu);
        QVERIFY2(
            val == std::int64_t(std::floor(v)) || val == std::int64_t(std::ceil(v)),
            qPrintable(QString("user %1: %2 validation entries of %3").arg(u).arg(val).arg(nu)));
        QCOMPARE(d->train.rowNonZeros(u), nu - test - val);
        QVERIFY(d->train.rowNonZeros(u) >= 1);
        roundedUp += val == std::int64_t(std::ceil(v)) && v != std::floor(v);
        withoutTest += test == 0;
    }
    QVERIFY(roundedUp > 50);  // users with fewer than 20 ratings get one at random
    QVERIFY(withoutTest > 0); // 1 and 2 ratings: round(0.2 n) = 0
    QCOMPARE(s.usersWithoutTest, withoutTest);
}

// Validation is 1 % of the ratings overall although every user has fewer than 100 (so rounding
// each user's 0.01 n_u to the nearest would give none).
void TestRatingsSplit::validationOverall()
{
    const Ratings r = makeRatings(randomTriples(5000, 200, 10, 60, 21));
    RatingsSplitStats s;
    makeRatingsData(r, {}, &s);
    QCOMPARE(s.returnedToTraining, std::int64_t(0));
    std::vector<std::int64_t> n(std::size_t(r.users()), 0);
    for (const Rating& e : r.entries)
        ++n[std::size_t(e.user)];
    // Each user's count is floor(x) + Bernoulli(frac(x)) with x = 0.01 n_u: its mean is Σ x and
    // its variance Σ frac(x)(1 − frac(x)). Allowed: 5 standard deviations (about 0.1 % of the
    // ratings here; a failure by chance has probability below 1e-6).
    double mean = 0.0, variance = 0.0;
    for (std::int64_t nu : n) {
        const double x = 0.01 * double(nu), f = x - std::floor(x);
        mean += x;
        variance += f * (1.0 - f);
    }
    const double tolerance = 5.0 * std::sqrt(variance);
    QVERIFY2(std::abs(double(s.validation) - mean) <= tolerance,
             qPrintable(QString("%1 validation entries, expected %2 ± %3")
                            .arg(s.validation)
                            .arg(mean)
                            .arg(tolerance)));
    const double total = double(r.entries.size());
    QVERIFY(std::abs(double(s.validation) / total - 0.01) < 0.0015);
    QVERIFY(std::abs(double(s.test) / total - 0.2) < 0.01);
}

void TestRatingsSplit::splitReproducible()
{
    const Ratings r = makeRatings(randomTriples(200, 50, 5, 40, 3));
    RatingsOptions o;
    o.seed = 7;
    const CountDataPtr a = makeRatingsData(r, o), b = makeRatingsData(r, o);
    QCOMPARE(cellsOf(*a, a->heldOut), cellsOf(*b, b->heldOut));
    QCOMPARE(cellsOf(*a, a->validation), cellsOf(*b, b->validation));
    QCOMPARE(a->train.cols, b->train.cols);
    o.seed = 8;
    const CountDataPtr c = makeRatingsData(r, o);
    QVERIFY(cellsOf(*c, c->heldOut) != cellsOf(*a, a->heldOut));
    QCOMPARE(c->heldOut.nonZeros(), a->heldOut.nonZeros()); // the counts do not depend on it
    // The test entries do not depend on the validation fraction (the validation entries are
    // drawn after them from the same stream).
    o.seed = 7;
    o.validationFraction = 0.0;
    const CountDataPtr e = makeRatingsData(r, o);
    QCOMPARE(cellsOf(*e, e->heldOut), cellsOf(*a, a->heldOut));
    QCOMPARE(e->validation.nonZeros(), std::int64_t(0));
    QCOMPARE(e->validation.rows(), r.users());
}

// A user's split depends on the seed and that user's ratings only: the same with another user
// removed, with the lines in another order, with other users added.
void TestRatingsSplit::splitIndependentOfOtherUsers()
{
    const std::vector<Triple> all = randomTriples(400, 40, 3, 40, 13);
    RatingsOptions o;
    o.validationFraction = 0.05;
    RatingsSplitStats s;
    const Ratings full = makeRatings(all);
    const CountDataPtr a = makeRatingsData(full, o, &s);
    QCOMPARE(s.returnedToTraining, std::int64_t(0));

    // Without user 10 (the second) and without the first 100 users' ids: the rest re-indexed.
    for (const std::int64_t cut : {std::int64_t(1), std::int64_t(100)}) {
        std::vector<Triple> fewer;
        for (const Triple& t : all)
            if (cut == 1 ? t.user != 10 : t.user >= 7 + 3 * cut)
                fewer.push_back(t);
        std::reverse(fewer.begin(), fewer.end()); // and the lines in another order
        const Ratings part = makeRatings(fewer);
        QVERIFY(part.users() < full.users());
        const CountDataPtr b = makeRatingsData(part, o, &s);
        QCOMPARE(s.returnedToTraining, std::int64_t(0));
        int compared = 0;
        for (std::int64_t id : part.userIds) {
            QCOMPARE(userCells(*b, b->heldOut, id), userCells(*a, a->heldOut, id));
            QCOMPARE(userCells(*b, b->validation, id), userCells(*a, a->validation, id));
            QCOMPARE(userCells(*b, b->train, id), userCells(*a, a->train, id));
            ++compared;
        }
        QCOMPARE(compared, int(part.users()));
    }
}

void TestRatingsSplit::splitKeepsATrainingRating()
{
    // Users with 1 to 4 ratings and large fractions: round(0.7 n) + validation would take all.
    // User 1000 rates 20 items: 14 test, 5.8 validation rounded at random but capped to 5.
    // Users 2001 to 2020 rate one item each, so every item has a training rating and nothing
    // is returned.
    std::vector<Triple> t;
    for (std::int64_t u = 1; u <= 40; ++u)
        for (std::int64_t i = 0; i < 1 + u % 4; ++i)
            t.push_back({u, 1 + i, 3.0f});
    for (std::int64_t i = 1; i <= 20; ++i) {
        t.push_back({1000, i, 2.0f});
        t.push_back({2000 + i, i, 5.0f});
    }
    RatingsOptions o;
    o.testFraction = 0.7;
    o.validationFraction = 0.29;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        o.seed = seed;
        RatingsSplitStats s;
        const CountDataPtr d = makeRatingsData(makeRatings(t), o, &s);
        for (std::int64_t u = 0; u < d->rows(); ++u) {
            const std::int64_t n =
                d->train.rowNonZeros(u) + d->heldOut.rowNonZeros(u) + d->validation.rowNonZeros(u);
            // n − 1 held out (nothing held out of one rating).
            QCOMPARE(d->train.rowNonZeros(u), std::int64_t(1));
            if (d->rowIds[std::size_t(u)] == 1000) {
                QCOMPARE(n, std::int64_t(20));
                QCOMPARE(d->heldOut.rowNonZeros(u), std::int64_t(14));
                QCOMPARE(d->validation.rowNonZeros(u), std::int64_t(5));
            }
        }
        QCOMPARE(s.returnedToTraining, std::int64_t(0));
        QCOMPARE(s.validation, std::int64_t(5));
        QCOMPARE(s.usersWithoutTest, std::int64_t(30)); // the users with one rating
    }
}

void TestRatingsSplit::binarize()
{
    // Half stars: ≥ 3.5 become 1, the rest are dropped.
    const std::vector<Triple> t = {{1, 1, 0.5f}, {1, 2, 3.5f}, {1, 3, 5.0f},  {2, 1, 3.0f},
                                   {2, 2, 4.0f}, {3, 3, 1.0f}, {2, 3, 3.49f}, {3, 1, 4.5f}};
    RatingsOptions o;
    o.binarize = 3.5;
    o.testFraction = 0.0;
    o.validationFraction = 0.0;
    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(makeRatings(t), o, &s);
    QCOMPARE(s.droppedBelowThreshold, std::int64_t(4));
    QCOMPARE(s.train, std::int64_t(4));
    QCOMPARE(cellsOf(*d, d->train),
             (Cells{{{1, 2}, 1.0f}, {{1, 3}, 1.0f}, {{2, 2}, 1.0f}, {{3, 1}, 1.0f}}));
    QCOMPARE(d->rows(), std::int64_t(3)); // users and items stay, even when emptied
    QCOMPARE(d->cols(), std::int64_t(3));
    // Without binarising the values are the counts.
    o.binarize = 0.0;
    const CountDataPtr raw = makeRatingsData(makeRatings(t), o, &s);
    QCOMPARE(s.droppedBelowThreshold, std::int64_t(0));
    QCOMPARE(raw->train.total(), 0.5 + 3.5 + 5 + 3 + 4 + 1 + double(3.49f) + 4.5);
    // A threshold above every rating leaves nothing.
    o.binarize = 6.0;
    QCOMPARE(invalidOf([&] { makeRatingsData(makeRatings(t), o); }),
             QString("binarize = 6, but drops every rating of 'synthetic' (the "
                     "largest is 5)"));
    // With a split: the held-out entries are ones too.
    o.binarize = 4.0;
    o.testFraction = 0.3;
    const CountDataPtr split =
        makeRatingsData(makeRatings(randomTriples(300, 20, 5, 20, 2)), o, &s);
    QVERIFY(s.droppedBelowThreshold > 0 && s.test > 0);
    for (const SparseRows* m : {&split->train, &split->heldOut, &split->validation})
        for (float y : m->counts)
            QCOMPARE(y, 1.0f);
}

void TestRatingsSplit::returnedToTraining()
{
    // 200 users with two ratings each: item 1, which everyone rates, and an item of their own.
    // test_fraction 0.5 holds out one of the two; when it is the user's own item, nobody else
    // trains on it, so it goes back to training.
    std::vector<Triple> t;
    for (std::int64_t u = 1; u <= 200; ++u) {
        t.push_back({u, 1, 4.0f});
        t.push_back({u, 1000 + u, 2.0f});
    }
    RatingsOptions o;
    o.testFraction = 0.5;
    o.validationFraction = 0.0;
    RatingsSplitStats s;
    const CountDataPtr d = makeRatingsData(makeRatings(t), o, &s);
    QVERIFY2(s.returnedToTraining > 50 && s.returnedToTraining < 150,
             qPrintable(QString::number(s.returnedToTraining)));
    QCOMPARE(s.test + s.returnedToTraining, std::int64_t(200)); // one held out per user before
    QCOMPARE(s.train, std::int64_t(400) - s.test);
    QCOMPARE(s.usersWithoutTest, s.returnedToTraining);
    // Every held-out entry is of item 1, which many users train on; every own item trains.
    std::vector<std::int64_t> trainers(std::size_t(d->cols()), 0);
    for (std::int32_t c : d->train.cols)
        ++trainers[std::size_t(c)];
    for (std::int32_t c : d->heldOut.cols)
        QCOMPARE(d->columnIds[std::size_t(c)], std::int64_t(1));
    for (std::int64_t c = 1; c < d->cols(); ++c)
        QCOMPARE(trainers[std::size_t(c)], std::int64_t(1));
    QVERIFY(trainers[0] > 50);

    // Validation entries are returned too.
    o.testFraction = 0.0;
    o.validationFraction = 0.5;
    makeRatingsData(makeRatings(t), o, &s);
    QVERIFY(s.returnedToTraining > 0);
    QCOMPARE(s.validation + s.returnedToTraining, std::int64_t(200));
}

void TestRatingsSplit::splitErrors()
{
    Ratings empty;
    empty.source = "none.dat";
    QCOMPARE(invalidOf([&] { makeRatingsData(empty, {}); }), QString("'none.dat' has no ratings"));

    Ratings r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}, {5, 7, 2.0f}, {6, 8, 1.0f}});
    QCOMPARE(invalidOf([&] { makeRatingsData(r, {}); }),
             QString("'synthetic' line 3: user 5 rated item 7 again (first at "
                     "line 1)"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.entries[1].line = 0; // made in memory: its position is named
    r.entries[1].item = 3;
    QCOMPARE(invalidOf([&] { makeRatingsData(r, {}); }),
             QString("'synthetic' rating 2: item index 3, but there are 1 items"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.entries[0].user = -1;
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("line 1: user index -1, but there are 2 users"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.entries[1].value = std::numeric_limits<float>::quiet_NaN();
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("line 2: rating nan, but ratings must be finite and > 0"));
    r.entries[1].value = 0.0f;
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("line 2: rating 0, but ratings must be finite and > 0"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.userIds = {6, 5};
    QVERIFY(invalidOf([&] {
                makeRatingsData(r, {});
            }).contains("userIds are not strictly increasing (index 0 is 6, index 1 is 5)"));
    r = makeRatings({{5, 7, 4.0f}, {6, 7, 3.0f}});
    r.itemTitles = {"a", "b"};
    QVERIFY(invalidOf([&] { makeRatingsData(r, {}); }).contains("has 2 item titles for 1 items"));
}

QTEST_GUILESS_MAIN(TestRatingsSplit)

#include "test_ratings_split.moc"
