#include "ui/views/heatmap_image.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace sparsity::ui {
namespace {

// The scale is tabulated at 1/512 steps of value/maxAbs — finer than 8-bit colour can show
// (a channel moves at most 222 levels over the half scale) — so drawing millions of elements
// is a table lookup, not three roundings each.
constexpr int kStepsPerUnit = 512;

QRgb exactColour(double t)
{
    // White at zero, towards (33, 102, 172) for negatives and (178, 24, 43) for positives.
    const auto mix = [](int from, int to, double f) { return static_cast<int>(std::lround(from + (to - from) * f)); };
    if (t < 0)
        return qRgb(mix(255, 33, -t), mix(255, 102, -t), mix(255, 172, -t));
    return qRgb(mix(255, 178, t), mix(255, 24, t), mix(255, 43, t));
}

const std::array<QRgb, 2 * kStepsPerUnit + 1> &colourTable()
{
    static const auto table = [] {
        std::array<QRgb, 2 * kStepsPerUnit + 1> t{};
        for (int i = 0; i <= 2 * kStepsPerUnit; ++i)
            t[static_cast<std::size_t>(i)] = exactColour(static_cast<double>(i - kStepsPerUnit) / kStepsPerUnit);
        return t;
    }();
    return table;
}

QRgb colourOf(double value, double maxAbs)
{
    if (std::isnan(value))
        return kNaNColour;
    if (std::isinf(value))
        return value > 0 ? kPosInfColour : kNegInfColour;
    const double t = maxAbs > 0.0 ? std::clamp(value / maxAbs, -1.0, 1.0) : 0.0;
    return colourTable()[static_cast<std::size_t>((t + 1.0) * kStepsPerUnit + 0.5)];
}

} // namespace

QColor divergingColour(double value, double maxAbs) { return QColor::fromRgb(colourOf(value, maxAbs)); }

ColourScale colourScaleOf(const double *values, std::size_t count, const core::Mask *specified)
{
    ColourScale scale;
    std::vector<double> magnitudes;
    magnitudes.reserve(count);
    for (std::size_t k = 0; k < count; ++k)
        if ((!specified || (*specified)[k]) && std::isfinite(values[k]))
            magnitudes.push_back(std::abs(values[k]));
    if (!magnitudes.empty()) {
        const auto percentile = static_cast<std::size_t>(0.995 * static_cast<double>(magnitudes.size() - 1));
        std::nth_element(magnitudes.begin(), magnitudes.begin() + static_cast<std::ptrdiff_t>(percentile), magnitudes.end());
        scale.maxAbs = magnitudes[percentile];
        scale.trueMaxAbs = *std::max_element(magnitudes.begin() + static_cast<std::ptrdiff_t>(percentile), magnitudes.end());
        if (scale.maxAbs == 0.0)
            scale.maxAbs = scale.trueMaxAbs;
    }
    return scale;
}

HeatmapImage renderHeatmap(const core::DenseTensor<double> &values,
                           const core::Mask *specified,
                           const core::Mask *pruned,
                           const ColourScale *scale)
{
    const auto rank = values.shape.size();
    const int rows = rank >= 2 ? static_cast<int>(values.shape[0]) : 1;
    const int cols = rank >= 2 ? static_cast<int>(core::numel(values.shape, 1, rank)) : static_cast<int>(values.values.size());
    HeatmapImage result;
    const ColourScale own = scale ? *scale : colourScaleOf(values, specified);
    result.maxAbs = own.maxAbs;
    result.trueMaxAbs = own.trueMaxAbs;
    result.image = QImage(std::max(cols, 1), std::max(rows, 1), QImage::Format_RGB32);
    result.image.fill(QColor(224, 224, 224));
    for (int r = 0; r < rows; ++r) {
        auto *line = reinterpret_cast<QRgb *>(result.image.scanLine(r));
        for (int c = 0; c < cols; ++c) {
            const auto k = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c);
            if (specified && !(*specified)[k])
                line[c] = ((r + c) % 2) ? qRgb(150, 150, 150) : qRgb(200, 200, 200);
            else if (pruned && (*pruned)[k])
                line[c] = kPrunedColour;
            else
                line[c] = colourOf(values.values[k], result.maxAbs);
            if (const double v = values.values[k]; !std::isfinite(v) && (!specified || (*specified)[k])) {
                result.hasNaN |= std::isnan(v);
                result.hasPosInf |= v > 0 && std::isinf(v);
                result.hasNegInf |= v < 0 && std::isinf(v);
            }
        }
    }
    return result;
}

