#pragma once
// OverviewStrip: the whole of a table too large to load, pooled into a narrow strip beside
// the heatmap — each pixel the strongest value of its rows and columns (RowOverview), on the
// strip's own colour scale — with the loaded window of rows outlined and the rows not read yet
// greyed. A click or drag moves the outline; the window's rows load when the mouse is let go.
#include "ui/views/colour_map.h"
#include "ui/views/row_overview.h"

#include <QImage>
#include <QTimer>
#include <QWidget>
#include <optional>

namespace sparsity::ui {

class OverviewStrip : public QWidget {
    Q_OBJECT

public:
    explicit OverviewStrip(QWidget *parent = nullptr);

    // The overview drawn (owned elsewhere, growing while it is built); null: none.
    void setOverview(const RowOverview *overview);
    // The overview grew: redrawn soon (now, when `immediately`).
    void overviewChanged(bool immediately = false);
    // The heatmap's colour map (the strip keeps its own robust range).
    void setColourMap(ColourMap map);
    // The rows loaded: [firstRow, firstRow + rows).
    void setWindow(std::int64_t firstRow, std::int64_t rows);
    const QImage &image() const { return m_image; }
    // The first row of a window centred on the row drawn at height `y`.
    std::int64_t windowAt(int y) const;
    QSize sizeHint() const override { return {96, 240}; }

signals:
    void windowRequested(std::int64_t firstRow);

protected:
    void paintEvent(QPaintEvent *event) override;
    void resizeEvent(QResizeEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;

private:
    void render();
    QRect imageArea() const;
    int yOf(std::int64_t row) const;

    const RowOverview *m_overview = nullptr;
    QImage m_image;
    ColourMap m_map = ColourMap::Diverging;
    std::int64_t m_imageRows = 0; // the overview's rows read when m_image was made
    QTimer m_renderSoon;
    std::int64_t m_firstRow = 0, m_rows = 0;
    std::optional<std::int64_t> m_dragFirst; // where a drag has moved the window to
};

} // namespace sparsity::ui
