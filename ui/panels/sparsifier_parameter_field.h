#pragma once
// SparsifierParameterField: the editor of one sparsifier parameter, built from its row of the
// parameter table (core/sparsify/sparsifier_parameters.h): a spin box over a number's or
// integer's range, a combo box for text with choices, a line edit for other text (the block's
// "RxC"). A parameter that may be left unset offers its meaning ("whole block") below its range.
// The Sparsifier panel lays out one per parameter, so a method's parameters are listed once.
#include "core/sparsify/sparsifier_parameters.h"

#include <QWidget>

namespace sparsity::ui {

class SparsifierParameterField : public QWidget {
    Q_OBJECT

public:
    // The editor is named "sparsifier.<key>", for tests and accessibility.
    SparsifierParameterField(const core::SparsifierParameter &parameter, QWidget *parent = nullptr);

    const core::SparsifierParameter &parameter() const { return m_parameter; }
    // The editor's value; none while an optional parameter shows its unset meaning. A value a
    // spin box cannot show exactly (a recipe file's m of 3e9, shown at the box's bound; a
    // threshold of 1e-6, shown rounded to 0.0000) is given back as it was until the user changes
    // it: an edit of another field keeps it.
    std::optional<core::ParameterValue> value() const;
    // Shows `value` (none: the unset meaning) without emitting edited().
    void showValue(const std::optional<core::ParameterValue> &value);

signals:
    void edited(); // the user changed the value

private:
    const core::SparsifierParameter &m_parameter;
    QWidget *m_editor;
    std::optional<core::ParameterValue> m_notShownExactly; // the value shown rounded or at a bound, as it is
};

} // namespace sparsity::ui
