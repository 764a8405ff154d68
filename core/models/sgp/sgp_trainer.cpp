#include "core/base/parallel.h"
#include "core/models/sgp/sgp.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>

namespace svi {
namespace {

// Streams apart from the steps' (seed, t ≥ 1, row) and LinearLgmTrainer's.
constexpr std::uint64_t kStreamInducing = 0x1d0c;
constexpr std::uint64_t kStreamGrid = 0x96d;
constexpr std::uint64_t kStreamTrainRows = 0x7a11;
constexpr std::uint64_t kStreamSlicePoints = 0x511ce;

constexpr int kSlicePoints = 80;
constexpr std::size_t kSliceTestRows = 400;

MatrixRD rowsOf(const MatrixRD& x, const std::vector<std::int64_t>& rows)
{
    MatrixRD out(Eigen::Index(rows.size()), x.cols());
    for (std::size_t r = 0; r < rows.size(); ++r)
        out.row(Eigen::Index(r)) = x.row(rows[r]);
    return out;
}

std::vector<std::int64_t> sorted(std::vector<std::int64_t> rows)
{
    std::sort(rows.begin(), rows.end());
    return rows;
}

// The column most correlated with the label over the training rows x (constant columns
// skipped), or the one named.
int pickSliceFeature(const LabelledData& d, const MatrixRD& x, const std::string& name)
{
    if (!name.empty()) {
        for (std::size_t j = 0; j < d.featureNames.size() && j < std::size_t(d.cols()); ++j)
            if (d.featureNames[j] == name)
                return int(j);
        throw std::invalid_argument("slice_feature: '" + name + "' is not a feature of '" +
                                    d.source + "'");
    }
    Eigen::VectorXd y(x.rows());
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        y[r] = d.y[d.trainingRows[std::size_t(r)]];
    const Eigen::VectorXd yc = y.array() - y.mean();
    int best = 0;
    double bestCorr = -1.0;
    for (int j = 0; j < d.cols(); ++j) {
        const Eigen::VectorXd xc = x.col(j).array() - x.col(j).mean();
        const double sx = xc.norm(), sy = yc.norm();
        if (sx <= 1e-12 * (1.0 + x.col(j).cwiseAbs().maxCoeff()) || sy == 0.0)
            continue;
        const double corr = std::abs(xc.dot(yc)) / (sx * sy);
        if (corr > bestCorr) {
            bestCorr = corr;
            best = j;
        }
    }
    return best;
}

// The slice's fixed parts: kSlicePoints values of column j over its range in the training rows
// `train`, the other columns at their training mean, transformed; a seeded sample of the test rows
// behind it.
void setUpSlice(SgpSetup& s, const MatrixRD& train, int j)
{
    const LabelledData& d = *s.source;
    PredictionSlice& out = s.slice;
    out.feature = std::size_t(j) < d.featureNames.size() ? d.featureNames[std::size_t(j)]
                                                         : "x" + std::to_string(j + 1);
    out.label = d.labelName.empty() ? "label" : d.labelName;
    out.x =
        Eigen::VectorXd::LinSpaced(kSlicePoints, train.col(j).minCoeff(), train.col(j).maxCoeff());
    MatrixRD at(kSlicePoints, d.cols());
    at.rowwise() = train.colwise().mean();
    at.col(j) = out.x;
    s.basis->transform(at, s.sliceFeatures, s.sliceResidualVariance);
    const std::vector<std::int64_t> points =
        sorted(seededSubset(d.testRows, kSliceTestRows, Rng::stream(1, kStreamSlicePoints)));
    out.pointX.resize(Eigen::Index(points.size()));
    out.pointY.resize(Eigen::Index(points.size()));
    for (std::size_t r = 0; r < points.size(); ++r) {
        out.pointX[Eigen::Index(r)] = d.x(points[r], j);
        out.pointY[Eigen::Index(r)] = d.y[points[r]] * d.labelScale + d.labelMean;
    }
}

} // namespace

std::shared_ptr<SgpSetup> SgpSetup::make(const LabelledDataPtr& data, const SgpOptions& o,
                                         std::uint64_t seed)
{
    if (!data || data->trainingRows.empty())
        throw std::invalid_argument("data: no training rows");
    const LabelledData& d = *data;
    if (!d.x.allFinite())
        throw std::invalid_argument("data: a feature of '" + d.source + "' is not finite");
    auto s = std::make_shared<SgpSetup>();
    s->source = data;

    const std::int64_t nTrain = d.trainingRowCount();
    std::int64_t m = o.inducing > 0 ? o.inducing : std::max<std::int64_t>(1, d.rows() / 100);
    if (m > nTrain)
        throw std::invalid_argument("inducing: " + std::to_string(m) + " inducing points, but '" +
                                    d.source + "' has " + std::to_string(nTrain) +
                                    " training rows");
    const auto setup = std::uint64_t(o.setupSeed);

    if (o.hyperparameters == "grid") {
        const std::vector<std::int64_t> rows = sorted(
            seededSubset(d.trainingRows, std::size_t(o.gridRows), Rng::stream(setup, kStreamGrid)));
        Eigen::VectorXd y(Eigen::Index(rows.size()));
        for (std::size_t r = 0; r < rows.size(); ++r)
            y[Eigen::Index(r)] = d.y[rows[r]];
        s->hyper = gridSearchHyper(rowsOf(d.x, rows), y, o.gridPoints);
    } else if (o.hyperparameters == "given") {
        s->hyper = GpHyper{RbfKernel{o.lengthScale, o.kernelVariance}, o.noiseVariance};
    } else {
        throw std::invalid_argument("hyperparameters: '" + o.hyperparameters +
                                    "' is not grid or given");
    }

    const std::vector<std::int64_t> inducing =
        sorted(seededSubset(d.trainingRows, std::size_t(m), Rng::stream(setup, kStreamInducing)));
    s->basis = std::make_unique<InducingBasis>(rowsOf(d.x, inducing), s->hyper.kernel);

    std::vector<std::int64_t> train = d.trainingRows;
    if (o.trainRows > 0 && o.trainRows < nTrain)
        train = sorted(seededSubset(d.trainingRows, std::size_t(o.trainRows),
                                    Rng::stream(seed, kStreamTrainRows)));
    s->sourceRows = train;
    s->sourceRows.insert(s->sourceRows.end(), d.testRows.begin(), d.testRows.end());

    auto f = std::make_shared<LabelledData>();
    s->basis->transform(rowsOf(d.x, s->sourceRows), f->x, s->residualVariance);
    const auto n = Eigen::Index(s->sourceRows.size());
    f->y.resize(n);
    for (Eigen::Index r = 0; r < n; ++r) {
        const std::int64_t i = s->sourceRows[std::size_t(r)];
        f->y[r] = d.y[i];
        if (std::size_t(i) < d.fileOfRow.size())
            f->fileOfRow.push_back(d.fileOfRow[std::size_t(i)]);
        if (std::size_t(i) < d.lineOfRow.size())
            f->lineOfRow.push_back(d.lineOfRow[std::size_t(i)]);
    }
    f->labelKind = d.labelKind;
    f->labelName = d.labelName;
    f->labelMean = d.labelMean;
    f->labelScale = d.labelScale;
    f->files = d.files;
    f->source = d.source;
    for (int j = 0; j < f->cols(); ++j)
        f->featureNames.push_back("u" + std::to_string(j + 1));
    for (std::int64_t r = 0; r < n; ++r)
        (std::size_t(r) < train.size() ? f->trainingRows : f->testRows).push_back(r);
    s->features = std::move(f);
    const MatrixRD trainX = rowsOf(d.x, d.trainingRows);
    setUpSlice(*s, trainX, pickSliceFeature(d, trainX, o.sliceFeature));
    return s;
}

SgpLocal::SgpLocal(std::shared_ptr<const SgpSetup> setup, SgpBound bound)
    : m_setup(std::move(setup)), m_bound(bound), m_noise(m_setup->hyper.noiseVariance)
{
}

void SgpLocal::estimate(std::int64_t i, double y, double m, double v, Rng&, double& alpha,
                        double& gamma, double& extra) const
{
    const double r = y - m, c = m_setup->residualVariance[i] + m_noise;
    extra = 0.0;
    switch (m_bound) {
    case SgpBound::Standard:
    case SgpBound::Optimal: // not stepped row by row (SgpTrainer::step)
        alpha = r / m_noise;
        gamma = -0.5 / m_noise;
        return;
    case SgpBound::V1:
        alpha = r / c;
        gamma = -0.5 / c;
        return;
    case SgpBound::V2: {
        const double u = c + v;
        alpha = r / u;
        gamma = -0.5 / u + 0.5 * r * r / (u * u);
        return;
    }
    }
}

double SgpLocal::expectedTerm(std::int64_t i, double y, double m, double v) const
{
    const double r2 = (y - m) * (y - m), k = m_setup->residualVariance[i];
    const double c = k + m_noise, log2pi = std::log(2.0 * std::numbers::pi);
    switch (m_bound) {
    case SgpBound::Standard:
    case SgpBound::Optimal: // its bound does not split over rows: SgpTrainer::objective
        return -0.5 * (log2pi + std::log(m_noise)) - (r2 + v + k) / (2.0 * m_noise);
    case SgpBound::V1:
        return -0.5 * (log2pi + std::log(c)) - (r2 + v) / (2.0 * c);
    case SgpBound::V2:
        return -0.5 * (log2pi + std::log(c + v)) - r2 / (2.0 * (c + v));
    }
    return 0.0;
}

double SgpLocal::logPredictive(std::int64_t i, double y, double m, double v) const
{
    const double u = v + m_setup->residualVariance[i] + m_noise;
    return -0.5 * (std::log(2.0 * std::numbers::pi * u) + (y - m) * (y - m) / u);
}

double SgpLocal::predictiveMean(std::int64_t, double m, double) const
{
    return m;
}

std::optional<std::string> SgpLocal::outsideSupport(double y) const
{
    if (!std::isfinite(y))
        return std::string("not a finite value");
    return std::nullopt;
}

SgpTrainer::SgpTrainer(const LabelledDataPtr& data, LgmAlgorithm algorithm,
                       const SgpOptions& options, std::uint64_t seed)
    : SgpTrainer(SgpSetup::make(data, options.checked(), seed), algorithm, options, seed)
{
}

SgpTrainer::SgpTrainer(const std::shared_ptr<SgpSetup>& setup, LgmAlgorithm algorithm,
                       const SgpOptions& options, std::uint64_t seed)
    : LinearLgmTrainer(setup->features, algorithm, options.lgm,
                       std::make_unique<SgpLocal>(setup, options.bound), seed),
      m_setup(setup), m_bound(options.bound), m_damping(options.lgm.damping),
      m_tolerance(options.tolerance)
{
    if (m_bound == SgpBound::V2 && algorithm == LgmAlgorithm::McSsvi)
        throw std::invalid_argument(
            "bound: 'v2' is not concave in the mean, and MC-SSVI's natural-gradient step of the "
            "mean diverges on it; fit it by closed-form, h-mc-ssvi or s-dsvi");
    if (m_bound != SgpBound::Optimal)
        return;
    if (algorithm != LgmAlgorithm::FixedPoint)
        throw std::invalid_argument("bound: 'optimal' does not split over rows; only the "
                                    "closed-form algorithm fits it");
    const std::int64_t n = setup->features->trainingRowCount();
    if (n > kMaxCubicRows)
        throw std::invalid_argument("bound: 'optimal' is cubic in the training rows, and " +
                                    std::to_string(n) + " > " + std::to_string(kMaxCubicRows) +
                                    " of them would take too long; set train_rows");
}

void SgpTrainer::solveOptimal()
{
    const SgpSetup& s = *m_setup;
    const LabelledData& f = *s.features;
    const std::vector<std::int64_t>& rows = f.trainingRows; // 0 … n − 1
    const auto n = Eigen::Index(rows.size());
    const MatrixRD xt = f.x.topRows(n);
    const Eigen::VectorXd y = f.y.head(n);
    std::vector<std::int64_t> src(s.sourceRows.begin(), s.sourceRows.begin() + n);
    const MatrixRD x = rowsOf(s.source->x, src);
    // B = K_ff − Q_ff + σ²I with Q_ff = X̃X̃ᵀ.
    Eigen::MatrixXd b = s.hyper.kernel.cross(x, x);
    b.noalias() -= xt * xt.transpose();
    b.diagonal().array() += s.hyper.noiseVariance;
    const Eigen::LLT<Eigen::MatrixXd> llt(b);
    if (llt.info() != Eigen::Success)
        throw std::runtime_error("bound optimal: K_ff − Q_ff + σ²I is not positive definite");
    const Eigen::MatrixXd w = llt.matrixL().solve(Eigen::MatrixXd(xt)); // L_B⁻¹X̃
    const Eigen::VectorXd e = llt.matrixL().solve(y);                   // L_B⁻¹y
    m_a.noalias() = w.transpose() * w;
    m_b.noalias() = w.transpose() * e;
    m_yby = e.squaredNorm();
    m_logDetB = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
    Eigen::MatrixXd precision = m_a;
    precision.diagonal().array() += 1.0;
    const Eigen::LLT<Eigen::MatrixXd> q(precision);
    const Eigen::MatrixXd cov = q.solve(Eigen::MatrixXd::Identity(m_a.rows(), m_a.cols()));
    posterior().setCovariance(cov);
    posterior().setMean(q.solve(m_b));
    m_solved = true;
}

double SgpTrainer::coordinateAscentV2(double damping)
{
    const SgpSetup& s = *m_setup;
    const LabelledData& f = *s.features;
    const Eigen::Index n = Eigen::Index(f.trainingRows.size());
    const auto xt = f.x.topRows(n);
    const auto y = f.y.head(n);
    const Eigen::ArrayXd c = s.residualVariance.head(n).array() + s.hyper.noiseVariance;
    GaussianQ& q = posterior();
    const int dim = q.dim();
    Eigen::VectorXd v(n);
    MatrixRD work;
    // The objective where the last round left q (each evaluation is a pass over every row).
    const double before = std::isnan(m_v2Objective) ? bound() : m_v2Objective;
    const Eigen::VectorXd m0 = q.mean();
    const Eigen::MatrixXd root0 = q.root();

    // m given S: maximise −½|m|² − Σ_i (y_i − x̃_iᵀm)² / (2u_i), u_i = c_i + v_i.
    q.marginalVariances(xt, v, work);
    const Eigen::ArrayXd u = c + v.array();
    Eigen::MatrixXd p = Eigen::MatrixXd::Identity(dim, dim);
    p.noalias() += xt.transpose() * (u.inverse().matrix().asDiagonal() * xt);
    q.setMean(p.llt().solve(xt.transpose() * (y.array() / u).matrix()));

    // S given m: γ_i = −1/(2u_i) + r_i²/(2u_i²), Γ = Σ_i γ_i x̃_i x̃_iᵀ.
    const Eigen::ArrayXd r = (y - xt * q.mean()).array();
    const Eigen::VectorXd gamma = (-0.5 / u + 0.5 * r.square() / u.square()).matrix();
    LgmGradients grads;
    grads.reset(dim, q.form());
    grads.addRows(xt, Eigen::VectorXd::Zero(n), gamma, q.form());
    const GaussianQ meanStepped = q;
    const double afterMean = bound();
    double used = 0.0, after = afterMean;
    // From twice the last step that held (at most the damping): the halvings are not repeated
    // every round.
    for (double rho = std::min(damping, 2.0 * m_v2Rho); rho > 1e-9; rho *= 0.5) {
        const double tried = q.naturalStep(rho, grads, prior(), false);
        const double value = tried > 0.0 ? bound() : -std::numeric_limits<double>::infinity();
        if (value >= afterMean) {
            used = tried;
            after = value;
            break;
        }
        q = meanStepped;
    }
    if (used > 0.0)
        m_v2Rho = used;
    m_v2Objective = after;
    m_v2Converged =
        unmoved(m0, root0) || std::abs(after - before) <= m_tolerance * std::abs(before);
    return used;
}

bool SgpTrainer::closedForm() const
{
    return m_bound == SgpBound::Optimal ||
           (m_bound == SgpBound::V2 && algorithm() == LgmAlgorithm::FixedPoint);
}

StagedTrainer::Round SgpTrainer::localStep(std::int64_t t)
{
    if (!closedForm())
        return LinearLgmTrainer::localStep(t);
    if (m_bound == SgpBound::V2) {
        m_closedFormRho = coordinateAscentV2(m_damping);
        return Round::Update;
    }
    if (!m_solved)
        solveOptimal();
    m_closedFormRho = 1.0;
    return Round::Update;
}

GlobalStatistic& SgpTrainer::statistic()
{
    return closedForm() ? m_noStatistic : LinearLgmTrainer::statistic();
}

double SgpTrainer::globalUpdate(std::int64_t t)
{
    return closedForm() ? m_closedFormRho : LinearLgmTrainer::globalUpdate(t);
}

void SgpTrainer::visitModelState(StateArchive& a)
{
    if (m_bound == SgpBound::Optimal) {
        // Listed rather than solved again: solving also sets q, and the statistics are read
        // by every evaluation after the step that formed them.
        a.field("solved", m_solved);
        a.field("a", m_a);
        a.field("b", m_b);
        a.field("y_by", m_yby);
        a.field("log_det_b", m_logDetB);
    }
    if (m_bound == SgpBound::V2 && algorithm() == LgmAlgorithm::FixedPoint) {
        a.field("v2_converged", m_v2Converged);
        a.field("v2_rho", m_v2Rho);
        // The objective at the current q, a cache: the next round forms it again (the same
        // bits) when it is NaN.
        if (a.loading())
            m_v2Objective = std::numeric_limits<double>::quiet_NaN();
    }
}

bool SgpTrainer::converged() const
{
    if (m_bound == SgpBound::Optimal)
        return m_solved;
    if (m_bound == SgpBound::V2 && algorithm() == LgmAlgorithm::FixedPoint)
        return m_v2Converged;
    return LinearLgmTrainer::converged();
}

double SgpTrainer::optimalBound() const
{
    const GaussianQ& q = posterior();
    const Eigen::VectorXd& m = q.mean();
    const double n = double(m_setup->features->trainingRowCount());
    const double quad = m_yby - 2.0 * m_b.dot(m) + m.dot(m_a * m);
    const double trace = (m_a.cwiseProduct(q.covariance())).sum();
    return -q.kl(prior()) - 0.5 * (n * std::log(2.0 * std::numbers::pi) + m_logDetB + quad + trace);
}

double SgpTrainer::objective() const
{
    if (m_bound != SgpBound::Optimal)
        return bound();
    if (!m_solved)
        throw std::logic_error("sgp: the optimal bound is known once solved (after step 1)");
    return optimalBound();
}

std::shared_ptr<const PredictionSlice> SgpTrainer::slice() const
{
    const SgpSetup& s = *m_setup;
    const LabelledData& d = *s.source;
    auto out = std::make_shared<PredictionSlice>(s.slice);
    const GaussianQ& q = posterior();
    Eigen::VectorXd v(s.sliceFeatures.rows());
    MatrixRD work;
    q.marginalVariances(s.sliceFeatures, v, work);
    out->mean = (s.sliceFeatures * q.mean()).array() * d.labelScale + d.labelMean;
    out->sd = ((v + s.sliceResidualVariance).array() + s.hyper.noiseVariance).sqrt() * d.labelScale;
    return out;
}

Evaluation SgpTrainer::evaluate(bool full)
{
    Evaluation ev = LinearLgmTrainer::evaluate(full);
    if (m_bound == SgpBound::Optimal)
        ev.elbo = m_solved ? optimalBound() : -posterior().kl(prior());
    ev.metrics["length_scale"] = m_setup->hyper.kernel.lengthScale;
    ev.metrics["kernel_variance"] = m_setup->hyper.kernel.variance;
    ev.metrics["noise_variance"] = m_setup->hyper.noiseVariance;
    auto preview = std::make_shared<Preview>();
    preview->slice = slice();
    ev.preview = std::move(preview);
    return ev;
}

} // namespace svi
