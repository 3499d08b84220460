#include "ui/views/axis_ticks.h"

#include <algorithm>
#include <cmath>

namespace sparsity::ui {

std::vector<std::int64_t> tickIndices(double viewStart, double viewLength, int pixels, int minSpacing)
{
    std::vector<std::int64_t> ticks;
    if (viewLength <= 0 || pixels <= 0)
        return ticks;
    const double perPixel = viewLength / pixels;
    const double least = std::max(1.0, perPixel * std::max(minSpacing, 1));
    static constexpr std::int64_t kNice[] = {1, 2, 5};
    std::int64_t step = 0;
    for (std::int64_t decade = 1; step == 0; decade *= 10)
        for (const auto m : kNice)
            if (step == 0 && static_cast<double>(m * decade) >= least)
                step = m * decade;
    const auto first = static_cast<std::int64_t>(std::ceil((viewStart - 0.5) / static_cast<double>(step))) * step;
    for (std::int64_t i = std::max<std::int64_t>(first, 0); static_cast<double>(i) + 0.5 < viewStart + viewLength; i += step)
        ticks.push_back(i);
    return ticks;
}

} // namespace sparsity::ui
