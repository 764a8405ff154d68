// BpfaTrainer end to end: reproducibility across thread counts, recovery on data drawn from
// the prior (the ordering of the paper's Sec. 5.1), evaluation, and bad input.

#include "core/data/image_task.h"
#include "core/metrics/image_metrics.h"
#include "core/models/bpfa/bpfa_synthetic.h"
#include "core/models/bpfa/bpfa_trainer.h"
#include "core/models/builtin.h"
#include "core/run/registry.h"

#include <Eigen/Cholesky>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <map>
#include <omp.h>

using namespace svi;

namespace {

// The largest |a − b| over every member of two globals, relative to the largest |b| (at least 1).
double maxRelativeDifference(const bpfa::Globals& a, const bpfa::Globals& b)
{
    bpfa::Globals zero = b;
    zero.a.setZero();
    zero.b.setZero();
    zero.c = zero.d = zero.e = zero.f = 0.0;
    zero.lambda.setZero();
    zero.h.setZero();
    return a.difference(b).cwiseAbs().maxCoeff() /
           std::max(1.0, b.difference(zero).cwiseAbs().maxCoeff());
}

BpfaSynthetic synthetic(std::int64_t N, std::uint64_t seed, double gammaObs = 1000.0)
{
    BpfaSyntheticOptions o;
    o.N = N;
    o.D = 20;
    o.K = 10;
    o.gammaW = 1.0;
    o.gammaObs = gammaObs;
    o.heldOut = 0.075;
    o.seed = seed;
    return makeBpfaSynthetic(o);
}

BpfaOptions smallOptions()
{
    BpfaOptions o;
    o.K = 20;
    o.minibatch = 100;
    o.init = "random";
    o.evalItems = 400;
    return o;
}

double heldOutMse(BpfaTrainer& t)
{
    const Evaluation ev = t.evaluate(false);
    return ev.metrics.at("mse");
}

} // namespace

class TestBpfaTrainer : public QObject
{
    Q_OBJECT

private slots:
    void sameResultWithOneAndTwoThreads_data();
    void sameResultWithOneAndTwoThreads();
    void gibbsSsviReachesNoiseFloorAndBeatsMeanField();
    void evaluationReportsMetrics();
    void livePreviewFollowsTheMinibatches();
    void gibbsInitialisationGivesUsableGlobals();
    void batchGibbsImprovesHeldOut();
    void badOptionsNameTheField_data();
    void badOptionsNameTheField();
    void registryListsAllSevenAlgorithms();
    void adaptiveScheduleLearns();
    void predictiveNoiseFitTracksTheHeldOutError();
    void predictiveNoiseStatisticExactly();
    void reconstructionIsTheEnumeratedPosteriorMean();
    void streamingOneMinibatchIsTheFullDataStep();
    void streamingAddsEachMinibatchsBatchPosterior();
    void streamingOnePassLearnsAsSviDoes();
};

void TestBpfaTrainer::sameResultWithOneAndTwoThreads_data()
{
    QTest::addColumn<int>("algorithm");
    QTest::newRow("gibbs-ssvi") << int(BpfaAlgorithm::GibbsSsvi);
    QTest::newRow("mf-svi") << int(BpfaAlgorithm::MfSvi);
    QTest::newRow("titsias-ssvi") << int(BpfaAlgorithm::TitsiasSsvi);
    QTest::newRow("batch gibbs") << int(BpfaAlgorithm::BatchGibbs);
}

void TestBpfaTrainer::sameResultWithOneAndTwoThreads()
{
    QFETCH(int, algorithm);
    const BpfaSynthetic s = synthetic(600, 3);
    BpfaOptions o = smallOptions();
    o.init = "gibbs";
    o.initItems = 200;
    o.initSweeps = 3;
    auto run = [&](int threads) {
        omp_set_num_threads(threads);
        BpfaTrainer t(s.data, BpfaAlgorithm(algorithm), o, 17);
        for (int step = 1; step <= 4; ++step)
            t.step(step);
        const Evaluation ev = t.evaluate(false);
        return std::pair{t.predictAll(), ev.metrics.at("heldout_loglik")};
    };
    const auto one = run(1);
    const auto two = run(2);
    omp_set_num_threads(2);
    QVERIFY(one.first.allFinite());
    QCOMPARE(one.first.rows(), two.first.rows());
    QVERIFY2(one.first == two.first, "predictions differ between 1 and 2 threads");
    QCOMPARE(one.second, two.second);
}

