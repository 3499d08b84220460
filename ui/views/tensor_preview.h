#pragma once
// TensorPreview: the first rows of a tensor as a heatmap scaled to the widget, with a title
// line and a colour legend. A first look at data, not the full heatmap view.
#include "ui/views/heatmap_image.h"

#include <QWidget>

namespace sparsity::ui {

class TensorPreview : public QWidget {
    Q_OBJECT

public:
    explicit TensorPreview(QWidget *parent = nullptr);

    void setTensor(const QString &title, const core::Tensor &tensor, std::int64_t totalRows);
    void clear(const QString &message);
    const QImage &image() const { return m_heatmap.image; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_title;
    QString m_message;
    HeatmapImage m_heatmap;
};

} // namespace sparsity::ui
