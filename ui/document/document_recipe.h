#pragma once
// The document's recipe as a core::BatchRecipe: its sparsifier on the export settings'
// datasets, layout and compression. Export runs exactly this recipe on the open file
// (core::runBatchJob) and Save as batch writes it (core::batchJson), so a saved batch
// replayed by `sparsity run` writes what the GUI wrote.
#include "core/pipeline/batch_recipe.h"
#include "ui/document/tensor_document.h"

namespace sparsity::ui {

// Throws core::InputError when the document has no sparsifier to export.
core::BatchRecipe documentRecipe(const TensorDocument &document, const QString &input, const QString &outputPattern);

} // namespace sparsity::ui
