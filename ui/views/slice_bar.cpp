#include "ui/views/slice_bar.h"

#include "ui/document/tensor_document.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSlider>

namespace sparsity::ui {

SliceBar::SliceBar(TensorDocument *document, QWidget *parent) : QWidget(parent), m_document(document)
{
    new QHBoxLayout(this);
    connect(document, &TensorDocument::tensorChanged, this, &SliceBar::rebuild);
    connect(document, &TensorDocument::sliceChanged, this, [this] {
        for (int d = 0; d < m_sliders.size(); ++d) {
            const QSignalBlocker blocker(m_sliders[d]);
            m_sliders[d]->setValue(static_cast<int>(m_document->slice()[static_cast<std::size_t>(d)]));
        }
    });
    rebuild();
}

void SliceBar::rebuild()
{
    const auto &slice = m_document->slice();
    const auto &shape = m_document->values().shape;
    const std::vector<std::int64_t> leading(shape.begin(), shape.begin() + static_cast<std::ptrdiff_t>(slice.size()));
    if (leading == m_leading && static_cast<std::size_t>(m_sliders.size()) == slice.size())
        return; // the same leading dims: keep the sliders (Apply and undo change values only)
    m_leading = leading;
    auto *row = static_cast<QHBoxLayout *>(layout());
    while (auto *item = row->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_sliders.clear();
    for (std::size_t d = 0; d < slice.size(); ++d) {
        auto *label = new QLabel(tr("dim %1").arg(d));
        auto *slider = new QSlider(Qt::Horizontal);
        slider->setObjectName(QStringLiteral("slice.dim%1").arg(d));
        slider->setRange(0, static_cast<int>(shape[d]) - 1);
        slider->setValue(static_cast<int>(slice[d]));
        auto *value = new QLabel(QString::number(slice[d]));
        value->setMinimumWidth(fontMetrics().horizontalAdvance(QString::number(shape[d])) + 4);
        connect(slider, &QSlider::valueChanged, this, [this, d, value](int index) {
            value->setNum(index);
            m_document->setSlice(d, index);
        });
        row->addWidget(label);
        row->addWidget(slider, 1);
        row->addWidget(value);
        m_sliders << slider;
    }
    setVisible(!slice.empty());
}

} // namespace sparsity::ui
