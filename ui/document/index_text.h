#pragma once
// How an element's position reads in the app: "[2, 0, 5]", its indices along each dim of
// `shape` for row-major offset `flat` (dim 0 counted from `firstRow`, for a window of rows).
#include "core/tensor/shape.h"

#include <QString>

namespace sparsity::ui {

QString indexText(const core::Shape &shape, std::int64_t flat, std::int64_t firstRow = 0);

} // namespace sparsity::ui
