// The Optimizer panel runs the same steps under dense, lazy and masked semantics through the
// main window's job: the results equal `sparsity step --compare` on the same inputs (the
// parameter bit for bit, the divergence table entry for entry), every view shows, undo takes
// the run back, and a rule's refusal goes to the Issues dock and leaves the document as it was.
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/tensor/tensor_ops.h"
#include "ui/document/gradcheck_run.h"
#include "ui/document/tensor_document.h"
#include "ui/jobs/document_jobs.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/divergence_model.h"
#include "ui/models/issues_model.h"
#include "ui/panels/inspector_panel.h"
#include "ui/panels/optimizer_panel.h"
#include "ui/views/matrix_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <set>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestOptimizerPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests")); }
    void threeSemanticsEqualTheCli();
    void refusalGoesToIssues();
    void runWithoutGradientsSaysSoInThePanel();
    void gradientsOfAnotherShapeCannotBeChosen();
    void closingTheFileDropsItsResults();
    void cancelledRunKeepsTheLastResult();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

ui::OptimizerRequest adamRequest()
{
    ui::OptimizerRequest request;
    request.kind = core::OptimizerKind::Adam;
    request.hyperparameters.lr = 0.1;
    request.semantics = {core::Semantics::Dense, core::Semantics::Lazy, core::Semantics::Masked};
    request.gradients = {QStringLiteral("/g0"), QStringLiteral("/g1")};
    return request;
}

// Opens the sample, then `other`, shows the sample's /emb and runs adamRequest() on it to its end.
void runAdamOnEmb(ui::MainWindow &window, const QString &other)
{
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.openFile(other));
    QVERIFY(window.selectElement(QStringLiteral("/emb"), kSample));
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runOptimizer(adamRequest()));
    QVERIFY(finished.wait(60000));
    QVERIFY(window.document()->optimizerRun());
}

} // namespace

