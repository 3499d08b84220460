#include "ui/panels/scroll_wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QScrollArea>
#include <QScrollBar>

namespace sparsity::ui {

ScrollWheelGuard::ScrollWheelGuard(QScrollArea *scroll) : QObject(scroll), m_scroll(scroll) {}

void ScrollWheelGuard::install(QScrollArea *scroll)
{
    auto *guard = new ScrollWheelGuard(scroll);
    QList<QWidget *> guarded;
    for (auto *box : scroll->widget()->findChildren<QComboBox *>())
        guarded << box;
    for (auto *box : scroll->widget()->findChildren<QAbstractSpinBox *>())
        guarded << box;
    for (auto *widget : guarded) {
        widget->setFocusPolicy(Qt::StrongFocus); // not WheelFocus: the wheel alone never focuses it
        widget->installEventFilter(guard);
    }
}

bool ScrollWheelGuard::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::Wheel)
        return false;
    const auto *widget = qobject_cast<QWidget *>(watched);
    if (!widget || widget->hasFocus())
        return false;
    // The panel scrolls instead, as if the wheel had turned over its background.
    QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
    return true;
}

} // namespace sparsity::ui
