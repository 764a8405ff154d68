// RunManager: runs read from folders that `svi run --out` or `svi compare --out` write, shown
// like the window's own runs and read again as they grow. Reads run on threads of their own
// and hand their results back through the inbox, as the trainers do.

#include "core/io/data_error.h"
#include "core/io/run_folder.h"
#include "core/io/run_json.h"
#include "core/io/run_resume.h"
#include "ui/run_manager.h"
#include "ui/trace_plot.h"

#include <QDir>
#include <QFileInfo>
#include <QFileSystemWatcher>
#include <QTimer>

namespace svi::ui {

// What a read of a folder found: one run, or a compare folder's runs, each with its
// description when its run.json reads; or why nothing could be read.
struct RunManager::FolderRead
{
    QString folder;
    std::vector<RunFolder> runs;
    std::vector<std::optional<RunDescription>> specs;
    QString error;
};

namespace {

// How often a watched folder is read even when the watcher says nothing.
constexpr int kWatchMs = 1000;

std::optional<RunDescription> specIn(const QString& folder)
{
    const QString path = QDir(folder).filePath(kRunJsonFile);
    if (!QFileInfo(path).isFile())
        return std::nullopt;
    try {
        return readRunFile(path.toStdString());
    } catch (const std::exception&) {
        return std::nullopt; // the run is shown from its trace and summary alone
    }
}

} // namespace

Summary endingOf(const RunFolder& folder)
{
    Summary s;
    s.reason = terminationOf(folder.termination).value_or(TerminationReason::Failed);
    s.message = folder.message;
    if (!folder.trace.empty()) {
        const Snapshot& last = folder.trace.back();
        s.steps = last.step;
        s.epochs = last.epochs;
        s.trainSeconds = last.trainSeconds;
        s.last = last;
    }
    return s;
}

void RunManager::openFolder(const QString& folder)
{
    const int key = m_nextReadToken--;
    // One spelling of the folder, so that the watcher's paths compare with it.
    const QString clean = QDir::cleanPath(QFileInfo(folder).absoluteFilePath());
    m_reading[key] = std::thread([this, key, path = clean.toStdString()] {
        auto read = std::make_shared<FolderRead>();
        read->folder = QString::fromStdString(path);
        try {
            if (isRunFolder(read->folder) || !QFileInfo(read->folder).isDir()) {
                read->runs.push_back(readRunFolder(read->folder)); // names what is missing
            } else {
                read->runs = readCompareFolder(read->folder);
                if (read->runs.empty())
                    throw DataError("'" + path + "' holds no " + kTraceFile +
                                    ", nor sub-folders that do: it is not the folder of a run "
                                    "(Run ▸ Save Run… writes one) or of compared runs");
            }
            for (const RunFolder& r : read->runs)
                read->specs.push_back(specIn(r.path));
        } catch (const std::exception& e) {
            read->runs.clear();
            read->error = QString::fromStdString(e.what());
        }
        Message m;
        m.id = key;
        m.folder = std::move(read);
        post(std::move(m));
    });
}

void RunManager::onFolderRead(int key, const std::shared_ptr<FolderRead>& read)
{
    if (key < 0) { // opened
        if (!read->error.isEmpty()) {
            emit folderFailed(read->folder, read->error);
            return;
        }
        // The runs of one compare folder are one group, as when they were started together.
        const int group = read->runs.size() > 1 ? m_nextGroup++ : 0;
        QList<int> ids;
        for (std::size_t i = 0; i < read->runs.size(); ++i)
            ids << addFolderRun(read->runs[i], read->specs[i], group);
        emit folderOpened(read->folder, ids);
        return;
    }
    // Read again while watched: a read that failed (a file caught mid-write by a writer that
    // does not replace it whole) keeps the rows shown.
    const bool again = m_readAgain.erase(key) > 0;
    RunRecord* r = find(key);
    if (!r || r->status != RunStatus::Watching)
        return;
    if (!read->error.isEmpty() || read->runs.empty()) {
        if (again)
            readAgain(key);
        return;
    }
    const RunFolder& f = read->runs.front();
    r->trace = f.trace;
    emit snapshotArrived(key);
    if (f.termination.empty()) {
        if (again)
            readAgain(key);
        watch(key); // a file replaced by a rename is watched again
        return;
    }
    // summary.json is there: the run has ended, and the folder is no longer watched.
    unwatch(key);
    r->summary = endingOf(f);
    r->status = RunStatus::Finished;
    r->phase = RunPhase::Finished;
    emit runChanged(key);
    emit runFinished(key);
}

int RunManager::addFolderRun(const RunFolder& f, const std::optional<RunDescription>& spec,
                             int group)
{
    RunDescription d;
    if (spec) {
        d = *spec;
    } else { // no readable run.json: what summary.json says
        d.model = f.model;
        d.algorithm = f.algorithm;
        d.seed = f.seed;
    }
    const bool ended = !f.termination.empty();
    const int id =
        add(d, {}, group, ended ? RunStatus::Finished : RunStatus::Watching, [&](RunRecord& r) {
            r.readFrom = f.path;
            r.label = QString("#%1 %2 · %3")
                          .arg(r.id)
                          .arg(QString::fromStdString(f.label), QFileInfo(f.path).fileName());
            r.trace = f.trace;
            if (ended) {
                r.summary = endingOf(f);
                r.phase = RunPhase::Finished;
            }
        });
    if (!ended)
        watch(id);
    emit runChanged(id);
    return id;
}

void RunManager::watch(int id)
{
    const RunRecord* r = find(id);
    if (!r)
        return;
    if (!m_fileWatcher) {
        m_fileWatcher = new QFileSystemWatcher(this);
        connect(m_fileWatcher, &QFileSystemWatcher::fileChanged, this, &RunManager::onFileChanged);
        connect(m_fileWatcher, &QFileSystemWatcher::directoryChanged, this,
                &RunManager::onFileChanged);
        m_watchTimer = new QTimer(this);
        m_watchTimer->setInterval(kWatchMs);
        connect(m_watchTimer, &QTimer::timeout, this, [this] {
            for (const auto& [watched, folder] : m_watched)
                readAgain(watched);
        });
    }
    m_watched[id] = r->readFrom;
    // The folder (a summary.json appearing) and the trace (rewritten in place, or replaced by a
    // rename, which drops the watch: hence this call after every read).
    QStringList paths = {r->readFrom};
    const QString trace = QDir(r->readFrom).filePath(kTraceFile);
    if (QFileInfo::exists(trace))
        paths << trace;
    const QStringList have = m_fileWatcher->files() + m_fileWatcher->directories();
    for (const QString& p : paths)
        if (!have.contains(p))
            m_fileWatcher->addPath(p);
    if (!m_watchTimer->isActive())
        m_watchTimer->start();
}

void RunManager::unwatch(int id)
{
    const auto it = m_watched.find(id);
    if (it == m_watched.end())
        return;
    const QString folder = it->second;
    m_watched.erase(it);
    m_readAgain.erase(id);
    bool shared = false; // the same folder opened twice
    for (const auto& [other, f] : m_watched)
        shared = shared || f == folder;
    if (!shared && m_fileWatcher)
        m_fileWatcher->removePaths({folder, QDir(folder).filePath(kTraceFile)});
    if (m_watched.empty() && m_watchTimer)
        m_watchTimer->stop();
}

void RunManager::onFileChanged(const QString& path)
{
    for (const auto& [id, folder] : m_watched)
        if (path == folder ||
            QFileInfo(path).absolutePath() == QFileInfo(folder).absoluteFilePath())
            readAgain(id);
}

void RunManager::readAgain(int id)
{
    const auto it = m_watched.find(id);
    if (it == m_watched.end())
        return;
    if (m_reading.count(id)) { // one read at a time: another when this one is in
        m_readAgain.insert(id);
        return;
    }
    m_reading[id] = std::thread([this, id, path = it->second.toStdString()] {
        auto read = std::make_shared<FolderRead>();
        read->folder = QString::fromStdString(path);
        try {
            read->runs.push_back(readRunFolder(read->folder));
        } catch (const std::exception& e) {
            read->error = QString::fromStdString(e.what());
        }
        Message m;
        m.id = id;
        m.folder = std::move(read);
        post(std::move(m));
    });
}

} // namespace svi::ui
