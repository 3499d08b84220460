#pragma once
// SliceBar: one slider per leading dim of an N-d tensor, choosing the 2-d slice the heatmap
// shows (the document's slice()); hidden for tensors of rank 2 or less.
#include <QWidget>
#include <cstdint>
#include <vector>

class QSlider;

namespace sparsity::ui {

class TensorDocument;

class SliceBar : public QWidget {
    Q_OBJECT

public:
    explicit SliceBar(TensorDocument *document, QWidget *parent = nullptr);

    QSlider *slider(int dim) const { return m_sliders.value(dim); }

private:
    void rebuild();

    TensorDocument *m_document;
    QList<QSlider *> m_sliders;
    std::vector<std::int64_t> m_leading; // the extents the sliders were made for
};

} // namespace sparsity::ui