// Data drawn from the prior with the paper's Sec. 5.1 settings scaled down (γ_w = 1,
// γ_obs = 100, K = 80 true features, D = 40, fitted with K = 150, random initialisation):
// Gibbs-SSVI must come close to the noise floor and beat MF-SVI, the ordering of the paper.
// Summed over three data sets, since one small data set can tie. Measured locally on seeds
// 1–6 (200 steps): Gibbs/MF MSE ratio 0.77–1.00, never above 1; Gibbs/floor 1.4–1.7.
// Under the sanitizers (-O1, every access checked: 3.5 minutes for three data sets) one data set
// checks the noise floor and the code's memory; the ordering, which needs three, is the release
// build's.
void TestBpfaTrainer::gibbsSsviReachesNoiseFloorAndBeatsMeanField()
{
#ifdef SVI_SANITIZED
    constexpr std::uint64_t kDataSets = 1;
#else
    constexpr std::uint64_t kDataSets = 3;
#endif
    double totalGibbs = 0.0, totalMf = 0.0;
    for (std::uint64_t seed = 1; seed <= kDataSets; ++seed) {
        BpfaSyntheticOptions so;
        so.N = 2000;
        so.D = 40;
        so.K = 80;
        so.gammaW = 1.0;
        so.gammaObs = 100.0;
        so.seed = seed;
        const BpfaSynthetic s = makeBpfaSynthetic(so);
        BpfaOptions o = smallOptions();
        o.K = 150;
        BpfaTrainer gibbs(s.data, BpfaAlgorithm::GibbsSsvi, o, seed);
        BpfaTrainer mf(s.data, BpfaAlgorithm::MfSvi, o, seed);
        for (int t = 1; t <= 200; ++t) {
            gibbs.step(t);
            mf.step(t);
        }
        const double mseGibbs = heldOutMse(gibbs);
        const double mseMf = heldOutMse(mf);
        qInfo("seed %d: noise floor %.4f, Gibbs-SSVI %.4f, MF-SVI %.4f", int(seed), s.noiseVariance,
              mseGibbs, mseMf);
        QVERIFY2(
            mseGibbs < 1.8 * s.noiseVariance,
            qPrintable(QString("Gibbs-SSVI MSE %1, noise %2").arg(mseGibbs).arg(s.noiseVariance)));
        totalGibbs += mseGibbs;
        totalMf += mseMf;
    }
    if (kDataSets < 3)
        return;
    QVERIFY2(totalGibbs < 0.97 * totalMf,
             qPrintable(QString("Gibbs-SSVI %1 vs MF-SVI %2").arg(totalGibbs).arg(totalMf)));
}

void TestBpfaTrainer::evaluationReportsMetrics()
{
    const BpfaSynthetic s = synthetic(500, 7);
    BpfaTrainer t(s.data, BpfaAlgorithm::MimnoSvi, smallOptions(), 2);
    const Evaluation before = t.evaluate(false);
    for (int step = 1; step <= 40; ++step)
        t.step(step);
    const Evaluation after = t.evaluate(false);
    QVERIFY(std::isfinite(after.elbo));
    QVERIFY(after.metrics.count("heldout_loglik"));
    QVERIFY(after.metrics.count("mse"));
    // Training improves both the bound and the held-out likelihood.
    QVERIFY2(after.elbo > before.elbo,
             qPrintable(QString("%1 → %2").arg(before.elbo).arg(after.elbo)));
    QVERIFY(after.metrics.at("heldout_loglik") > before.metrics.at("heldout_loglik"));
    QVERIFY(after.preview);
    QCOMPARE(after.preview->atoms.rows(), Eigen::Index(20));
    // Atoms come ordered by decreasing weight.
    for (Eigen::Index k = 1; k < after.preview->atomWeights.size(); ++k)
        QVERIFY(after.preview->atomWeights[k] <= after.preview->atomWeights[k - 1]);
}

