#pragma once
// Tooltips of heatmap cells: the text depends on where the mouse rests, so it is answered per
// QEvent::ToolTip instead of set once on the widget.
#include <QString>
#include <functional>

class QEvent;
class QPoint;
class QWidget;

namespace sparsity::ui {

// For a QEvent::ToolTip, shows what `textAt` says of its position (hides the tooltip where it
// says nothing) and returns true; other events return false.
bool answerCellToolTip(QWidget *widget, QEvent *event, const std::function<QString(const QPoint &)> &textAt);

} // namespace sparsity::ui
