#pragma once
// Whether a sparsifier recipe fits a dataset, from its metadata alone: Export and Save as
// batch ask before they run, so one dataset the recipe cannot handle is named in the dialog
// (with the reason core gives) instead of failing the whole export.
#include "core/io/h5_catalog.h"
#include "core/sparsify/sparsifier_config.h"

#include <QString>
#include <optional>

namespace sparsity::ui {

// Empty when `config` can run on `element`, else why not (core's own message). No recipe
// fits nothing.
QString recipeMisfit(const std::optional<core::SparsifierConfig> &config, const core::ElementInfo &element);

} // namespace sparsity::ui
