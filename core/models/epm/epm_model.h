#pragma once
// The infinite edge partition model (Zhou 2015) truncated at K communities, as paper 003 fits
// it (Sec. 3.1, eq. 11–14):
//
//   P(y_ij = 1 | W, r) = 1 − exp(−p_ij),   p_ij = Σ_k r_k w_ik w_jk                    (11)
//   w_ik | a_i, c_i ~ G(a_i, c_i),   a_i ~ G(0.01, 0.01),   c_i ~ G(1, 1),
//   r_k | γ0, c0 ~ G(γ0/K, c0),      γ0 ~ G(1, 1),          c0 ~ G(1, 1)               (14)
//
// (G(shape, rate).) The paper's eq. 12–13 write p_ij = Σ_k w_ik w_jk, dropping the community
// weights r_k that eq. 11 has; its code (and Zhou's) keeps them, and so do we. The priors'
// constants are declared (Priors): a_i ~ G(a_shape, a_rate), and c_i, γ0, c0 ~ G(e0, f0), Zhou's
// names, with the paper's values as defaults.
//
// The likelihood sums over the training pairs i < j, each once (the held-out pairs are
// missing). Eq. 12–13 make it linear in the edges:
//   Σ_{train i<j} [y log(1 − e^{−p}) − (1 − y) p]
//     = Σ_{train edges} [log(1 − e^{−p}) + p] + Σ_{held-out pairs} p − Σ_{all i<j} p,
//   Σ_{all i<j} p_ij = ½ Σ_k r_k [(Σ_i w_ik)² − Σ_i w_ik²],
// so a log joint costs O((E_train + H)·K + N·K), never N². (The paper's code sums the
// symmetric matrix, every pair twice and the diagonal once as if observed; this is the model.)
//
// Thread-safety: Graph, Priors and the free functions are values and pure; LogJoint keeps
// scratch and must be called by one thread at a time (it uses OpenMP inside).

#include "core/base/parallel.h"
#include "core/base/param_fields.h"
#include "core/data/graph_data.h"
#include "core/inference/positive_sgvb.h"
#include "core/run/trainer.h"

#include <Eigen/Core>
#include <cstdint>
#include <vector>

