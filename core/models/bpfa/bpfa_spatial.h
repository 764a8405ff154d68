#pragma once
// The neighbour coupling of BPFA on an image: neighbouring patches that use the same atoms.
//
// Paper 000's prior draws every patch's features independently, z_ik ~ Bernoulli(π_k), while
// neighbouring patches of an image use the same atoms. Here the prior of z_ik given the
// features of the four patches one pixel away, N(i), is the centred auto-logistic model
// (Caragea & Kaiser 2009):
//
//   logit p(z_ik = 1 | z_N(i),k, π_k) = logit π_k + β Σ_{j ∈ N(i)} (z_jk − π_k),
//
// a Markov random field on the patch grid whose centring keeps π_k the probability of atom k
// where the neighbours are at their means, so that the beta process keeps its meaning (a
// spatially dependent prior in the spirit of the dependent hierarchical beta process of Zhou
// et al. 2011, in the form every local family of paper 000 can take: a shift of each feature's
// prior log-odds, Workspace::shift). A patch's local step takes its neighbours' z at their
// latest local expectations E[z_jk] (a neighbour not yet visited adds nothing); the global step
// is the paper's, counting the coupled features as it counts independent ones (q(π) fitted by
// pseudo-likelihood). β = 0 is the paper's model.

#include "core/base/communicator.h"
#include "core/base/state_archive.h"
#include "core/data/dense_data.h"
#include "core/models/bpfa/bpfa_model.h"
#include "core/models/bpfa/bpfa_overlap.h"

#include <cstdint>
#include <vector>

namespace svi::bpfa {

class NeighbourCoupling
{
public:
    NeighbourCoupling() = default;
    // The patch grid of `layout`, K features, no patch visited yet.
    NeighbourCoupling(const ImageLayout& layout, int K);

    bool empty() const { return m_ez.size() == 0; }
    // ws.shift += β Σ_{j ∈ N(i), visited} (E[z_jk] − π_k), π_k = exp E[log π_k] (view.pi).
    void shiftPrior(Workspace& ws, std::int64_t i, double beta, const GlobalView& view) const;
    // Patch i's local expectations E[z_ik] (K values in [0, 1]) replace its earlier ones.
    void update(std::int64_t i, const float* ez);
    // E[z_ik] as stored (to 1/255), or −1 when patch i has not been visited.
    double stored(std::int64_t i, int k) const;
    // The patches one pixel away from patch i (2 to 4), written to `out`; returns their count.
    int neighbours(std::int64_t i, std::int64_t out[4]) const;
    // Checkpoints: every patch's stored expectations and whether it was visited.
    void visitState(StateArchive& archive)
    {
        archive.field("expectations", m_ez);
        archive.field("visited", m_visited);
    }

private:
    int m_across = 0, m_down = 0; // patches per row and per column
    // patches × K: E[z_ik] × 255 rounded (a byte each: 65 MB for a 512² image at K = 256).
    MatrixRU8 m_ez;
    MatrixRU8 m_visited; // patches × 1: 1 once the patch has been visited
};

// What BPFA keeps of an image's structure from step to step: the overlap consensus and the
// neighbour coupling, each empty when off. Each visit of a patch leaves a record, its D
// predictions (overlap) then its K expectations E[z_ik] (coupling), which the trainer passes
// between ranks and applies in the minibatch's order.
class ImageStructure
{
public:
    ImageStructure() = default;
    // Throws std::invalid_argument, naming the option, when the layout holds no pixel mask.
    ImageStructure(const ImageLayout& layout, int K, double overlapWeight, double coupling,
                   int overlapPixels = 0, int overlapRamp = 0);

    bool empty() const { return m_overlap.empty() && m_coupling.empty(); }
    // The pseudo-observations and the prior's shift of patch i, gathered in `ws`. With `rng`
    // (a training step), at most overlapPixels pseudo-observations (0: all). The
    // pseudo-observations weigh overlapWeight × min(1, v / overlapRamp) after v visits of the
    // patch (all of it when overlapRamp = 0); none at weight 0.
    void apply(Workspace& ws, std::int64_t i, const GlobalView& view, Rng* rng = nullptr) const;
    // Floats in a patch's record (0 when both are off).
    int recordWidth() const { return m_width; }
    // Whether the record starts with the patch's D predictions (which the trainer writes).
    bool wantsPrediction() const { return !m_overlap.empty(); }
    // Writes the record's expectations part from the local step in `ws`.
    void recordExpectations(const Workspace& ws, float* record) const;
    // Applies patch i's record.
    void update(std::int64_t i, const float* record);
    // Applies the records of `items` (rows of `records`), in their order.
    void update(const std::vector<std::int64_t>& items, const MatrixRF& records);
    // Several ranks: every rank applies every record of the minibatch `batch`, in its order;
    // this rank's records are rows of `records`, at `positions` in the minibatch.
    void update(const std::vector<std::int64_t>& batch, const std::vector<std::int64_t>& positions,
                const MatrixRF& records, Communicator& ranks);
    const OverlapConsensus& overlap() const { return m_overlap; }
    const NeighbourCoupling& coupling() const { return m_coupling; }
    void visitState(StateArchive& archive);

private:
    OverlapConsensus m_overlap;
    NeighbourCoupling m_coupling;
    double m_alpha = 0.0, m_beta = 0.0;
    int m_D = 0, m_width = 0, m_pixels = 0, m_ramp = 0;
    std::vector<double> m_buffer; // the minibatch's records, summed over the ranks
    MatrixRF m_records;           // the same as floats
};

} // namespace svi::bpfa