void TestBpfaTrainer::livePreviewFollowsTheMinibatches()
{
    // A 30×30 image of stripes and a ramp, 50 % of its pixels missing.
    Eigen::ArrayXXf image(30, 30);
    for (int r = 0; r < 30; ++r)
        for (int c = 0; c < 30; ++c)
            image(r, c) = float(40 + 4 * c + ((r / 3) % 2 ? 60 : 0));
    InpaintOptions task;
    task.missing = 0.5;
    task.patch = 4;
    const DenseDataPtr data = makeInpaintingData(image, task, "stripes");
    BpfaOptions o = smallOptions();
    o.minibatch = 50;
    o.evalItems = 100;

    // Off (the default): a cheap evaluation carries no image.
    BpfaTrainer plain(data, BpfaAlgorithm::MfSsvi, o, 3);
    QVERIFY(!plain.evaluate(false).preview->reconstruction);

    BpfaTrainer t(data, BpfaAlgorithm::MfSsvi, o, 3);
    t.setLivePreview(true);
    const Evaluation start = t.evaluate(false);
    QVERIFY(start.preview->reconstruction);
    QVERIFY(!start.preview->reconstructionFull);
    // Before any step the running estimate is what is seen: the observed pixels, and the mean
    // grey level of the observed pixels where the pixel is missing.
    const Eigen::ArrayXXf& s0 = *start.preview->reconstruction;
    const ImageLayout& layout = *data->image;
    for (int r = 0; r < 30; ++r)
        for (int c = 0; c < 30; ++c) {
            const float expected = layout.pixelObserved(r, c) ? image(r, c) : float(layout.mean);
            QVERIFY2(std::abs(s0(r, c) - expected) < 1e-3f,
                     qPrintable(
                         QString("(%1, %2): %3 vs %4").arg(r).arg(c).arg(s0(r, c)).arg(expected)));
        }

    // One step refreshes the 50 patches of its minibatch only.
    t.step(1);
    const Eigen::ArrayXXf s1 = *t.evaluate(false).preview->reconstruction;
    const Eigen::Index changed = ((s1 - s0).abs() > 1e-3f).count();
    QVERIFY2(changed > 0 && changed < s1.size(), qPrintable(QString::number(changed)));

    for (int step = 2; step <= 60; ++step)
        t.step(step);
    const Evaluation live = t.evaluate(false);
    QVERIFY(live.metrics.count("psnr_running"));
    QVERIFY(!live.metrics.count("psnr"));
    QVERIFY2(
        live.metrics.at("psnr_running") > psnr(image, s0) + 3.0,
        qPrintable(
            QString("%1 dB vs %2 dB").arg(live.metrics.at("psnr_running")).arg(psnr(image, s0))));

    // A full pass is marked as such and becomes the running estimate.
    const Evaluation full = t.evaluate(true);
    QVERIFY(full.preview->reconstructionFull);
    QVERIFY(full.metrics.count("psnr"));
    const Evaluation after = t.evaluate(false);
    QVERIFY(!after.preview->reconstructionFull);
    QVERIFY((*after.preview->reconstruction == *full.preview->reconstruction).all());
    QCOMPARE(after.metrics.at("psnr_running"), full.metrics.at("psnr"));
}

void TestBpfaTrainer::gibbsInitialisationGivesUsableGlobals()
{
    const BpfaSynthetic s = synthetic(1500, 9);
    BpfaOptions o = smallOptions();
    o.init = "gibbs";
    o.initItems = 500;
    o.initSweeps = 30;
    BpfaTrainer gibbsInit(s.data, BpfaAlgorithm::MfSsvi, o, 4);
    o.init = "random";
    BpfaTrainer randomInit(s.data, BpfaAlgorithm::MfSsvi, o, 4);
    QVERIFY(gibbsInit.globals().finite());
    // Before any SVI step, the Gibbs start already predicts held-out entries far better.
    const double mseGibbs = heldOutMse(gibbsInit);
    const double mseRandom = heldOutMse(randomInit);
    QVERIFY2(mseGibbs < 0.5 * mseRandom,
             qPrintable(QString("%1 vs %2").arg(mseGibbs).arg(mseRandom)));
}

