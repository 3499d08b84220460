#pragma once
// The three maps the Gradcheck panel shows for one input's Jacobians: numerical and analytical
// on one diverging scale (the wider of their two ranges, so they compare side by side), and
// analytical − numerical on its own. Made on the check's job thread: for a 64 x 64 input
// (4096 x 4096 Jacobians), copying, scaling and rendering them on the GUI thread froze the
// window for 5 s after the progress bar had reached 100%.
#include "core/autograd/gradcheck.h"
#include "ui/views/heatmap_image.h"

namespace sparsity::ui {

struct JacobianPictures {
    MatrixPicture numerical, analytical, difference;
};

JacobianPictures jacobianPictures(const core::InputJacobian &jacobian);

} // namespace sparsity::ui
