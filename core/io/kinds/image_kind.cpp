// Images: a grey image cut into every overlapping p×p patch, with pixels removed (and noise
// added) for inpainting; scored by PSNR on the 0–255 scale (paper 000, Sec. 5.2).

#include "core/data/image_task.h"
#include "core/io/data_kinds.h"
#include "core/io/image_file.h"
#include "core/io/kinds/kinds.h"

#include <cmath>

namespace svi::kinds {
namespace {

class RawImage : public RawData
{
public:
    RawImage(Eigen::ArrayXXf image, std::string source)
        : m_image(std::move(image)), m_source(std::move(source))
    {
    }
    std::string summary() const override
    {
        return std::to_string(m_image.cols()) + "×" + std::to_string(m_image.rows()) +
               " grey image";
    }
    const Eigen::ArrayXXf& image() const { return m_image; }
    const std::string& source() const { return m_source; }

private:
    Eigen::ArrayXXf m_image;
    std::string m_source;
};

std::string sourceName(const std::string& path)
{
    return path.rfind(":/", 0) == 0 ? "default image" : path;
}

// The size, depth and patches of the image, decoded fully so that a truncated file is
// reported here.
DataReport inspectImage(const DataDescription& d)
{
    const DataInfo i = inspectFile(d.files.front(), int(getInt(d.settings, "patch")));
    const std::string side = std::to_string(i.patch);
    return {{
        {"format", "format", i.format, {}, {}},
        {"width", "width", std::int64_t(i.width), "pixels", {}},
        {"height", "height", std::int64_t(i.height), "pixels", {}},
        {"grayscale", "grey", i.grayscale, i.grayscale ? "" : "(colour, read as grey)", {}},
        {"depth", "depth", std::int64_t(i.depth), "bits per channel", {}},
        {"patch", "patch", std::int64_t(i.patch), "pixels a side", {}},
        {"patches", "patches", i.patches, "of " + side + "×" + side, {}},
        {"rows", "rows", i.rows, "patches", {}},
        {"cols", "cols", i.cols, "pixels a patch", {}},
    }};
}

} // namespace

DataKindSpec image()
{
    DataKindSpec k;
    k.key = "image";
    k.label = "Image";
    k.task = "inpainting: removed pixels are restored from the overlapping patches and scored "
             "by PSNR";
    k.formats = "PNG, JPEG, TIFF, BMP, PGM, … (any image Qt reads, recognised by content)";
    k.settings = InpaintOptions::allParams();
    k.defaultModel = "bpfa";
    k.views = {DataView::Image};
    k.recognise = [](const FileProbe& f) { return f.content == "image"; };
    k.read = [](const DataDescription& d) -> std::shared_ptr<const RawData> {
        return std::make_shared<RawImage>(loadGrayImage(d.files.front()),
                                          sourceName(d.files.front()));
    };
    k.inspect = inspectImage;
    k.build = [](const RawData& raw, const DataDescription& d) {
        const auto& img = static_cast<const RawImage&>(raw);
        const InpaintOptions o = InpaintOptions::fromParams(d.settings);
        BuiltData out;
        const DenseDataPtr data = makeInpaintingData(img.image(), o, img.source());
        out.data = data;
        const std::int64_t width = img.image().cols(), height = img.image().rows();
        out.summary = std::to_string(width) + "×" + std::to_string(height) + " grey · " +
                      groupedNumber(data->rows()) + " patches of " + std::to_string(o.patch) + "×" +
                      std::to_string(o.patch) + " · " +
                      std::to_string(int(std::lround(o.missing * 100))) + " % missing" +
                      (o.noise > 0 ? ", noise σ " + formatNumber(o.noise) : "");
        out.facts = {{"width", double(width)},
                     {"height", double(height)},
                     {"patches", double(data->rows())},
                     {"patch", double(o.patch)}};
        return out;
    };
    return k;
}

} // namespace svi::kinds
