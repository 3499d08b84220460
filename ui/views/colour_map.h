#pragma once
// Value -> colour for every heatmap: the colour maps (a diverging one for signed data; viridis
// and cividis, perceptually uniform and readable with colour-blindness, for magnitudes), the
// range of values they span (robust percentiles, the full range, or set by hand), and the
// colours outside any map (NaN, ±Inf, pruned, unspecified). The maps' facts live in one table,
// kColourMaps, which the menus, the legend and workspaces read.
#include "core/tensor/dense_tensor.h"
#include "core/tensor/tensor.h"

#include <QColor>
#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <string_view>

namespace sparsity::ui {

enum class ColourMap { Diverging, Viridis, Cividis };

struct ColourMapInfo {
    ColourMap map;
    std::string_view key; // in workspaces
    const char *label;    // in menus
    // A diverging map is centred on its range's midpoint (white); its robust and full ranges
    // are symmetric about 0, so zero is white and the sign reads from the hue.
    bool diverging;
};

inline constexpr std::array kColourMaps{
    ColourMapInfo{ColourMap::Diverging, "diverging", "Diverging (blue – white – red)", true},
    ColourMapInfo{ColourMap::Viridis, "viridis", "Viridis", false},
    ColourMapInfo{ColourMap::Cividis, "cividis", "Cividis", false},
};
static_assert(
    [] {
        for (std::size_t i = 0; i < kColourMaps.size(); ++i)
            if (static_cast<std::size_t>(kColourMaps[i].map) != i)
                return false;
        return true;
    }(),
    "kColourMaps is indexed by ColourMap");
const ColourMapInfo &infoOf(ColourMap map);
std::optional<ColourMap> colourMapFromKey(std::string_view key);

enum class ColourRange {
    Robust, // diverging: ±99.5th percentile of |x|; sequential: 0.5th to 99.5th percentile
    Full,   // diverging: ±max |x|; sequential: min to max
    Manual, // low and high as set
};

struct ColourSettings {
    ColourMap map = ColourMap::Diverging;
    ColourRange range = ColourRange::Robust;
    double low = -1.0, high = 1.0; // for ColourRange::Manual; low < high
    bool operator==(const ColourSettings &) const = default;
};

// The values drawn in the map's end colours, and the finite extremes of the data (a value
// beyond the range saturates; the legend then writes ≥ / ≤).
struct ColourScale {
    double low = 0.0, high = 0.0;
    double dataLow = 0.0, dataHigh = 0.0;
    ColourMap map = ColourMap::Diverging;
    bool saturatesLow() const { return dataLow < low; }
    bool saturatesHigh() const { return dataHigh > high; }
};

// Non-finite values, each its own colour, none on any map.
inline constexpr QRgb kNaNColour = 0xffff00ff;    // magenta
inline constexpr QRgb kPosInfColour = 0xffffd700; // gold: beyond the reds
inline constexpr QRgb kNegInfColour = 0xff00c8c8; // cyan: beyond the blues
// Elements a sparsifier preview prunes; unspecified elements of a masked tensor are a checker
// of two greys, so they never read as a value.
inline constexpr QRgb kPrunedColour = 0xff2b2b2b;
// On a sequential map dark grey would read as its dark low end (viridis' purple, cividis'
// navy): pruned elements are drawn light there, lighter than either map's top.
inline constexpr QRgb kPrunedLightColour = 0xfff0f0f0;
inline QRgb prunedColourOf(ColourMap map) { return infoOf(map).diverging ? kPrunedColour : kPrunedLightColour; }
inline constexpr QRgb kUnspecifiedDark = 0xff969696;
inline constexpr QRgb kUnspecifiedLight = 0xffc8c8c8;

// The scale of `values` (their specified, finite elements) under `settings`.
ColourScale
colourScaleOf(const double *values, std::size_t count, const core::Mask *specified, const ColourSettings &settings = {});
inline ColourScale
colourScaleOf(const core::DenseTensor<double> &values, const core::Mask *specified, const ColourSettings &settings = {})
{
    return colourScaleOf(values.values.data(), values.values.size(), specified, settings);
}

// The colour of values on one scale, as a table lookup (the scale's map tabulated at 1024
// steps of its range): what drawing millions of elements calls per element.
class ColourLookup {
public:
    explicit ColourLookup(const ColourScale &scale);
    QRgb operator()(double value) const
    {
        if (!std::isfinite(value))
            return std::isnan(value) ? kNaNColour : value > 0 ? kPosInfColour : kNegInfColour;
        if (m_stepsPerUnit == 0.0)
            return m_middle; // a range of one value
        const double at = std::clamp((value - m_low) * m_stepsPerUnit, 0.0, kTableSteps);
        return m_table[static_cast<std::size_t>(at + 0.5)];
    }
    static constexpr double kTableSteps = 1024;

private:
    const QRgb *m_table;
    double m_low, m_stepsPerUnit;
    QRgb m_middle;
};

QRgb colourOf(double value, const ColourScale &scale);
// The map's colour at fraction t of its range (0 low, 1 high), for legends.
QColor mapColour(ColourMap map, double t);
// The diverging map over [-maxAbs, maxAbs].
QColor divergingColour(double value, double maxAbs);

// Where a colour lies on a map's table, in half places (0 .. 2 ColourLookup::kTableSteps), or
// -1 when it is none of the map's colours. A colour the table holds at several neighbouring
// places (8-bit channels) lies at their middle, so either side of a diverging map reads alike.
// Open addressing over 2048 slots of 8 bytes (half full, within L1): pooling looks up every
// pixel of a window.
class ColourPlaces {
public:
    static const ColourPlaces &of(ColourMap map);
    int doubledPositionOf(QRgb colour) const
    {
        const auto &slot = m_slots[find(colour | 0xff000000)];
        return slot.key == kEmpty ? -1 : slot.doubledPosition;
    }
    explicit ColourPlaces(ColourMap map);

private:
    static constexpr std::size_t kSlots = 2048;
    static constexpr QRgb kEmpty = 0; // never a table colour: they are all opaque
    struct Slot {
        QRgb key = kEmpty;
        std::int32_t doubledPosition = 0; // first + last of the colour's places
    };
    std::size_t find(QRgb colour) const
    {
        auto at = (static_cast<std::size_t>(colour) * 2654435761u >> 16) & (kSlots - 1);
        while (m_slots[at].key != kEmpty && m_slots[at].key != colour)
            at = (at + 1) & (kSlots - 1);
        return at;
    }
    std::array<Slot, kSlots> m_slots{};
};

// How much a pixel drawn with a (`diverging` or sequential) map, whose places are `places`,
// stands out, for level-of-detail pooling: non-finite values most, then values by how far
// their colour lies from the map's middle (diverging: either side alike, as renderPooled picks
// the value farthest from the range's middle; sequential: the higher), and least the pruned
// and unspecified greys (the darker first). Colourfulness was the measure once, and the
// diverging map's reds are more colourful than its blues at the same distance: pooled, a
// table and its negation were both drawn three quarters red.
inline int poolStrength(QRgb pixel, const ColourPlaces &places, bool diverging)
{
    const QRgb p = pixel | 0xff000000;
    if (p == kNaNColour || p == kPosInfColour || p == kNegInfColour)
        return 1 << 30;
    const int darkness = 765 - qRed(p) - qGreen(p) - qBlue(p);
    if (p == kPrunedColour || p == kPrunedLightColour || p == kUnspecifiedDark || p == kUnspecifiedLight)
        return darkness;
    const int position = places.doubledPositionOf(p);
    if (position < 0)
        return darkness;
    // The middle (white) scores 0: a pruned element beats it.
    if (diverging)
        return std::abs(position - static_cast<int>(ColourLookup::kTableSteps)) * 1024;
    return 1024 * (1 + position);
}

} // namespace sparsity::ui
