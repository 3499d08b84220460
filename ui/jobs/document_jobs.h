#pragma once
// DocumentJobs: the long operations on the document's file, each run by the JobRunner off
// the GUI thread — Export (the recipe over the whole file, core::runBatchJob), the Optimizer
// panel's run (core::compareSemantics) and the Gradcheck panel's check (core::gradcheckFile).
// Each checks what it needs first; whatever stops it becomes an Error on issue(), located
// in the file and element concerned where that is known, and what core notes while reading
// the data (dtypes converted, indices sorted) comes as Notes; results reach the document
// only through the job's continuation, so a failed or cancelled job changes nothing.
#include "core/util/validation_report.h"
#include "ui/jobs/job_runner.h"
#include "ui/models/issue.h"

#include <QObject>
#include <QStringList>
#include <memory>

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
    // Export runs the document's recipe on `input` (default: the shown tensor's file).
    bool startExport(const QString &output) { return startExport(QString(), output); }
    bool startExport(const QString &input, const QString &output);
    bool runOptimizer(const OptimizerRequest &request);
    bool runGradcheck(const GradcheckPanelRequest &request);

signals:
    void issue(const sparsity::ui::Issue &issue);
    // The job of `kind` was refused or failed (the panel that asked says so).
    void failed(sparsity::ui::DocumentJobs::Kind kind, const QString &error);
    // The job of `kind` was cancelled: nothing changed, and the panel shows its last result.
    void cancelled(sparsity::ui::DocumentJobs::Kind kind);
    void status(const QString &text);

private:
    // Where a job's problems are: the files core's messages about it may start with
    // ("FILE:/ELEMENT: …"), and the place named when a message starts with none of them.
    struct Place {
        QStringList files;
        ElementRef fallback;
    };
    // "<what>: <why>" on issue(), located by `place`; returns false for `return refuse(...)`.
    bool refuse(Kind kind, const QString &what, const QString &why, const Place &place = {});
    // Starts `work` as the job `title`; its error is reported as refuse() would. What the work
    // left in `notes`, if given, is reported when it ends, whether it succeeded or failed.
    bool launch(Kind kind,
                const QString &what,
                const QString &title,
                JobRunner::Work work,
                const Place &place,
                std::shared_ptr<const core::ValidationReport> notes = {});
    void reportNotes(const core::ValidationReport &notes);

    TensorDocument *m_document;
    JobRunner *m_runner;
};

} // namespace sparsity::ui
