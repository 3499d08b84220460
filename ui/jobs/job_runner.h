#pragma once
// JobRunner: runs long work off the GUI thread, one job at a time (docs/ARCHITECTURE.md: long
// work is cancellable). The work gets a core::ProgressCallback; Cancel makes the next
// progress report throw core::Cancelled, so core functions stop at their next checkpoint and
// leave no output. The work returns a continuation that runs on the GUI thread when it
// succeeded — the only place a job may change the document, so a failed or cancelled job
// leaves the document unchanged.
#include "core/util/progress.h"

#include <QFutureWatcher>
#include <QObject>
#include <atomic>
#include <functional>
#include <memory>

namespace sparsity::ui {

class JobRunner : public QObject {
    Q_OBJECT

public:
    using Continuation = std::function<void()>;
    using Work = std::function<Continuation(const core::ProgressCallback &progress)>;

    explicit JobRunner(QObject *parent = nullptr);
    ~JobRunner() override;

    // False (and nothing starts) while another job runs.
    bool start(const QString &title, Work work);
    void cancel();
    bool isRunning() const { return m_watcher.isRunning(); }
    const QString &title() const { return m_title; }

signals:
    void started(const QString &title);
    void progressed(qint64 done, qint64 total);
    // error is the one-line message of a failed job; empty when it succeeded or was cancelled.
    void finished(bool succeeded, bool cancelled, const QString &error);

private:
    struct Outcome {
        Continuation continuation;
        bool cancelled = false;
        QString error;
    };
    void onFinished();

    QFutureWatcher<void> m_watcher;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::shared_ptr<Outcome> m_outcome;
    QString m_title;
};

} // namespace sparsity::ui
