#pragma once
// ScrollWheelGuard: in a panel that scrolls, the mouse wheel scrolls the panel; a combo box or
// spin box takes the wheel only once it has focus (clicked or tabbed to). Without it, scrolling
// down the Optimizer panel slid its Mask box under the pointer and the next wheel steps chose
// a mask, unseen, for the next run.
#include <QObject>

class QScrollArea;

namespace sparsity::ui {

class ScrollWheelGuard : public QObject {
    Q_OBJECT

public:
    // Guards every combo box and spin box in `scroll`'s widget (owned by `scroll`).
    static void install(QScrollArea *scroll);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    explicit ScrollWheelGuard(QScrollArea *scroll);

    QScrollArea *m_scroll;
};

} // namespace sparsity::ui
