#pragma once
// AttributesPanel: the HDF5 attributes of one object of an open file (a file's root group, a
// dataset or a sparse-layout group: what is selected in the Files tree) as a Name / Type /
// Value table under a line naming the object. It reads the file only when told to
// (showObject), on the thread that calls it.
#include <QWidget>

class QLabel;
class QTableView;

namespace sparsity::ui {

class AttributeTableModel;

class AttributesPanel : public QWidget {
    Q_OBJECT

public:
    explicit AttributesPanel(QWidget *parent = nullptr);

    // Lists the attributes of `objectPath` ("/": the root group) in `filePath`. Returns false
    // and sets errorString() when they cannot be read; the table is then empty and the panel
    // says why.
    bool showObject(const QString &filePath, const QString &objectPath);
    void clear(); // nothing selected
    QString errorString() const { return m_error; }
    QString objectText() const; // "sample.h5:/emb — 2 attributes"
    AttributeTableModel *model() const { return m_model; }

private:
    AttributeTableModel *m_model;
    QLabel *m_object;
    QTableView *m_table;
    QString m_error;
};

} // namespace sparsity::ui