void TestBpfaTrainer::batchGibbsImprovesHeldOut()
{
    const BpfaSynthetic s = synthetic(800, 13);
    BpfaTrainer t(s.data, BpfaAlgorithm::BatchGibbs, smallOptions(), 5);
    QCOMPARE(t.itemsPerStep(), std::int64_t(800));
    const double before = heldOutMse(t);
    for (int step = 1; step <= 40; ++step)
        t.step(step);
    const double after = heldOutMse(t);
    QVERIFY2(after < 0.3 * before, qPrintable(QString("%1 → %2").arg(before).arg(after)));
    QVERIFY(after < 3.0 * s.noiseVariance + 0.02);
}

void TestBpfaTrainer::badOptionsNameTheField_data()
{
    QTest::addColumn<QString>("field");
    QTest::newRow("K") << "K";
    QTest::newRow("minibatch") << "minibatch";
    QTest::newRow("samples") << "samples";
    QTest::newRow("kappa") << "kappa";
    QTest::newRow("init") << "init";
    QTest::newRow("c") << "c";
}

void TestBpfaTrainer::badOptionsNameTheField()
{
    QFETCH(QString, field);
    const BpfaSynthetic s = synthetic(50, 1);
    BpfaOptions o = smallOptions();
    if (field == "K")
        o.K = 0;
    else if (field == "minibatch")
        o.minibatch = 0;
    else if (field == "samples")
        o.samples = 0;
    else if (field == "kappa")
        o.kappa = 1.5;
    else if (field == "init")
        o.init = "magic";
    else if (field == "c")
        o.prior.c = -1;
    try {
        BpfaTrainer t(s.data, BpfaAlgorithm::GibbsSsvi, o, 1);
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).startsWith(field + " = "),
                 e.what());
    }
}

void TestBpfaTrainer::registryListsAllSevenAlgorithms()
{
    const Registry& r = builtinRegistry();
    for (const char* a :
         {"mf-svi", "mimno-svi", "mf-ssvi", "titsias-ssvi", "gibbs-ssvi", "gibbs", "streaming"})
        QVERIFY2(r.find("bpfa", a) != nullptr, a);
    QVERIFY(r.find("bpfa", "nope") == nullptr);
    const AlgorithmEntry* e = r.find("bpfa", "gibbs-ssvi");
    QStringList keys;
    for (const ParamSpec& p : e->params)
        keys << QString::fromStdString(p.key);
    for (const char* k : {"K", "minibatch", "kappa", "tau0", "burnin", "samples", "init", "a", "b",
                          "c", "d", "e", "f"})
        QVERIFY2(keys.contains(k), k);
}

// The adaptive learning rate (Ranganath et al. 2013) on Gibbs-SSVI: every ρ in (0, 1], the
// steps shrink once the window grows, the warm-up draws do not change the globals, and the
// held-out error falls near the noise floor as with Robbins–Monro.
void TestBpfaTrainer::adaptiveScheduleLearns()
{
    const BpfaSynthetic s = synthetic(2000, 4, 100.0);
    BpfaOptions o = smallOptions();
    o.schedule = StepSchedule::Adaptive;
    o.adaptiveInit = 5;
    BpfaTrainer t(s.data, BpfaAlgorithm::GibbsSsvi, o, 4);
    const double start = heldOutMse(t);
    std::vector<double> rhos;
    for (int step = 1; step <= 150; ++step) {
        rhos.push_back(t.step(step));
        QVERIFY2(rhos.back() > 0.0 && rhos.back() <= 1.0, qPrintable(QString::number(rhos.back())));
    }
    const double late = std::accumulate(rhos.end() - 20, rhos.end(), 0.0) / 20.0;
    QVERIFY2(late < 0.5, qPrintable(QString("mean ρ over the last 20 steps %1").arg(late)));
    const double end = heldOutMse(t);
    qInfo("adaptive Gibbs-SSVI: MSE %.4f → %.4f (noise %.4f), ρ_1 %.3f, late ρ %.3f", start, end,
          s.noiseVariance, rhos.front(), late);
    QVERIFY2(end < 0.5 * start && end < 3.0 * s.noiseVariance,
             qPrintable(QString("MSE %1 → %2, noise %3").arg(start).arg(end).arg(s.noiseVariance)));
    // The registry declares the schedule for every SVI variant.
    const AlgorithmEntry* e = builtinRegistry().find("bpfa", "mf-svi");
    QVERIFY(std::any_of(e->params.begin(), e->params.end(),
                        [](const ParamSpec& p) { return p.key == "schedule"; }));
}

