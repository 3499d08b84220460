#include "ui/document/recipe_fit.h"

#include "core/sparsify/data_sparsifier.h"
#include "core/util/errors.h"

#include <QObject>

namespace sparsity::ui {

QString recipeMisfit(const std::optional<core::SparsifierConfig> &config, const core::ElementInfo &element)
{
    if (!config)
        return QObject::tr("no sparsifier is set for it");
    // The methods' conditions depend on the rank and the last dim only (n-m's groups run
    // along the last dim, row-norm needs rank >= 1): core::computeMask on zeros of the same
    // rank and last dim, leading dims 1, says what it would say on the whole dataset.
    core::Shape probe(element.shape.size(), 1);
    if (!probe.empty())
        probe.back() = element.shape.back();
    try {
        core::DenseTensor<float> zeros{probe, {}};
        zeros.values.assign(static_cast<std::size_t>(core::numel(probe)), 0.0f);
        core::computeMask(core::Tensor(core::Storage{std::move(zeros)}), *config);
    } catch (const core::Error &error) {
        return QString::fromStdString(error.what());
    }
    return {};
}

} // namespace sparsity::ui
