#pragma once
// What the FCS tests share: the files of tests/data/fcs and the check of a refusal.

#include "core/io/fcs_file.h"

#include <QString>
#include <QtTest>
#include <string>

namespace fcs_testing {

using namespace svi;

inline QString dataFile(const char* name)
{
    return QString(SVI_TEST_DATA_DIR) + "/fcs/" + name;
}

// readFcs refuses `path` with a DataError naming the file and giving `reason`.
inline void expectError(const std::string& path, const QString& reason, bool readData = true)
{
    try {
        readFcs(path, readData);
        QFAIL(qPrintable("no error for " + QString::fromStdString(path)));
    } catch (const DataError& e) {
        const QString msg = QString::fromUtf8(e.what());
        QVERIFY2(msg.contains(QString::fromStdString(path)), qPrintable(msg));
        QVERIFY2(msg.contains(reason), qPrintable("expected '" + reason + "' in: " + msg));
    }
}

} // namespace fcs_testing
