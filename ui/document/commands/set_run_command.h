#pragma once
// SetRunCommand: replaces one of the document's run results (the Optimizer panel's, the
// Gradcheck panel's) through its setter; undo brings the previous result back.
#include "ui/document/tensor_document.h"

#include <QUndoCommand>
#include <memory>

namespace sparsity::ui {

template <class Run>
class SetRunCommand : public QUndoCommand {
public:
    using Setter = void (TensorDocument::*)(std::shared_ptr<const Run>);

    SetRunCommand(TensorDocument *document,
                  Setter setter,
                  std::shared_ptr<const Run> before,
                  std::shared_ptr<const Run> after,
                  const QString &text)
        : QUndoCommand(text), m_document(document), m_setter(setter), m_before(std::move(before)), m_after(std::move(after))
    {
    }

    void undo() override { (m_document->*m_setter)(m_before); }
    void redo() override { (m_document->*m_setter)(m_after); }

private:
    TensorDocument *m_document;
    Setter m_setter;
    std::shared_ptr<const Run> m_before, m_after;
};

} // namespace sparsity::ui
