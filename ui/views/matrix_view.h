#pragma once
// MatrixView: one 2-d array (a parameter, an optimizer state, a difference, a Jacobian) as a
// heatmap filling the widget, with a title and the colour legend. It shows what it is given
// and keeps it (shared, not copied) to redraw: larger than the widget, it is shrunk by pooling that keeps the
// most prominent value, so sparse structure (a difference map's few changed rows) stays
// visible. Axes label row and column indices; a tooltip gives a cell's index and value.
//
// Linked to a document (linked selection, docs/ARCHITECTURE.md), its cells stand for the document's
// loaded elements in one of the ways CellLink names: the document's selection is drawn
// (everything else washed out), hovering a cell hovers its element (the Inspector shows it),
// and a drag selects — through the document only, like every view.
#include "ui/views/heatmap_image.h"

#include <QWidget>
#include <optional>

namespace sparsity::ui {

class TensorDocument;

// What a cell's row and column stand for, for its tooltip: a Jacobian's row is an input's
// element and its column an output's ("∂out[1, 2] / ∂x[0, 3] = 0.5").
struct CellNames {
    QString rowName;
    core::Shape rowShape;
    QString colName;
    core::Shape colShape;
};

enum class CellLink {
    None,
    Elements,    // cell [r, c] is element [r, c] of the document's 2-d grid (same shape)
    Rows,        // row r (one column: row staleness) is row r of the document's grid
    ElementRows, // row r is the document's element r in row-major order (a Jacobian's rows)
};

class MatrixView : public QWidget {
    Q_OBJECT

public:
    explicit MatrixView(TensorDocument *document = nullptr, QWidget *parent = nullptr);

    // `link` is kept only when the matrix fits the document's loaded tensor that way.
    // Drawn on the diverging map (parameters, states, differences and Jacobians are signed), on
    // `scale` when given (views compared side by side share one), else on its own robust range.
    void showMatrix(const QString &title,
                    const core::DenseTensor<double> &values,
                    CellLink link = CellLink::None,
                    const ColourScale *scale = nullptr);
    // A matrix made and rendered elsewhere (pictureOf, on a job's thread): nothing is copied or
    // drawn again here.
    void showMatrix(const QString &title, MatrixPicture picture, CellLink link = CellLink::None);
    // Links the cells shown to the document's tensor anew (the tensor shown changed), without
    // drawing them again; kept only when the matrix fits the tensor that way.
    void setLink(CellLink link);
    // Names the cells of the matrix shown until the next showMatrix(): the tooltip then gives a
    // Jacobian's element indices instead of the flat row and column.
    void setCellNames(const CellNames &names);
    // Numbers the matrix's rows from `row` until the next showMatrix(): its rows are a window of
    // a larger table's, starting there (the row axis and the tooltips give the table's rows).
    void setFirstRow(std::int64_t row);
    void showMessage(const QString &message);
    const QImage &image() const { return m_heatmap.image; }
    const QString &title() const { return m_title; }
    const QString &message() const { return m_message; } // shown instead of a matrix
    CellLink link() const { return m_link; }
    // Null without a selection; else one pixel per cell (per row for row links), transparent
    // where selected and a white wash elsewhere.
    const QImage &selectionWash() const { return m_selectionWash; }
    // Where cell [row, col] is drawn (its centre), and the cell drawn at `position`.
    QPoint positionOf(std::int64_t row, std::int64_t col) const;
    std::optional<QPoint> cellAt(const QPoint &position) const;
    // What the tooltip says of the cell at `position` (empty: none there).
    QString toolTipAt(const QPoint &position) const;

protected:
    bool event(QEvent *event) override; // tooltips
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;

private:
    bool linkFits(CellLink link) const;
    // Whether the matrix has more cells than its area has pixels: it is drawn pooled.
    bool pooled() const;
    void renderSelection();
    void layoutArea();
    std::int64_t elementOf(const QPoint &cell) const;
    void selectTo(const QPoint &cell);

    TensorDocument *m_document;
    QString m_title;
    QString m_message;
    HeatmapImage m_heatmap;
    std::shared_ptr<const core::DenseTensor<double>> m_values; // never null
    QImage m_pooled;                                           // m_values pooled to the last drawn area
    CellLink m_link = CellLink::None;
    std::optional<CellNames> m_cellNames;
    std::int64_t m_firstRow = 0; // the table's row of the matrix's first row
    QImage m_selectionWash;
    QRect m_area;                   // where the matrix is drawn
    std::optional<QPoint> m_anchor; // (col, row) where the selecting drag started
};

} // namespace sparsity::ui
