#include "ui/panels/inspector_panel.h"

#include "ui/document/tensor_document.h"

#include <QFormLayout>
#include <QLabel>
#include <algorithm>
#include <limits>
#include <utility>
#include <vector>

namespace sparsity::ui {

InspectorPanel::InspectorPanel(TensorDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_coordinates(new QLabel), m_value(new QLabel), m_specified(new QLabel),
      m_preview(new QLabel), m_states(new QLabel), m_selection(new QLabel)
{
    for (auto *label : {m_coordinates, m_value, m_specified, m_preview, m_states, m_selection})
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Long lines wrap rather than widen the dock (an Adam run's states under three semantics).
    m_selection->setWordWrap(true);
    m_states->setWordWrap(true);
    auto *form = new QFormLayout(this);
    form->addRow(tr("Element"), m_coordinates);
    form->addRow(tr("Value"), m_value);
    // The tensor's own mask bit (a masked_tensor's specified elements), not the Optimizer's
    // --mask: "Mask bit" was read as the latter.
    form->addRow(tr("Specified"), m_specified);
    form->addRow(tr("Sparsifier"), m_preview);
    form->addRow(tr("Optimizer"), m_states);
    form->addRow(tr("Selection"), m_selection);
    connect(document, &TensorDocument::hoverChanged, this, &InspectorPanel::showElement);
    connect(document, &TensorDocument::tensorChanged, this, &InspectorPanel::showElement);
    connect(document, &TensorDocument::sparsifierChanged, this, &InspectorPanel::showElement);
    connect(document, &TensorDocument::selectionChanged, this, &InspectorPanel::showElement);
    connect(document, &TensorDocument::optimizerRunChanged, this, &InspectorPanel::showElement);
    connect(document, &TensorDocument::applicationsChanged, this, &InspectorPanel::showElement); // a run may go stale
    connect(document, &TensorDocument::selectionChanged, this, &InspectorPanel::showSelection);
    connect(document, &TensorDocument::tensorChanged, this, &InspectorPanel::showSelection);
    showElement();
    showSelection();
}

QString InspectorPanel::elementText() const
{
    return QStringLiteral("%1 = %2 (mask %3; %4)")
        .arg(m_coordinates->text(), m_value->text(), m_specified->text(), m_preview->text());
}

QString InspectorPanel::selectionText() const { return m_selection->text(); }

QString InspectorPanel::statesText() const { return m_states->text(); }

void InspectorPanel::showElement()
{
    std::optional<std::int64_t> element = m_document->hover();
    const auto &selection = m_document->selection();
    if (!element && m_document->selectedCount() == 1 && selection.kind == ElementSelection::Kind::Rectangle)
        element = m_document->gridOffset() + selection.row0 * m_document->gridCols() + selection.col0;
    if (!element && m_document->selectedCount() == 1 && selection.kind == ElementSelection::Kind::FlatRange)
        element = selection.first;
    const auto &values = m_document->values();
    if (!element || *element < 0 || *element >= static_cast<std::int64_t>(values.values.size())) {
        for (auto *label : {m_coordinates, m_value, m_specified, m_preview, m_states})
            label->setText(QStringLiteral("–"));
        return;
    }
    const auto k = static_cast<std::size_t>(*element);
    m_coordinates->setText(m_document->coordinatesOf(*element));
    const bool specified = !m_document->specified() || (*m_document->specified())[k];
    // An unspecified element has no value (its stored 0 is a placeholder, not data).
    m_value->setText(specified ? QString::number(values.values[k], 'g', 8) : tr("unspecified"));
    m_specified->setText(specified ? QStringLiteral("1") : tr("0 (unspecified)"));
    if (!m_document->sparsifier())
        m_preview->setText(tr("no recipe"));
    else if (!m_document->hasPreview())
        m_preview->setText(tr("recipe does not fit"));
    else
        m_preview->setText(m_document->pruned()[k] ? tr("pruned") : tr("kept"));

    // A run on another tensor has nothing here, whatever its size (matching sizes alone showed
    // /emb's run on /pixels); nor has a run of this table's rows that did not step this
    // element's row (a window of rows stepped before the window moved). Semantics that agree at
    // this element share a line ("dense, lazy: ..."), so the lines that remain are where they
    // differ, and the row fits a short Inspector.
    std::vector<std::pair<QStringList, QString>> lines; // the semantics that agree, and their values
    const auto &run = m_document->optimizerRun();
    if (const auto stepped = m_document->optimizerRunIndexOf(*element))
        for (const auto &result : run->comparison.results) {
            QStringList parts;
            for (const auto &[name, tensor] : result.tensors)
                parts << QStringLiteral("%1 %2").arg(QString::fromStdString(name)).arg(tensor.values[*stepped], 0, 'g', 6);
            const auto name = QString::fromUtf8(core::semanticsName(result.semantics).data());
            const auto line = parts.join(QStringLiteral(", "));
            const auto same = std::find_if(lines.begin(), lines.end(), [&](const auto &l) { return l.second == line; });
            if (same != lines.end())
                same->first << name;
            else
                lines.push_back({{name}, line});
        }
    QStringList states;
    for (const auto &[semantics, line] : lines)
        states << semantics.join(QStringLiteral(", ")) + QStringLiteral(": ") + line;
    if (!states.isEmpty() && m_document->optimizerRunIsStale())
        states.prepend(tr("stale (the values changed since the run; Run again):"));
    if (!states.isEmpty())
        m_states->setText(states.join(QLatin1Char('\n')));
    else if (run && run->param == ElementRef{m_document->source().filePath, m_document->source().elementPath})
        m_states->setText(tr("not stepped (the run took rows %1–%2)").arg(run->rows.begin).arg(run->rows.end - 1));
    else
        m_states->setText(tr("no run on this tensor"));
}

void InspectorPanel::showSelection()
{
    const auto &selected = m_document->selected();
    if (selected.empty()) {
        m_selection->setText(tr("none"));
        m_selection->setToolTip(tr("Drag on the heatmap (Shift: whole rows), or Shift+drag on the histogram for a value range"));
        return;
    }
    const auto &values = m_document->values().values;
    const auto *specified = m_document->specified();
    std::int64_t count = 0;
    double sum = 0.0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (std::size_t i = 0; i < selected.size(); ++i)
        if (selected[i] && (!specified || (*specified)[i])) {
            ++count;
            sum += values[i];
            lo = std::min(lo, values[i]);
            hi = std::max(hi, values[i]);
        }
    if (count == 0) {
        const auto selectedCount = m_document->selectedCount();
        m_selection->setText(selectedCount == 1 ? tr("1 element, not specified")
                                                : tr("%1 elements, none specified").arg(selectedCount));
        return;
    }
    m_selection->setText((count == 1 ? tr("1 element: sum %2, mean %3, min %4, max %5")
                                     : tr("%1 elements: sum %2, mean %3, min %4, max %5").arg(count))
                             .arg(sum, 0, 'g', 6)
                             .arg(sum / static_cast<double>(count), 0, 'g', 6)
                             .arg(lo, 0, 'g', 6)
                             .arg(hi, 0, 'g', 6));
}

} // namespace sparsity::ui
