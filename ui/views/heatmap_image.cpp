#include "ui/views/heatmap_image.h"

#include <algorithm>
#include <cmath>

namespace sparsity::ui {
namespace {

// The pixels of a large heatmap (a 4096 x 4096 Jacobian is 64 MiB) live in a Buffer the image
// owns: huge pages, so filling them costs a few page faults instead of one per 4 KiB.
QImage bufferedImage(int cols, int rows)
{
    auto *pixels = new core::Buffer<QRgb>(static_cast<std::size_t>(cols) * static_cast<std::size_t>(rows));
    return QImage(
        reinterpret_cast<uchar *>(pixels->data()), cols, rows, static_cast<qsizetype>(cols) * 4, QImage::Format_RGB32,
        [](void *owned) { delete static_cast<core::Buffer<QRgb> *>(owned); }, pixels);
}

} // namespace

HeatmapImage renderHeatmap(const core::DenseTensor<double> &values,
                           const core::Mask *specified,
                           const core::Mask *pruned,
                           const ColourScale *scale)
{
    const auto rank = values.shape.size();
    const int rows = rank >= 2 ? static_cast<int>(values.shape[0]) : 1;
    const int cols = rank >= 2 ? static_cast<int>(core::numel(values.shape, 1, rank)) : static_cast<int>(values.values.size());
    HeatmapImage result;
    result.scale = scale ? *scale : colourScaleOf(values, specified);
    result.image = bufferedImage(std::max(cols, 1), std::max(rows, 1));
    if (values.values.empty()) // the one pixel of an empty tensor; otherwise every pixel is set below
        result.image.fill(QColor(224, 224, 224));
    const ColourLookup colour(result.scale);
    const QRgb prunedColour = prunedColourOf(result.scale.map);
    // A loaded window is millions of elements: rows are coloured in parallel.
    auto *bits = result.image.bits();
    const auto stride = result.image.bytesPerLine();
    bool hasNaN = false, hasPosInf = false, hasNegInf = false;
#pragma omp parallel for schedule(static) reduction(|| : hasNaN, hasPosInf, hasNegInf) if (rows * cols >= (1 << 16))
    for (int r = 0; r < rows; ++r) {
        auto *line = reinterpret_cast<QRgb *>(bits + static_cast<std::ptrdiff_t>(r) * stride);
        for (int c = 0; c < cols; ++c) {
            const auto k = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c);
            if (specified && !(*specified)[k])
                line[c] = ((r + c) % 2) ? kUnspecifiedDark : kUnspecifiedLight;
            else if (pruned && (*pruned)[k])
                line[c] = prunedColour;
            else
                line[c] = colour(values.values[k]);
            if (const double v = values.values[k]; !std::isfinite(v) && (!specified || (*specified)[k])) {
                hasNaN = hasNaN || std::isnan(v);
                hasPosInf = hasPosInf || v > 0;
                hasNegInf = hasNegInf || v < 0;
            }
        }
    }
    result.hasNaN = hasNaN;
    result.hasPosInf = hasPosInf;
    result.hasNegInf = hasNegInf;
    return result;
}

MatrixPicture pictureOf(core::DenseTensor<double> values, const ColourScale *scale)
{
    auto shared = std::make_shared<const core::DenseTensor<double>>(std::move(values));
    auto heatmap = renderHeatmap(*shared, nullptr, nullptr, scale);
    return {std::move(shared), std::move(heatmap)};
}

namespace {

// A pooled heatmap's geometry: `values` as [rows x cols] drawn into `size` pixels (at most one
// pixel per cell), and the rule that picks each pixel's element.
class Pooling {
public:
    Pooling(const core::DenseTensor<double> &values, const ColourScale &scale, QSize size) : m_values(values)
    {
        const auto rank = values.shape.size();
        m_rows = rank >= 2 ? values.shape[0] : 1;
        m_cols = rank >= 2 ? core::numel(values.shape, 1, rank) : static_cast<std::int64_t>(values.values.size());
        width = static_cast<int>(std::clamp<std::int64_t>(size.width(), 1, std::max<std::int64_t>(m_cols, 1)));
        height = static_cast<int>(std::clamp<std::int64_t>(size.height(), 1, std::max<std::int64_t>(m_rows, 1)));
        // Diverging: the value farthest from the range's middle (0 for a symmetric range) wins;
        // sequential: the largest.
        m_diverging = infoOf(scale.map).diverging;
        m_middle = (scale.low + scale.high) / 2;
    }
    // Pixel (x, y)'s block of cells, and the element it shows: the most prominent, a non-finite
    // value first.
    PooledCell pick(int x, int y) const
    {
        PooledCell cell;
        cell.row0 = y * m_rows / height;
        cell.row1 = std::min(m_rows, std::max(cell.row0 + 1, (y + 1) * m_rows / height));
        cell.col0 = x * m_cols / width;
        cell.col1 = std::min(m_cols, std::max(cell.col0 + 1, (x + 1) * m_cols / width));
        cell.row = std::min(cell.row0, m_rows - 1);
        cell.col = std::min(cell.col0, m_cols - 1);
        double pick = value(cell.row, cell.col);
        for (auto r = cell.row0; r < cell.row1 && std::isfinite(pick); ++r)
            for (auto c = cell.col0; c < cell.col1; ++c) {
                const double v = value(r, c);
                if (!std::isfinite(v) || prominence(v) > prominence(pick)) {
                    pick = v;
                    cell.row = r;
                    cell.col = c;
                    if (!std::isfinite(v))
                        break; // non-finite values always show
                }
            }
        return cell;
    }
    double value(std::int64_t row, std::int64_t col) const
    {
        return m_values.values[static_cast<std::size_t>(row * m_cols + col)];
    }

