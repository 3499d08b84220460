#pragma once
// matplotlib's perceptually uniform sequential colour maps, 256 entries from low to high
// (generated: scripts/gen-colour-maps.py).
#include <array>
#include <cstdint>

namespace sparsity::ui {

struct Rgb8 {
    std::uint8_t r, g, b;
};

extern const std::array<Rgb8, 256> kViridis;
extern const std::array<Rgb8, 256> kCividis;

} // namespace sparsity::ui