// noise_fit = predictive: 1/E[γ_obs] follows the squared error of predictions of entries the
// local step has not seen — on data drawn from the model, the held-out MSE (the noise plus the
// error of inferring the features from the other entries) — while the model's own fit (eq. 7)
// follows the residual of the entries it was fitted to, which is smaller.
void TestBpfaTrainer::predictiveNoiseFitTracksTheHeldOutError()
{
    const BpfaSynthetic s = synthetic(3000, 4, 100.0);
    std::map<std::string, std::pair<double, double>> fit; // noise variance, held-out MSE
    for (const char* mode : {"model", "predictive"}) {
        BpfaOptions o = smallOptions();
        o.noiseFit = mode;
        o.evalItems = 3000;
        BpfaTrainer t(s.data, BpfaAlgorithm::GibbsSsvi, o, 5);
        for (int step = 1; step <= 300; ++step)
            t.step(step);
        const Evaluation ev = t.evaluate(false);
        const double sd = ev.metrics.at("noise_sd");
        fit[mode] = {sd * sd, ev.metrics.at("mse")};
        qInfo("%s: noise variance %.4f, held-out MSE %.4f, true noise %.4f", mode, sd * sd,
              ev.metrics.at("mse"), s.noiseVariance);
    }
    const auto [predictive, predictiveMse] = fit["predictive"];
    const auto [model, modelMse] = fit["model"];
    QVERIFY2(std::abs(predictive - predictiveMse) < 0.25 * predictiveMse,
             qPrintable(
                 QString("predictive fit %1, held-out MSE %2").arg(predictive).arg(predictiveMse)));
    QVERIFY2(model < 0.8 * predictive,
             qPrintable(QString("model fit %1, predictive fit %2").arg(model).arg(predictive)));
}

// The predictive noise statistic, exactly: with every loading 0 each prediction is 0, so an item
// whose observed entries all equal v contributes Do·v² to Σ E‖r‖² whichever entry is left out,
// and all Do of its entries count as observed for γ_obs. (An item with one observed entry has
// nothing to leave out and gives its residual, also v².)
void TestBpfaTrainer::predictiveNoiseStatisticExactly()
{
    const int N = 6, D = 5, K = 3;
    auto data = std::make_shared<DenseData>();
    data->values.resize(N, D);
    data->roles.resize(N, D);
    data->source = "constant rows";
    double r2 = 0.0, observed = 0.0;
    for (int i = 0; i < N; ++i) {
        const int seen = i == 0 ? 1 : D - i % 3; // 1, 4, 3, 5, 4, 3 observed entries
        for (int d = 0; d < D; ++d) {
            data->values(i, d) = float(0.5 * (i + 1));
            data->roles(i, d) = std::uint8_t(d < seen ? EntryRole::Observed : EntryRole::Missing);
        }
        r2 += seen * 0.25 * (i + 1) * (i + 1);
        observed += seen;
    }
    BpfaOptions o = smallOptions();
    o.K = K;
    o.noiseFit = "predictive";
    BpfaTrainer t(data, BpfaAlgorithm::GibbsSsvi, o, 3);
    const bpfa::GlobalView v =
        bpfa::pointView(bpfa::MatrixRD::Zero(K, D), Eigen::VectorXd::Constant(K, 0.5), 2.0, 1.0);
    const bpfa::Stats s = t.localStats({0, 1, 2, 3, 4, 5}, v, 1);
    QCOMPARE(s.obsCount, observed);
    QVERIFY2(std::abs(s.r2 - r2) < 1e-9 * r2,
             qPrintable(QString("%1 against %2").arg(s.r2).arg(r2)));
}

