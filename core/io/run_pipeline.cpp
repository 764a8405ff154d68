#include "core/io/run_pipeline.h"

#include "core/base/communicator.h"
#include "core/models/builtin.h"
#include "core/run/run_checkpoint.h"

#include <algorithm>
#include <stdexcept>

namespace svi {

namespace {

RunDescription resolvedOrThrow(const RunDescription& run)
{
    auto resolved = resolveRun(run, builtinDataKinds(), builtinRegistry());
    if (auto* e = std::get_if<ParamError>(&resolved))
        throw std::invalid_argument(e->message);
    return std::get<RunDescription>(resolved);
}

} // namespace

PreparedRun prepareRun(const RunDescription& given, const std::vector<const AlgorithmEntry*>* runs,
                       Communicator* ranks)
{
    std::vector<const AlgorithmEntry*> matching;
    if (!runs) {
        // The algorithm given, or the one a run without one takes: the model's default.
        const Registry& r = builtinRegistry();
        if (const AlgorithmEntry* e = given.algorithm.empty()
                                          ? r.defaultAlgorithm(given.model)
                                          : r.find(given.model, given.algorithm))
            matching.push_back(e);
        runs = &matching;
    }
    // On several ranks each reads only its part of the files when every trainer to run on them
    // keeps to its rank's rows (and the format allows it); otherwise every rank reads them whole.
    const bool inParts = ranks && ranks->distributed() && !runs->empty() &&
                         std::all_of(runs->begin(), runs->end(),
                                     [](const AlgorithmEntry* e) { return e->readsParts; });
    PreparedRun p;
    // Data without a kind are read as a kind the model takes, when they can be (withKindFor).
    const DataDescription data = withKindFor(given.data, given.model, given.algorithm);
    p.data = prepareData(data, builtinDataKinds(), inParts ? ranks : nullptr);
    RunDescription run = given;
    run.data = p.data.data;
    p.run = resolvedOrThrow(run);
    p.entry = builtinRegistry().find(p.run.model, p.run.algorithm);
    // A kind other than the content's, chosen for the model, is said with the data's summary.
    if (const std::string note = kindNote(p.run.data, p.run.model, p.run.algorithm); !note.empty())
        p.data.built.summary += " · " + note;
    checkRunMemory(*p.entry, p.data.built.data, p.run.params);
    return p;
}

std::vector<MemoryTerm> runMemory(const AlgorithmEntry& entry, const DataSet& data,
                                  const ParamValues& params)
{
    if (!entry.memory || !data)
        return {};
    auto resolved = resolveParams(entry.params, params);
    if (std::holds_alternative<ParamError>(resolved))
        return {};
    return entry.memory(data, std::get<ParamValues>(resolved));
}

std::string runMemoryRefusal(const AlgorithmEntry& entry, const DataSet& data,
                             const ParamValues& params)
{
    return memoryRefusal(runMemory(entry, data, params), availableMemory(),
                         entry.label + " on these data");
}

void checkRunMemory(const AlgorithmEntry& entry, const DataSet& data, const ParamValues& params)
{
    const std::string why = runMemoryRefusal(entry, data, params);
    if (!why.empty())
        throw std::invalid_argument(why);
}

RunOptions runOptionsFor(const AlgorithmEntry& entry, const DataSet& data,
                         const RunDescription& run)
{
    RunOptions options = run.runOptions();
    options.outOfMemoryNote = memoryNote(runMemory(entry, data, run.params));
    return options;
}

PreparedRun withAlgorithm(const PreparedRun& prepared, const std::string& model,
                          const std::string& algorithm, const ParamValues& params)
{
    const AlgorithmEntry* entry = builtinRegistry().find(model, algorithm);
    if (!entry)
        throw std::invalid_argument("no algorithm '" + algorithm + "' of model '" + model +
                                    "' (see svi list)");
    PreparedRun p = prepared;
    p.run.model = model;
    p.run.algorithm = algorithm;
    p.run.params.clear();
    for (const ParamSpec& s : entry->params)
        if (params.count(s.key))
            p.run.params[s.key] = params.at(s.key);
    p.run = resolvedOrThrow(p.run);
    p.entry = entry;
    checkRunMemory(*entry, p.data.built.data, p.run.params);
    return p;
}

BuiltRun buildRun(const AlgorithmEntry& entry, const DataSet& data, const RunDescription& run,
                  const QString& resumeFrom, bool livePreview)
{
    BuiltRun b;
    try {
        b.trainer = entry.make(data, run.params, run.seed);
    } catch (const std::bad_alloc&) {
        throw std::runtime_error(outOfMemoryMessage("while building " + entry.label,
                                                    runMemory(entry, data, run.params)));
    }
    if (livePreview)
        b.trainer->setLivePreview(true);
    if (!resumeFrom.isEmpty()) {
        try {
            b.resumed = readResumePoint(resumeFrom, checkpointIdentity(run), *b.trainer);
        } catch (...) {
            b.trainer.reset(); // a trainer half read from a checkpoint is not used
            throw;
        }
    }
    return b;
}

} // namespace svi
