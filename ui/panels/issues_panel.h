#pragma once
// IssuesPanel: the Issues dock's contents — the IssuesModel as a table beside a Clear button
// (Clear is also in the table's context menu). Issues stay in the order they were reported,
// the newest at the bottom and scrolled to as it arrives: a job's notes then read before its
// failure, and a workspace's missing file before the element it could then not show, and the
// row being read does not move while others arrive. Activating an issue that names a place
// (double-click, or Enter) asks for that file and element to be shown.
#include <QWidget>

class QTreeView;

namespace sparsity::ui {

struct ElementRef;
class IssuesModel;

class IssuesPanel : public QWidget {
    Q_OBJECT

public:
    explicit IssuesPanel(IssuesModel *model, QWidget *parent = nullptr);

    QTreeView *view() const { return m_view; }

signals:
    void jumpRequested(const sparsity::ui::ElementRef &location);

private:
    IssuesModel *m_model;
    QTreeView *m_view;
};

} // namespace sparsity::ui
