#include "core/inference/gaussian_q.h"

#include "core/base/params.h"

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>

namespace svi {

std::string covarianceName(CovarianceForm form)
{
    return form == CovarianceForm::Full ? "full" : "diagonal";
}

CovarianceForm covarianceFromName(const std::string& name)
{
    if (name == "full")
        return CovarianceForm::Full;
    if (name == "diagonal")
        return CovarianceForm::Diagonal;
    throw std::invalid_argument(fieldError("covariance", name, "must be full or diagonal"));
}

GaussianPrior GaussianPrior::isotropic(int dim, double variance)
{
    if (!(variance > 0.0) || !std::isfinite(variance))
        throw std::invalid_argument(
            fieldError("prior_variance", formatNumber(variance), "must be > 0"));
    GaussianPrior p;
    p.mean = Eigen::VectorXd::Zero(dim);
    p.precision = Eigen::MatrixXd::Identity(dim, dim) / variance;
    p.logDetCovariance = dim * std::log(variance);
    return p;
}

void LgmGradients::reset(int dim, CovarianceForm form)
{
    g.setZero(dim);
    if (form == CovarianceForm::Full)
        gammaFull.setZero(dim, dim);
    else
        gammaDiag.setZero(dim);
}

void LgmGradients::addRows(const Eigen::Ref<const MatrixRD>& rows,
                           const Eigen::Ref<const Eigen::VectorXd>& alpha,
                           const Eigen::Ref<const Eigen::VectorXd>& gamma, CovarianceForm form)
{
    g.noalias() += rows.transpose() * alpha;
    if (form == CovarianceForm::Full)
        gammaFull.noalias() += rows.transpose() * (gamma.asDiagonal() * rows);
    else
        gammaDiag.noalias() += rows.array().square().matrix().transpose() * gamma;
}

void LgmGradients::add(const LgmGradients& other, CovarianceForm form)
{
    g += other.g;
    if (form == CovarianceForm::Full)
        gammaFull += other.gammaFull;
    else
        gammaDiag += other.gammaDiag;
}

void LgmGradients::scale(double s, CovarianceForm form)
{
    g *= s;
    if (form == CovarianceForm::Full)
        gammaFull *= s;
    else
        gammaDiag *= s;
}

GaussianQ::GaussianQ(int dim, CovarianceForm form, double initialVariance) : m_form(form)
{
    if (dim < 1)
        throw std::invalid_argument("GaussianQ: dim = " + std::to_string(dim) +
                                    ", but must be ≥ 1");
    if (!(initialVariance > 0.0) || !std::isfinite(initialVariance))
        throw std::invalid_argument(
            fieldError("init_variance", formatNumber(initialVariance), "must be > 0"));
    m_mean = Eigen::VectorXd::Zero(dim);
    const double sd = std::sqrt(initialVariance);
    if (form == CovarianceForm::Full)
        m_root = sd * Eigen::MatrixXd::Identity(dim, dim);
    else
        m_root = Eigen::MatrixXd::Constant(dim, 1, sd);
}

Eigen::MatrixXd GaussianQ::covariance() const
{
    if (m_form == CovarianceForm::Full)
        return m_root.transpose() * m_root;
    return m_root.col(0).array().square().matrix().asDiagonal();
}

Eigen::VectorXd GaussianQ::variances() const
{
    if (m_form == CovarianceForm::Full)
        return m_root.array().square().colwise().sum().transpose();
    return m_root.col(0).array().square();
}

double GaussianQ::logDetCovariance() const
{
    const Eigen::VectorXd d = m_form == CovarianceForm::Full ? Eigen::VectorXd(m_root.diagonal())
                                                             : Eigen::VectorXd(m_root.col(0));
    return 2.0 * d.array().abs().log().sum();
}

void GaussianQ::marginalVariances(const Eigen::Ref<const MatrixRD>& rows,
                                  Eigen::Ref<Eigen::VectorXd> v, MatrixRD& work) const
{
    if (m_form == CovarianceForm::Full) {
        // ‖R h‖² for each row h: (H Rᵀ) row by row. R is upper triangular.
        work.resize(rows.rows(), rows.cols());
        work.noalias() = rows * m_root.transpose().triangularView<Eigen::Lower>();
        v = work.rowwise().squaredNorm();
    } else {
        v.noalias() = rows.array().square().matrix() * m_root.col(0).array().square().matrix();
    }
}

void GaussianQ::draw(const Eigen::Ref<const Eigen::VectorXd>& z,
                     Eigen::Ref<Eigen::VectorXd> out) const
{
    if (m_form == CovarianceForm::Full)
        out.noalias() = m_root.triangularView<Eigen::Upper>().transpose() * z;
    else
        out = m_root.col(0).cwiseProduct(z);
    out += m_mean;
}

double GaussianQ::kl(const GaussianPrior& prior) const
{
    const Eigen::VectorXd d = prior.mean - m_mean;
    double trace = 0.0;
    if (m_form == CovarianceForm::Full)
        trace = prior.precision.cwiseProduct(covariance()).sum();
    else
        trace = prior.precision.diagonal().dot(variances());
    return 0.5 * (trace + d.dot(prior.precision * d) - dim() + prior.logDetCovariance -
                  logDetCovariance());
}

double GaussianQ::naturalStep(double rho, const LgmGradients& grads, const GaussianPrior& prior,
                              bool meanToo)
{
    const int D = dim();
    if (m_form == CovarianceForm::Diagonal) {
        const Eigen::ArrayXd sd = m_root.col(0).array();
        const Eigen::ArrayXd p = sd.square().inverse();
        const Eigen::ArrayXd pTarget =
            prior.precision.diagonal().array() - 2.0 * grads.gammaDiag.array();
        Eigen::ArrayXd bTarget;
        if (meanToo) {
            const Eigen::VectorXd offDiag =
                prior.precision * m_mean - prior.precision.diagonal().cwiseProduct(m_mean);
            bTarget = (prior.precision * prior.mean - offDiag + grads.g).array() -
                      2.0 * grads.gammaDiag.array() * m_mean.array();
        }
        for (int halvings = 0; halvings <= 30; ++halvings, rho *= 0.5) {
            const Eigen::ArrayXd pNew = (1.0 - rho) * p + rho * pTarget;
            if (!(pNew > 0.0).all() || !pNew.allFinite())
                continue;
            if (meanToo)
                m_mean = (((1.0 - rho) * p * m_mean.array() + rho * bTarget) / pNew).matrix();
            m_root.col(0) = pNew.sqrt().inverse().matrix();
            return rho;
        }
        return 0.0;
    }
    if (!m_precisionValid) {
        // S⁻¹ = R⁻¹R⁻ᵀ.
        const Eigen::MatrixXd rInv =
            m_root.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(D, D));
        m_precision = rInv * rInv.transpose();
    }
    const Eigen::MatrixXd pTarget = prior.precision - 2.0 * grads.gammaFull;
    Eigen::VectorXd bTarget;
    if (meanToo)
        bTarget = prior.precision * prior.mean + grads.g - 2.0 * grads.gammaFull * m_mean;
    for (int halvings = 0; halvings <= 30; ++halvings, rho *= 0.5) {
        Eigen::MatrixXd pNew = (1.0 - rho) * m_precision + rho * pTarget;
        pNew = 0.5 * (pNew + pNew.transpose()); // keep it exactly symmetric
        const Eigen::LLT<Eigen::MatrixXd> llt(pNew);
        if (llt.info() != Eigen::Success || !pNew.allFinite())
            continue;
        const Eigen::MatrixXd S = llt.solve(Eigen::MatrixXd::Identity(D, D));
        const Eigen::LLT<Eigen::MatrixXd> sChol(0.5 * (S + S.transpose()));
        if (sChol.info() != Eigen::Success)
            continue;
        if (meanToo)
            m_mean = llt.solve((1.0 - rho) * (m_precision * m_mean) + rho * bTarget);
        m_root = sChol.matrixU();
        m_precision = std::move(pNew);
        m_precisionValid = true;
        return rho;
    }
    return 0.0;
}

