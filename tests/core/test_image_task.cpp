// The inpainting task: corruption, normalisation, patch layout, reconstruction and PSNR.

#include "core/data/image_task.h"
#include "core/metrics/image_metrics.h"

#include <QtTest>
#include <cmath>
#include <limits>

using namespace svi;

namespace {

Eigen::ArrayXXf gradientImage(int H, int W)
{
    Eigen::ArrayXXf img(H, W);
    for (int r = 0; r < H; ++r)
        for (int c = 0; c < W; ++c)
            img(r, c) = float((r * 7 + c * 13 + (r * c) % 17) % 256);
    return img;
}

MatrixRF valuesOf(const DenseData& d)
{
    return d.values;
}

} // namespace

class TestImageTask : public QObject
{
    Q_OBJECT

private slots:
    void declaredSettingsAgreeWithValidation();
    void patchLayoutByHand();
    void reconstructionIsExactWithNothingMissing_data();
    void reconstructionIsExactWithNothingMissing();
    void normalisationRoundTrips();
    void noiseFreeReconstructionKeepsObservedPixels();
    void observedFractionIsExact_data();
    void observedFractionIsExact();
    void corruptionIsSeededAndExact();
    void heldOutEntriesCarryTheCleanValue();
    void noiseHasTheRequestedSigma();
    void psnrKnownCases();
    void badInputNamesTheField_data();
    void badInputNamesTheField();
    void imageSmallerThanPatch();
    void reconstructRejectsWrongShape();
    void tileAtomsLayout();
};

void TestImageTask::patchLayoutByHand()
{
    const Eigen::ArrayXXf img = gradientImage(10, 12);
    InpaintOptions o;
    o.missing = 0.0;
    o.patch = 3;
    const DenseDataPtr d = makeInpaintingData(img, o, "t");
    QCOMPARE(d->rows(), std::int64_t((10 - 2) * (12 - 2)));
    QCOMPARE(d->cols(), 9);
    const ImageLayout& L = *d->image;
    auto pixel = [&](std::int64_t i, int e) { return d->values(i, e) * L.scale + L.mean; };
    // Patch with origin (row 2, col 5) is row 2·10 + 5; entry (dr 1, dc 2) is 1·3 + 2.
    QVERIFY(std::abs(pixel(2 * 10 + 5, 5) - img(3, 7)) < 1e-3);
    QVERIFY(std::abs(pixel(0, 0) - img(0, 0)) < 1e-3);
    QVERIFY(std::abs(pixel(d->rows() - 1, 8) - img(9, 11)) < 1e-3);
    for (std::int64_t i = 0; i < d->rows(); ++i)
        for (int e = 0; e < 9; ++e)
            QVERIFY(d->observed(i, e));
}

void TestImageTask::reconstructionIsExactWithNothingMissing_data()
{
    QTest::addColumn<int>("patch");
    QTest::newRow("p=8") << 8;
    QTest::newRow("p=5") << 5;
    QTest::newRow("p=2") << 2;
}

void TestImageTask::reconstructionIsExactWithNothingMissing()
{
    QFETCH(int, patch);
    const Eigen::ArrayXXf img = gradientImage(37, 29);
    InpaintOptions o;
    o.missing = 0.0;
    o.patch = patch;
    const DenseDataPtr d = makeInpaintingData(img, o, "t");
    const Eigen::ArrayXXf back = reconstructImage(*d->image, valuesOf(*d));
    QCOMPARE(back.rows(), img.rows());
    QVERIFY((back - img).abs().maxCoeff() < 1e-3);
    QVERIFY(std::isinf(psnr(img, back)) || psnr(img, back) > 60);
}

