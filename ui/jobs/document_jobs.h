#pragma once
// DocumentJobs: the long operations on the document's file, each run by the JobRunner off
// the GUI thread — Export (the recipe over the whole file, core::runBatchJob), the Optimizer
// panel's run (core::compareSemantics) and the Gradcheck panel's check (core::gradcheckFile).
// Each checks what it needs first; whatever stops it becomes one line on issue(); results
// reach the document only through the job's continuation, so a failed or cancelled job
// changes nothing.
#include "ui/jobs/job_runner.h"

#include <QObject>

namespace sparsity::ui {

class TensorDocument;
struct GradcheckPanelRequest;
struct OptimizerRequest;

class DocumentJobs : public QObject {
    Q_OBJECT

public:
    enum class Kind { Export, Optimizer, Gradcheck };
    Q_ENUM(Kind)

    DocumentJobs(TensorDocument *document, JobRunner *runner, QObject *parent = nullptr);

    // Each returns false (the reason on issue()) when the job could not start.
    bool startExport(const QString &output);
    bool runOptimizer(const OptimizerRequest &request);
    bool runGradcheck(const GradcheckPanelRequest &request);

signals:
    void issue(const QString &text);
    // The job of `kind` was refused, failed or was cancelled (the panel that asked says so).
    void failed(sparsity::ui::DocumentJobs::Kind kind, const QString &error);
    void status(const QString &text);

private:
    // "<what>: <why>" on issue(); returns false for `return refuse(...)`.
    bool refuse(Kind kind, const QString &what, const QString &why);
    // Starts `work` as the job `title`; its error is reported as "<what>: <error>".
    bool launch(Kind kind, const QString &what, const QString &title, JobRunner::Work work);

    TensorDocument *m_document;
    JobRunner *m_runner;
};

} // namespace sparsity::ui
