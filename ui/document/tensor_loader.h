#pragma once
// TensorLoader: reads the tensor the Files tree selects into what the document shows. A tensor
// up to kMaxLoadedElements is read whole (the preview and Apply then see what Export sees); a
// larger dense, csr, row_sparse or coo (rows ascending) table a window of rows at a time
// (core::elementReadableByRows), which the row scroll bar and the overview strip move.
//
// A selection is read at once, on the GUI thread; a move of the window of a table already shown
// is read on a pool thread, so the window stays live while the rows come (Debian's serial HDF5
// serialises calls with its own lock, docs/ARCHITECTURE.md). The latest read wins: a result
// that a later read overtook is dropped.
#include "core/io/h5_catalog.h"
#include "core/tensor/tensor.h"
#include "core/util/validation_report.h"
#include "ui/document/element_ref.h"

#include <QFutureWatcher>
#include <QObject>
#include <cstdint>
#include <memory>

namespace sparsity::ui {

// Which rows of an element a load reads.
struct RowWindow {
    std::int64_t totalRows = 1;  // dim 0 (1 for a 0-d tensor)
    std::int64_t rowWidth = 1;   // elements per row
    bool windowed = false;       // a window of rows, not the whole tensor
    std::int64_t firstRow = 0;   // 0 unless windowed
    std::int64_t rowsLoaded = 1; // rows the window holds (totalRows when whole)
};

struct TensorLoad {
    ElementRef element;
    RowWindow window;
    core::Tensor tensor;
    core::ValidationReport notes; // dtypes converted, indices sorted: what `sparsity` would note
};

class TensorLoader : public QObject {
    Q_OBJECT

public:
    // Tensors up to this many elements are read whole.
    static constexpr std::int64_t kMaxLoadedElements = std::int64_t{4} << 20;
    // A table whose rows are wider than this is not previewed: a window holds at least one row,
    // and the views of one row of 400 M elements took 9 GB.
    static constexpr std::int64_t kMaxRowElements = std::int64_t{16} << 20;

    explicit TensorLoader(QObject *parent = nullptr);
    ~TensorLoader() override;

    // The rows a load of `element` from `firstRow` on reads (clamped to the table). Whether the
    // layout can be windowed is the caller's finding: readableByRows needs the file.
    static RowWindow planWindow(const core::ElementInfo &element, bool readableByRows, std::int64_t firstRow);

    // Reads `element` of `file` now; throws core::Error (an InputError for rows wider than
    // kMaxRowElements). Any read still in flight is dropped.
    TensorLoad load(const QString &file, const core::ElementInfo &element, std::int64_t firstRow);
    // Reads it on a pool thread; `loaded` or `failed` follows unless a later read overtakes it.
    void loadInBackground(const QString &file, const core::ElementInfo &element, std::int64_t firstRow);
    // Drops the read in flight, if any (the tensor shown changed by other means).
    void forget();
    bool isLoading() const { return m_pending; }

signals:
    void loaded(const std::shared_ptr<const TensorLoad> &load);
    void failed(const ElementRef &element, const QString &error);

private:
    struct Outcome {
        std::shared_ptr<const TensorLoad> load;
        ElementRef element;
        QString error;
    };
    struct Request {
        QString file;
        core::ElementInfo element;
        std::int64_t firstRow = 0;
    };
    void start(const Request &request);
    void onFinished();

    QFutureWatcher<Outcome> m_watcher;
    std::uint64_t m_generation = 0;    // bumped by every request and forget
    std::uint64_t m_inFlight = 0;      // the generation of the background read running
    bool m_pending = false;            // a background read is wanted and not overtaken
    std::unique_ptr<Request> m_queued; // the latest read asked for while one was in flight
};

} // namespace sparsity::ui
