#pragma once
// ShortcutPrecedence: keys a text or spin box would take for itself that belong to the window.
// A focused line edit claims Ctrl+E (end of line) and Ctrl+Z/Ctrl+Shift+Z (its own text undo).
// In the Sparsifier's recipe every field's change is already a document edit, so its own text
// undo only typed an older value back: Ctrl+Z after Apply set the threshold to 0 as a new edit
// and left Apply in place. There the Edit menu's Undo and Redo take the keys (elsewhere a text
// field keeps its own undo), and Export takes Ctrl+E everywhere in the window.
#include <QObject>
#include <QPointer>
#include <vector>

class QAction;
class QWidget;

namespace sparsity::ui {

class ShortcutPrecedence : public QObject {
    Q_OBJECT

public:
    // Filters the application's events for `window` (which owns it).
    explicit ShortcutPrecedence(QWidget *window);
    // `action`'s keys go to `action` from any widget inside `scope` (the whole window when null).
    void giveKeysTo(QAction *action, QWidget *scope = nullptr);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    struct Rule {
        QPointer<QAction> action;
        QPointer<QWidget> scope;
    };
    QWidget *m_window;
    std::vector<Rule> m_rules;
};

} // namespace sparsity::ui
