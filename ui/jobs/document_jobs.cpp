#include "ui/jobs/document_jobs.h"

#include "core/io/element_rows.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/optim/semantics_comparison.h"
#include "core/pipeline/batch_run.h"
#include "core/pipeline/gradcheck_file.h"
#include "core/util/errors.h"
#include "ui/document/document_recipe.h"
#include "ui/document/gradcheck_run.h"
#include "ui/document/optimizer_run.h"
#include "ui/document/tensor_document.h"
#include "ui/models/issue_from_core.h"

#include <QFileInfo>

namespace sparsity::ui {

DocumentJobs::DocumentJobs(TensorDocument *document, JobRunner *runner, QObject *parent)
    : QObject(parent), m_document(document), m_runner(runner)
{
}

bool DocumentJobs::refuse(Kind kind, const QString &what, const QString &why, const Place &place)
{
    auto located = issueFromMessage(Issue::Severity::Error, why, place.files, place.fallback);
    located.text = QStringLiteral("%1: %2").arg(what, located.text);
    emit issue(located);
    emit failed(kind, why);
    return false;
}

void DocumentJobs::reportNotes(const core::ValidationReport &notes)
{
    for (const auto &note : issuesFromReport(notes))
        emit issue(note);
}

bool DocumentJobs::launch(Kind kind,
                          const QString &what,
                          const QString &title,
                          JobRunner::Work work,
                          const Place &place,
                          std::shared_ptr<const core::ValidationReport> notes)
{
    if (!m_runner->start(title, std::move(work)))
        return refuse(kind, what, tr("another job is running (%1)").arg(m_runner->title()));
    connect(
        m_runner, &JobRunner::finished, this,
        [this, kind, what, place, notes](bool, bool stopped, const QString &error) {
            if (stopped) {
                emit status(tr("%1 cancelled; nothing changed").arg(what));
                emit cancelled(kind);
                return;
            }
            // The notes first: they were made on the way to the error, and may explain it.
            if (notes)
                reportNotes(*notes);
            if (!error.isEmpty())
                refuse(kind, what, error, place);
        },
        Qt::SingleShotConnection);
    return true;
}

bool DocumentJobs::startExport(const QString &inputFile, const QString &output)
{
    const QString what = tr("Export");
    const QString input = inputFile.isEmpty() ? m_document->source().filePath : inputFile;
    if (input.isEmpty())
        return refuse(Kind::Export, what, tr("open a file and select a tensor first"));
    const Place place{{input, output}, {input, {}}};
    core::BatchRecipe recipe;
    try {
        recipe = documentRecipe(*m_document, input, output);
    } catch (const core::Error &error) {
        return refuse(Kind::Export, what, QString::fromStdString(error.what()), place);
    }
    const core::BatchJob job{input.toStdString(), output.toStdString()};
    auto notes = std::make_shared<core::ValidationReport>();
    return launch(
        Kind::Export, what, tr("export %1").arg(QFileInfo(output).fileName()),
        [this, recipe, job, output, notes](const core::ProgressCallback &progress) {
            const auto report = core::runBatchJob(recipe, job, progress);
            *notes = report.notes;
            if (!report.ok)
                throw core::InputError(report.error);
            return JobRunner::Continuation([this, output] { emit status(tr("Exported %1").arg(output)); });
        },
        place, notes);
}

bool DocumentJobs::runOptimizer(const OptimizerRequest &request)
{
    const QString what = tr("Optimizer");
    const auto &source = m_document->source();
    if (source.filePath.isEmpty())
        return refuse(Kind::Optimizer, what, tr("select the parameter tensor in the Files panel first"));
    const Place place{{source.filePath}, {source.filePath, source.elementPath}};
    if (request.gradients.isEmpty())
        return refuse(Kind::Optimizer, what, tr("check at least one gradient (one step each)"), place);
    if (m_runner->isRunning()) // one job at a time: refused before its inputs are read
        return refuse(Kind::Optimizer, what, tr("another job is running (%1)").arg(m_runner->title()));
    // A table too large to load whole steps the window of rows shown: every optimizer updates a
    // row of the parameter from the same row of each gradient alone (docs/SEMANTICS.md), so those
    // rows of each input step to the whole step's rows, bit for bit.
    const auto &loaded = m_document->values().shape;
    const bool windowed = !loaded.empty() && m_document->totalRows() > loaded[0];
    const core::RowRange rows{source.firstRow, source.firstRow + (loaded.empty() ? 0 : loaded[0])};
    auto paramShape = loaded;
    if (windowed)
        paramShape[0] = m_document->totalRows();
    std::vector<core::NamedGradient> gradients;
    std::optional<core::Tensor> mask;
    core::ValidationReport notes; // as `sparsity step` notes them
    try {
        const auto file = core::H5File::openRead(source.filePath.toStdString());
        // An input of another shape than the table's is refused as the whole step refuses it,
        // before its rows are taken.
        const auto read = [&](const QString &path, auto &&requireShape, core::ValidationReport &report) {
            const auto element = path.toStdString();
            if (!windowed)
                return core::readTensor(file, element, &report);
            requireShape(file.where(element), core::requireElement(file, element).shape);
            return core::readElementRows(file, element, rows, &report);
        };
        for (const auto &path : request.gradients)
            gradients.push_back({file.where(path.toStdString()), read(
                                                                     path,
                                                                     [&](const std::string &where, const core::Shape &shape) {
                                                                         core::requireGradientShape(where, shape, paramShape);
                                                                     },
                                                                     notes)});
        if (!request.mask.isEmpty()) {
            core::ValidationReport maskNotes; // its nonzeros are the mask: no conversion notice
            mask = read(
                request.mask,
                [&](const std::string &where, const core::Shape &shape) {
                    if (shape != paramShape)
                        throw core::errors::mustBe(where + ": the mask",
                                                   "have the parameter's shape " + core::shapeToString(paramShape),
                                                   core::shapeToString(shape));
                },
                maskNotes);
            core::appendAllButConversions(notes, maskNotes);
        }
    } catch (const core::Error &error) {
        reportNotes(notes);
        return refuse(Kind::Optimizer, what, QString::fromStdString(error.what()), place);
    }
    reportNotes(notes);
    QStringList semantics;
    for (const auto s : request.semantics)
        semantics << QString::fromUtf8(core::semanticsName(s).data());
    auto run = std::make_shared<OptimizerRun>();
    run->param = {source.filePath, source.elementPath};
    run->rows = rows;
    run->totalRows = windowed ? m_document->totalRows() : rows.count();
    run->appliedRecipes = m_document->appliedRecipes(); // of the values stepped (the tensor shown)
    run->description = tr("%1 (%2, %3) lr %4 on %5, %6 step(s): %7; %8")
                           .arg(QString::fromUtf8(core::optimizerName(request.kind).data()),
                                QString::fromUtf8(core::ruleName(request.rule).data()),
                                QString::fromUtf8(core::deviceName(request.device).data()))
                           .arg(request.hyperparameters.lr.value_or(0.0))
                           .arg(windowed ? tr("%1 (%2)").arg(source.elementPath, m_document->coverage()) : source.elementPath)
                           .arg(request.gradients.size())
                           .arg(request.gradients.join(QStringLiteral(", ")), semantics.join(QStringLiteral(" | ")));
    return launch(
        Kind::Optimizer, what, tr("optimizer steps"),
        [this, run, request, gradients = std::move(gradients), mask = std::move(mask),
         param = m_document->tensor()](const core::ProgressCallback &progress) {
            run->comparison = core::compareSemantics(param, gradients, mask ? &*mask : nullptr, request.kind, request.rule,
                                                     request.hyperparameters, request.semantics, progress, request.device);
            return JobRunner::Continuation([this, run] { m_document->changeOptimizerRun(run); });
        },
        place);
}

bool DocumentJobs::runGradcheck(const GradcheckPanelRequest &request)
{
    const QString what = tr("Gradcheck");
    if (request.inputs.isEmpty())
        return refuse(Kind::Gradcheck, what, tr("the expression uses no tensor: open a file and name its tensors"));
    auto run = std::make_shared<GradcheckRun>();
    run->expression = request.expression;
    core::GradcheckRequest check{request.expression.toStdString(), {}, request.options};
    run->inputs = request.inputs;
    Place place;
    for (auto it = request.inputs.begin(); it != request.inputs.end(); ++it) {
        check.inputs.push_back({it.key().toStdString(), it.value().file.toStdString(), it.value().path.toStdString()});
        place.files << it.value().file;
    }
    place.files.removeDuplicates();
    // An error that names no file (shapes an operation refuses, a value of the expression) is
    // about the inputs: located at their file when they all come from one.
    if (place.files.size() == 1)
        place.fallback = {place.files.first(), {}};
    auto notes = std::make_shared<core::ValidationReport>();
    return launch(
        Kind::Gradcheck, what, tr("gradcheck"),
        [this, run, check, notes](const core::ProgressCallback &progress) {
            // The Jacobians' maps are made here, off the GUI thread, and take about a quarter of
            // the check's time (4096 x 4096 Jacobians: 0.4-1.1 s after a 2.1-2.5 s check): the
            // bar gives them that share, so it reaches 100% when the result shows.
            std::int64_t checkUnits = 0;
            const auto mapUnits = [&checkUnits] { return checkUnits / 4; };
            const auto withMaps = [&](std::int64_t done, std::int64_t total) {
                checkUnits = total;
                return progress(done, checkUnits + mapUnits());
            };
            run->report = core::gradcheckFile(check, *notes, withMaps).check;
            const auto &inputs = run->report.inputs;
            const auto inputCount = static_cast<std::int64_t>(inputs.size());
            auto pictures = std::make_shared<std::vector<JacobianPictures>>();
            for (std::int64_t i = 0; i < inputCount; ++i) {
                pictures->push_back(jacobianPictures(inputs[static_cast<std::size_t>(i)]));
                core::reportProgress(progress, checkUnits + mapUnits() * (i + 1) / inputCount, checkUnits + mapUnits());
            }
            return JobRunner::Continuation([this, run, pictures] { m_document->changeGradcheckRun(run, std::move(*pictures)); });
        },
        place, notes);
}

} // namespace sparsity::ui
