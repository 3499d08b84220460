#include "ui/views/colour_map.h"

#include "ui/views/colour_map_tables.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace sparsity::ui {
namespace {

// Each map is tabulated at 1/1024 steps of its range — finer than 8-bit colour can show — so
// drawing millions of elements is a table lookup, not three roundings each.
constexpr int kSteps = static_cast<int>(ColourLookup::kTableSteps);
using Table = std::array<QRgb, kSteps + 1>;

int mix(int from, int to, double f) { return static_cast<int>(std::lround(from + (to - from) * f)); }

QRgb divergingAt(double t)
{
    // White at the middle, towards (33, 102, 172) below it and (178, 24, 43) above.
    const double s = 2.0 * t - 1.0;
    if (s < 0)
        return qRgb(mix(255, 33, -s), mix(255, 102, -s), mix(255, 172, -s));
    return qRgb(mix(255, 178, s), mix(255, 24, s), mix(255, 43, s));
}

QRgb sequentialAt(const std::array<Rgb8, 256> &entries, double t)
{
    const double at = t * 255.0;
    const auto i = std::min(static_cast<std::size_t>(at), std::size_t{254});
    const double f = at - static_cast<double>(i);
    const Rgb8 a = entries[i], b = entries[i + 1];
    return qRgb(mix(a.r, b.r, f), mix(a.g, b.g, f), mix(a.b, b.b, f));
}

Table tabulate(ColourMap map)
{
    Table table{};
    for (int i = 0; i <= kSteps; ++i) {
        const double t = static_cast<double>(i) / kSteps;
        table[static_cast<std::size_t>(i)] = map == ColourMap::Viridis   ? sequentialAt(kViridis, t)
                                             : map == ColourMap::Cividis ? sequentialAt(kCividis, t)
                                                                         : divergingAt(t);
    }
    return table;
}

const Table &tableOf(ColourMap map)
{
    static const std::array<Table, kColourMaps.size()> tables = [] {
        std::array<Table, kColourMaps.size()> all{};
        for (const auto &info : kColourMaps)
            all[static_cast<std::size_t>(info.map)] = tabulate(info.map);
        return all;
    }();
    return tables[static_cast<std::size_t>(map)];
}

} // namespace

ColourPlaces::ColourPlaces(ColourMap map)
{
    const auto &table = tableOf(map);
    std::array<int, kSlots> first{}; // of each slot's colour: the table is ordered, so a
                                     // colour's places are neighbours, first to last
    for (int i = 0; i <= kSteps; ++i) {
        const QRgb colour = table[static_cast<std::size_t>(i)] | 0xff000000;
        const auto at = find(colour);
        if (m_slots[at].key == kEmpty)
            first[at] = i;
        m_slots[at] = {colour, first[at] + i};
    }
}

const ColourPlaces &ColourPlaces::of(ColourMap map)
{
    static const auto places = [] {
        std::vector<ColourPlaces> all;
        all.reserve(kColourMaps.size());
        for (std::size_t m = 0; m < kColourMaps.size(); ++m)
            all.emplace_back(static_cast<ColourMap>(m));
        return all;
    }();
    return places[static_cast<std::size_t>(map)];
}

