#pragma once
// TensorPreview: the document's tensor (its loaded rows) as a heatmap scaled to the widget,
// with a title line and a colour legend; elements the sparsifier preview prunes are drawn
// dark, unselected elements are washed out while a selection exists. The mouse hovers
// elements (the Inspector shows them, a tooltip names them) and selects: a click one element
// (outlined), drag for a rectangle of elements, Shift+drag for whole rows, a click outside the
// image clears. The wheel zooms about the mouse, a right or middle drag pans, a right click
// opens the context menu, + and - zoom, Home shows everything. Axes label row and column
// indices (of the whole tensor: a window of rows is labelled from its first row). Colours
// follow ColourSettings (map and range, chosen in the Colours menu); one element keeps one
// scale while it is shown (scrolling its rows, applying edits, moving through its slices).
// It repaints on the document's signals and holds no data of its own beyond rendered images.
#include "ui/views/heatmap_axes.h"
#include "ui/views/heatmap_image.h"

#include <QList>
#include <QWidget>
#include <memory>
#include <optional>

class QMenu;

namespace sparsity::ui {

class TensorDocument;

class TensorPreview : public QWidget {
    Q_OBJECT

public:
    explicit TensorPreview(TensorDocument *document, QWidget *parent = nullptr);

    // Shows `message` instead of a tensor (nothing selected, a read error).
    void showMessage(const QString &message);
    // What is shown instead of a tensor (empty while one is drawn).
    const QString &message() const { return m_message; }
    const QImage &image() const { return m_heatmap.image; }
    // One pixel per element: transparent where selected, a white wash elsewhere; null
    // without a selection.
    const QImage &selectionWash() const { return m_selectionWash; }

    // The element [row, col] of the grid drawn at `position`, if any.
    std::optional<QPoint> elementAt(const QPoint &position) const;
    // The element whose colour the pixel at `position` shows: elementAt's, or, where more
    // elements than pixels are shown (pooled), the block's most prominent one. Hover (the
    // Inspector), the tooltip, a click and Copy Value take it: what the user sees.
    std::optional<QPoint> shownElementAt(const QPoint &position) const;
    // Where element [row, col] is drawn (its centre), for tests and tools.
    QPoint positionOf(std::int64_t row, std::int64_t col) const;
    // The part of the element grid shown, in element units (x = column, y = row).
    const QRectF &view() const { return m_view; }
    // Row ticks (positions along y) at the left of the image, column ticks (along x) below it.
    QList<AxisTick> rowTicks() const;
    QList<AxisTick> columnTicks() const;
    // What the tooltip says of the element drawn at `position` (empty: none there).
    QString toolTipAt(const QPoint &position) const;

    const ColourSettings &colourSettings() const { return m_colourSettings; }
    void setColourSettings(const ColourSettings &settings);
    // The scale the image is drawn with (its map, range and the data's extremes).
    const ColourScale &colourScale() const { return m_heatmap.scale; }
    // "Colour Map" and "Colour Range" (View menu and context menu).
    QMenu *colourMapMenu() const { return m_mapMenu; }
    QMenu *colourRangeMenu() const { return m_rangeMenu; }
    // The context menu for a right click at `position` (built each time: its Copy Value
    // names the element there).
    std::unique_ptr<QMenu> contextMenuAt(const QPoint &position);

    void zoomAt(const QPoint &position, double factor);
    void zoomBy(double factor); // about the centre (View > Zoom In / Out)
    // The title drawn above the heatmap: the tensor, the rows loaded and, zoomed in, the part
    // shown (in the tensor's rows and columns).
    QString titleText() const;
    void resetView();

signals:
    void colourSettingsChanged(const ColourSettings &settings);

protected:
    bool event(QEvent *event) override; // tooltips
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void leaveEvent(QEvent *event) override;
    void wheelEvent(QWheelEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;

private:
    void createColourMenus();
    void askColourRange();
    // Index labels start here: a window of rows is labelled with the tensor's row numbers.
    std::int64_t rowBase() const;
    std::int64_t columnBase() const;
    void render();
    // The title above the image: the document's, with the rows and the slice shown.
    void updateTitle();
    // Why the document's tensor has nothing to draw (no elements, 0-d, no finite value);
    // empty when it has.
    QString nothingToDraw() const;
    void renderSelection();
    QRect imageArea() const;
    void selectTo(const QPoint &element, bool wholeRows);
    QPointF viewPointAt(const QPoint &position) const;
    void setView(const QRectF &view);

    TensorDocument *m_document;
    QString m_title;
    QString m_message;
    HeatmapImage m_heatmap;
    // The colour scale of the whole loaded tensor, shared by the slices of an N-d one (so a
    // colour means the same value in every slice); reset when the tensor changes.
    std::optional<ColourScale> m_tensorScale;
    QString m_scaleOf; // the element m_tensorScale was made for
    ColourSettings m_colourSettings;
    QMenu *m_mapMenu = nullptr;
    QMenu *m_rangeMenu = nullptr;
    QImage m_selectionWash;
    std::optional<QPoint> m_anchor;   // (col, row) where the selecting drag started
    std::optional<QPointF> m_panFrom; // where the panning drag is
    bool m_panned = false;            // the right button moved (a pan), so no context menu
    QRectF m_view;                    // the shown part of the grid, in elements
    struct PoolKey {
        qint64 image = 0;
        QRect shown;
        QSize size;
        bool operator==(const PoolKey &) const = default;
    };
    PoolKey m_pooledKey; // what m_pooled was made from
    QImage m_pooled;     // the level-of-detail image last drawn
};

} // namespace sparsity::ui
