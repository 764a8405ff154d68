#include "core/run/run_checkpoint.h"

namespace svi {

void CheckpointIdentity::visitState(StateArchive& a)
{
    a.field("model", model);
    a.field("algorithm", algorithm);
    a.field("seed", seed);
}

CheckpointIdentity checkpointIdentity(const RunDescription& run)
{
    return {run.model, run.algorithm, run.seed};
}

std::string checkpointState(const CheckpointIdentity& identity, const RunProgress& progress,
                            Trainer& trainer)
{
    StateArchive out;
    CheckpointIdentity id = identity;
    RunProgress p = progress;
    out.field("run", id);
    out.field("progress", p);
    out.field("trainer", trainer);
    return out.bytes();
}

RunProgress checkpointProgress(std::string_view state, CheckpointIdentity* identity)
{
    StateArchive in(state);
    CheckpointIdentity found;
    RunProgress progress;
    in.field("run", found);
    in.field("progress", progress);
    if (identity)
        *identity = found;
    return progress;
}

RunProgress restoreCheckpoint(std::string_view state, const CheckpointIdentity& expected,
                              Trainer& trainer)
{
    StateArchive in(state);
    CheckpointIdentity found;
    in.field("run", found);
    if (!(found == expected))
        throw StateError("checkpoint: written by a run of " + found.model + "/" + found.algorithm +
                         " with seed " + std::to_string(found.seed) + ", but this run is " +
                         expected.model + "/" + expected.algorithm + " with seed " +
                         std::to_string(expected.seed));
    RunProgress progress;
    in.field("progress", progress);
    in.field("trainer", trainer);
    in.finish();
    return progress;
}

} // namespace svi
