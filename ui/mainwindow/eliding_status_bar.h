#pragma once
// A status bar whose messages end in "…" when they do not fit beside its permanent widgets
// (the jobs, the device), with the whole message as its tooltip. QStatusBar cuts a long
// message off mid-word with no sign that more was said (an error's file path, say); the
// whole text of an error is also in the Issues dock.
#include <QElapsedTimer>
#include <QStatusBar>

namespace sparsity::ui {

class ElidingStatusBar : public QStatusBar {
    Q_OBJECT

public:
    explicit ElidingStatusBar(QWidget *parent = nullptr);
    // As showMessage(), elided to the room there is now and again whenever the bar resizes.
    void showWholeMessage(const QString &text, int timeoutMs = 0);

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    QString elided() const;

    QString m_whole;     // the message being shown, in full; empty once another replaced it
    QString m_shown;     // as shown: m_whole elided
    int m_timeoutMs = 0; // its timeout, counted from m_since
    QElapsedTimer m_since;
};

} // namespace sparsity::ui
