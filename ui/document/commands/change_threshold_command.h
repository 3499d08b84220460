#pragma once
// ChangeThresholdCommand: sets the threshold preview of a TensorDocument. Commands of the
// same gesture (one mouse drag on the histogram) merge, so a drag is one undo step.
#include <QUndoCommand>

#include <optional>

namespace sparsity::ui {

class TensorDocument;

class ChangeThresholdCommand : public QUndoCommand {
public:
    ChangeThresholdCommand(TensorDocument *document, std::optional<double> before, std::optional<double> after,
                           int gesture);

    void undo() override;
    void redo() override;
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand *other) override;

private:
    void updateText();

    TensorDocument *m_document;
    std::optional<double> m_before, m_after;
    int m_gesture;
};

} // namespace sparsity::ui
