#include "ui/panels/sparsifier_parameter_field.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>
#include <algorithm>
#include <climits>

namespace sparsity::ui {
namespace {

using core::ParameterKind;

// A spin box's bound for a range's end: finite, and within [-largest, largest].
double finiteBound(double bound, double largest) { return std::clamp(bound, -largest, largest); }

QWidget *editorFor(const core::SparsifierParameter &parameter)
{
    const bool optional = !parameter.unsetMeaning.empty();
    switch (parameter.kind) {
    case ParameterKind::Number: {
        auto *box = new QDoubleSpinBox;
        // A fraction in [0, 1] steps by 5 %; other numbers (a threshold) need finer digits.
        const bool fraction = parameter.range.least == 0.0 && parameter.range.most == 1.0;
        box->setDecimals(fraction ? 3 : 4);
        box->setSingleStep(0.05);
        box->setRange(finiteBound(parameter.range.least, 1e12), finiteBound(parameter.range.most, 1e12));
        return box;
    }
    case ParameterKind::Integer: {
        auto *box = new QSpinBox;
        // An optional parameter's unset meaning is the value below the range, as Qt's special
        // value text; the bound leaves room for it in an int.
        const int least = static_cast<int>(finiteBound(parameter.range.least, INT_MAX - 1.0));
        box->setRange(optional ? least - 1 : least, static_cast<int>(finiteBound(parameter.range.most, INT_MAX)));
        if (optional)
            box->setSpecialValueText(QString::fromUtf8(parameter.unsetMeaning));
        return box;
    }
    case ParameterKind::Text:
        if (!parameter.choices.empty()) {
            auto *box = new QComboBox;
            for (const auto choice : parameter.choices)
                box->addItem(QString::fromUtf8(choice));
            return box;
        }
        return new QLineEdit;
    }
    return nullptr;
}

} // namespace

SparsifierParameterField::SparsifierParameterField(const core::SparsifierParameter &parameter, QWidget *parent)
    : QWidget(parent), m_parameter(parameter), m_editor(editorFor(parameter))
{
    m_editor->setObjectName(QStringLiteral("sparsifier.") + QString::fromUtf8(parameter.key));
    setToolTip(QString::fromUtf8(parameter.help));
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_editor);
    setFocusProxy(m_editor);
    // The user's value from now on, whatever was shown before.
    const auto userEdited = [this] {
        m_notShownExactly.reset();
        m_editor->setToolTip(QString());
        emit edited();
    };
    if (auto *number = qobject_cast<QDoubleSpinBox *>(m_editor))
        connect(number, &QDoubleSpinBox::valueChanged, this, userEdited);
    else if (auto *integer = qobject_cast<QSpinBox *>(m_editor))
        connect(integer, &QSpinBox::valueChanged, this, userEdited);
    else if (auto *choice = qobject_cast<QComboBox *>(m_editor))
        connect(choice, &QComboBox::currentIndexChanged, this, &SparsifierParameterField::edited);
    else if (auto *line = qobject_cast<QLineEdit *>(m_editor))
        connect(line, &QLineEdit::textEdited, this, &SparsifierParameterField::edited);
}

std::optional<core::ParameterValue> SparsifierParameterField::value() const
{
    if (m_notShownExactly)
        return m_notShownExactly;
    if (const auto *number = qobject_cast<QDoubleSpinBox *>(m_editor))
        return number->value();
    if (const auto *integer = qobject_cast<QSpinBox *>(m_editor)) {
        if (!m_parameter.unsetMeaning.empty() && integer->value() == integer->minimum())
            return std::nullopt;
        return std::int64_t{integer->value()};
    }
    if (const auto *choice = qobject_cast<QComboBox *>(m_editor))
        return choice->currentText().toStdString();
    return qobject_cast<QLineEdit *>(m_editor)->text().trimmed().toStdString();
}

void SparsifierParameterField::showValue(const std::optional<core::ParameterValue> &value)
{
    const QSignalBlocker blocker(m_editor);
    m_notShownExactly.reset();
    // A spin box is set only to a value it does not hold: setValue rewrites the text, so each
    // keystroke's value coming back from the document turned "0" into "0.0000" under the
    // cursor, and the next keys were lost ("0.25" became 0).
    if (auto *number = qobject_cast<QDoubleSpinBox *>(m_editor)) {
        // Beyond the box's range it shows the bound: the box's parse of a longer text (a
        // threshold of 1e300) gave 0, which was left on show.
        const double shown =
            std::clamp(value ? std::get<double>(*value) : number->minimum(), number->minimum(), number->maximum());
        if (number->value() != number->valueFromText(number->textFromValue(shown)))
            number->setValue(shown);
        if (value && number->value() != std::get<double>(*value))
            m_notShownExactly = value;
    } else if (auto *integer = qobject_cast<QSpinBox *>(m_editor)) {
        const std::int64_t least = integer->minimum(), most = integer->maximum();
        const auto exact = value ? std::get<std::int64_t>(*value) : least;
        if (const auto shown = static_cast<int>(std::clamp(exact, least, most)); integer->value() != shown)
            integer->setValue(shown);
        if (value && integer->value() != exact)
            m_notShownExactly = value;
    } else if (auto *choice = qobject_cast<QComboBox *>(m_editor)) {
        choice->setCurrentText(value ? QString::fromStdString(std::get<std::string>(*value)) : QString());
    } else if (auto *line = qobject_cast<QLineEdit *>(m_editor)) {
        // Only a different text: setting the same one would move the cursor of a user typing.
        const QString shown = value ? QString::fromStdString(std::get<std::string>(*value)) : QString();
        if (line->text().trimmed() != shown)
            line->setText(shown);
    }
    if (!m_notShownExactly)
        m_editor->setToolTip(QString());
    else if (const auto *exact = std::get_if<double>(&*m_notShownExactly))
        m_editor->setToolTip(tr("%1 (shown rounded or at the box's bound)").arg(*exact, 0, 'g', 17));
    else
        m_editor->setToolTip(tr("%1 (shown at the box's bound)").arg(std::get<std::int64_t>(*m_notShownExactly)));
}

} // namespace sparsity::ui
