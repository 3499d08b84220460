#include "ui/jobs/job_runner.h"

#include "core/util/errors.h"

#include <QPointer>
#include <QtConcurrent/QtConcurrentRun>

namespace sparsity::ui {

JobRunner::JobRunner(QObject *parent) : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcher<void>::finished, this, &JobRunner::onFinished);
}

JobRunner::~JobRunner()
{
    // A job still running when the window closes is cancelled and waited for: it must not
    // outlive the objects its continuation refers to.
    if (m_cancel)
        m_cancel->store(true);
    m_watcher.waitForFinished();
}

bool JobRunner::start(const QString &title, Work work)
{
    if (isRunning())
        return false;
    m_title = title;
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_outcome = std::make_shared<Outcome>();
    QPointer<JobRunner> self(this);
    core::ProgressCallback progress = [self, cancel = m_cancel](std::int64_t done, std::int64_t total) {
        if (self)
            QMetaObject::invokeMethod(
                self,
                [self, done, total] {
                    if (self)
                        emit self->progressed(done, total);
                },
                Qt::QueuedConnection);
        return !cancel->load();
    };
    m_watcher.setFuture(QtConcurrent::run([work = std::move(work), progress, outcome = m_outcome] {
        try {
            outcome->continuation = work(progress);
        } catch (const core::Cancelled &) {
            outcome->cancelled = true;
        } catch (const core::Error &error) {
            outcome->error = QString::fromStdString(error.what());
        } catch (const std::bad_alloc &) {
            outcome->error = QStringLiteral("out of memory");
        }
    }));
    emit started(title);
    return true;
}

void JobRunner::cancel()
{
    if (m_cancel)
        m_cancel->store(true);
}

void JobRunner::onFinished()
{
    const auto outcome = std::move(m_outcome);
    const bool succeeded = !outcome->cancelled && outcome->error.isEmpty();
    if (succeeded && outcome->continuation)
        outcome->continuation();
    emit finished(succeeded, outcome->cancelled, outcome->error);
}

} // namespace sparsity::ui
