#pragma once
// A run from its description to its trainer, the same for every front end: the data prepared
// (read, completed with what they suggest, built), the run resolved against the registry, and
// the trainer built, going on from a run folder's checkpoint when one is named. `svi run`,
// `svi compare` and `svi bench` prepare their runs here, and the window builds its trainers
// here; what a run leaves behind is written by core/io/run_resume.h's writeRunFolder.
//
// Pure functions of their arguments and the files; safe to call from any thread.

#include "core/io/data_kinds.h"
#include "core/io/run_resume.h"
#include "core/run/registry.h"
#include "core/run/run_description.h"

#include <QString>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace svi {

class Communicator;

// A run ready to go: its description resolved (every setting and parameter present), its data
// built, its registry entry.
struct PreparedRun
{
    RunDescription run;
    PreparedData data;
    const AlgorithmEntry* entry = nullptr;
};

// Prepares the data of `given` (prepareData) and resolves the run against the built-in
// registry. With `ranks` of several ranks (collective) the data are read in parts only when
// every entry of `runs` reads parts (AlgorithmEntry::readsParts); `runs` unset means the
// entries `given` names (its model's, or its one algorithm). Throws std::invalid_argument with
// a one-line reason (a setting, a parameter, an unknown model, a run that would not fit in the
// memory available: checkRunMemory), DataError naming the file (or data a kind would draw
// that would not fit).
PreparedRun prepareRun(const RunDescription& given,
                       const std::vector<const AlgorithmEntry*>* runs = nullptr,
                       Communicator* ranks = nullptr);

// `prepared` for another algorithm, with the values of `params` its entry declares, on the same
// data. Throws std::invalid_argument (as prepareRun, the memory check included).
PreparedRun withAlgorithm(const PreparedRun& prepared, const std::string& model,
                          const std::string& algorithm, const ParamValues& params);

// The memory a run of `entry` on `data` with `params` (completed with the declared defaults)
// takes beyond its data; empty when the entry declares none or the parameters do not resolve.
std::vector<MemoryTerm> runMemory(const AlgorithmEntry& entry, const DataSet& data,
                                  const ParamValues& params);
// Why that memory does not fit in what the machine has available now (memoryRefusal: "<label>
// on these data would need …"); empty when it fits.
std::string runMemoryRefusal(const AlgorithmEntry& entry, const DataSet& data,
                             const ParamValues& params);
// Throws std::invalid_argument with runMemoryRefusal's message when it is not empty.
void checkRunMemory(const AlgorithmEntry& entry, const DataSet& data, const ParamValues& params);

// The options every front end runs `run` of `entry` on `data` with: the description's budget and
// cadence (RunDescription::runOptions), and the run's memory estimate as what an out-of-memory
// ending says (RunOptions::outOfMemoryNote).
RunOptions runOptionsFor(const AlgorithmEntry& entry, const DataSet& data,
                         const RunDescription& run);

// A trainer of `run` on `data`, and where it goes on from.
struct BuiltRun
{
    std::unique_ptr<Trainer> trainer;
    std::optional<ResumePoint> resumed; // set when built to go on from a folder's checkpoint
};

// Builds `entry`'s trainer for `run` on `data` (its parameters resolved), with a live preview
// when `livePreview` (Trainer::setLivePreview: set before a checkpoint is read, which then
// restores the preview's running state too); with `resumeFrom` set, reads that run folder's
// checkpoint and trace into it (readResumePoint). Throws
// std::invalid_argument when the trainer cannot be built for the data (e.g. a patch size that
// does not fit the image), DataError naming the file when the checkpoint cannot be used,
// std::runtime_error "out of memory while building …" with the run's estimate when an
// allocation fails.
BuiltRun buildRun(const AlgorithmEntry& entry, const DataSet& data, const RunDescription& run,
                  const QString& resumeFrom = {}, bool livePreview = false);

} // namespace svi
