#pragma once
// Paths as the readers name and test them: what the corpus, ratings and recognition code share.
// Internal to core/io.

#include <QFileInfo>
#include <QString>
#include <string>

namespace svi {

inline QString qstr(const std::string& s)
{
    return QString::fromStdString(s);
}

inline bool isDirectory(const std::string& path)
{
    return QFileInfo(qstr(path)).isDir();
}

// The file name in lower case without a final ".gz".
inline QString plainName(const std::string& path)
{
    QString name = QFileInfo(qstr(path)).fileName().toLower();
    if (name.endsWith(".gz"))
        name.chop(3);
    return name;
}

} // namespace svi
