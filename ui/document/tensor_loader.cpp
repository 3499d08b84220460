#include "ui/document/tensor_loader.h"

#include "core/io/element_rows.h"
#include "core/io/h5_reader.h"
#include "core/tensor/shape.h"
#include "core/util/errors.h"

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>
#include <optional>

namespace sparsity::ui {
namespace {

TensorLoad readLoad(const QString &file, const core::ElementInfo &element, std::int64_t firstRow)
{
    const auto h5 = core::H5File::openRead(file.toStdString());
    TensorLoad load;
    load.element = {file, QString::fromStdString(element.path)};
    // The overview strip pools plain values only, so a masked table is read whole, however
    // large (core::elementReadableByRows would take one with a mask of its data's layout).
    const bool byRows = !element.masked && core::elementReadableByRows(h5, element);
    load.window = TensorLoader::planWindow(element, byRows, firstRow);
    if (byRows && load.window.rowWidth > TensorLoader::kMaxRowElements)
        throw core::InputError(h5.where(element.path) + ": a row of it holds " + std::to_string(load.window.rowWidth)
                               + " elements, more than the " + std::to_string(TensorLoader::kMaxRowElements)
                               + " the preview reads at once; the command-line tool works on it in blocks");
    load.tensor = load.window.windowed ? core::readElementRows(
                      h5, element.path, {load.window.firstRow, load.window.firstRow + load.window.rowsLoaded}, &load.notes)
                                       : core::readTensor(h5, element.path, &load.notes);
    return load;
}

} // namespace

TensorLoader::TensorLoader(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &TensorLoader::onFinished);
}

// A read in flight cannot be stopped inside HDF5; it is waited for so that no pool thread
// outlives the window.
TensorLoader::~TensorLoader() { m_watcher.waitForFinished(); }

RowWindow TensorLoader::planWindow(const core::ElementInfo &element, bool readableByRows, std::int64_t firstRow)
{
    RowWindow window;
    if (element.shape.empty())
        return window; // a 0-d tensor: one value
    window.totalRows = element.shape[0];
    window.rowWidth = core::numel(element.shape, 1, element.shape.size());
    const std::int64_t rowsThatFit = std::max<std::int64_t>(1, kMaxLoadedElements / std::max<std::int64_t>(window.rowWidth, 1));
    window.windowed = readableByRows && window.totalRows > rowsThatFit;
    window.rowsLoaded = window.windowed ? rowsThatFit : window.totalRows;
    window.firstRow = window.windowed ? std::clamp<std::int64_t>(firstRow, 0, window.totalRows - rowsThatFit) : 0;
    return window;
}

TensorLoad TensorLoader::load(const QString &file, const core::ElementInfo &element, std::int64_t firstRow)
{
    forget();
    return readLoad(file, element, firstRow);
}

void TensorLoader::loadInBackground(const QString &file, const core::ElementInfo &element, std::int64_t firstRow)
{
    ++m_generation;
    m_pending = true;
    Request request{file, element, firstRow};
    if (m_watcher.isRunning()) {
        // One read at a time: the latest request waits for the one in flight, whose result is
        // then dropped; requests in between are never read.
        m_queued = std::make_unique<Request>(std::move(request));
        return;
    }
    start(request);
}

void TensorLoader::start(const Request &request)
{
    m_inFlight = m_generation;
    m_watcher.setFuture(QtConcurrent::run([request] {
        Outcome outcome;
        outcome.element = {request.file, QString::fromStdString(request.element.path)};
        try {
            outcome.load = std::make_shared<const TensorLoad>(readLoad(request.file, request.element, request.firstRow));
        } catch (const core::Error &error) {
            outcome.error = QString::fromStdString(error.what());
        } catch (const std::bad_alloc &) {
            outcome.error = outcome.element.file + QStringLiteral(":") + outcome.element.path
                            + QStringLiteral(": out of memory reading its rows");
        }
        return outcome;
    }));
}

void TensorLoader::forget()
{
    ++m_generation;
    m_pending = false;
    m_queued.reset();
}

void TensorLoader::onFinished()
{
    const Outcome outcome = m_watcher.result();
    if (m_queued) {
        const auto queued = std::move(m_queued);
        start(*queued); // the latest request: this result is dropped
        return;
    }
    if (m_inFlight != m_generation)
        return; // overtaken by a load or dropped by forget
    m_pending = false;
    if (outcome.load)
        emit loaded(outcome.load);
    else
        emit failed(outcome.element, outcome.error);
}

} // namespace sparsity::ui
