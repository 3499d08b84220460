#include "ui/document/index_text.h"

#include <QStringList>
#include <algorithm>

namespace sparsity::ui {

QString indexText(const core::Shape &shape, std::int64_t flat, std::int64_t firstRow)
{
    QStringList parts;
    for (auto d = static_cast<std::ptrdiff_t>(shape.size()) - 1; d >= 0; --d) {
        const auto extent = std::max<std::int64_t>(shape[static_cast<std::size_t>(d)], 1);
        parts.prepend(QString::number(flat % extent + (d == 0 ? firstRow : 0)));
        flat /= extent;
    }
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}

} // namespace sparsity::ui