void TestOptimizerPanel::threeSemanticsEqualTheCli()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *panel = window.optimizerPanel();
    QAbstractItemModelTester tester(panel->divergenceModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto *gradients = panel->findChild<QListWidget *>(QStringLiteral("optimizer.gradients"));
    QVERIFY(gradients->count() >= 2); // the file's elements are offered

    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runOptimizer(adamRequest()));
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    const auto run = window.document()->optimizerRun();
    QVERIFY(run);
    QCOMPARE(run->comparison.results.size(), std::size_t{3});

    QTemporaryDir dir;
    const QString output = dir.filePath(QStringLiteral("step.h5"));
    QProcess cli;
    cli.start(QStringLiteral(SPARSITY_CLI), {QStringLiteral("step"),        kSample,
                                             QStringLiteral("-o"),          output,
                                             QStringLiteral("--optimizer"), QStringLiteral("adam"),
                                             QStringLiteral("--semantics"), QStringLiteral("dense"),
                                             QStringLiteral("--param"),     QStringLiteral("/emb"),
                                             QStringLiteral("--grad"),      QStringLiteral("/g0"),
                                             QStringLiteral("--grad"),      QStringLiteral("/g1"),
                                             QStringLiteral("--lr"),        QStringLiteral("0.1"),
                                             QStringLiteral("--compare"),   QStringLiteral("lazy"),
                                             QStringLiteral("masked"),      QStringLiteral("--json")});
    QVERIFY(cli.waitForFinished(60000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
    const auto report = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();

    // The dense parameter, bit for bit.
    const auto cliParam = core::toDenseDouble(core::readTensor(core::H5File::openRead(output.toStdString()), "/param"));
    QCOMPARE(run->comparison.results[0].tensors[0].second.values, cliParam.values);

    // The divergence table, entry for entry.
    auto *model = panel->divergenceModel();
    int row = 0;
    for (const auto &against : report[QStringLiteral("divergence")].toArray()) {
        const auto semantics = against[QStringLiteral("semantics")].toArray();
        for (const auto &tensor : against[QStringLiteral("tensors")].toArray()) {
            QCOMPARE(model->index(row, ui::DivergenceModel::Semantics).data().toString(),
                     QStringLiteral("%1 vs %2").arg(semantics[1].toString(), semantics[0].toString()));
            QCOMPARE(model->index(row, ui::DivergenceModel::Tensor).data().toString(), tensor[QStringLiteral("name")].toString());
            QCOMPARE(model->index(row, ui::DivergenceModel::DifferingRows).data().toLongLong(),
                     tensor[QStringLiteral("differing_rows")].toInteger());
            QCOMPARE(model->index(row, ui::DivergenceModel::MaxAbsDiff).data().toString(),
                     QString::number(tensor[QStringLiteral("max_abs_diff")].toDouble(), 'g', 4));
            ++row;
        }
    }
    QCOMPARE(model->rowCount(), row);

    // Every view draws: tensors, staleness (one column), differences.
    auto *views = panel->findChild<QComboBox *>(QStringLiteral("optimizer.view"));
    QCOMPARE(views->count(), 3 * (3 + 1) + 2 * 3);
    for (int i = 0; i < views->count(); ++i) {
        views->setCurrentIndex(i);
        QVERIFY2(!panel->matrixView()->image().isNull(), qPrintable(views->itemText(i)));
        QCOMPARE(panel->matrixView()->title(), views->itemText(i));
    }
    // The Inspector shows every state under every semantics at the hovered element, on one line
    // for the semantics that agree there.
    const auto inspectorShows = [&](std::int64_t element, qsizetype lineCount) {
        window.document()->setHover(element);
        const auto states = window.inspector()->statesText();
        const auto lines = states.split(QLatin1Char('\n'));
        QVERIFY2(lines.size() == lineCount, qPrintable(states));
        for (const auto &result : run->comparison.results) {
            const auto name = QString::fromUtf8(core::semanticsName(result.semantics).data());
            const auto values = QStringLiteral("param %1, exp_avg ").arg(result.tensors[0].second.values[element], 0, 'g', 6);
            const auto holding = std::count_if(lines.begin(), lines.end(), [&](const QString &line) {
                const auto colon = line.indexOf(QStringLiteral(": "));
                return line.left(colon).split(QStringLiteral(", ")).contains(name) && line.mid(colon + 2).startsWith(values);
            });
            QVERIFY2(holding == 1, qPrintable(name + QStringLiteral(" in: ") + states));
        }
    };
    // The first element where the three parameters differ, and the first where two of them do.
    const auto &results = run->comparison.results;
    const auto distinctParams = [&](std::size_t k) {
        std::set<float> params;
        for (const auto &result : results)
            params.insert(static_cast<float>(result.tensors[0].second.values[k]));
        return params.size();
    };
    std::optional<std::int64_t> allDiffer, twoDiffer;
    for (std::size_t k = 0; k < results[0].tensors[0].second.values.size() && (!allDiffer || !twoDiffer); ++k) {
        const auto distinct = distinctParams(k);
        if (distinct == 3 && !allDiffer)
            allDiffer = static_cast<std::int64_t>(k);
        if (distinct == 2 && !twoDiffer)
            twoDiffer = static_cast<std::int64_t>(k);
    }
    QVERIFY(allDiffer && twoDiffer);
    inspectorShows(*allDiffer, 3);
    inspectorShows(*twoDiffer, 2);
    inspectorShows(0, 1);

    views->setCurrentText(QStringLiteral("lazy: row staleness"));
    QCOMPARE(panel->matrixView()->image().size(), QSize(1, 1797));
    // The views of the stepped tensor are linked to it while it is shown.
    QVERIFY(panel->matrixView()->link() == ui::CellLink::Rows);
    views->setCurrentText(QStringLiteral("lazy − dense: param"));
    QVERIFY(panel->matrixView()->link() == ui::CellLink::Elements);

    // For the docs: SPARSITY_SCREENSHOT_DIR=docs/screenshots saves the window with the panel.
    if (const auto folder = qEnvironmentVariable("SPARSITY_SCREENSHOT_DIR"); !folder.isEmpty()) {
        window.resize(1400, 900);
        window.show();
        window.findChild<QDockWidget *>(QStringLiteral("OptimizerDock"))->raise();
        views->setCurrentText(QStringLiteral("lazy − dense: param"));
        // Rows selected on the heatmap are drawn in the linked difference map too.
        window.document()->setSelection(ui::ElementSelection::rectangle(100, 400, 0, 63));
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.grab().save(folder + QStringLiteral("/optimizer_panel.png")));
        window.document()->setSelection({});
    }

    window.document()->undoStack()->undo();
    QVERIFY(!window.document()->optimizerRun());
    QCOMPARE(model->rowCount(), 0);
    QCOMPARE(views->count(), 0);
    window.document()->undoStack()->redo();
    QCOMPARE(window.document()->optimizerRun(), run);
    QCOMPARE(model->rowCount(), row);

    views->setCurrentText(QStringLiteral("lazy − dense: param"));
    QVERIFY(window.selectElement(QStringLiteral("/pixels"))); // same shape, another tensor
    QVERIFY(panel->matrixView()->link() == ui::CellLink::None);
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QVERIFY(panel->matrixView()->link() == ui::CellLink::Elements);
}

