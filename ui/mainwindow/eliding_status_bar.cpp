#include "ui/mainwindow/eliding_status_bar.h"

#include <QResizeEvent>

namespace sparsity::ui {

ElidingStatusBar::ElidingStatusBar(QWidget *parent) : QStatusBar(parent)
{
    connect(this, &QStatusBar::messageChanged, this, [this](const QString &message) {
        if (message == m_shown && !message.isEmpty())
            return;
        m_whole.clear(); // replaced, by a plain showMessage() or by its timeout
        m_shown.clear();
        setToolTip({});
    });
}

void ElidingStatusBar::showWholeMessage(const QString &text, int timeoutMs)
{
    m_whole = text;
    m_timeoutMs = timeoutMs;
    m_since.start();
    m_shown = elided();
    setToolTip(text);
    showMessage(m_shown, timeoutMs);
}

QString ElidingStatusBar::elided() const
{
    // What the permanent widgets leave: they sit at the right, the message fills the rest.
    int left = contentsRect().right();
    for (const auto *child : findChildren<QWidget *>(Qt::FindDirectChildrenOnly))
        if (child->isVisible() && child->x() > 0)
            left = std::min(left, child->x());
    // QStatusBar draws the message a few pixels in from the left edge.
    return fontMetrics().elidedText(m_whole, Qt::ElideRight, std::max(0, left - 12));
}

void ElidingStatusBar::resizeEvent(QResizeEvent *event)
{
    QStatusBar::resizeEvent(event);
    if (m_whole.isEmpty() || currentMessage() != m_shown)
        return;
    // The timeout runs on from the first showing: a resize does not lengthen it.
    const auto left = m_timeoutMs > 0 ? m_timeoutMs - static_cast<int>(m_since.elapsed()) : 0;
    if (m_timeoutMs > 0 && left <= 0)
        return;
    m_shown = elided();
    const QSignalBlocker keep(this);
    showMessage(m_shown, left);
}

} // namespace sparsity::ui
