#pragma once
// A run's output folder, checked and claimed before any work, so that results never mix and
// never race:
// - a run writes into a new folder, an empty one, or one holding the same run (a run it
//   resumes, or a run the window saves again where it saved it before);
// - anything else is refused, or with `force` cleared when the run starts writing — but only a
//   folder an earlier svi run or svi compare wrote (run.json or results.json at its top), so
//   that no file of the user's own is ever removed;
// - a lock file (kLockFile, with the writer's process id) refuses a second writer while the
//   first lives; a crashed writer's lock is taken over;
// - an unwritable folder is refused at once;
// - a folder the claim created is removed again when the run fails before it starts writing.

#include "core/run/run_description.h"

#include <QString>
#include <memory>
#include <optional>

class QLockFile;

namespace svi {

// The lock file in a claimed folder.
inline constexpr const char* kLockFile = ".svi-lock";

// Throws DataError naming `dir` unless a run may write into it: it does not exist, is empty
// (the lock file aside), or holds a run.json that describes `sameRun` (when given). With
// `force`, a folder an earlier run or comparison wrote (run.json or results.json at its top)
// passes too. `hint` ends the message (what the user may do instead, in the front end's words).
void checkOutputFolder(const QString& dir, const RunDescription* sameRun, bool force,
                       const std::string& hint = {});

class OutputFolder
{
public:
    struct Rules
    {
        // A run.json describing this run may be there already (a resumed run).
        std::optional<RunDescription> sameRun;
        // A folder an earlier run or comparison wrote is cleared when the run starts writing.
        bool force = false;
        // The end of a refusal's message (e.g. "choose another --out, or --force to replace it").
        std::string hint;
    };

    // Checks `dir` (checkOutputFolder), creates it (and its parents) when absent and takes its
    // lock. Throws DataError naming the folder: not a folder, not writable, not empty, held by
    // another writer (naming its process id).
    OutputFolder(const QString& dir, Rules rules);
    // Releases the lock; a folder the claim created and nothing was written into is removed
    // (with the parents the claim created).
    ~OutputFolder();
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;

    // The run starts writing: the folder stays whatever happens next, and with `force` what
    // was there is removed first (the lock aside). Throws DataError naming what cannot be
    // removed. Idempotent.
    void startWriting();

    const QString& path() const { return m_dir; }

private:
    QString m_dir;
    Rules m_rules;
    std::unique_ptr<QLockFile> m_lock;
    QStringList m_created; // folders made by the claim, innermost first
    bool m_writing = false;
};

} // namespace svi
