#include "ui/document/whole_table_preview.h"

#include "core/io/h5_handle.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/util/errors.h"

#include <QtConcurrent/QtConcurrentRun>

namespace sparsity::ui {

bool WholeTablePreview::Request::operator==(const Request &other) const
{
    return file == other.file && element == other.element && rows.begin == other.rows.begin && rows.end == other.rows.end
           && config == other.config;
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
    const Request request{file, element, rows, config};
    if (m_answered && *m_answered == request) {
        if (!m_answer.error.isEmpty())
            return {std::nullopt, false, m_answer.error};
        return {m_answer.mask, false, {}};
    }
    const Answer pending{std::nullopt, true, tr("ranking the whole table…")};
    if (m_running && *m_running == request) {
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
    // The kept choice serves the same table under the same blocks: then only the level's choice
    // and the rows' mask are computed.
    auto kept = m_answered && m_answered->file == request.file && m_answered->element == request.element && m_answer.choice
                        && m_answer.choice->serves(request.config)
                    ? m_answer.choice
                    : nullptr;
    m_watcher.setFuture(QtConcurrent::run([request, kept = std::move(kept), cancel = m_cancel]() -> Outcome {
        try {
            const auto file = core::H5File::openRead(request.file.toStdString());
            auto choice = kept ? kept
                               : std::make_shared<const core::WholeTensorChoice>(
                                   file, request.element.toStdString(), request.config,
                                   [cancel](std::int64_t, std::int64_t) { return !cancel->load(); });
            if (cancel->load())
                return {};
            auto mask = choice->maskOfRows(file, request.rows, request.config);
            return {std::move(choice), std::move(mask), {}};
        } catch (const core::Cancelled &) {
            return {};
        } catch (const std::exception &error) { // refused (too large), or the file went away
            return {nullptr, {}, QString::fromStdString(error.what())};
        }
    }));
}

void WholeTablePreview::onFinished()
{
    auto outcome = m_watcher.result();
    const auto finished = std::exchange(m_running, std::nullopt);
    if (outcome.choice || !outcome.error.isEmpty()) { // not cancelled
        m_answered = finished;
        m_answer = std::move(outcome);
    }
    if (const auto next = std::exchange(m_queued, std::nullopt))
        start(*next);
    emit ready();
}

} // namespace sparsity::ui
