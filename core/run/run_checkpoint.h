#pragma once
// What a run's checkpoint holds, as StateArchive records: which run wrote it (model,
// algorithm, seed: checked before anything is read into a trainer), where the run's loop stood
// (RunProgress) and the trainer's whole state (Trainer::visitState). The file around it (format
// version, checksum, atomic writes) is core/io/checkpoint_file.h. No Qt.

#include "core/run/run_description.h"
#include "core/run/runner.h"
#include "core/run/trainer.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace svi {

struct CheckpointIdentity
{
    std::string model, algorithm;
    std::uint64_t seed = 0;
    void visitState(StateArchive& a);
    bool operator==(const CheckpointIdentity&) const = default;
};

// The identity of the run `run` describes (its model, algorithm and seed).
CheckpointIdentity checkpointIdentity(const RunDescription& run);

// The state of a run at `progress`: identity, progress, then the trainer's records.
std::string checkpointState(const CheckpointIdentity& identity, const RunProgress& progress,
                            Trainer& trainer);

// Which run wrote `state` and where it stood, without reading the trainer's part (for a window
// or a command that lists checkpoints). Throws StateError when those records are damaged.
RunProgress checkpointProgress(std::string_view state, CheckpointIdentity* identity = nullptr);

// Reads `state` into `trainer` (built from the same run description and data) and returns where
// the run stood. Throws StateError when the checkpoint is another run's (naming both) or does
// not fit the trainer; the trainer is then in an unspecified state and must be discarded.
RunProgress restoreCheckpoint(std::string_view state, const CheckpointIdentity& expected,
                              Trainer& trainer);

} // namespace svi
