// Checkpoints of every (model, algorithm) of the registry: a trainer's state written after some
// steps and evaluations and read into a fresh trainer of the same run gives the same bytes back
// (bit-identical state), and the two then go on identically — the same steps, the same
// evaluations, the same state — so that nothing a later step reads was left out of the list.
// A truncated state, or one of another run, is refused with a StateError naming the record.

#include "core/base/state_archive.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"
#include "tests/core/registry_testing.h"

#include <QtTest>
#include <cmath>
#include <cstring>

using namespace svi;
using namespace svi::test_support;

namespace {

std::string stateOf(Trainer& trainer)
{
    StateArchive out;
    trainer.visitState(out);
    return out.bytes();
}

void readState(Trainer& trainer, const std::string& bytes)
{
    StateArchive in(bytes);
    trainer.visitState(in);
    in.finish();
}

// Bitwise equality of two doubles (NaN equal to the same NaN).
bool sameBits(double a, double b)
{
    return std::memcmp(&a, &b, sizeof a) == 0;
}

// The two evaluations give the same bound and the same metrics, to the bit.
void comparePreviews(const Preview* a, const Preview* b, const char* when);

void compareEvaluations(const Evaluation& a, const Evaluation& b, const char* when)
{
    comparePreviews(a.preview.get(), b.preview.get(), when);
    QVERIFY2(sameBits(a.elbo, b.elbo), qPrintable(QString("%1: ELBO %2 against %3")
                                                      .arg(when)
                                                      .arg(a.elbo, 0, 'g', 17)
                                                      .arg(b.elbo, 0, 'g', 17)));
    QCOMPARE(a.metrics.size(), b.metrics.size());
    for (const auto& [key, value] : a.metrics) {
        QVERIFY2(b.metrics.count(key), key.c_str());
        QVERIFY2(sameBits(value, b.metrics.at(key)),
                 qPrintable(QString("%1: %2 = %3 against %4")
                                .arg(when, key.c_str())
                                .arg(value, 0, 'g', 17)
                                .arg(b.metrics.at(key), 0, 'g', 17)));
    }
}

// The parts of two previews that the numbers of a state decide are equal, to the bit.
void comparePreviews(const Preview* a, const Preview* b, const char* when)
{
    QCOMPARE(a == nullptr, b == nullptr);
    if (!a)
        return;
    const auto same = [&](const auto& x, const auto& y, const char* what) {
        // (memcmp of an empty matrix's null data is undefined.)
        QVERIFY2(x.rows() == y.rows() && x.cols() == y.cols() &&
                     (x.size() == 0 || std::memcmp(x.data(), y.data(),
                                                   sizeof(*x.data()) * std::size_t(x.size())) == 0),
                 qPrintable(QString("%1: the preview's %2 differ").arg(when, what)));
    };
    same(a->atoms, b->atoms, "atoms");
    same(a->atomWeights, b->atomWeights, "atom weights");
    QCOMPARE(a->reconstruction.has_value(), b->reconstruction.has_value());
    if (a->reconstruction)
        same(*a->reconstruction, *b->reconstruction, "reconstruction");
    QCOMPARE(a->topics.size(), b->topics.size());
    for (std::size_t i = 0; i < a->topics.size(); ++i) {
        QCOMPARE(a->topics[i].index, b->topics[i].index);
        QCOMPARE(a->topics[i].words, b->topics[i].words);
        QVERIFY(sameBits(a->topics[i].weight, b->topics[i].weight));
    }
    QCOMPARE(a->factors == nullptr, b->factors == nullptr);
    if (a->factors) {
        same(a->factors->users, b->factors->users, "user factors");
        same(a->factors->items, b->factors->items, "item factors");
    }
    QCOMPARE(a->graph == nullptr, b->graph == nullptr);
    if (a->graph)
        same(a->graph->linkProbability, b->graph->linkProbability, "link probabilities");
    QCOMPARE(a->covariance == nullptr, b->covariance == nullptr);
    if (a->covariance)
        same(a->covariance->model, b->covariance->model, "covariance");
    QCOMPARE(a->weights == nullptr, b->weights == nullptr);
    if (a->weights)
        same(a->weights->mean, b->weights->mean, "weights");
}

// The first byte at which two states differ, for messages.
QString firstDifference(const std::string& a, const std::string& b)
{
    std::size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
    return QString("sizes %1 and %2, first difference at byte %3")
        .arg(a.size())
        .arg(b.size())
        .arg(i);
}

} // namespace

