// Images in any format Qt reads (recognised by content: the file has no suffix), loaded as
// grey, described as `svi info` does, and, when small, cut into the inpainting task's patches.

#include "core/data/image_task.h"
#include "core/io/image_file.h"
#include "tests/fuzz/fuzz_input.h"

#include <cmath>
#include <stdexcept>

using namespace svi;
using namespace svi::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string path = writeInput("input", {reinterpret_cast<const char*>(data), size});
    Eigen::ArrayXXf image;
    if (!expectOnly([&] { image = loadGrayImage(path); }))
        return 0;
    require(image.rows() >= 1 && image.cols() >= 1, "an image has pixels");
    require(image.allFinite() && image.minCoeff() >= 0.0f && image.maxCoeff() <= 255.0f,
            "grey values in [0, 255]");
    DataInfo info;
    expectOnly([&] { info = inspectFile(path, 4); });
    require(info.width == image.cols() && info.height == image.rows(),
            "svi info tells the size loadGrayImage reads");
    if (image.size() > 64 * 64)
        return 0;
    InpaintOptions task;
    task.patch = 4;
    task.missing = 0.5;
    DenseDataPtr d;
    // An image smaller than a patch is refused with std::invalid_argument, by contract.
    if (expectOnly<std::invalid_argument>([&] { d = makeInpaintingData(image, task, path); }))
        require(d->rows() == (image.rows() - 3) * (image.cols() - 3), "one row per patch");
    return 0;
}
