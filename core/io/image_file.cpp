#include "core/io/image_file.h"

#include "core/io/byte_source.h"
#include "core/io/load_control.h"

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>
#include <QImageWriter>
#include <QSaveFile>
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace svi {
namespace {

// Existence and emptiness first, so that the message is precise.
void checkReadable(const std::string& path)
{
    const QString qpath = QString::fromStdString(path);
    QFileInfo fi(qpath);
    if (!fi.exists())
        failFile(path, "file does not exist");
    if (fi.isDir())
        failFile(path, "is a folder, not a file");
    if (!path.starts_with(":") && !fi.isReadable())
        failFile(path, "permission denied");
    if (fi.size() == 0)
        failFile(path, "file is empty");
}

QImage readImage(const std::string& path, QByteArray* format)
{
    checkReadable(path);
    // A gzip'd image is read from its inflated content (its format then from the content
    // alone); the file itself by its name, so that formats without a signature of their own
    // (TGA) are found by their suffix when the content does not decide (a PNG named .jpg or
    // .dat is a PNG).
    SeekableContent content;
    QImageReader reader;
    if (ByteSource(path).gzip()) {
        content = openSeekable(path);
        reader.setDevice(content.device.get());
    } else {
        reader.setFileName(QString::fromStdString(path));
    }
    const auto fail = [&](const std::string& reason) {
        throw DataError("cannot read '" + path + "'" + gzipOf(content.gzip, "an image") + ": " +
                        reason);
    };
    reader.setDecideFormatFromContent(true);
    if (!reader.canRead() && !content.gzip) {
        reader.setFileName(QString::fromStdString(path));
        reader.setDecideFormatFromContent(false);
    }
    reader.setAutoTransform(false);
    if (!reader.canRead())
        fail("not an image or unsupported format (" + reader.errorString().toStdString() +
             "; supported: png, jpeg, tiff, pgm, bmp)");
    if (format)
        *format = reader.format();
    QImage img = reader.read();
    if (!content.gzip) // inflated content was reported as it was read
        reportRead(QFileInfo(QString::fromStdString(path)).size());
    if (img.isNull())
        fail("image is truncated or corrupt (" + reader.errorString().toStdString() + ")");
    return img;
}

} // namespace

Eigen::ArrayXXf loadGrayImage(const std::string& path)
{
    const QImage img = readImage(path, nullptr);
    const int H = img.height(), W = img.width();
    Eigen::ArrayXXf out(H, W);
    const bool deep = img.format() == QImage::Format_Grayscale16 || img.depth() >= 48;
    if (img.isGrayscale()) {
        if (deep) {
            const QImage g = img.convertToFormat(QImage::Format_Grayscale16);
            for (int r = 0; r < H; ++r) {
                const auto* line = reinterpret_cast<const quint16*>(g.constScanLine(r));
                for (int c = 0; c < W; ++c)
                    out(r, c) = float(line[c]) * (255.0f / 65535.0f);
            }
        } else {
            const QImage g = img.convertToFormat(QImage::Format_Grayscale8);
            for (int r = 0; r < H; ++r) {
                const uchar* line = g.constScanLine(r);
                for (int c = 0; c < W; ++c)
                    out(r, c) = float(line[c]);
            }
        }
        return out;
    }
    // Colour → grey with the ITU-R BT.601 luma weights (as Matlab's rgb2gray and OpenCV), on
    // the stored (gamma-encoded) values, keeping the fraction rather than rounding.
    const QImage rgb = img.convertToFormat(QImage::Format_RGBA64);
    for (int r = 0; r < H; ++r) {
        const auto* line = reinterpret_cast<const QRgba64*>(rgb.constScanLine(r));
        for (int c = 0; c < W; ++c) {
            const QRgba64 p = line[c];
            out(r, c) =
                float((0.299 * p.red() + 0.587 * p.green() + 0.114 * p.blue()) * (255.0 / 65535.0));
        }
    }
    return out;
}

void saveGrayImage(const std::string& path, const Eigen::ArrayXXf& image)
{
    const int H = int(image.rows()), W = int(image.cols());
    if (H < 1 || W < 1)
        throw DataError("cannot write '" + path + "': the image is empty");
    QImage img(W, H, QImage::Format_Grayscale8);
    for (int r = 0; r < H; ++r) {
        uchar* line = img.scanLine(r);
        for (int c = 0; c < W; ++c) {
            const float v = image(r, c);
            line[c] = uchar(std::isfinite(v) ? std::clamp(std::lround(v), 0L, 255L) : 0L);
        }
    }
    QString suffix = QFileInfo(QString::fromStdString(path)).suffix().toLower();
    if (suffix.isEmpty())
        suffix = "png";
    QSaveFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::WriteOnly))
        throw DataError("cannot write '" + path + "': " + file.errorString().toStdString());
    QImageWriter writer(&file, suffix.toLatin1());
    if (!writer.write(img)) {
        file.cancelWriting();
        throw DataError("cannot write '" + path + "': " + writer.errorString().toStdString());
    }
    if (!file.commit())
        throw DataError("cannot write '" + path + "': " + file.errorString().toStdString());
}

DataInfo inspectFile(const std::string& path, int patch)
{
    if (patch < 1)
        throw std::invalid_argument("inspectFile: patch = " + std::to_string(patch) +
                                    ", but must be ≥ 1");
    checkReadable(path);
    // A file whose name says image gets the image reader's precise reason (not an image,
    // truncated); anything else that is not an image is simply not a data file we know.
    const QByteArray suffix = QFileInfo(QString::fromStdString(path)).suffix().toLower().toLatin1();
    const bool imageName = QImageReader::supportedImageFormats().contains(suffix) ||
                           suffix == "jpg" || suffix == "tif";
    if (!imageName && !ByteSource(path).gzip() &&
        !QImageReader(QString::fromStdString(path)).canRead())
        failFile(path, "not a supported data file (images: png, jpg, tiff, pgm, bmp)");
    QByteArray format;
    const QImage img = readImage(path, &format);
    DataInfo info;
    info.path = path;
    info.kind = "image";
    info.format = format.toStdString();
    info.width = img.width();
    info.height = img.height();
    info.patch = patch;
    info.grayscale = img.isGrayscale();
    info.depth = img.depth() >= 48 || img.format() == QImage::Format_Grayscale16 ? 16 : 8;
    if (info.width >= patch && info.height >= patch)
        info.patches = std::int64_t(info.width - patch + 1) * (info.height - patch + 1);
    info.rows = info.patches;
    info.cols = std::int64_t(patch) * patch;
    return info;
}

} // namespace svi
