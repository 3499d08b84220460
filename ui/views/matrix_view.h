#pragma once
// MatrixView: one 2-d array (a parameter, an optimizer state, a difference, a Jacobian) as a
// heatmap filling the widget, with a title and the colour legend. It shows what it is given
// and keeps a copy to redraw: larger than the widget, it is shrunk by max-|value| pooling so
// sparse structure (a difference map's few changed rows) stays visible.
#include "ui/views/heatmap_image.h"

#include <QWidget>

namespace sparsity::ui {

class MatrixView : public QWidget {
    Q_OBJECT

public:
    explicit MatrixView(QWidget *parent = nullptr);

    void showMatrix(const QString &title, const core::DenseTensor<double> &values);
    void showMessage(const QString &message);
    const QImage &image() const { return m_heatmap.image; }
    const QString &title() const { return m_title; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_title;
    QString m_message;
    HeatmapImage m_heatmap;
    core::DenseTensor<double> m_values;
    QImage m_pooled;   // m_values pooled to the last drawn area
};

} // namespace sparsity::ui
