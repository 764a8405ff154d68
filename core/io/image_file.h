#pragma once
// Image files (PNG, JPEG, TIFF, PGM, BMP; read gzip'd too, from their inflated content) in and
// out, and what a data file holds.
// Uses QtGui's image readers; safe to call from any thread (no QPixmap, no display).

#include "core/io/data_error.h"

#include <Eigen/Core>
#include <cstdint>
#include <string>
#include <vector>

namespace svi {

// Loads an image as grey levels 0–255 (height rows × width cols). Colour is converted to grey
// with the BT.601 luma weights 0.299 R + 0.587 G + 0.114 B (as Matlab's rgb2gray and OpenCV);
// 16-bit grey is scaled to 0–255. `path` may be a Qt resource
// (":/images/default.png"). Throws DataError naming the file and the reason.
Eigen::ArrayXXf loadGrayImage(const std::string& path);

// Writes an 8-bit grey image (values rounded and clamped to 0–255), atomically; the format
// follows the suffix (png when there is none). Throws DataError on failure.
void saveGrayImage(const std::string& path, const Eigen::ArrayXXf& image);

struct DataInfo
{
    std::string path;
    std::string kind;      // "image"
    std::string format;    // "png", "jpeg", "tiff", "pgm", "bmp", …
    std::int64_t rows = 0; // data points: patches for an image
    std::int64_t cols = 0; // entries per data point: p·p for an image
    int width = 0, height = 0, patch = 8;
    std::int64_t patches = 0;
    bool grayscale = true;
    int depth = 8; // bits per channel
    std::vector<std::string> names;
};

// Says what a file holds (for an image: size, format, grey or colour, and the number of p×p
// patches, 0 when the image is smaller than a patch). Decodes the image fully, so a truncated
// file is reported here rather than at run time. Throws DataError naming the file and the
// reason when it cannot be used; std::invalid_argument when patch < 1.
DataInfo inspectFile(const std::string& path, int patch = 8);

} // namespace svi
