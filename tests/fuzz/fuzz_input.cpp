#include "tests/fuzz/fuzz_input.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cstdlib>
#include <dlfcn.h>
#include <unistd.h>

// As the tools run: a QCoreApplication exists (image plugins, text codecs), made once and
// never destroyed: libFuzzer ends the process with exit(), and a QCoreApplication destroyed
// among the static destructors crashes in Qt. A static pointer keeps it reachable, not leaked.
//
// Qt's image-format plugins are kept loaded to the end (RTLD_NODELETE): Qt unloads them among
// the static destructors, before LeakSanitizer's final check, and the LeakSanitizer of GCC 12
// and clang 14 then crashes reading the dynamic TLS of an unloaded library (libjpeg's); the
// leak check itself is not weakened.
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv)
{
    static QCoreApplication* app = new QCoreApplication(*argc, *argv);
    (void)app;
    // Qt's warnings about odd input ("Broken filename passed to function" for a path with a NUL
    // byte, a corrupt PNG's CRC) are not findings, and printing thousands a second slows the
    // fuzzer down.
    qInstallMessageHandler([](QtMsgType, const QMessageLogContext&, const QString&) {});
    for (const QString& dir : QCoreApplication::libraryPaths())
        for (const QFileInfo& f : QDir(dir + "/imageformats").entryInfoList({"*.so"}, QDir::Files))
            ::dlopen(QFile::encodeName(f.absoluteFilePath()).constData(), RTLD_NOW | RTLD_NODELETE);
    return 0;
}

namespace svi::fuzz {
namespace {

void removeWorkDir()
{
    QDir(QString::fromStdString(workDir())).removeRecursively();
}

} // namespace

const std::string& workDir()
{
    // Made once and never destroyed, so that the exit handler that removes the folder can
    // still read its name (static objects are destroyed before handlers registered earlier).
    static const std::string* dir = [] {
        const QString base = qEnvironmentVariableIsEmpty("TMPDIR") ? QStringLiteral("/tmp")
                                                                   : qEnvironmentVariable("TMPDIR");
        const QString path = base + QString("/svi-fuzz-%1").arg(::getpid());
        if (!QDir().mkpath(path))
            finding("cannot create the work folder " + path.toStdString());
        auto* name = new std::string(path.toStdString());
        std::atexit(removeWorkDir);
        return name;
    }();
    return *dir;
}

std::string writeInput(const std::string& name, std::string_view bytes)
{
    const QString path = QString::fromStdString(workDir() + "/" + name);
    QDir().mkpath(QFileInfo(path).path());
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        f.write(bytes.data(), qint64(bytes.size())) != qint64(bytes.size()))
        finding("cannot write " + path.toStdString());
    return path.toStdString();
}

void removeInput(const std::string& name)
{
    QFile::remove(QString::fromStdString(workDir() + "/" + name));
}

TwoParts splitInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view all(reinterpret_cast<const char*>(data), size);
    const std::size_t at = all.find("\n%%\n");
    if (at == std::string_view::npos)
        return {all, {}, false};
    return {all.substr(0, at + 1), all.substr(at + 4), true};
}

void finding(const std::string& what)
{
    std::fprintf(stderr, "FUZZ FINDING: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

} // namespace svi::fuzz