class TestCheckpoint : public QObject
{
    Q_OBJECT

private slots:
    void everyTrainerContinuesFromItsState_data();
    void everyTrainerContinuesFromItsState();
    void aTruncatedStateIsRefused();
    void anotherRunsStateIsRefused();
    void archiveRoundTripsEveryKind();

private:
    void continuesFromItsState();
};

void TestCheckpoint::everyTrainerContinuesFromItsState_data()
{
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("algorithm");
    QTest::addColumn<bool>("adaptive");
    for (const AlgorithmEntry& e : builtinRegistry().entries()) {
        QTest::newRow((e.model + "/" + e.algorithm).c_str())
            << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm) << false;
        // The adaptive step size keeps state of its own (its running moments and window).
        for (const ParamSpec& p : e.params)
            if (p.key == "schedule")
                QTest::newRow((e.model + "/" + e.algorithm + " adaptive").c_str())
                    << QString::fromStdString(e.model) << QString::fromStdString(e.algorithm)
                    << true;
    }
}

void TestCheckpoint::everyTrainerContinuesFromItsState()
{
    try {
        continuesFromItsState();
    } catch (const std::exception& err) {
        QFAIL(err.what());
    }
}

void TestCheckpoint::continuesFromItsState()
{
    QFETCH(QString, model);
    QFETCH(QString, algorithm);
    QFETCH(bool, adaptive);
    const AlgorithmEntry* e = builtinRegistry().find(model.toStdString(), algorithm.toStdString());
    QVERIFY(e);
    const DataSet data = dataFor(*e);
    const ParamValues params =
        smallParams(*e, adaptive ? ParamValues{{"schedule", ParamValue(std::string("adaptive"))}}
                                 : ParamValues{});

    // The original: steps and evaluations (both may change the state), then its state.
    auto original = e->make(data, params, 11);
    const std::string initial = stateOf(*original);
    original->step(1);
    original->step(2);
    original->evaluate(false);
    original->step(3);
    const std::string saved = stateOf(*original);
    QVERIFY2(!saved.empty(), "the trainer lists no state");

    // A fresh trainer of the same run, read from it, holds the same state to the bit.
    auto resumed = e->make(data, params, 11);
    QVERIFY2(stateOf(*resumed) == initial, "two trainers of one run start from different states");
    readState(*resumed, saved);
    const std::string reread = stateOf(*resumed);
    QVERIFY2(reread == saved, qPrintable(firstDifference(reread, saved)));

    // An evaluation at once reads what the steps left (the keys of its random streams, the
    // samples kept), then both go on the same way: steps, a cheap and a full evaluation, the
    // state.
    compareEvaluations(original->evaluate(false), resumed->evaluate(false), "right after reading");
    for (std::int64_t t = 4; t <= 6; ++t) {
        const double rhoA = original->step(t), rhoB = resumed->step(t);
        QVERIFY2(sameBits(rhoA, rhoB), qPrintable(QString("step %1: ρ differs").arg(t)));
        QCOMPARE(original->diverged(), resumed->diverged());
        QCOMPARE(original->converged(), resumed->converged());
        if (t == 5)
            compareEvaluations(original->evaluate(false), resumed->evaluate(false), "cheap");
    }
    compareEvaluations(original->evaluate(true), resumed->evaluate(true), "full");
    const std::string endA = stateOf(*original), endB = stateOf(*resumed);
    QVERIFY2(endA == endB, qPrintable("after three more steps: " + firstDifference(endA, endB)));
}

void TestCheckpoint::aTruncatedStateIsRefused()
{
    const AlgorithmEntry* e = builtinRegistry().find("lda", "svi");
    QVERIFY(e);
    const DataSet data = dataFor(*e);
    auto trainer = e->make(data, smallParams(*e), 3);
    trainer->step(1);
    const std::string saved = stateOf(*trainer);
    // Every cut, from nothing to one byte short, is refused with a message, never a crash.
    for (std::size_t cut = 0; cut < saved.size(); cut += 1 + saved.size() / 997) {
        auto fresh = e->make(data, smallParams(*e), 3);
        try {
            readState(*fresh, saved.substr(0, cut));
            QFAIL(qPrintable(
                QString("a state cut at byte %1 of %2 was accepted").arg(cut).arg(saved.size())));
        } catch (const StateError& err) {
            QVERIFY2(QString(err.what()).startsWith("checkpoint: "), err.what());
        }
    }
    // Trailing bytes are refused too.
    auto fresh = e->make(data, smallParams(*e), 3);
    try {
        readState(*fresh, saved + "extra");
        QFAIL("a state with trailing bytes was accepted");
    } catch (const StateError& err) {
        QVERIFY2(QString(err.what()).contains("left unread"), err.what());
    }
}

