// The mean-field local step's two phases (topic_model.h, localStep): the single-precision
// updates over the topics in play must end where the plain double-precision iteration over
// every topic ends, on a corpus with many topics and documents that use few of them.

#include "core/models/lda/lda_synthetic.h"
#include "core/models/topics/topic_model.h"

#include <QtTest>
#include <cmath>

using namespace svi;
using lda::LocalWorkspace;
using lda::MatrixRD;

namespace {

// Fig. 6's loop as written, every topic, double precision: γ from 1 until mean |Δγ| < tol or
// maxIters updates.
Eigen::VectorXd plainLocalStep(const Eigen::Ref<const MatrixRD>& betaRows,
                               const Eigen::Ref<const Eigen::VectorXd>& counts, double alpha,
                               double tol, int* iterations, int maxIters = 10000)
{
    const Eigen::Index K = betaRows.cols();
    Eigen::VectorXd gamma = Eigen::VectorXd::Ones(K), elog(K);
    for (int it = 1; it <= maxIters; ++it) {
        lda::dirichletExpectation(gamma, elog);
        const Eigen::VectorXd theta = elog.array().exp().matrix();
        const Eigen::VectorXd norm = (betaRows * theta).array() + 1e-100;
        const Eigen::VectorXd ratio = counts.array() / norm.array();
        const Eigen::VectorXd next =
            (alpha + theta.array() * (betaRows.transpose() * ratio).array()).matrix();
        const double change = (next - gamma).cwiseAbs().mean();
        gamma = next;
        *iterations = it;
        if (change < tol)
            break;
    }
    return gamma;
}

// 200 topics, documents of 50–150 words drawn from a few of them (θ ~ Dir(0.02)).
LdaSynthetic manyTopics()
{
    LdaSyntheticOptions so;
    so.documents = 60;
    so.V = 400;
    so.K = 200;
    so.alpha = 0.02;
    so.eta = 0.02;
    so.testFraction = 0.0;
    so.seed = 5;
    return makeLdaSynthetic(so);
}

// Those documents, their true topics as eβ, α = 1/K and a workspace sized for them.
struct Documents
{
    Documents() { ws.resize(K, s.data->vocabularySize); }

    const LdaSynthetic s = manyTopics();
    const int K = int(s.betaT.cols());
    const double alpha = 1.0 / K;
    LocalWorkspace ws;
};

} // namespace

class TestLdaEstep : public QObject
{
    Q_OBJECT

private slots:
    void singlePrecisionPhaseEndsAtTheExactFixedPoint();
    void strictToleranceIsMetInDoublePrecision();
    void firstUpdatesAreFigureSixs();
};