void GaussianQ::naturalGradient(const LgmGradients& grads, const GaussianPrior& prior, bool meanToo,
                                Eigen::VectorXd& out)
{
    const Eigen::Index D = dim();
    if (m_form == CovarianceForm::Diagonal) {
        const Eigen::ArrayXd p = m_root.col(0).array().square().inverse();
        out.resize(meanToo ? 2 * D : D);
        out.head(D) =
            (prior.precision.diagonal().array() - 2.0 * grads.gammaDiag.array() - p).matrix();
        if (meanToo) {
            const Eigen::VectorXd offDiag =
                prior.precision * m_mean - prior.precision.diagonal().cwiseProduct(m_mean);
            out.tail(D) = ((prior.precision * prior.mean - offDiag + grads.g).array() -
                           2.0 * grads.gammaDiag.array() * m_mean.array() - p * m_mean.array())
                              .matrix();
        }
        return;
    }
    if (!m_precisionValid) {
        const Eigen::MatrixXd rInv =
            m_root.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(D, D));
        m_precision = rInv * rInv.transpose();
        m_precisionValid = true;
    }
    out.resize(meanToo ? D * D + D : D * D);
    out.head(D * D) = (prior.precision - 2.0 * grads.gammaFull - m_precision).reshaped();
    if (meanToo)
        out.tail(D) = prior.precision * prior.mean + grads.g - 2.0 * grads.gammaFull * m_mean -
                      m_precision * m_mean;
}