void TestOptimizerPanel::refusalGoesToIssues()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto request = adamRequest();
    request.hyperparameters.weightDecay = 0.01; // torch's SparseAdam refuses weight decay
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runOptimizer(request));
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.first().at(0).toBool(), false);
    QVERIFY(!window.document()->optimizerRun());
    QCOMPARE(window.document()->undoStack()->count(), 0);
    QCOMPARE(window.issuesModel()->rowCount(), 1);
    QVERIFY2(window.issuesModel()->issue(0).summary().contains(QStringLiteral("lazy semantics")),
             qPrintable(window.issuesModel()->issue(0).summary()));
    // ... and is said in the panel itself.
    auto *summary = window.optimizerPanel()->findChild<QLabel *>(QStringLiteral("optimizer.summary"));
    QVERIFY2(summary->text().contains(QStringLiteral("lazy semantics")), qPrintable(summary->text()));
}

void TestOptimizerPanel::runWithoutGradientsSaysSoInThePanel()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.optimizerPanel()->findChild<QPushButton *>(QStringLiteral("optimizer.run"))->click();
    QVERIFY(!window.jobs()->isRunning());
    auto *summary = window.optimizerPanel()->findChild<QLabel *>(QStringLiteral("optimizer.summary"));
    QVERIFY2(summary->text().contains(QStringLiteral("gradient")), qPrintable(summary->text()));
}

// A gradient or mask must have the parameter's shape: others are listed greyed out, say why,
// and are never in a run's request; a tick comes back when the shown tensor fits again.
void TestOptimizerPanel::gradientsOfAnotherShapeCannotBeChosen()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb"))); // 1797 x 64
    auto *panel = window.optimizerPanel();
    auto *gradients = panel->findChild<QListWidget *>(QStringLiteral("optimizer.gradients"));
    const auto item = [&](const QString &path) {
        const auto found = gradients->findItems(path, Qt::MatchExactly);
        return found.isEmpty() ? nullptr : found.first();
    };
    QVERIFY(item(QStringLiteral("/g0")) && item(QStringLiteral("/W")));
    QVERIFY(item(QStringLiteral("/g0"))->flags() & Qt::ItemIsEnabled);
    QVERIFY(!(item(QStringLiteral("/W"))->flags() & Qt::ItemIsEnabled));
    QCOMPARE(item(QStringLiteral("/W"))->toolTip(),
             QStringLiteral("/W has shape [64, 10]; the parameter /emb has shape [1797, 64]"));

    auto request = adamRequest();
    request.gradients = {QStringLiteral("/g0"), QStringLiteral("/W")};
    request.mask = QStringLiteral("/ink"); // 64 x 64
    panel->setRequest(request);
    QCOMPARE(panel->request().gradients, QStringList{QStringLiteral("/g0")});
    QVERIFY(panel->request().mask.isEmpty());
    QCOMPARE(panel->choices().gradients, request.gradients); // a workspace keeps them
    QCOMPARE(panel->choices().mask, request.mask);
    auto *masks = panel->findChild<QComboBox *>(QStringLiteral("optimizer.mask"));
    QVERIFY(masks);
    const auto *maskModel = qobject_cast<QStandardItemModel *>(masks->model());
    QVERIFY(!maskModel->item(masks->findText(QStringLiteral("/ink")))->isEnabled());
    QVERIFY(maskModel->item(masks->findText(QStringLiteral("/pixels")))->isEnabled());

    // Shown: /W. Its own shape fits, the table's gradients do not; the user's ticks come back.
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    QCOMPARE(panel->request().gradients, QStringList{QStringLiteral("/W")});
    QVERIFY(!(item(QStringLiteral("/g0"))->flags() & Qt::ItemIsEnabled));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QCOMPARE(panel->request().gradients, QStringList{QStringLiteral("/g0")});
}

