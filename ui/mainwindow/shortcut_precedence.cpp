#include "ui/mainwindow/shortcut_precedence.h"

#include <QAction>
#include <QApplication>
#include <QKeyEvent>
#include <QWidget>

namespace sparsity::ui {

ShortcutPrecedence::ShortcutPrecedence(QWidget *window) : QObject(window), m_window(window) { qApp->installEventFilter(this); }

void ShortcutPrecedence::giveKeysTo(QAction *action, QWidget *scope) { m_rules.push_back({action, scope}); }

bool ShortcutPrecedence::eventFilter(QObject *watched, QEvent *event)
{
    // Before a key press goes to the focused widget as a shortcut candidate, that widget is
    // asked whether it wants the key (ShortcutOverride). Not asking it leaves the key to the
    // window's shortcuts.
    if (event->type() != QEvent::ShortcutOverride)
        return false;
    auto *widget = qobject_cast<QWidget *>(watched);
    // The window's widgets, a floating dock's too (a window of its own, parented to this one).
    auto *owner = widget;
    while (owner && owner != m_window)
        owner = owner->parentWidget();
    if (!owner)
        return false;
    const QKeySequence pressed(static_cast<QKeyEvent *>(event)->keyCombination());
    for (const auto &rule : m_rules)
        if (rule.action && rule.action->shortcuts().contains(pressed) && (!rule.scope || rule.scope->isAncestorOf(widget)))
            return true;
    return false;
}

} // namespace sparsity::ui