void TestBpfaTrainer::reconstructionIsTheEnumeratedPosteriorMean()
{
    // A 6×6 image, 2×2 patches (25 items of D = 4), half the pixels missing, and globals fixed
    // at known values with K = 2. Given them, each patch's posterior over (z, w) is a mixture
    // of 2^K Gaussians: p(z | y_o) ∝ Π π_k^z_k (1 − π_k)^(1−z_k) · N(y_o; 0, γ⁻¹ I + γ_w⁻¹ G_zᵀ
    // G_z), E[w_z | z, y_o] = (γ_w I + γ G_z G_zᵀ)⁻¹ γ G_z y_o, with G_z the active atoms on the
    // observed entries. The reconstruction must be the average over the covering patches of
    // Σ_z p(z | y_o) E[w_z | z, y_o]ᵀ Φ_z, in grey levels, with the observed pixels kept.
    Eigen::ArrayXXf image(6, 6);
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c)
            image(r, c) = float(60 + 25 * ((r + 2 * c) % 5) + (c % 2 ? 30 : 0));
    InpaintOptions task;
    task.missing = 0.5;
    task.patch = 2;
    const DenseDataPtr data = makeInpaintingData(image, task, "tiny");
    const int K = 2, D = 4;
    bpfa::MatrixRD phi(K, D);
    phi << 0.8, 0.8, 0.8, 0.8, 0.9, -0.7, 0.6, -0.8;
    const Eigen::Vector2d pi(0.6, 0.3);
    const double gamma = 4.0, gammaW = 1.5;

    BpfaOptions o = smallOptions();
    o.K = K;
    o.evalBurnin = 20;
    o.minibatch = 10;
    o.evalItems = 25;
    o.evalKept = 10000; // the chain's average: Monte Carlo error well below the tolerance
    BpfaTrainer t(data, BpfaAlgorithm::GibbsSsvi, o, 7);
    bpfa::Globals g = t.globals();
    g.lambda = bpfa::MatrixRD::Constant(K, D, 1e6);
    g.h = (g.lambda.array() * phi.array()).matrix();
    g.a = pi * 1e6;
    g.b = (1.0 - pi.array()).matrix() * 1e6;
    g.c = gamma * 1e6;
    g.d = 1e6;
    g.e = gammaW * 1e6;
    g.f = 1e6;
    t.setGlobals(g);
    const MatrixRF pred = t.predictAll();

    const std::int64_t N = data->rows();
    Eigen::MatrixXd exact(N, D);
    for (std::int64_t i = 0; i < N; ++i) {
        std::vector<int> obs;
        for (int d = 0; d < D; ++d)
            if (data->observed(i, d))
                obs.push_back(d);
        const int Do = int(obs.size());
        Eigen::VectorXd y(Do);
        for (int j = 0; j < Do; ++j)
            y[j] = data->values(i, obs[std::size_t(j)]);
        double total = 0.0;
        Eigen::Vector2d ex = Eigen::Vector2d::Zero();
        for (int z = 0; z < 4; ++z) {
            std::vector<int> on;
            double logPrior = 0.0;
            for (int k = 0; k < K; ++k) {
                const bool active = (z >> k) & 1;
                logPrior += std::log(active ? pi[k] : 1.0 - pi[k]);
                if (active)
                    on.push_back(k);
            }
            const int A = int(on.size());
            Eigen::MatrixXd G(A, Do);
            for (int a = 0; a < A; ++a)
                for (int j = 0; j < Do; ++j)
                    G(a, j) = phi(on[std::size_t(a)], obs[std::size_t(j)]);
            const Eigen::MatrixXd cov =
                Eigen::MatrixXd::Identity(Do, Do) / gamma + G.transpose() * G / gammaW;
            const Eigen::LLT<Eigen::MatrixXd> llt(cov);
            const double logDet =
                2.0 * llt.matrixL().toDenseMatrix().diagonal().array().log().sum();
            const double logLik = -0.5 * (logDet + y.dot(llt.solve(y)) + Do * std::log(2 * M_PI));
            const double weight = std::exp(logPrior + logLik);
            total += weight;
            if (A > 0) {
                const Eigen::MatrixXd prec =
                    gammaW * Eigen::MatrixXd::Identity(A, A) + gamma * G * G.transpose();
                const Eigen::VectorXd w = prec.ldlt().solve(gamma * G * y);
                for (int a = 0; a < A; ++a)
                    ex[on[std::size_t(a)]] += weight * w[a];
            }
        }
        exact.row(i) = (ex / total).transpose() * phi;
    }
    // Monte Carlo error of the chain's average: about 0.005 RMS, against an RMS of 0.58.
    const Eigen::MatrixXd diff = pred.cast<double>() - exact;
    const double rms = diff.norm() / std::sqrt(double(N * D)), worst = diff.cwiseAbs().maxCoeff();
    QVERIFY2(
        rms < 0.015 && worst < 0.05,
        qPrintable(QString("error RMS %1, largest %2 (normalised units)").arg(rms).arg(worst)));

    // The image: each removed pixel the mean of its covering patches' predictions.
    const ImageLayout& L = *data->image;
    const Eigen::ArrayXXf rec = reconstructImage(L, pred);
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 6; ++c) {
            if (L.pixelObserved(r, c)) {
                QCOMPARE(rec(r, c), L.corrupted(r, c));
                continue;
            }
            double sum = 0.0;
            int n = 0;
            for (int r0 = std::max(0, r - 1); r0 <= std::min(r, 4); ++r0)
                for (int c0 = std::max(0, c - 1); c0 <= std::min(c, 4); ++c0, ++n)
                    sum += exact(r0 * 5 + c0, (r - r0) * 2 + (c - c0));
            const double expected = std::clamp(sum / n * L.scale + L.mean, 0.0, 255.0);
            QVERIFY2(std::abs(rec(r, c) - expected) < 0.05 * L.scale,
                     qPrintable(
                         QString("(%1, %2): %3 vs %4").arg(r).arg(c).arg(rec(r, c)).arg(expected)));
        }
}

