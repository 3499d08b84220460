#include "ui/views/cell_tooltip.h"

#include <QHelpEvent>
#include <QToolTip>

namespace sparsity::ui {

bool answerCellToolTip(QWidget *widget, QEvent *event, const std::function<QString(const QPoint &)> &textAt)
{
    if (event->type() != QEvent::ToolTip)
        return false;
    const auto *help = static_cast<QHelpEvent *>(event);
    if (const auto text = textAt(help->pos()); !text.isEmpty())
        QToolTip::showText(help->globalPos(), text, widget);
    else
        QToolTip::hideText();
    return true;
}

} // namespace sparsity::ui
