// Tables → DenseData: channel selection, arcsinh, standardisation, subsampling, held-out
// splits of entries and of rows, combining and transposing; and a trainer that keeps test
// rows out of training.
#include "core/data/table.h"
#include "core/models/bpfa/bpfa_trainer.h"

#include <QtTest>
#include <cmath>
#include <set>

using namespace svi;

namespace {

// rows × 3 table with columns (Nd142Di = CD3, Sm147Di = CD4, Time) and values i + 10 c.
Table smallTable(std::int64_t rows, const std::string& source = "t.fcs")
{
    Table t;
    t.values.resize(rows, 3);
    for (std::int64_t i = 0; i < rows; ++i)
        for (int c = 0; c < 3; ++c)
            t.values(i, c) = float(i + 10 * c);
    t.columns = {"Nd142Di", "Sm147Di", "Time"};
    t.markers = {"CD3", "CD4", ""};
    t.source = source;
    return t;
}

std::int64_t countRole(const DenseData& d, EntryRole role)
{
    return (d.roles.array() == std::uint8_t(role)).count();
}

} // namespace

class TestTableData : public QObject
{
    Q_OBJECT

private slots:
    void labelsNameMarkerAndChannel()
    {
        const Table t = smallTable(2);
        QCOMPARE(QString::fromStdString(t.label(0)), QString("CD3 (Nd142Di)"));
        QCOMPARE(QString::fromStdString(t.label(2)), QString("Time"));
    }

    void selectsChannelsByMarkerOrNameInGivenOrder()
    {
        const Table t = smallTable(5);
        TableOptions o;
        o.channels = {"cd4", "nd142di"};
        o.standardise = false;
        o.heldOut = 0;
        const DenseDataPtr d = makeTableData(t, o);
        QCOMPARE(d->cols(), 2);
        QCOMPARE(d->values(3, 0), 13.0f); // CD4 of row 3
        QCOMPARE(d->values(3, 1), 3.0f);  // CD3 of row 3
        QCOMPARE(QString::fromStdString(d->columnNames[0]), QString("CD4"));
        QCOMPARE(QString::fromStdString(d->columnNames[1]), QString("CD3"));
    }

    void markerWithoutItsIsotopeSelects()
    {
        Table t = smallTable(4);
        t.markers = {"142Nd_CD3", "147Sm_CD4", "198Pt_Dead"};
        auto picked = selectColumns(t, {"cd4", "Dead", "142Nd_CD3"});
        QVERIFY(picked);
        QCOMPARE(*picked, std::vector<int>({1, 2, 0}));
        t.markers[2] = "150Sm_CD4"; // two channels carry CD4: the user must say which
        std::string unknown;
        QVERIFY(!selectColumns(t, {"CD4"}, &unknown));
        QCOMPARE(QString::fromStdString(unknown), QString("CD4"));
        QVERIFY(selectColumns(t, {"150Sm_CD4"}));
    }

