#include "ui/views/jacobian_pictures.h"

#include <algorithm>

namespace sparsity::ui {

JacobianPictures jacobianPictures(const core::InputJacobian &j)
{
    const core::Shape shape{j.rows, j.cols};
    core::DenseTensor<double> numerical{shape, {}}, analytical{shape, {}}, difference{shape, {}};
    numerical.values.assign(j.numerical.begin(), j.numerical.end());
    analytical.values.assign(j.analytical.begin(), j.analytical.end());
    difference.values.resize(j.numerical.size());
    for (std::size_t i = 0; i < difference.values.size(); ++i)
        difference.values[i] = j.analytical[i] - j.numerical[i];
    const auto n = colourScaleOf(numerical, nullptr), a = colourScaleOf(analytical, nullptr);
    const ColourScale shared{std::min(n.low, a.low), std::max(n.high, a.high), std::min(n.dataLow, a.dataLow),
                             std::max(n.dataHigh, a.dataHigh), ColourMap::Diverging};
    return {pictureOf(std::move(numerical), &shared), pictureOf(std::move(analytical), &shared),
            pictureOf(std::move(difference))};
}

} // namespace sparsity::ui
