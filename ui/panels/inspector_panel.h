#pragma once
// InspectorPanel: everything the document knows about the hovered element (or the selected
// one when a single element is selected): coordinates in the tensor's own shape, value, mask
// bit, what the sparsifier preview does to it, its parameter and every optimizer state under
// each semantics of the Optimizer panel's run (when the run was on this tensor) — and a
// summary of the selection (count, sum, mean, min, max over specified elements).
#include <QWidget>

class QLabel;

namespace sparsity::ui {

class TensorDocument;

class InspectorPanel : public QWidget {
    Q_OBJECT

public:
    explicit InspectorPanel(TensorDocument *document, QWidget *parent = nullptr);

    QString elementText() const;
    QString selectionText() const;
    QString statesText() const;

private:
    void showElement();
    void showSelection();

    TensorDocument *m_document;
    QLabel *m_coordinates, *m_value, *m_specified, *m_preview, *m_states, *m_selection;
};

} // namespace sparsity::ui