    int width = 1, height = 1;

private:
    double prominence(double v) const { return m_diverging ? std::abs(v - m_middle) : v; }

    const core::DenseTensor<double> &m_values;
    std::int64_t m_rows = 1, m_cols = 1;
    bool m_diverging = false;
    double m_middle = 0.0;
};

} // namespace

QImage renderPooled(const core::DenseTensor<double> &values, const ColourScale &scale, QSize size)
{
    const Pooling pooling(values, scale, size);
    const ColourLookup colour(scale);
    QImage image(pooling.width, pooling.height, QImage::Format_RGB32);
    for (int y = 0; y < pooling.height; ++y) {
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
        for (int x = 0; x < pooling.width; ++x) {
            const auto cell = pooling.pick(x, y);
            line[x] = colour(pooling.value(cell.row, cell.col));
        }
    }
    return image;
}

PooledCell pooledCell(const core::DenseTensor<double> &values, const ColourScale &scale, QSize size, QPoint pixel)
{
    const Pooling pooling(values, scale, size);
    return pooling.pick(std::clamp(pixel.x(), 0, pooling.width - 1), std::clamp(pixel.y(), 0, pooling.height - 1));
}

namespace {

// A pooled heatmap image's geometry: the `source` part of `image` drawn into `size` pixels
// (at most one pixel per source pixel), and the rule that picks each pixel's colour.
class ImagePooling {
public:
    ImagePooling(const QImage &image, const QRect &source, QSize size, ColourMap map)
        : m_image(image), m_from(source.intersected(image.rect())), m_prunedColour(prunedColourOf(map)),
          m_places(ColourPlaces::of(map)), m_diverging(infoOf(map).diverging)
    {
        width = std::clamp(size.width(), 1, std::max(m_from.width(), 1));
        height = std::clamp(size.height(), 1, std::max(m_from.height(), 1));
    }
    struct Pick {
        QPoint shown; // the source pixel whose colour wins: the most prominent of the block
        QRgb colour = qRgb(255, 255, 255);
        double prunedFraction = 0.0;
    };
    Pick pick(int x, int y) const
    {
        const int r0 = m_from.top() + y * m_from.height() / height;
        const int r1 = std::max(r0 + 1, m_from.top() + (y + 1) * m_from.height() / height);
        const int c0 = m_from.left() + x * m_from.width() / width;
        const int c1 = std::max(c0 + 1, m_from.left() + (x + 1) * m_from.width() / width);
        Pick p;
        p.shown = QPoint(c0, r0);
        int strongest = -1;
        int pruned = 0;
        for (int r = r0; r < r1; ++r) {
            const auto *line = reinterpret_cast<const QRgb *>(m_image.constScanLine(r));
            for (int c = c0; c < c1; ++c) {
                pruned += (line[c] | 0xff000000) == m_prunedColour;
                if (const int s = poolStrength(line[c], m_places, m_diverging); s > strongest) {
                    strongest = s;
                    p.colour = line[c];
                    p.shown = QPoint(c, r);
                }
            }
        }
        p.prunedFraction = static_cast<double>(pruned) / static_cast<double>((r1 - r0) * (c1 - c0));
        return p;
    }
    // Pruned pixels darken the block's kept colour in proportion, so 2:4 (half pruned) reads as
    // half dark at any zoom instead of untouched.
    QRgb colourOf(const Pick &p) const
    {
        const double f = p.prunedFraction;
        const auto mix = [f](int kept, int dark) { return static_cast<int>(std::lround(kept + f * (dark - kept))); };
        return f == 0.0 ? p.colour
                        : qRgb(mix(qRed(p.colour), qRed(m_prunedColour)), mix(qGreen(p.colour), qGreen(m_prunedColour)),
                               mix(qBlue(p.colour), qBlue(m_prunedColour)));
    }
    qint64 sourcePixels() const { return static_cast<qint64>(m_from.width()) * m_from.height(); }

    int width = 1, height = 1;

private:
    const QImage &m_image;
    QRect m_from;
    QRgb m_prunedColour;
    const ColourPlaces &m_places;
    bool m_diverging;
};

} // namespace

QImage poolImage(const QImage &image, const QRect &source, QSize size, ColourMap map)
{
    const ImagePooling pooling(image, source, size, map);
    QImage pooled(pooling.width, pooling.height, QImage::Format_RGB32);
    auto *bits = pooled.bits();
    const auto stride = pooled.bytesPerLine();
#pragma omp parallel for schedule(dynamic, 8) if (pooling.sourcePixels() >= (1 << 16))
    for (int y = 0; y < pooling.height; ++y) {
        auto *out = reinterpret_cast<QRgb *>(bits + static_cast<std::ptrdiff_t>(y) * stride);
        for (int x = 0; x < pooling.width; ++x)
            out[x] = pooling.colourOf(pooling.pick(x, y));
    }
    return pooled;
}

QPoint pooledImagePixel(const QImage &image, const QRect &source, QSize size, ColourMap map, QPoint at)
{
    const ImagePooling pooling(image, source, size, map);
    // The pooled image is drawn stretched over `size`: `at` falls in its pixel at * pooled / size.
    const int x = static_cast<int>(static_cast<qint64>(at.x()) * pooling.width / std::max(size.width(), 1));
    const int y = static_cast<int>(static_cast<qint64>(at.y()) * pooling.height / std::max(size.height(), 1));
    return pooling.pick(std::clamp(x, 0, pooling.width - 1), std::clamp(y, 0, pooling.height - 1)).shown;
}

} // namespace sparsity::ui
