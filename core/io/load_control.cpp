#include "core/io/load_control.h"

#include <QDirIterator>
#include <QFileInfo>
#include <algorithm>

namespace svi {

namespace {
thread_local LoadControl* t_current = nullptr;
} // namespace

void LoadControl::advance(std::int64_t bytes)
{
    m_done.fetch_add(bytes, std::memory_order_relaxed);
    if (cancelled())
        throw LoadCancelled();
}

double LoadControl::fraction() const
{
    const std::int64_t t = total();
    return t > 0 ? std::clamp(double(done()) / double(t), 0.0, 1.0) : 0.0;
}

LoadScope::LoadScope(LoadControl& control) : m_previous(t_current)
{
    t_current = &control;
}

LoadScope::~LoadScope()
{
    t_current = m_previous;
}

LoadControl* currentLoad()
{
    return t_current;
}

void reportRead(std::int64_t bytes)
{
    if (t_current)
        t_current->advance(bytes);
}

std::int64_t totalBytes(const std::vector<std::string>& paths)
{
    std::int64_t total = 0;
    for (const std::string& p : paths) {
        const QFileInfo info(QString::fromStdString(p));
        if (info.isFile()) {
            total += info.size();
        } else if (info.isDir()) {
            QDirIterator it(info.filePath(), QDir::Files | QDir::Hidden,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                it.next();
                total += it.fileInfo().size();
            }
        }
    }
    return total;
}

} // namespace svi