// Without noise the observed pixels are the truth: whatever the patch estimates say (here a
// flat zero, the mean grey level), the reconstruction keeps them and fills only the removed
// pixels. With noise every pixel is the patches' average.
void TestImageTask::noiseFreeReconstructionKeepsObservedPixels()
{
    const Eigen::ArrayXXf img = gradientImage(30, 26);
    for (const double noise : {0.0, 5.0}) {
        InpaintOptions o;
        o.missing = 0.6;
        o.noise = noise;
        const DenseDataPtr d = makeInpaintingData(img, o, "t");
        QCOMPARE(d->image->exactObserved, noise == 0.0);
        const Eigen::ArrayXXf back =
            reconstructImage(*d->image, MatrixRF::Zero(d->rows(), d->cols()));
        const float grey = float(std::clamp(d->image->mean, 0.0, 255.0));
        int kept = 0, filled = 0;
        for (int r = 0; r < img.rows(); ++r)
            for (int c = 0; c < img.cols(); ++c) {
                const bool seen = d->image->pixelObserved(r, c) != 0;
                const float expected = seen && noise == 0.0 ? d->image->corrupted(r, c) : grey;
                QVERIFY(std::abs(back(r, c) - expected) < 1e-3f);
                kept += seen && noise == 0.0 && std::abs(expected - grey) > 1.0f;
                filled += !seen;
            }
        QVERIFY(filled > 0);
        QVERIFY(noise != 0.0 || kept > 100); // the kept pixels differ from the fill
        // Asked for the fit itself, every pixel is the patches' average.
        const Eigen::ArrayXXf fit =
            reconstructImage(*d->image, MatrixRF::Zero(d->rows(), d->cols()), false);
        QVERIFY(((fit - grey).abs() < 1e-3f).all());
        // Putting the observed pixels back into the fit is the reconstruction itself.
        QVERIFY((keepObservedPixels(*d->image, fit) == back).all());
    }
}

void TestImageTask::normalisationRoundTrips()
{
    const Eigen::ArrayXXf img = gradientImage(40, 40);
    InpaintOptions o;
    o.missing = 0.5;
    const DenseDataPtr d = makeInpaintingData(img, o, "t");
    const ImageLayout& L = *d->image;
    // mean and scale are those of the observed pixels
    double s = 0, s2 = 0;
    int n = 0;
    for (int r = 0; r < 40; ++r)
        for (int c = 0; c < 40; ++c)
            if (L.pixelObserved(r, c)) {
                s += img(r, c);
                s2 += double(img(r, c)) * img(r, c);
                ++n;
            }
    const double mean = s / n, sd = std::sqrt(s2 / n - mean * mean);
    QVERIFY(std::abs(L.mean - mean) < 1e-6 * std::abs(mean));
    QVERIFY(std::abs(L.scale - sd) < 1e-6 * sd);
    // The stored observed entries, counted once per pixel (pixel (r, c) read from the patch
    // with origin (min(r, last row), min(c, last col))), have mean 0 and variance 1.
    const int p = L.patch, pr = L.patchesPerRow(), pc = L.patchesPerCol();
    double ms = 0, ms2 = 0;
    int mn = 0;
    for (int r = 0; r < 40; ++r)
        for (int c = 0; c < 40; ++c) {
            const int r0 = std::min(r, pc - 1), c0 = std::min(c, pr - 1);
            const std::int64_t i = std::int64_t(r0) * pr + c0;
            const int e = (r - r0) * p + (c - c0);
            QCOMPARE(d->observed(i, e), L.pixelObserved(r, c) != 0);
            if (d->observed(i, e)) {
                ms += d->values(i, e);
                ms2 += double(d->values(i, e)) * d->values(i, e);
                ++mn;
            }
        }
    QCOMPARE(mn, n);
    QVERIFY2(std::abs(ms / mn) < 1e-5, qPrintable(QString::number(ms / mn)));
    QVERIFY2(std::abs(ms2 / mn - 1.0) < 1e-5, qPrintable(QString::number(ms2 / mn)));
    const std::int64_t i = 3 * d->image->patchesPerRow() + 4;
    for (int e = 0; e < 64; ++e) {
        const float back = d->values(i, e) * float(L.scale) + float(L.mean);
        QVERIFY(std::abs(back - img(3 + e / 8, 4 + e % 8)) < 1e-3);
    }
}

void TestImageTask::observedFractionIsExact_data()
{
    QTest::addColumn<int>("height");
    QTest::addColumn<int>("width");
    QTest::addColumn<double>("missing");
    QTest::newRow("none missing") << 10 << 12 << 0.0;
    QTest::newRow("30% of 13×17") << 13 << 17 << 0.3; // 0.7·221 = 154.7 → 155
    QTest::newRow("80% of 50×60") << 50 << 60 << 0.8;
    QTest::newRow("95% of 21×9") << 21 << 9 << 0.95;   // 0.05·189 = 9.45 → 9
    QTest::newRow("one pixel left") << 8 << 8 << 0.99; // 0.01·64 = 0.64 → 1
}

