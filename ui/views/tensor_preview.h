#pragma once
// TensorPreview: the document's tensor (its first rows) as a heatmap scaled to the widget,
// with a title line and a colour legend; elements the threshold preview prunes are drawn
// dark. A first look at data, not the full heatmap view. It repaints on the document's
// signals and holds no data of its own beyond the rendered image.
#include "ui/views/heatmap_image.h"

#include <QWidget>

namespace sparsity::ui {

class TensorDocument;

class TensorPreview : public QWidget {
    Q_OBJECT

public:
    explicit TensorPreview(TensorDocument *document, QWidget *parent = nullptr);

    // Shows `message` instead of a tensor (nothing selected, a read error).
    void showMessage(const QString &message);
    const QImage &image() const { return m_heatmap.image; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    void render();

    TensorDocument *m_document;
    QString m_title;
    QString m_message;
    HeatmapImage m_heatmap;
};

} // namespace sparsity::ui
