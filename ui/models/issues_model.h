#pragma once
// IssuesModel: what went wrong or was noticed, as a table (severity with its standard icon,
// location "sample.h5:/emb", message) in the order it was reported. Fed by every load and
// job of the main window, and by the validation notes core produces on the way; shown in
// the Issues dock, whose title counts it ("Issues (2 errors, 1 warning)").
#include "ui/models/issue.h"

#include <QAbstractTableModel>
#include <QList>

namespace sparsity::ui {

class IssuesModel : public QAbstractTableModel {
    Q_OBJECT

public:
    enum Column { SeverityColumn, LocationColumn, MessageColumn, ColumnCount };

    explicit IssuesModel(QObject *parent = nullptr);

    // Appends `issue`, stamped now when its time is unset. An issue equal to one already
    // listed is not listed again, and false is returned: previewing an element again notes the
    // same conversion again, and jumping to a broken element from its Issues row reads it, and
    // fails, again. A repeated Error counts on its row ("(3 times)") and takes its time.
    bool add(Issue issue);
    void clear();

    const Issue &issue(int row) const { return m_issues.at(row); }
    int count(Issue::Severity severity) const; // rows of that severity
    // "2 errors, 1 warning, 3 notes", leaving out what there is none of; empty when empty.
    QString countsText() const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QList<Issue> m_issues;
};

} // namespace sparsity::ui