void TestImageTask::observedFractionIsExact()
{
    QFETCH(int, height);
    QFETCH(int, width);
    QFETCH(double, missing);
    InpaintOptions o;
    o.missing = missing;
    o.patch = 3;
    const DenseDataPtr d = makeInpaintingData(gradientImage(height, width), o, "t");
    const auto observed = d->image->pixelObserved.cast<int>().sum();
    QCOMPARE(observed, int(std::lround((1.0 - missing) * height * width)));
    QVERIFY(
        ((d->image->pixelObserved.array() == 0) || (d->image->pixelObserved.array() == 1)).all());
}

void TestImageTask::corruptionIsSeededAndExact()
{
    const Eigen::ArrayXXf img = gradientImage(50, 60);
    InpaintOptions o;
    o.missing = 0.8;
    o.seed = 5;
    const DenseDataPtr a = makeInpaintingData(img, o, "t");
    const DenseDataPtr b = makeInpaintingData(img, o, "t");
    o.seed = 6;
    const DenseDataPtr c = makeInpaintingData(img, o, "t");
    const auto observed = a->image->pixelObserved.cast<int>().sum();
    QCOMPARE(observed, int(std::lround(0.2 * 50 * 60)));
    QVERIFY(a->image->pixelObserved == b->image->pixelObserved);
    QVERIFY(a->image->pixelObserved != c->image->pixelObserved);
    // Corrupted image: observed pixels kept (no noise), others zero.
    for (int r = 0; r < 50; ++r)
        for (int col = 0; col < 60; ++col)
            QCOMPARE(a->image->corrupted(r, col),
                     a->image->pixelObserved(r, col) ? img(r, col) : 0.0f);
}

void TestImageTask::heldOutEntriesCarryTheCleanValue()
{
    const Eigen::ArrayXXf img = gradientImage(30, 30);
    InpaintOptions o;
    o.missing = 0.5;
    o.noise = 20;
    const DenseDataPtr d = makeInpaintingData(img, o, "t");
    const ImageLayout& L = *d->image;
    int heldOut = 0;
    for (std::int64_t i = 0; i < d->rows(); ++i)
        for (int e = 0; e < 64; ++e) {
            const int r = int(i / L.patchesPerRow()) + e / 8,
                      c = int(i % L.patchesPerRow()) + e % 8;
            QCOMPARE(d->observed(i, e), L.pixelObserved(r, c) != 0);
            if (d->heldOut(i, e)) {
                ++heldOut;
                QVERIFY(std::abs(d->values(i, e) * L.scale + L.mean - img(r, c)) < 1e-3);
            }
        }
    QVERIFY(heldOut > 0);
}

void TestImageTask::noiseHasTheRequestedSigma()
{
    // Near white, so that unclamped noise shows as values above 255.
    const Eigen::ArrayXXf img = Eigen::ArrayXXf::Constant(300, 300, 250.0f);
    InpaintOptions o;
    o.missing = 0.5;
    o.noise = 15;
    const DenseDataPtr d = makeInpaintingData(img, o, "t");
    QVERIFY(d->image->corrupted.maxCoeff() > 255.0f);
    double s = 0, s2 = 0;
    int n = 0;
    for (int r = 0; r < 300; ++r)
        for (int c = 0; c < 300; ++c)
            if (d->image->pixelObserved(r, c)) {
                const double e = d->image->corrupted(r, c) - 250.0;
                s += e;
                s2 += e * e;
                ++n;
            }
    // 45,000 draws: the standard error of the sample sd is σ/√(2n) ≈ 0.05, so 0.3 (2% of σ)
    // is about six standard errors.
    QCOMPARE(n, 45000);
    const double sd = std::sqrt(s2 / n - (s / n) * (s / n));
    QVERIFY2(std::abs(sd - 15.0) < 0.3, qPrintable(QString::number(sd)));
    QVERIFY(std::abs(s / n) < 0.3);
}