QImage renderMaxAbsPooled(const core::DenseTensor<double> &values, double maxAbs, QSize size)
{
    const auto rank = values.shape.size();
    const std::int64_t rows = rank >= 2 ? values.shape[0] : 1;
    const std::int64_t cols = rank >= 2 ? core::numel(values.shape, 1, rank) : static_cast<std::int64_t>(values.values.size());
    const int width = static_cast<int>(std::clamp<std::int64_t>(size.width(), 1, std::max<std::int64_t>(cols, 1)));
    const int height = static_cast<int>(std::clamp<std::int64_t>(size.height(), 1, std::max<std::int64_t>(rows, 1)));
    QImage image(width, height, QImage::Format_RGB32);
    for (int y = 0; y < height; ++y) {
        const std::int64_t r0 = y * rows / height, r1 = std::max(r0 + 1, (y + 1) * rows / height);
        auto *line = reinterpret_cast<QRgb *>(image.scanLine(y));
        for (int x = 0; x < width; ++x) {
            const std::int64_t c0 = x * cols / width, c1 = std::max(c0 + 1, (x + 1) * cols / width);
            double pick = 0.0;
            for (std::int64_t r = r0; r < std::min(r1, rows); ++r)
                for (std::int64_t c = c0; c < std::min(c1, cols); ++c) {
                    const double v = values.values[static_cast<std::size_t>(r * cols + c)];
                    if (!std::isfinite(v) || std::abs(v) > std::abs(pick)) {
                        pick = v;
                        if (!std::isfinite(v))
                            break; // non-finite values always show
                    }
                }
            line[x] = colourOf(pick, maxAbs);
        }
    }
    return image;
}

QImage poolImage(const QImage &image, const QRect &source, QSize size)
{
    const QRect from = source.intersected(image.rect());
    const int width = std::clamp(size.width(), 1, std::max(from.width(), 1));
    const int height = std::clamp(size.height(), 1, std::max(from.height(), 1));
    QImage pooled(width, height, QImage::Format_RGB32);
    // Colour (chroma) first — a value that survives — then darkness: a block shows pruned or
    // unspecified grey only when none of its elements has a colour.
    const auto strength = [](QRgb p) {
        const int chroma = std::max({qRed(p), qGreen(p), qBlue(p)}) - std::min({qRed(p), qGreen(p), qBlue(p)});
        return chroma * 1024 + (765 - qRed(p) - qGreen(p) - qBlue(p));
    };
    for (int y = 0; y < height; ++y) {
        const int r0 = from.top() + y * from.height() / height;
        const int r1 = std::max(r0 + 1, from.top() + (y + 1) * from.height() / height);
        auto *out = reinterpret_cast<QRgb *>(pooled.scanLine(y));
        for (int x = 0; x < width; ++x) {
            const int c0 = from.left() + x * from.width() / width;
            const int c1 = std::max(c0 + 1, from.left() + (x + 1) * from.width() / width);
            QRgb pick = qRgb(255, 255, 255);
            int farthest = -1;
            int pruned = 0;
            for (int r = r0; r < r1; ++r) {
                const auto *line = reinterpret_cast<const QRgb *>(image.constScanLine(r));
                for (int c = c0; c < c1; ++c) {
                    pruned += (line[c] | 0xff000000) == kPrunedColour;
                    if (const int d = strength(line[c]); d > farthest) {
                        farthest = d;
                        pick = line[c];
                    }
                }
            }
            // The block's pruned fraction darkens its kept colour in proportion, so 2:4 (half
            // pruned) reads as half dark at any zoom instead of untouched.
            const double f = static_cast<double>(pruned) / static_cast<double>((r1 - r0) * (c1 - c0));
            const auto mix = [f](int kept, int dark) { return static_cast<int>(std::lround(kept + f * (dark - kept))); };
            out[x] = pruned == 0 ? pick
                                 : qRgb(mix(qRed(pick), qRed(kPrunedColour)), mix(qGreen(pick), qGreen(kPrunedColour)),
                                        mix(qBlue(pick), qBlue(kPrunedColour)));
        }
    }
    return pooled;
}

} // namespace sparsity::ui
