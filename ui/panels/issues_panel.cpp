#include "ui/panels/issues_panel.h"

#include "ui/models/issues_model.h"

#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace sparsity::ui {

IssuesPanel::IssuesPanel(IssuesModel *model, QWidget *parent) : QWidget(parent), m_model(model), m_view(new QTreeView)
{
    m_view->setObjectName(QStringLiteral("issues"));
    m_view->setModel(model);
    m_view->setRootIsDecorated(false);
    m_view->setUniformRowHeights(true); // one line each: a long message is elided, whole in its tooltip
    m_view->setAlternatingRowColors(true);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    auto *header = m_view->header();
    header->setStretchLastSection(true);
    header->setSectionResizeMode(IssuesModel::SeverityColumn, QHeaderView::ResizeToContents);
    header->setSectionResizeMode(IssuesModel::LocationColumn, QHeaderView::ResizeToContents);
    connect(model, &QAbstractItemModel::rowsInserted, m_view, [this] { m_view->scrollToBottom(); });
    connect(m_view, &QAbstractItemView::activated, this, [this](const QModelIndex &index) {
        const auto &issue = m_model->issue(index.row());
        if (!issue.location.file.isEmpty() || !issue.location.path.isEmpty())
            emit jumpRequested(issue.location);
    });

    auto *clear = new QAction(tr("Clear"), this);
    clear->setObjectName(QStringLiteral("action.issues.clear"));
    clear->setToolTip(tr("Clear the list of issues"));
    connect(clear, &QAction::triggered, model, &IssuesModel::clear);
    m_view->setContextMenuPolicy(Qt::ActionsContextMenu);
    m_view->addAction(clear);
    auto *clearButton = new QToolButton;
    clearButton->setObjectName(QStringLiteral("issues.clear"));
    clearButton->setDefaultAction(clear);

    // The button beside the table, not above it: the dock is short (the window fits 720
    // pixels), and a row of its height is better spent on issues.
    auto *buttons = new QVBoxLayout;
    buttons->addWidget(clearButton);
    buttons->addStretch();
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_view, 1);
    layout->addLayout(buttons);
}

} // namespace sparsity::ui