void TestImageTask::psnrKnownCases()
{
    const Eigen::ArrayXXf a = gradientImage(20, 20);
    QVERIFY(std::isinf(psnr(a, a)));
    const Eigen::ArrayXXf b = a + 5.0f;
    QVERIFY(std::abs(psnr(a, b) - 20.0 * std::log10(255.0 / 5.0)) < 1e-9);
    QVERIFY(std::abs(mse(a, b) - 25.0) < 1e-9);
    // Masked: only pixels with mask 0 count.
    Eigen::ArrayXXf c = a;
    MatrixRU8 mask = MatrixRU8::Ones(20, 20);
    for (int r = 0; r < 20; ++r) {
        mask(r, 3) = 0;
        c(r, 3) += 10.0f;  // error where missing
        c(r, 7) += 100.0f; // large error where observed: ignored
    }
    QVERIFY(std::abs(psnrMasked(a, c, mask) - 20.0 * std::log10(255.0 / 10.0)) < 1e-9);
    QVERIFY(std::isnan(psnrMasked(a, c, MatrixRU8::Ones(20, 20))));
    // Observed: only pixels with mask 1 count (the 20 pixels of column 7 among 380).
    QVERIFY(std::abs(psnrObserved(a, c, mask) -
                     20.0 * std::log10(255.0 / std::sqrt(20 * 1e4 / 380.0))) < 1e-9);
    QVERIFY(std::isnan(psnrObserved(a, c, MatrixRU8::Zero(20, 20))));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, psnrObserved(a, c, MatrixRU8::Ones(19, 20)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, psnr(a, gradientImage(20, 21)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, psnr(Eigen::ArrayXXf(), Eigen::ArrayXXf()));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, mse(a, gradientImage(21, 20)));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, psnrMasked(a, c, MatrixRU8::Ones(20, 19)));
}

void TestImageTask::badInputNamesTheField_data()
{
    QTest::addColumn<double>("missing");
    QTest::addColumn<double>("noise");
    QTest::addColumn<int>("patch");
    QTest::addColumn<QString>("field");
    QTest::newRow("missing < 0") << -0.1 << 0.0 << 8 << "missing = -0.1";
    QTest::newRow("missing = 1") << 1.0 << 0.0 << 8 << "missing = 1";
    QTest::newRow("missing NaN") << std::nan("") << 0.0 << 8 << "missing = nan";
    QTest::newRow("noise < 0") << 0.5 << -1.0 << 8 << "noise = -1";
    QTest::newRow("noise inf") << 0.5 << std::numeric_limits<double>::infinity() << 8
                               << "noise = inf";
    QTest::newRow("patch 1") << 0.5 << 0.0 << 1 << "patch = 1";
    QTest::newRow("patch 65") << 0.5 << 0.0 << 65 << "patch = 65";
}

void TestImageTask::badInputNamesTheField()
{
    QFETCH(double, missing);
    QFETCH(double, noise);
    QFETCH(int, patch);
    QFETCH(QString, field);
    InpaintOptions o;
    o.missing = missing;
    o.noise = noise;
    o.patch = patch;
    QVERIFY(o.validate().has_value());
    QVERIFY2(QString::fromStdString(plainSettingRefs(*o.validate())).startsWith(field),
             o.validate()->c_str());
    try {
        makeInpaintingData(gradientImage(20, 20), o, "t");
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).startsWith(field), e.what());
    }
}

void TestImageTask::imageSmallerThanPatch()
{
    InpaintOptions o;
    try {
        makeInpaintingData(gradientImage(5, 5), o, "t");
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QCOMPARE(QString(e.what()), QString("image 5×5 is smaller than the 8×8 patch"));
    }
    Eigen::ArrayXXf nan = gradientImage(20, 20);
    nan(3, 4) = std::nanf("");
    try {
        makeInpaintingData(nan, o, "t");
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).startsWith("image pixel (row 3, col 4) = nan"), e.what());
    }
    // 0.999 of 64 pixels leaves round(0.064) = 0 observed: nothing to train on.
    o.missing = 0.999;
    try {
        makeInpaintingData(gradientImage(8, 8), o, "t");
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString::fromStdString(plainSettingRefs(e.what())).startsWith("missing = 0.999"),
                 e.what());
    }
}

void TestImageTask::reconstructRejectsWrongShape()
{
    InpaintOptions o;
    o.missing = 0.0;
    const DenseDataPtr d = makeInpaintingData(gradientImage(20, 20), o, "t");
    try {
        reconstructImage(*d->image, MatrixRF(3, 64));
        QFAIL("no exception");
    } catch (const std::invalid_argument& e) {
        QVERIFY2(QString(e.what()).contains("reconstructImage: patchEstimates are 3×64"), e.what());
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, reconstructImage(*d->image, MatrixRF(169, 63)));
    // A default layout (0×0) holds no patch, whatever the estimate shape.
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                             reconstructImage(ImageLayout{}, MatrixRF(49, 64)));
}