// File > Close of the file a result was computed from takes the result off the panels (and
// out of the undo history, whose steps would bring it back); a result of another file stays.
void TestOptimizerPanel::closingTheFileDropsItsResults()
{
    QTemporaryDir dir;
    const QString other = dir.filePath(QStringLiteral("other.h5"));
    QVERIFY(QFile::copy(kSample, other));
    ui::MainWindow window;
    runAdamOnEmb(window, other);
    auto gradcheck = std::make_shared<ui::GradcheckRun>();
    gradcheck->expression = QStringLiteral("x * x");
    gradcheck->inputs[QStringLiteral("x")] = {QFileInfo(other).absoluteFilePath(), QStringLiteral("/W")};
    window.document()->changeGradcheckRun(gradcheck);
    auto *summary = window.optimizerPanel()->findChild<QLabel *>(QStringLiteral("optimizer.summary"));
    QVERIFY(summary->text().contains(QStringLiteral("/emb")));

    // Closing asks first: a workspace does not keep a run (it was dropped unasked).
    QStringList asked;
    const auto answer = [&asked](QMessageBox::StandardButton button) {
        QTimer::singleShot(0, [&asked, button] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                asked << box->text();
                box->button(button)->click();
            }
        });
    };
    answer(QMessageBox::Cancel);
    QVERIFY(!window.closeFile(kSample));
    QVERIFY(window.document()->optimizerRun());
    answer(QMessageBox::Discard);
    QVERIFY(window.closeFile(kSample));
    QCOMPARE(asked, QStringList(2, QStringLiteral("Closing sample.h5 drops the Optimizer run on /emb.")));
    QVERIFY(!window.document()->optimizerRun());
    QVERIFY(window.document()->gradcheckRun()); // of the other file
    QCOMPARE(window.document()->undoStack()->count(), 0);
    QVERIFY2(!summary->text().contains(QStringLiteral("/emb")), qPrintable(summary->text()));
    answer(QMessageBox::Discard);
    QVERIFY(window.closeFile(other));
    QCOMPARE(asked.last(), QStringLiteral("Closing other.h5 drops the Gradcheck run."));
    QVERIFY(!window.document()->gradcheckRun());
}

// Cancel keeps the last run, in the document and in the panel (it said "Run did not happen:
// cancelled" while the document kept the run).
void TestOptimizerPanel::cancelledRunKeepsTheLastResult()
{
    QTemporaryDir dir;
    const QString big = dir.filePath(QStringLiteral("big.h5"));
    {
        // 65,536 x 64 (the most a tensor loaded whole holds) and eight gradients: seconds of
        // three semantics, for Cancel to stop.
        auto file = core::H5File::create(big.toStdString());
        core::DenseTensor<float> t{{65536, 64}, {}};
        t.values.assign(65536 * 64, 0.5f);
        core::writeTensor(file, "/p", core::Tensor(core::Storage{t}));
        for (int g = 0; g < 8; ++g)
            core::writeTensor(file, "/g" + std::to_string(g), core::Tensor(core::Storage{t}));
    }
    ui::MainWindow window;
    runAdamOnEmb(window, big);
    const auto first = window.document()->optimizerRun();
    auto *summary = window.optimizerPanel()->findChild<QLabel *>(QStringLiteral("optimizer.summary"));
    const QString shown = summary->text();
    QVERIFY2(shown.contains(QStringLiteral("/emb")), qPrintable(shown));

    QVERIFY(window.selectElement(QStringLiteral("/p"), big));
    auto request = adamRequest();
    request.gradients.clear();
    for (int g = 0; g < 8; ++g)
        request.gradients << QStringLiteral("/g%1").arg(g);
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runOptimizer(request));
    window.jobs()->cancel();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().at(1).toBool(), true); // cancelled
    QCOMPARE(window.document()->optimizerRun(), first);
    QCOMPARE(summary->text(), shown);
}

QTEST_MAIN(TestOptimizerPanel)
#include "tst_optimizer_panel.moc"
