#pragma once
// Gauss–Hermite quadrature for expectations under a standard normal: with n nodes z_k and
// weights w_k (Σ w_k = 1), Σ_k w_k g(z_k) = E_{N(0,1)}[g(z)] exactly for every polynomial g of
// degree ≤ 2n − 1, and very nearly so for the smooth log-likelihoods of a latent Gaussian model.
// E_{N(m,v)}[g(f)] is then Σ_k w_k g(m + √v z_k).
//
// The nodes are the eigenvalues of the Jacobi matrix of the probabilists' Hermite polynomials
// (zero diagonal, off-diagonal √k), the weights the squared first components of its
// eigenvectors (Golub & Welsch 1969), computed with Eigen's symmetric eigensolver.
// Immutable once built; safe to share between threads.

#include <Eigen/Core>
#include <cmath>

namespace svi {

class GaussHermite
{
public:
    // Throws std::invalid_argument when n < 1 or n > 200.
    explicit GaussHermite(int n);
    int size() const { return int(m_nodes.size()); }
    const Eigen::VectorXd& nodes() const { return m_nodes; }     // ascending
    const Eigen::VectorXd& weights() const { return m_weights; } // positive, sum 1

    // E_{N(mean, variance)}[g(f)], variance ≥ 0.
    template <typename G> double expect(double mean, double variance, G&& g) const
    {
        const double sd = variance > 0.0 ? std::sqrt(variance) : 0.0;
        double s = 0.0;
        for (Eigen::Index k = 0; k < m_nodes.size(); ++k)
            s += m_weights[k] * g(mean + sd * m_nodes[k]);
        return s;
    }

private:
    Eigen::VectorXd m_nodes;
    Eigen::VectorXd m_weights;
};

// Gauss quadrature for expectations under a Rayleigh(1) variable r (density r e^{−r²/2} on
// r > 0): Σ_k w_k g(r_k) = E[g(r)], exact for polynomials in r of degree ≤ 2n − 1; under
// Rayleigh(σ), E[g(x)] = Σ_k w_k g(σ r_k). No classical family has this weight, so its
// three-term recurrence comes from the discretised Stieltjes procedure (Gautschi 2004, §2.2):
// the measure is discretised by 400-point Gauss–Legendre on [0, 14] (the mass beyond is
// e^{−98}), the recurrence coefficients are computed from it, and the nodes and weights from
// its Jacobi matrix as for Gauss–Hermite. Immutable once built; any thread.
class GaussRayleigh
{
public:
    // Throws std::invalid_argument when n < 1 or n > 100.
    explicit GaussRayleigh(int n);
    int size() const { return int(m_nodes.size()); }
    const Eigen::VectorXd& nodes() const { return m_nodes; }     // ascending, positive
    const Eigen::VectorXd& weights() const { return m_weights; } // positive, sum 1

private:
    Eigen::VectorXd m_nodes;
    Eigen::VectorXd m_weights;
};

} // namespace svi
