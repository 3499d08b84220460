#include "ui/document/whole_table_preview.h"

#include "core/io/h5_handle.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/util/errors.h"

#include <QtConcurrent/QtConcurrentRun>

namespace sparsity::ui {

bool WholeTablePreview::Request::covers(const QString &f, const QString &e, const core::SparsifierConfig &c) const
{
    if (f != file || e != element || c.method != config.method)
        return false;
    return c.method != core::SparsifierMethod::DataNorm
           || (c.blockRows == config.blockRows && c.blockCols == config.blockCols && c.norm == config.norm);
}

WholeTablePreview::WholeTablePreview(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<Outcome>::finished, this, &WholeTablePreview::onFinished);
}

// A computation in flight is cancelled and waited for, so no pool thread outlives the preview.
WholeTablePreview::~WholeTablePreview()
{
    if (m_cancel)
        *m_cancel = true;
    m_watcher.waitForFinished();
}

WholeTablePreview::Answer
WholeTablePreview::maskOf(const QString &file, const QString &element, core::RowRange rows, const core::SparsifierConfig &config)
{
    if (m_done && m_done->covers(file, element, config)) {
        if (!m_refusal.isEmpty())
            return {std::nullopt, false, m_refusal};
        try {
            return {m_choice->maskOfRows(core::H5File::openRead(file.toStdString()), rows, config), false, {}};
        } catch (const core::Error &error) { // the file changed or went away since
            return {std::nullopt, false, QString::fromStdString(error.what())};
        }
    }
    const Answer pending{std::nullopt, true,
                         tr("ranking the whole table for %1…").arg(QString::fromUtf8(core::factsOf(config.method).name.data()))};
    const Request request{file, element, config};
    if (m_running && m_running->covers(file, element, config)) {
        m_queued.reset(); // the one running answers the latest request
        return pending;
    }
    if (m_running) { // superseded: cancelled, and this one starts when it ends
        *m_cancel = true;
        m_queued = request;
        return pending;
    }
    start(request);
    return pending;
}

void WholeTablePreview::start(const Request &request)
{
    m_running = request;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_watcher.setFuture(QtConcurrent::run([request, cancel = m_cancel]() -> Outcome {
        try {
            const auto file = core::H5File::openRead(request.file.toStdString());
            return {
                std::make_shared<const core::WholeTensorChoice>(file, request.element.toStdString(), request.config,
                                                                [cancel](std::int64_t, std::int64_t) { return !cancel->load(); }),
                {}};
        } catch (const core::Cancelled &) {
            return {};
        } catch (const std::exception &error) { // refused (too large), or the file went away
            return {nullptr, QString::fromStdString(error.what())};
        }
    }));
}

void WholeTablePreview::onFinished()
{
    auto outcome = m_watcher.result();
    const auto finished = std::exchange(m_running, std::nullopt);
    if (outcome.choice || !outcome.error.isEmpty()) {
        m_done = finished;
        m_choice = std::move(outcome.choice);
        m_refusal = outcome.error;
    }
    if (const auto next = std::exchange(m_queued, std::nullopt))
        start(*next);
    emit ready();
}

} // namespace sparsity::ui
