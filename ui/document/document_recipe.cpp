#include "ui/document/document_recipe.h"

#include "core/util/errors.h"

namespace sparsity::ui {

core::BatchRecipe documentRecipe(const TensorDocument &document, const QString &input, const QString &outputPattern)
{
    if (!document.sparsifier())
        throw core::InputError("no sparsifier is set: choose a method in the Sparsifier panel first");
    core::BatchRecipe recipe;
    recipe.inputs = {input.toStdString()};
    const auto &settings = document.exportSettings();
    for (const auto &dataset : settings.datasets)
        recipe.datasets.push_back(dataset.toStdString());
    recipe.sparsify = core::SparsifyRequest{};
    recipe.sparsify->config = *document.sparsifier();
    recipe.layout = settings.layout.toStdString();
    recipe.gzipLevel = settings.gzipLevel;
    recipe.outputPattern = outputPattern.toStdString();
    return recipe;
}

} // namespace sparsity::ui