Eigen::VectorXd GaussianQ::meanGradient(const LgmGradients& grads, const GaussianPrior& prior) const
{
    return prior.precision * (prior.mean - m_mean) + grads.g;
}

Eigen::MatrixXd GaussianQ::rootGradient(const LgmGradients& grads, const GaussianPrior& prior) const
{
    if (m_form == CovarianceForm::Diagonal) {
        const Eigen::ArrayXd sd = m_root.col(0).array();
        return (sd.inverse() - sd * prior.precision.diagonal().array() +
                2.0 * sd * grads.gammaDiag.array())
            .matrix();
    }
    Eigen::MatrixXd grad = 2.0 * m_root * grads.gammaFull - m_root * prior.precision;
    grad.diagonal() += m_root.diagonal().cwiseInverse();
    return grad.triangularView<Eigen::Upper>();
}

void GaussianQ::setMean(const Eigen::VectorXd& m)
{
    if (m.size() != m_mean.size())
        throw std::invalid_argument("GaussianQ::setMean: " + std::to_string(m.size()) +
                                    " entries for dimension " + std::to_string(m_mean.size()));
    m_mean = m;
}

void GaussianQ::setRoot(const Eigen::MatrixXd& root)
{
    if (root.rows() != m_root.rows() || root.cols() != m_root.cols())
        throw std::invalid_argument("GaussianQ::setRoot: a " + std::to_string(root.rows()) + "×" +
                                    std::to_string(root.cols()) + " root for a " +
                                    std::to_string(m_root.rows()) + "×" +
                                    std::to_string(m_root.cols()) + " one");
    m_root = m_form == CovarianceForm::Full ? Eigen::MatrixXd(root.triangularView<Eigen::Upper>())
                                            : root;
    m_precisionValid = false;
}

void GaussianQ::visitState(StateArchive& a)
{
    a.field("mean", m_mean);
    a.field("root", m_root);
    a.field("precision_valid", m_precisionValid);
    a.field("precision", m_precision);
}

void GaussianQ::setCovariance(const Eigen::MatrixXd& S)
{
    if (S.rows() != dim() || S.cols() != dim())
        throw std::invalid_argument("GaussianQ::setCovariance: a " + std::to_string(S.rows()) +
                                    "×" + std::to_string(S.cols()) + " matrix for dimension " +
                                    std::to_string(dim()));
    if (m_form == CovarianceForm::Diagonal) {
        m_root.col(0) = S.diagonal().cwiseSqrt();
        return;
    }
    const Eigen::LLT<Eigen::MatrixXd> llt(S);
    if (llt.info() != Eigen::Success)
        throw std::invalid_argument("GaussianQ::setCovariance: not positive definite");
    m_root = llt.matrixU();
    m_precisionValid = false;
}

} // namespace svi