    void unknownChannelListsTheKnownOnes()
    {
        TableOptions o;
        o.channels = {"CD8"};
        try {
            makeTableData(smallTable(5), o);
            QFAIL("an unknown channel was accepted");
        } catch (const std::invalid_argument& e) {
            const QString m = e.what();
            QVERIFY2(m.contains("'CD8'") && m.contains("CD3 (Nd142Di)") && m.contains("t.fcs"),
                     qPrintable(m));
        }
        o.channels = {"CD3", "Nd142Di"};
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeTableData(smallTable(5), o));
    }

    void arcsinhWithCofactor()
    {
        TableOptions o;
        o.arcsinhCofactor = 5;
        o.standardise = false;
        o.heldOut = 0;
        const DenseDataPtr d = makeTableData(smallTable(40), o);
        for (std::int64_t i : {0, 7, 39})
            for (int c = 0; c < 3; ++c)
                QCOMPARE(d->values(i, c), float(std::asinh((i + 10.0 * c) / 5.0)));
    }

    void standardisesEachChannelOnTrainingEntries()
    {
        TableOptions o;
        o.heldOut = 0.2;
        const DenseDataPtr d = makeTableData(smallTable(500), o);
        for (int c = 0; c < 3; ++c) {
            double s = 0, s2 = 0, n = 0;
            for (std::int64_t i = 0; i < d->rows(); ++i)
                if (d->observed(i, c)) {
                    s += d->values(i, c);
                    s2 += double(d->values(i, c)) * d->values(i, c);
                    n += 1;
                }
            QVERIFY(std::abs(s / n) < 1e-4);
            QVERIFY(std::abs(s2 / n - 1.0) < 1e-3);
        }
        // Held-out entries are transformed with the same scale: value order is kept.
        const DenseDataPtr raw = makeTableData(smallTable(500), [] {
            TableOptions r;
            r.heldOut = 0.2;
            r.standardise = false;
            return r;
        }());
        QCOMPARE(d->roles, raw->roles);
        for (std::int64_t i = 1; i < d->rows(); ++i)
            QVERIFY(d->values(i, 0) > d->values(i - 1, 0));
    }

    void nanBecomesMissingNeverHeldOut()
    {
        Table t = smallTable(200);
        for (std::int64_t i = 0; i < 200; i += 2)
            t.values(i, 1) = std::nanf("");
        TableOptions o;
        o.heldOut = 0.5;
        const DenseDataPtr d = makeTableData(t, o);
        for (std::int64_t i = 0; i < 200; ++i)
            QCOMPARE(d->roles(i, 1) == std::uint8_t(EntryRole::Missing), i % 2 == 0);
        QVERIFY(d->values.allFinite());
        t.values(3, 0) = INFINITY;
        try {
            makeTableData(t, o);
            QFAIL("an infinite cell was accepted");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("row 4"), e.what());
        }
    }

    void entrySplitIsSeededAtTheAskedRate()
    {
        TableOptions o;
        o.heldOut = 0.075;
        const DenseDataPtr a = makeTableData(smallTable(4000), o);
        const DenseDataPtr b = makeTableData(smallTable(4000), o);
        QCOMPARE(a->roles, b->roles);
        const double rate = double(countRole(*a, EntryRole::HeldOut)) / 12000.0;
        // Binomial sd is 0.0024: 5 sd either side.
        QVERIFY2(std::abs(rate - 0.075) < 0.012, qPrintable(QString::number(rate)));
        QVERIFY(a->trainingRows.empty());
        o.seed = 2;
        QVERIFY(makeTableData(smallTable(4000), o)->roles != a->roles);
    }

    void rowSplitKeepsTestRowsOutOfTraining()
    {
        TableOptions o;
        o.heldOut = 0.1;
        o.split = HeldOutSplit::Rows;
        Table t = smallTable(1000);
        t.values.conservativeResize(1000, 5);
        t.values.rightCols(2).setRandom();
        t.columns = {"a", "b", "c", "d", "e"};
        t.markers.assign(5, "");
        const DenseDataPtr d = makeTableData(t, o);
        QCOMPARE(d->trainingRowCount(), std::int64_t(900));
        const std::set<std::int64_t> train(d->trainingRows.begin(), d->trainingRows.end());
        QVERIFY(std::is_sorted(d->trainingRows.begin(), d->trainingRows.end()));
        for (std::int64_t i = 0; i < 1000; ++i) {
            int held = 0;
            for (int c = 0; c < 5; ++c)
                held += d->heldOut(i, c);
            QCOMPARE(held, train.count(i) ? 0 : 2); // half of 5 present entries, rounded down
        }
    }

    void subsampleIsSeededAndInFileOrder()
    {
        TableOptions o;
        o.subsample = 100;
        o.standardise = false;
        o.heldOut = 0;
        const DenseDataPtr a = makeTableData(smallTable(1000), o);
        QCOMPARE(a->rows(), std::int64_t(100));
        for (std::int64_t i = 1; i < 100; ++i)
            QVERIFY(a->values(i, 0) > a->values(i - 1, 0));
        QCOMPARE(makeTableData(smallTable(1000), o)->values, a->values);
        o.seed = 9;
        QVERIFY(makeTableData(smallTable(1000), o)->values != a->values);
        o.subsample = 5000; // more than there are: every row
        QCOMPARE(makeTableData(smallTable(1000), o)->rows(), std::int64_t(1000));
    }

    void badOptionsNameTheField()
    {
        TableOptions o;
        o.heldOut = 1.0;
        QVERIFY(o.validate() && plainSettingRefs(*o.validate()).find("heldout") == 0);
        o = TableOptions{};
        o.arcsinhCofactor = -1;
        QVERIFY(o.validate() && plainSettingRefs(*o.validate()).find("arcsinh") == 0);
        // The declared settings round-trip.
        const TableOptions def = TableOptions::fromParams(defaultValues(TableOptions::allParams()));
        QVERIFY(def == TableOptions{});
    }

    // The held-out fraction has one range, its declaration's [0, 0.99]: the form, the command
    // line and a struct built in code refuse and accept the same values, with the same message
    // (validate() once said [0, 1) where the declaration said 0.99).
    void heldOutRangeIsTheDeclarations()
    {
        const auto declared = [](double v) {
            return resolveParams(TableOptions::allParams(), {{"heldout", v}});
        };
        TableOptions o;
        o.heldOut = 0.99;
        QVERIFY(!o.validate());
        QVERIFY(std::holds_alternative<ParamValues>(declared(0.99)));
        QCOMPARE(makeTableData(smallTable(200), o)->rows(), std::int64_t(200));
        o.heldOut = 0.995;
        const auto refused = declared(0.995);
        QVERIFY(std::holds_alternative<ParamError>(refused));
        const QString message =
            QString::fromStdString(plainSettingRefs(std::get<ParamError>(refused).message));
        QCOMPARE(message, QString("heldout = 0.995, but must be in [0, 0.99]"));
        QCOMPARE(QString::fromStdString(plainSettingRefs(o.validate().value_or(""))), message);
        try {
            makeTableData(smallTable(200), o);
            QFAIL("makeTableData accepted heldout = 0.995");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).contains(message),
                     e.what());
        }
    }

    void combinesTablesByChannelName()
    {
        Table a = smallTable(3, "a.fcs"), b = smallTable(2, "b.fcs");
        // b lists the same channels in another order.
        std::swap(b.columns[0], b.columns[2]);
        b.values.col(0).swap(b.values.col(2));
        const Table c = combineTables({a, b});
        QCOMPARE(c.rows(), std::int64_t(5));
        QCOMPARE(c.values(3, 0), 0.0f); // b's row 0, channel Nd142Di
        QCOMPARE(c.values(4, 2), 21.0f);
        QCOMPARE(QString::fromStdString(c.source), QString("a.fcs + b.fcs"));
        b.columns[1] = "Eu151Di";
        try {
            combineTables({a, b});
            QFAIL("mismatched panels were combined");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("'b.fcs' has no channel 'Sm147Di'"), e.what());
        }
    }

    void transposeSwapsNames()
    {
        Table t = smallTable(2);
        t.rowNames = {"g1", "g2"};
        const Table x = transposed(t);
        QCOMPARE(x.rows(), std::int64_t(3));
        QCOMPARE(x.cols(), 2);
        QCOMPARE(x.values(2, 1), t.values(1, 2));
        QCOMPARE(QString::fromStdString(x.columns[1]), QString("g2"));
        QCOMPARE(QString::fromStdString(x.rowNames[0]), QString("Nd142Di"));
    }

    // A trainer on a row split never trains on test rows: their observed entries are huge, so
    // a single minibatch drawn from them would inflate the learned noise level.
    void trainerSkipsTestRows()
    {
        Table t;
        const std::int64_t N = 400;
        t.values.resize(N, 6);
        for (int c = 0; c < 6; ++c)
            t.columns.push_back(std::string("c").append(
                std::to_string(c))); // (operator+ trips GCC 12's bogus -Wrestrict)
        t.markers.assign(6, "");
        t.source = "split";
        Eigen::MatrixXf base = Eigen::MatrixXf::Random(N, 6);
        t.values = base;
        TableOptions o;
        o.heldOut = 0.25;
        o.split = HeldOutSplit::Rows;
        o.standardise = false;
        auto d = std::make_shared<DenseData>(*makeTableData(t, o));
        const std::set<std::int64_t> train(d->trainingRows.begin(), d->trainingRows.end());
        for (std::int64_t i = 0; i < N; ++i)
            if (!train.count(i))
                for (int c = 0; c < 6; ++c)
                    if (d->observed(i, c))
                        d->values(i, c) = 1000.0f;
        BpfaOptions bo;
        bo.K = 5;
        bo.minibatch = 50;
        bo.init = "random";
        bo.evalItems = 50;
        BpfaTrainer trainer(d, BpfaAlgorithm::MfSsvi, bo, 3);
        QCOMPARE(trainer.itemCount(), std::int64_t(300));
        for (int s = 1; s <= 30; ++s)
            trainer.step(s);
        const Evaluation ev = trainer.evaluate(false);
        QVERIFY2(ev.metrics.at("noise_sd") < 3.0,
                 qPrintable(QString::number(ev.metrics.at("noise_sd"))));
        // Scored entries are those of the test rows only.
        QVERIFY(ev.metrics.count("heldout_loglik_total"));
        QCOMPARE(ev.metrics.at("heldout_loglik_total") / ev.metrics.at("heldout_loglik"),
                 double((d->roles.array() == std::uint8_t(EntryRole::HeldOut)).count()));
    }

    // Standardisation of values far from zero: the spread is found about the mean (one pass
    // of Σx² − n·mean² lost it to cancellation).
    void standardisesValuesFarFromZero()
    {
        Table t = smallTable(200);
        for (std::int64_t i = 0; i < 200; ++i)
            t.values(i, 0) = float(1e7 + double(i % 7)); // spread 2, about 1e7
        TableOptions o;
        o.heldOut = 0;
        const DenseDataPtr d = makeTableData(t, o);
        double mean = 0, var = 0;
        for (std::int64_t i = 0; i < 200; ++i)
            mean += d->values(i, 0) / 200.0;
        for (std::int64_t i = 0; i < 200; ++i)
            var += (d->values(i, 0) - mean) * (d->values(i, 0) - mean) / 200.0;
        QVERIFY2(std::abs(mean) < 1e-5 && std::abs(var - 1.0) < 1e-5,
                 qPrintable(QString("mean %1, variance %2").arg(mean).arg(var)));
    }

    // A held-out value far outside a nearly constant training column would be infinite once
    // standardised: refused, naming the row and the column (a fuzzed FCS file found it).
    void refusesAValueBeyondFloatOnceStandardised()
    {
        Table t = smallTable(60);
        for (std::int64_t i = 0; i < 60; ++i)
            t.values(i, 1) = 1.0f + (i % 2 ? 1e-6f : 0.0f);
        t.values(17, 1) = 3e37f;
        // A seed whose split holds the entry out (so it is not in the training statistics).
        TableOptions o;
        o.heldOut = 0.5;
        o.standardise = false;
        bool found = false;
        for (std::uint64_t seed = 1; seed < 100 && !found; ++seed) {
            o.seed = seed;
            found = makeTableData(t, o)->heldOut(17, 1);
        }
        QVERIFY(found);
        o.standardise = true;
        try {
            makeTableData(t, o);
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).startsWith(
                         "'t.fcs' row 18, column 'CD4 (Sm147Di)': the value 3e+37 lies"),
                     e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestTableData)
#include "test_table_data.moc"