// With the true topics as eβ, each document's γ from localStep ends as near the fixed point as
// the plain iteration stopped by the same rule (and within two updates of its count), the
// single-precision phase set most topics aside, and it handed over at a point that the exact
// update accepts at once: a wrong update in that phase (a term scaled or dropped) would leave
// the exact phase several updates to do.
void TestLdaEstep::singlePrecisionPhaseEndsAtTheExactFixedPoint()
{
    Documents fixture;
    const CountData& data = *fixture.s.data;
    const int K = fixture.K;
    const double alpha = fixture.alpha, tol = 1e-3;
    LocalWorkspace& ws = fixture.ws;
    double inPlay = 0.0, exact = 0.0, worst = 0.0;
    for (std::int64_t r = 0; r < data.rows(); ++r) {
        ws.gather(fixture.s.betaT, data.train.rowCols(r), data.train.rowCounts(r));
        lda::localStep(ws, {alpha, 100, tol});
        inPlay += ws.activeTopics;
        exact += ws.denseIterations;
        QVERIFY2(ws.meanChange < tol,
                 qPrintable(QString("document %1: mean |Δγ| %2").arg(r).arg(ws.meanChange)));
        // γ* (the fixed point, to 1e-10) and the plain loop stopped by the same rule: localStep
        // must end at least as near γ* (Σ_k |γ_k − γ*_k| per word of the document).
        int iterations = 0;
        const auto B = ws.beta.topRows(ws.n);
        const auto n = ws.counts.head(ws.n);
        const Eigen::VectorXd fixed = plainLocalStep(B, n, alpha, 1e-10, &iterations);
        const Eigen::VectorXd plain = plainLocalStep(B, n, alpha, tol, &iterations);
        const double words = data.train.rowTotal(r);
        const double ours = (ws.gamma - fixed).cwiseAbs().sum() / words;
        const double theirs = (plain - fixed).cwiseAbs().sum() / words;
        worst = std::max(worst, ours - theirs);
        QVERIFY2(ws.iterations <= iterations + 2,
                 qPrintable(QString("document %1: %2 updates, the plain loop %3")
                                .arg(r)
                                .arg(ws.iterations)
                                .arg(iterations)));
    }
    const double docs = double(data.rows());
    QVERIFY2(inPlay / docs < 0.1 * K,
             qPrintable(QString("%1 of %2 topics in play on average").arg(inPlay / docs).arg(K)));
    QVERIFY2(exact / docs < 1.2,
             qPrintable(QString("%1 exact updates a document").arg(exact / docs)));
    QVERIFY2(worst < 1e-3,
             qPrintable(QString("Σ|γ − γ*| / words exceeds the plain loop's by %1").arg(worst)));
}

// A tolerance finer than single precision can meet is met by the exact updates: the fixed
// point γ = α + Σ_w n_w φ_w holds to 1e-10.
void TestLdaEstep::strictToleranceIsMetInDoublePrecision()
{
    Documents fixture;
    const CountData& data = *fixture.s.data;
    const double alpha = fixture.alpha;
    LocalWorkspace& ws = fixture.ws;
    for (std::int64_t r = 0; r < 10; ++r) {
        ws.gather(fixture.s.betaT, data.train.rowCols(r), data.train.rowCounts(r));
        lda::localStep(ws, {alpha, 10000, 1e-13});
        QVERIFY(ws.denseIterations > 1);
        const MatrixRD phi = lda::phi(ws);
        const Eigen::VectorXd implied =
            (alpha + (phi.transpose() * ws.counts.head(ws.n)).array()).matrix();
        const double err = (implied - ws.gamma).cwiseAbs().maxCoeff();
        QVERIFY2(err < 1e-10, qPrintable(QString("|γ − (α + Σ n φ)| = %1").arg(err)));
    }
}

// With a budget of one to three updates and no early stop, localStep's γ is the plain loop's
// after as many updates: the first from an even γ (one pass in double) to rounding, the others
// (single precision over the topics in play, or exact) to float's.
void TestLdaEstep::firstUpdatesAreFigureSixs()
{
    Documents fixture;
    const CountData& data = *fixture.s.data;
    const double alpha = fixture.alpha;
    LocalWorkspace& ws = fixture.ws;
    for (int updates = 1; updates <= 3; ++updates)
        for (std::int64_t r = 0; r < 10; ++r) {
            ws.gather(fixture.s.betaT, data.train.rowCols(r), data.train.rowCounts(r));
            lda::localStep(ws, {alpha, updates, 0.0});
            QCOMPARE(ws.iterations, updates);
            int iterations = 0;
            const Eigen::VectorXd expected = plainLocalStep(
                ws.beta.topRows(ws.n), ws.counts.head(ws.n), alpha, -1.0, &iterations, updates);
            const double err = (ws.gamma - expected).cwiseAbs().sum() / data.train.rowTotal(r);
            QVERIFY2(err < (updates == 1 ? 1e-12 : 1e-5),
                     qPrintable(QString("%1 updates, document %2: Σ|γ − γ_plain| / words = %3")
                                    .arg(updates)
                                    .arg(r)
                                    .arg(err)));
        }
}

QTEST_APPLESS_MAIN(TestLdaEstep)
#include "test_lda_estep.moc"