// Streaming VB with one minibatch holding every item and one round is the full-data step from
// the same start: MF-SVI's first step with |B| = N (scale 1, ρ_1 = (1 + τ0)^−κ = 1 at τ0 = 0),
// λ = η + Σ_i η̂_i under E_q of the initial globals. The stream then ends.
void TestBpfaTrainer::streamingOneMinibatchIsTheFullDataStep()
{
    const BpfaSynthetic s = synthetic(300, 6, 100.0);
    const std::int64_t N = s.data->trainingRowCount();
    BpfaOptions o = smallOptions();
    o.minibatch = N;
    o.streamIters = 1;
    o.tau0 = 0.0;
    BpfaTrainer stream(s.data, BpfaAlgorithm::Streaming, o, 8);
    BpfaTrainer svi(s.data, BpfaAlgorithm::MfSvi, o, 8);
    QCOMPARE(stream.plannedSteps(), std::int64_t(1));
    QVERIFY(!stream.exhausted());
    QCOMPARE(stream.step(1), 1.0);
    QCOMPARE(svi.step(1), 1.0);
    QVERIFY(stream.exhausted());
    QCOMPARE(stream.itemsSeen(1), N);
    const double diff = maxRelativeDifference(stream.globals(), svi.globals());
    qInfo("streaming, one minibatch of every item, against MF-SVI's full-data step: max relative "
          "difference %.2e",
          diff);
    QVERIFY2(diff < 1e-9, qPrintable(QString::number(diff)));
    // Both moved from the start.
    BpfaTrainer start(s.data, BpfaAlgorithm::Streaming, o, 8);
    QVERIFY(maxRelativeDifference(start.globals(), svi.globals()) > 1e-3);
}

