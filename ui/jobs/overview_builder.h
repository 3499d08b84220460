#pragma once
// OverviewBuilder: builds the RowOverview of a table too large to load whole, one chunk of
// rows (about 1 Mi elements, a few milliseconds) per turn of the event loop, on the GUI
// thread, so the single background job slot stays free for the user's work (a job's HDF5 calls
// and these interleave under HDF5's own lock). The overview grows as it is built, so the view
// can draw what is there.
#include "core/io/element_rows.h"
#include "core/io/h5_handle.h"
#include "ui/document/element_ref.h"
#include "ui/views/row_overview.h"

#include <QObject>
#include <QTimer>
#include <optional>

namespace sparsity::ui {

class OverviewBuilder : public QObject {
    Q_OBJECT

public:
    explicit OverviewBuilder(QObject *parent = nullptr);

    // Starts over on `element` (a table of `totalRows` rows of `cols` elements that
    // core::elementReadableByRows reads by rows).
    void start(const ElementRef &element, std::int64_t totalRows, std::int64_t cols);
    void stop();
    bool isBuilding() const { return m_timer.isActive(); }
    const ElementRef &element() const { return m_element; }
    const RowOverview &overview() const { return m_overview; }

    static constexpr std::int64_t kBins = 2048;

signals:
    void progressed(); // more rows are in the overview
    void finished();
    void failed(const QString &error);

private:
    void step();

    QTimer m_timer;
    ElementRef m_element;
    std::optional<core::H5File> m_file;
    std::optional<core::ElementRowReader> m_rows; // reads m_file
    RowOverview m_overview;
    std::int64_t m_nextRow = 0;
    std::int64_t m_chunkRows = 1;
};

} // namespace sparsity::ui
