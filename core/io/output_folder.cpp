#include "core/io/output_folder.h"

#include "core/io/data_error.h"
#include "core/io/run_json.h"
#include "core/io/run_resume.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>

namespace svi {

namespace {

QString shown(const QString& dir)
{
    return QDir::toNativeSeparators(dir);
}

[[noreturn]] void refuse(const QString& dir, const std::string& why, const std::string& hint)
{
    throw DataError("the output folder '" + shown(dir).toStdString() + "' " + why +
                    (hint.empty() ? "" : ": " + hint));
}

// What the folder holds besides the lock file.
QStringList contentsOf(const QDir& d)
{
    QStringList entries =
        d.entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot);
    entries.removeAll(kLockFile);
    return entries;
}

// A folder's run.json as JSON (empty when it cannot be read).
QJsonObject runJsonOf(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

} // namespace

void checkOutputFolder(const QString& dir, const RunDescription* sameRun, bool force,
                       const std::string& hint)
{
    const QFileInfo info(dir);
    if (!info.exists())
        return;
    if (!info.isDir())
        refuse(dir, "is a file, not a folder", hint);
    const QDir d(dir);
    const QStringList entries = contentsOf(d);
    if (entries.isEmpty())
        return;
    const bool holdsRun = entries.contains(kRunJsonFile);
    const bool holdsComparison = entries.contains("results.json");
    if (holdsRun) {
        // The same run is the same description, compared as written (its files need not be
        // readable: the window's runs may be on data from memory).
        const QJsonObject there = runJsonOf(d.filePath(kRunJsonFile));
        if (sameRun && !there.isEmpty() && there == runToJson(*sameRun))
            return;
        const std::string which = there.isEmpty()
                                      ? std::string("a run.json that cannot be read")
                                      : there.value("model").toString().toStdString() + "/" +
                                            there.value("algorithm").toString().toStdString();
        if (force)
            return;
        refuse(dir, "holds another run (" + which + ")", hint);
    }
    if (holdsComparison) {
        if (force)
            return;
        refuse(dir, "holds the results of a comparison", hint);
    }
    refuse(dir,
           "is not empty and was not written by svi (it holds " + std::to_string(entries.size()) +
               " entries, e.g. '" + entries.front().toStdString() +
               "'): choose an empty or new folder",
           {});
}

OutputFolder::OutputFolder(const QString& dir, Rules rules) : m_dir(dir), m_rules(std::move(rules))
{
    checkOutputFolder(dir, m_rules.sameRun ? &*m_rules.sameRun : nullptr, m_rules.force,
                      m_rules.hint);
    // The folders mkpath will make, innermost first, so that a run failing early removes them.
    for (QFileInfo f(QDir::cleanPath(QFileInfo(dir).absoluteFilePath())); !f.exists();
         f = QFileInfo(f.absolutePath())) {
        m_created << f.absoluteFilePath();
        if (f.absoluteFilePath() == f.absolutePath())
            break; // the root
    }
    if (!QDir().mkpath(dir)) {
        m_created.clear();
        refuse(dir, "cannot be created (is its parent writable?)", {});
    }
    m_lock = std::make_unique<QLockFile>(QDir(dir).filePath(kLockFile));
    m_lock->setStaleLockTime(0); // stale only when its writer is gone, however old
    if (!m_lock->tryLock(0)) {
        const QLockFile::LockError error = m_lock->error();
        qint64 pid = 0;
        m_lock->getLockInfo(&pid, nullptr, nullptr); // the holder's, when there is one
        m_lock.reset();
        if (error == QLockFile::LockFailedError) {
            m_created.clear(); // not ours to remove
            refuse(dir,
                   "is being written by another run (process " + std::to_string(pid) +
                       "): wait for it to end, or choose another folder",
                   {});
        }
        for (const QString& c : m_created)
            QDir().rmdir(c);
        m_created.clear();
        refuse(dir, "is not writable", {});
    }
}

OutputFolder::~OutputFolder()
{
    if (m_lock)
        m_lock->unlock();
    if (!m_writing)
        for (const QString& c : m_created)
            if (!QDir().rmdir(c)) // only while empty: never what another process put there
                break;
}

void OutputFolder::startWriting()
{
    if (m_writing)
        return;
    m_writing = true;
    if (!m_rules.force)
        return;
    const QDir d(m_dir);
    for (const QString& e : contentsOf(d)) {
        const QFileInfo f(d.filePath(e));
        const bool gone = f.isDir() && !f.isSymLink() ? QDir(f.filePath()).removeRecursively()
                                                      : QFile::remove(f.filePath());
        if (!gone)
            throw DataError("cannot clear '" + shown(f.filePath()).toStdString() +
                            "' from the output folder before the run writes there");
    }
}

} // namespace svi
