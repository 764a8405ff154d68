#pragma once
// Image files (PNG, JPEG, TIFF, PGM, BMP) in and out, and what a data file holds.
// Uses QtGui's image readers; safe to call from any thread (no QPixmap, no display).

#include "core/data/io/data_error.h"

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
    std::string kind;   // "image"
    std::string format; // "png", "jpeg", "tiff", "pgm", "bmp", …
    std::int64_t rows = 0; // data points: patches for an image
    std::int64_t cols = 0; // entries per data point: p·p for an image
    int width = 0, height = 0, patch = 8;
    std::int64_t patches = 0;
    bool grayscale = true;
    int depth = 8; // bits per channel
    std::vector<std::string> names;
};

// Reads just enough of a file to say what it holds; throws DataError with the reason when it
// cannot be used.
DataInfo inspectFile(const std::string& path, int patch = 8);

} // namespace svi