void TestImageTask::tileAtomsLayout()
{
    Eigen::MatrixXd atoms(5, 4);
    for (int k = 0; k < 5; ++k)
        for (int e = 0; e < 4; ++e)
            atoms(k, e) = k + e;
    atoms.row(4).setConstant(2.0);
    const Eigen::ArrayXXf img = tileAtoms(atoms, 2);
    // 5 atoms → 3 columns × 2 rows of 2×2 tiles with 1-pixel borders.
    QCOMPARE(img.cols(), Eigen::Index(3 * 3 + 1));
    QCOMPARE(img.rows(), Eigen::Index(2 * 3 + 1));
    QCOMPARE(img(0, 0), 128.0f);     // border
    QCOMPARE(img(1, 1), 0.0f);       // atom 0 entry 0 is its minimum
    QCOMPARE(img(2, 2), 255.0f);     // atom 0 entry 3 is its maximum
    QCOMPARE(img(4, 1 + 3), 128.0f); // atom 4 (row 1, col 1) is constant → mid-grey
    QCOMPARE(img(1, 3), 128.0f);     // border between tiles 0 and 1
    QCOMPARE(img(3, 2), 128.0f);     // border between tiles 0 and 3
    QCOMPARE(img(1, 4), 0.0f);       // atom 1 starts after the border
    QCOMPARE(img(5, 8), 128.0f);     // tile slot 5 is empty
    QCOMPARE(img(img.rows() - 1, img.cols() - 1), 128.0f);
    // maxTiles limits the grid: 2 atoms → 2×1 tiles.
    const Eigen::ArrayXXf two = tileAtoms(atoms, 2, 2);
    QCOMPARE(two.cols(), Eigen::Index(2 * 3 + 1));
    QCOMPARE(two.rows(), Eigen::Index(1 * 3 + 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, tileAtoms(atoms, 3));
    // Scaled: each atom pixel a 3×3 block (nearest neighbour), 2-pixel borders.
    const Eigen::ArrayXXf big = tileAtoms(atoms, 2, 256, 3, 2);
    QCOMPARE(big.cols(), Eigen::Index(3 * (2 * 3 + 2) + 2));
    QCOMPARE(big.rows(), Eigen::Index(2 * (2 * 3 + 2) + 2));
    QCOMPARE(big(1, 1), 128.0f);                      // border
    QVERIFY((big.block(2, 2, 3, 3) == 0.0f).all());   // atom 0 entry 0, its minimum
    QVERIFY((big.block(5, 5, 3, 3) == 255.0f).all()); // atom 0 entry 3, its maximum
    QCOMPARE(big(2, 8), 128.0f);                      // border between tiles 0 and 1
    QVERIFY((big.block(2, 10, 3, 3) == 0.0f).all());  // atom 1 starts after it
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, tileAtoms(atoms, 2, 256, 0));
    // As a file shows them: 256 atoms of 8×8 are 16 × 16 tiles of 64 pixels.
    const Eigen::ArrayXXf file = atomsFileImage(Eigen::MatrixXd::Random(256, 64), 8);
    QCOMPARE(file.cols(),
             Eigen::Index(16 * (8 * kAtomFileScale + kAtomFileBorder) + kAtomFileBorder));
    QVERIFY(file.rows() >= 1000);
}

void TestImageTask::declaredSettingsAgreeWithValidation()
{
    // The form built from params() can only produce options that validate(): check the
    // defaults and every declared bound.
    const std::vector<ParamSpec> specs = InpaintOptions::allParams();
    QCOMPARE(specs.size(), std::size_t(4));
    const InpaintOptions defaults = InpaintOptions::fromParams(defaultValues(specs));
    QVERIFY(defaults == InpaintOptions{});
    for (const ParamSpec& spec : specs)
        for (double bound : {spec.minValue, spec.maxValue}) {
            ParamValues v = defaultValues(specs);
            v[spec.key] =
                spec.type == ParamType::Int ? ParamValue(std::int64_t(bound)) : ParamValue(bound);
            const auto problem = InpaintOptions::fromParams(v).validate();
            QVERIFY2(!problem, (spec.key + ": " + problem.value_or("")).c_str());
        }
    // And the values just outside are refused by the declarations themselves.
    auto outside = parseParam(specs[0], "1");
    QVERIFY(std::holds_alternative<ParamError>(outside));
}

QTEST_GUILESS_MAIN(TestImageTask)
#include "test_image_task.moc"