namespace svi::epm {

using MatrixRD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The constants of eq. 14 (defaults: the paper's).
struct Priors : DeclaredOptions<Priors>
{
    Priors() { readDefaults(); }

    double aShape{}; // a_i ~ G(aShape, aRate)
    double aRate{};
    double e0{}; // c_i, γ0, c0 ~ G(e0, f0)
    double f0{};

    // The declarations (keys a_shape, a_rate, e0, f0, each > 0) bound to the fields.
    static ParamFields<Priors> declare();
    static const ParamFields<Priors>& fields();
};

// The graph as the samplers and the likelihood walk it: per node, its training edges and its
// held-out pairs, each pair listed at both ends (CSR), neighbours ascending.
struct Graph
{
    int nodes = 0;
    std::vector<NodePair> trainEdges;    // i < j, sorted
    std::vector<LabelledPair> heldOut;   // i < j, sorted
    std::vector<std::int64_t> edgeStart; // nodes + 1 offsets into edgeNeighbour
    std::vector<std::int32_t> edgeNeighbour;
    std::vector<std::int64_t> heldStart; // nodes + 1 offsets into heldNeighbour
    std::vector<std::int32_t> heldNeighbour;

    // Checks the data and builds the lists. Throws std::invalid_argument naming the source and
    // the field: fewer than 2 nodes, a pair out of range or not i < j, a training edge also
    // held out, or one that is not an edge of the graph.
    static Graph from(const GraphData& data);
    std::int64_t trainPairs() const
    {
        return std::int64_t(nodes) * (nodes - 1) / 2 - std::int64_t(heldOut.size());
    }
};

// Where each variable sits in the SGVB vector x (all positive):
//   x = [W (N×K, row-major: node i's row at iK), r (K), a (N), c (N), γ0, c0].
struct Layout
{
    Eigen::Index N = 0, K = 0;
    Eigen::Index w() const { return 0; }
    Eigen::Index r() const { return N * K; }
    Eigen::Index a() const { return N * K + K; }
    Eigen::Index c() const { return N * K + K + N; }
    Eigen::Index gamma0() const { return N * K + K + 2 * N; }
    Eigen::Index c0() const { return gamma0() + 1; }
    Eigen::Index size() const { return c0() + 1; }
};

// log p(Y_train, W, r, a, c, γ0, c0) of eq. 11–14 with every normalising constant, and its
// gradient in every variable, in O((E_train + H)·K + N·K):
//   ∂/∂w_ik = r_k [Σ_{j: train edge} w_jk/(1 − e^{−p_ij}) + Σ_{j: held out} w_jk − (S_k − w_ik)]
//             + (a_i − 1)/w_ik − c_i,                    S_k = Σ_i w_ik
//   ∂/∂r_k  = ½ Σ_i w_ik g_ik − ½ (S_k² − Σ_i w_ik²) + (γ0/K − 1)/r_k − c0,
//             g_ik the bracket's first two sums
//   ∂/∂a_i  = K log c_i − K ψ(a_i) + Σ_k log w_ik + (a_shape − 1)/a_i − a_rate
//   ∂/∂c_i  = K a_i/c_i − Σ_k w_ik + (e0 − 1)/c_i − f0
//   ∂/∂γ0   = (1/K) Σ_k [log c0 − ψ(γ0/K) + log r_k] + (e0 − 1)/γ0 − f0
//   ∂/∂c0   = γ0/c0 − Σ_k r_k + (e0 − 1)/c0 − f0.
// (d/dp [log(1 − e^{−p}) + p] = 1/(1 − e^{−p}).) Each edge is visited from both ends so that
// the nodes' gradient rows are written by one thread each; the terms are summed in a fixed
// order, so the result does not depend on the thread count.
class LogJoint final : public PositiveModel
{
public:
    // `graph` must outlive this.
    LogJoint(const Graph& graph, int K, const Priors& priors);
    Eigen::Index size() const override { return m_layout.size(); }
    double logJoint(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const override;
    // The items are the nodes: a node's terms are its edges' (g_i, the bracket's first two sums,
    // and its share of the likelihood), listed as the N × K rows g_i (zero outside `part`) and
    // their likelihood's sum; the rest of the log joint (O(N K)) follows from them.
    std::int64_t itemCount() const override { return m_layout.N; }
    void itemTerms(const Eigen::ArrayXd& x, Shard part, GlobalStatistic& statistic) const override;
    double fromItemTerms(const Eigen::ArrayXd& x, Eigen::ArrayXd& grad) const override;
    // Each variable's Markov blanket, O((E + H)K + NK): w_ik's is node i's pairs' likelihood,
    //   L_i = Σ_{j: train edge} [log(1 − e^{−p_ij}) + p_ij] + Σ_{j: held out} p_ij
    //         − Σ_k r_k w_ik (S_k − w_ik),
    // and its prior G(w_ik; a_i, c_i); a_i's and c_i's the priors of node i's memberships and
    // their own; r_k's the whole likelihood and G(r_k; γ0/K, c0); γ0's and c0's the r_k's
    // priors and their own.
    double blankets(const Eigen::ArrayXd& x, Eigen::ArrayXd& blanket) const override;
    // The likelihood term alone (the first line above), O((E + H)K + NK), for tests.
    double logLikelihood(const Eigen::ArrayXd& x) const;
    const Layout& layout() const { return m_layout; }

private:
    // Fills m_wr = W diag(r), and for the nodes of `part` m_nbr (g_i per node, zero for the
    // others) and m_edgeSum (Σ of their edges' terms).
    void nodeTerms(const Eigen::ArrayXd& x, Shard part) const;
    // The likelihood from m_edgeSum (every node's) and x.
    double likelihoodFromNodes(const Eigen::ArrayXd& x) const;

    const Graph& m_graph;
    Layout m_layout;
    Priors m_priors;
    mutable MatrixRD m_wr, m_nbr;
    mutable std::vector<double> m_nodeTerms; // per node: its edges' share of the likelihood
    mutable double m_edgeSum = 0.0;
};

// The likelihood summed pair by pair over every training pair i < j (O(N² K)), the
// definition against which the fast form is tested.
double naiveLogLikelihood(const GraphData& data, const MatrixRD& W, const Eigen::VectorXd& r);

// p_ij = Σ_k r_k w_ik w_jk.
inline double linkRate(const MatrixRD& W, const Eigen::VectorXd& r, int i, int j)
{
    return (W.row(i).transpose().array() * r.array() * W.row(j).transpose().array()).sum();
}

// The figures of held-out link probabilities: auc_roc, auc_pr and heldout_loglik (the mean of
// y log p̂ + (1 − y) log(1 − p̂) per pair, p̂ kept within [10⁻¹², 1 − 10⁻¹²]); nothing when no
// pair is held out; all three NaN when a probability is (a diverged state).
void addLinkMetrics(std::map<std::string, double>& metrics, const std::vector<LabelledPair>& pairs,
                    const std::vector<double>& probability);

// The latent edge counts each community holds, m_k = Σ_{train edges} n_ijk, in expectation at
// the point (W, r): an edge's count is a zero-truncated Poisson(p_ij), E[n_ij] = p/(1 − e^{−p}),
// split across the communities in proportion to r_k w_ik w_jk (Zhou 2015's augmentation). The
// Gibbs sampler's m_k are one draw of the same. O(E K).
Eigen::VectorXd expectedCommunityCounts(const Graph& graph, const MatrixRD& W,
                                        const Eigen::VectorXd& r);

// A community is in use when it holds at least one latent edge count (rounded: m_k ≥ ½); the
// metric communities_used of every EPM algorithm.
int communitiesUsed(const Eigen::VectorXd& counts);

// The preview of a fit with memberships W and weights r (point estimates: posterior means):
// node i's community is argmax_k r_k w_ik (S_k − w_ik), its expected links through k; the
// order lists the communities by decreasing r_k (those with a node), and within one the nodes
// by decreasing share. `linkProbability` (N×N, or empty above the size limit) is moved in.
std::shared_ptr<const GraphSummary> graphSummary(const MatrixRD& W, const Eigen::VectorXd& r,
                                                 Eigen::MatrixXf linkProbability);

// Above this many nodes a preview carries no N×N matrix (100 MB of floats at 5,000).
constexpr int kPreviewMaxNodes = 2500;

// Below this much work (multiply-adds, about) a loop's chunks run one after another on the
// calling thread: a parallel region costs microseconds, and on a busy machine far more.
constexpr std::int64_t kParallelWork = 1 << 15;

// forChunks (core/base/parallel.h) when `work` pays for a parallel region, else the same
// chunks in order: the same results either way, whatever the thread count.
template <typename Fn> void forChunksOf(std::int64_t n, std::int64_t work, Fn&& fn)
{
    if (work >= kParallelWork) {
        forChunks(n, fn);
        return;
    }
    const int chunks = int(std::min<std::int64_t>(kChunks, std::max<std::int64_t>(n, 1)));
    for (int c = 0; c < chunks; ++c)
        fn(c, n * c / chunks, n * (c + 1) / chunks);
}

// sumChunks likewise: per-chunk partial sums added in chunk order.
template <typename ChunkSum> double sumChunksOf(std::int64_t n, std::int64_t work, ChunkSum&& fn)
{
    double partial[kChunks] = {};
    forChunksOf(n, work,
                [&](int c, std::int64_t begin, std::int64_t end) { partial[c] = fn(begin, end); });
    double s = 0.0;
    for (double p : partial)
        s += p;
    return s;
}

} // namespace svi::epm