namespace {

// Unsigned order of the key is the numeric order of the double (NaN aside).
std::uint64_t orderedKey(double v)
{
    const auto u = std::bit_cast<std::uint64_t>(v);
    return (u >> 63) ? ~u : (u | (std::uint64_t{1} << 63));
}

// Nearest rank over take(k) for the k < count that are counted (never NaN): the smallest value
// with at least a fraction p of them at or below it, so a handful of values keeps its largest
// (a 2 x 2 tensor of 1..3 is not cut at 2). A radix select: a histogram of the values' top 16
// key bits, then nth_element among the values of the one bucket that holds the rank. It reads
// the values twice instead of copying them all and partially sorting the copy, which took 0.3 s
// per map for a 4096 x 4096 Jacobian.
template <class Counted, class Take>
double percentile(std::size_t count, Counted counted, Take take, double p)
{
    constexpr int kShift = 48;
    std::vector<std::size_t> buckets(std::size_t{1} << (64 - kShift));
    std::size_t n = 0;
    for (std::size_t k = 0; k < count; ++k)
        if (counted(k)) {
            ++buckets[orderedKey(take(k)) >> kShift];
            ++n;
        }
    const auto rank =
        static_cast<std::size_t>(std::clamp(std::ceil(p * static_cast<double>(n)) - 1.0, 0.0, static_cast<double>(n) - 1.0));
    std::size_t below = 0, bucket = 0;
    while (below + buckets[bucket] <= rank)
        below += buckets[bucket++];
    std::vector<double> inBucket;
    inBucket.reserve(buckets[bucket]);
    for (std::size_t k = 0; k < count; ++k)
        if (counted(k) && orderedKey(take(k)) >> kShift == bucket)
            inBucket.push_back(take(k));
    const auto nth = inBucket.begin() + static_cast<std::ptrdiff_t>(rank - below);
    std::nth_element(inBucket.begin(), nth, inBucket.end());
    return *nth;
}

} // namespace

const ColourMapInfo &infoOf(ColourMap map) { return kColourMaps[static_cast<std::size_t>(map)]; }

std::optional<ColourMap> colourMapFromKey(std::string_view key)
{
    for (const auto &info : kColourMaps)
        if (info.key == key)
            return info.map;
    return std::nullopt;
}

ColourScale colourScaleOf(const double *values, std::size_t count, const core::Mask *specified, const ColourSettings &settings)
{
    ColourScale scale;
    scale.map = settings.map;
    // One pass for the extremes; the robust range reads the values twice more per percentile.
    const auto counts = [&](std::size_t k) { return (!specified || (*specified)[k]) && std::isfinite(values[k]); };
    double low = std::numeric_limits<double>::infinity(), high = -low;
    for (std::size_t k = 0; k < count; ++k)
        if (counts(k)) {
            low = std::min(low, values[k]);
            high = std::max(high, values[k]);
        }
    const bool any = low <= high;
    if (any) {
        scale.dataLow = low;
        scale.dataHigh = high;
    }
    const bool diverging = infoOf(settings.map).diverging;
    const double maxAbs = std::max(std::abs(scale.dataLow), std::abs(scale.dataHigh));
    switch (settings.range) {
    case ColourRange::Manual:
        scale.low = settings.low;
        scale.high = settings.high;
        return scale;
    case ColourRange::Full:
        scale.low = diverging ? -maxAbs : scale.dataLow;
        scale.high = diverging ? maxAbs : scale.dataHigh;
        return scale;
    case ColourRange::Robust:
        break;
    }
    if (!any)
        return scale;
    const auto value = [values](std::size_t k) { return values[k]; };
    if (diverging) {
        // Robust: one outlier must not wash out the whole picture.
        double robust = percentile(
            count, counts, [values](std::size_t k) { return std::abs(values[k]); }, 0.995);
        if (robust == 0.0)
            robust = maxAbs;
        scale.low = -robust;
        scale.high = robust;
    } else {
        scale.high = percentile(count, counts, value, 0.995);
        scale.low = percentile(count, counts, value, 0.005);
        if (scale.low == scale.high) {
            scale.low = scale.dataLow;
            scale.high = scale.dataHigh;
        }
    }
    return scale;
}

ColourLookup::ColourLookup(const ColourScale &scale)
    : m_table(tableOf(scale.map).data()), m_low(scale.low),
      m_stepsPerUnit(scale.high > scale.low ? kSteps / (scale.high - scale.low) : 0.0), m_middle(m_table[kSteps / 2])
{
}

QRgb colourOf(double value, const ColourScale &scale) { return ColourLookup(scale)(value); }

QColor mapColour(ColourMap map, double t)
{
    return QColor::fromRgb(tableOf(map)[static_cast<std::size_t>(std::clamp(t, 0.0, 1.0) * kSteps + 0.5)]);
}

QColor divergingColour(double value, double maxAbs)
{
    return QColor::fromRgb(colourOf(value, ColourScale{-maxAbs, maxAbs, -maxAbs, maxAbs, ColourMap::Diverging}));
}

} // namespace sparsity::ui