void TestCheckpoint::anotherRunsStateIsRefused()
{
    const AlgorithmEntry* e = builtinRegistry().find("lda", "svi");
    QVERIFY(e);
    const DataSet data = dataFor(*e);
    auto four = e->make(data, smallParams(*e, {{"K", integer(4)}}), 3);
    auto five = e->make(data, smallParams(*e, {{"K", integer(5)}}), 3);
    try {
        readState(*five, stateOf(*four));
        QFAIL("a state of K = 4 was read into a run of K = 5");
    } catch (const StateError& err) {
        // The record and both shapes are named.
        const QString m = err.what();
        QVERIFY2(m.contains("'lambda'") && m.contains("×4") && m.contains("×5"), err.what());
    }

    // Another model's state: the first record's name differs.
    const AlgorithmEntry* hpf = builtinRegistry().find("hpf", "svi");
    QVERIFY(hpf);
    auto other = hpf->make(dataFor(*hpf), smallParams(*hpf), 3);
    try {
        readState(*four, stateOf(*other));
        QFAIL("an HPF state was read into LDA");
    } catch (const StateError& err) {
        QVERIFY2(QString(err.what()).contains("where 'lambda' was expected"), err.what());
    }
}

// Every kind of record the archive holds comes back to the bit; a mismatch of type is named.
void TestCheckpoint::archiveRoundTripsEveryKind()
{
    struct Inner
    {
        Eigen::VectorXf v;
        void visitState(StateArchive& a) { a.field("v", v); }
    };
    struct Everything
    {
        bool flag = false;
        std::int32_t i32 = 0;
        std::int64_t i64 = 0;
        std::uint64_t u64 = 0;
        float f = 0;
        double d = 0;
        std::string text;
        Eigen::MatrixXd m;
        Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> rowMajor;
        std::vector<std::int64_t> ints;
        std::vector<unsigned char> bytes;
        std::vector<Inner> inners;
        std::optional<Inner> maybe;
        std::array<double, 2> pair{};
        void visitState(StateArchive& a)
        {
            a.field("flag", flag);
            a.field("i32", i32);
            a.field("i64", i64);
            a.field("u64", u64);
            a.field("f", f);
            a.field("d", d);
            a.field("text", text);
            a.field("m", m);
            a.field("row_major", rowMajor);
            a.field("ints", ints);
            a.field("bytes", bytes);
            a.field("inners", inners);
            a.field("maybe", maybe);
            a.field("pair", pair);
        }
    };
    Everything x;
    x.flag = true;
    x.i32 = -7;
    x.i64 = -(std::int64_t(1) << 40);
    x.u64 = ~std::uint64_t(0);
    x.f = 1.5f;
    x.d = std::nextafter(1.0, 2.0);
    x.text = std::string("λ₁ and a\0zero", sizeof "λ₁ and a\0zero" - 1);
    x.m = Eigen::MatrixXd::Random(3, 2);
    x.rowMajor = Eigen::MatrixXd::Random(2, 3);
    x.ints = {1, -2, 3};
    x.bytes = {0, 255};
    x.inners.resize(2);
    x.inners[0].v = Eigen::VectorXf::Random(4);
    x.inners[1].v = Eigen::VectorXf::Random(1);
    x.maybe = Inner{Eigen::VectorXf::Constant(2, -0.0f)};
    x.pair = {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()};

    StateArchive out;
    x.visitState(out);
    Everything y;
    StateArchive in(out.bytes());
    y.visitState(in);
    in.finish();
    StateArchive again;
    y.visitState(again);
    QVERIFY(again.bytes() == out.bytes());
    QCOMPARE(y.text, x.text);
    QVERIFY(y.m == x.m);
    QVERIFY(y.rowMajor == x.rowMajor);
    QCOMPARE(y.inners.size(), std::size_t(2));
    QVERIFY(y.inners[1].v == x.inners[1].v);
    QVERIFY(y.maybe && std::signbit(y.maybe->v[0]));
    QVERIFY(std::isnan(y.pair[0]) && std::isinf(y.pair[1]));
    QCOMPARE(y.u64, x.u64);

    // A float read where a double was written: the record and both types are named.
    struct AsFloat
    {
        float flag = 0;
        void visitState(StateArchive& a) { a.field("flag", flag); }
    };
    AsFloat wrong;
    StateArchive in2(out.bytes());
    try {
        wrong.visitState(in2);
        QFAIL("a flag was read as a float");
    } catch (const StateError& err) {
        QVERIFY2(QString(err.what()).contains("'flag' is bool, but this run's is float32"),
                 err.what());
    }
}

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