// Each minibatch's posterior is its batch VB with the posterior so far as its prior: recomputed
// here from the trainer's own local statistics, two rounds a minibatch (the second under E_q of
// the first round's λ*), λ_1 from the prior η under the initial globals' view and λ_2 from λ_1.
void TestBpfaTrainer::streamingAddsEachMinibatchsBatchPosterior()
{
    const BpfaSynthetic s = synthetic(400, 7, 100.0);
    BpfaOptions o = smallOptions();
    o.minibatch = 60;
    o.streamIters = 2;
    BpfaTrainer t(s.data, BpfaAlgorithm::Streaming, o, 12);
    BpfaTrainer check(s.data, BpfaAlgorithm::Streaming, o, 12);
    const bpfa::Globals prior = bpfa::priorGlobals(o.prior, o.K, int(s.data->cols()));
    // Two rounds added to `base`, the first under E_q of `view0`.
    auto posterior = [&](const bpfa::Globals& base, const bpfa::Globals& view0,
                         const std::vector<std::int64_t>& items, std::int64_t step) {
        bpfa::GlobalView view = bpfa::expectationView(view0);
        bpfa::Globals candidate = base;
        for (int round = 0; round < 2; ++round) {
            const bpfa::Stats stats = check.localStats(items, view, step);
            candidate = base;
            candidate.addChange(
                bpfa::globalTarget(o.prior, stats, view, 1.0, o.K, int(s.data->cols())), prior);
            view = bpfa::expectationView(candidate);
        }
        return candidate;
    };
    const bpfa::Globals initial = t.globals();
    t.step(1);
    QCOMPARE(std::int64_t(t.lastBatch().size()), std::int64_t(60));
    const bpfa::Globals first = posterior(prior, initial, t.lastBatch(), 1);
    const double d1 = maxRelativeDifference(t.globals(), first);
    const bpfa::Globals after1 = t.globals();
    t.step(2);
    const bpfa::Globals second = posterior(after1, after1, t.lastBatch(), 2);
    const double d2 = maxRelativeDifference(t.globals(), second);
    qInfo("streaming posteriors against their recomputation: minibatch 1 %.2e, minibatch 2 %.2e",
          d1, d2);
    QVERIFY2(d1 < 1e-9 && d2 < 1e-9, qPrintable(QString("%1 %2").arg(d1).arg(d2)));
    // The second minibatch's items are new, and they added to the first's posterior.
    QVERIFY(t.globals().c > after1.c + 0.4 * 60 * s.data->cols() * 0.5);
}

// One pass over 2,000 items drawn from the prior, minibatches of 100, against MF-SVI's 20 steps
// of the same size (paper 004's claim for streaming VB: one pass gives a posterior as good as
// SVI's). Measured locally on seeds 1–3: held-out MSE ratio streaming / SVI 1.38, 1.25 and 1.46
// (a stream never revisits the first minibatches, fitted under the random start).
void TestBpfaTrainer::streamingOnePassLearnsAsSviDoes()
{
#ifdef SVI_SANITIZED
    constexpr std::uint64_t kSeeds = 1; // the sanitizers check the code's memory on one
#else
    constexpr std::uint64_t kSeeds = 3;
#endif
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
        const BpfaSynthetic s = synthetic(2000, seed, 100.0);
        BpfaOptions o = smallOptions();
        BpfaTrainer stream(s.data, BpfaAlgorithm::Streaming, o, seed);
        BpfaTrainer svi(s.data, BpfaAlgorithm::MfSvi, o, seed);
        const double start = heldOutMse(stream);
        std::int64_t steps = 0;
        while (!stream.exhausted())
            stream.step(++steps);
        for (std::int64_t t = 1; t <= steps; ++t)
            svi.step(t);
        const double mseStream = heldOutMse(stream), mseSvi = heldOutMse(svi);
        qInfo("seed %d: %lld minibatches, held-out MSE %.4f → streaming %.4f, MF-SVI %.4f (noise "
              "%.4f)",
              int(seed), (long long)steps, start, mseStream, mseSvi, s.noiseVariance);
        QCOMPARE(steps, std::int64_t(20));
        QVERIFY2(mseStream < 0.5 * start, qPrintable(QString::number(mseStream)));
        QVERIFY2(mseStream < 1.6 * mseSvi, qPrintable(QString("%1 %2").arg(mseStream).arg(mseSvi)));
    }
}

QTEST_GUILESS_MAIN(TestBpfaTrainer)
#include "test_bpfa_trainer.moc"
