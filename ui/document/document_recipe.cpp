#include "ui/document/document_recipe.h"

#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::ui {

core::BatchRecipe documentRecipe(const TensorDocument &document, const QString &input, const QString &outputPattern)
{
    const auto &settings = document.exportSettings();
    core::SparsifyRequest sparsify;
    for (const auto &[dataset, config] : document.datasetSparsifiers())
        if (settings.datasets.isEmpty() || settings.datasets.contains(dataset))
            sparsify.perDataset[dataset.toStdString()] = config;
    // Without a shared recipe every exported dataset needs its own; the recipe's top-level
    // sparsifier is then never used, and the first dataset's stands in for it.
    const bool allOwn = !settings.datasets.isEmpty()
                        && std::all_of(settings.datasets.begin(), settings.datasets.end(),
                                       [&](const QString &d) { return document.datasetSparsifiers().count(d) > 0; });
    if (document.sharedSparsifier())
        sparsify.config = *document.sharedSparsifier();
    else if (allOwn)
        sparsify.config = sparsify.perDataset.begin()->second;
    else
        throw core::InputError(document.datasetSparsifiers().empty()
                                   ? "no sparsifier is set: choose a method in the Sparsifier panel first"
                                   : "no shared sparsifier is set for the datasets without their own: choose one in the "
                                     "Sparsifier panel, or export only datasets with their own");
    core::BatchRecipe recipe;
    recipe.inputs = {input.toStdString()};
    for (const auto &dataset : settings.datasets)
        recipe.datasets.push_back(dataset.toStdString());
    recipe.sparsify = std::move(sparsify);
    recipe.layout = settings.layout.toStdString();
    recipe.gzipLevel = settings.gzipLevel;
    recipe.outputPattern = outputPattern.toStdString();
    return recipe;
}

} // namespace sparsity::ui
