#include "ui/document/whole_table_preview.h"

#include "core/io/h5_handle.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/util/errors.h"

#include <QFile>
#include <QtConcurrent/QtConcurrentRun>
#include <sys/stat.h>

namespace sparsity::ui {

WholeTablePreview::FileStamp WholeTablePreview::stampOf(const QString &file)
{
    struct stat info {};
    if (::stat(QFile::encodeName(file).constData(), &info) != 0)
        return {}; // gone: the read will say so
    return {static_cast<std::uint64_t>(info.st_dev), static_cast<std::uint64_t>(info.st_ino),
            static_cast<std::int64_t>(info.st_size),
            static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
}

bool WholeTablePreview::Request::operator==(const Request &other) const
{
    return sameChoiceAs(other) && rows.begin == other.rows.begin && rows.end == other.rows.end && config == other.config;
}

bool WholeTablePreview::Request::sameChoiceAs(const Request &other) const
{
    return file == other.file && element == other.element && stamp == other.stamp
           && core::WholeTensorChoice::sameChoice(config, other.config);
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
    const Request request{file, element, stampOf(file), rows, config};
    if (m_answered && *m_answered == request) {
        if (!m_answer.error.isEmpty())
            return {std::nullopt, false, m_answer.error};
        return {m_answer.mask, false, {}};
    }
    const Answer pending{std::nullopt, true, tr("ranking the whole table…")};
    if (!m_running) {
        start(request);
        return pending;
    }
    if (*m_running == request && !*m_cancel) { // it answers this request
        m_queued.reset();
        return pending;
    }
    // After the one running: its choice is kept for this request when it serves it, so it runs
    // on; otherwise it is cancelled.
    m_queued = request;
    if (!m_running->sameChoiceAs(request))
        *m_cancel = true;
    return pending;
}

void WholeTablePreview::start(const Request &request)
{
    m_running = request;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    // The kept choice serves the same table under the same blocks: then only the level's choice
    // and the rows' mask are computed.
    auto kept = m_answered && m_answer.choice && m_answered->sameChoiceAs(request) ? m_answer.choice : nullptr;
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
    const bool answered = outcome.choice || !outcome.error.isEmpty(); // not cancelled
    if (answered) {
        m_answered = finished;
        m_answer = std::move(outcome);
    }
    if (const auto next = std::exchange(m_queued, std::nullopt))
        start(*next);
    if (answered)
        emit ready();
}

} // namespace sparsity::ui
