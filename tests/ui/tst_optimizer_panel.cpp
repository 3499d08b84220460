// The Optimizer panel runs the same steps under dense, lazy and masked semantics through the
// main window's job: the results equal `sparsity step --compare` on the same inputs (the
// parameter bit for bit, the divergence table entry for entry), every view shows, undo takes
// the run back, and a rule's refusal goes to the Issues dock and leaves the document as it was.
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/tensor/row_range.h"
#include "core/tensor/tensor_ops.h"
#include "ui/document/gradcheck_run.h"
#include "ui/document/tensor_document.h"
#include "ui/document/tensor_loader.h"
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
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <cmath>
#include <optional>
#include <random>
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
    void tableTooLargeToLoadStepsTheWindowShown();
    void hyperparametersAreTheOptimizersOwn();
    void formRefusalsShowBeforeRun();
    void aRunGoesStaleWhenTheValuesChange();
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// `sparsity step` on `input` (--param /emb): exit 0 or the test fails with its error line.
void runCliStep(const QString &input, const QString &output, const QStringList &options)
{
    QProcess cli;
    cli.start(QStringLiteral(SPARSITY_CLI), QStringList{QStringLiteral("step"), input, QStringLiteral("-o"), output,
                                                        QStringLiteral("--param"), QStringLiteral("/emb")}
                                                + options);
    QVERIFY(cli.waitForFinished(120000));
    QVERIFY2(cli.exitCode() == 0, cli.readAllStandardError().constData());
}

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
            const auto values = QStringLiteral("param %1, exp_avg ")
                                    .arg(result.tensors[0].second.values[static_cast<std::size_t>(element)], 0, 'g', 6);
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
    // Ticking one answers it: the refusal goes (it stayed beside the form's next problems).
    auto *gradients = window.optimizerPanel()->findChild<QListWidget *>(QStringLiteral("optimizer.gradients"));
    gradients->findItems(QStringLiteral("/g0"), Qt::MatchExactly).first()->setCheckState(Qt::Checked);
    QVERIFY2(!summary->text().contains(QStringLiteral("did not happen")), qPrintable(summary->text()));
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

// The form offers the hyperparameters the optimizer has under the rule (core::parametersOf),
// the others greyed out and never in a request: adam's momentum was taken and ignored. Betas
// and eps show the rule's defaults while empty, and a beta typed steps as `--beta1` does.
void TestOptimizerPanel::hyperparametersAreTheOptimizersOwn()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *panel = window.optimizerPanel();
    auto *kind = panel->findChild<QComboBox *>(QStringLiteral("optimizer.kind"));
    auto *momentum = panel->findChild<QDoubleSpinBox *>(QStringLiteral("optimizer.momentum"));
    auto *beta1 = panel->findChild<QLineEdit *>(QStringLiteral("optimizer.beta1"));
    auto *beta2 = panel->findChild<QLineEdit *>(QStringLiteral("optimizer.beta2"));
    auto *eps = panel->findChild<QLineEdit *>(QStringLiteral("optimizer.eps"));
    QVERIFY(kind && momentum && beta1 && beta2 && eps);

    kind->setCurrentText(QStringLiteral("adam"));
    QVERIFY(!momentum->isEnabled() && beta1->isEnabled() && beta2->isEnabled() && eps->isEnabled());
    QCOMPARE(momentum->toolTip(), QStringLiteral("Not an option of adam under the torch rule"));
    QCOMPARE(beta1->placeholderText(), QStringLiteral("0.9"));
    QCOMPARE(beta2->placeholderText(), QStringLiteral("0.999"));
    QCOMPARE(eps->placeholderText(), QStringLiteral("1e-08"));
    momentum->setValue(0.5);
    beta1->setText(QStringLiteral("0.5"));
    auto request = panel->request();
    QVERIFY(!request.hyperparameters.momentum);
    QCOMPARE(request.hyperparameters.beta1, std::optional<double>(0.5));
    QVERIFY(!request.hyperparameters.beta2 && !request.hyperparameters.eps);

    // Run with beta1 0.5: the dense parameter is `sparsity step --beta1 0.5`'s, bit for bit.
    request.semantics = {core::Semantics::Dense};
    request.gradients = {QStringLiteral("/g0")};
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runOptimizer(request));
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    QTemporaryDir dir;
    const QString output = dir.filePath(QStringLiteral("beta.h5"));
    runCliStep(kSample, output,
               {QStringLiteral("--optimizer"), QStringLiteral("adam"), QStringLiteral("--semantics"), QStringLiteral("dense"),
                QStringLiteral("--grad"), QStringLiteral("/g0"), QStringLiteral("--lr"), QStringLiteral("0.1"),
                QStringLiteral("--beta1"), QStringLiteral("0.5")});
    if (QTest::currentTestFailed())
        return;
    const auto cliParam = core::toDenseDouble(core::readTensor(core::H5File::openRead(output.toStdString()), "/param"));
    QCOMPARE(window.document()->optimizerRun()->comparison.results[0].tensors[0].second.values, cliParam.values);

    // sgd: momentum is its own, the betas are not; adagrad under mxnet has eps, 1e-07 by default.
    kind->setCurrentText(QStringLiteral("sgd"));
    QVERIFY(momentum->isEnabled() && !beta1->isEnabled() && !eps->isEnabled());
    QVERIFY(beta1->placeholderText().isEmpty());
    request = panel->request();
    QCOMPARE(request.hyperparameters.momentum, std::optional<double>(0.5));
    QVERIFY(!request.hyperparameters.beta1);
    QCOMPARE(panel->choices().hyperparameters.beta1, std::optional<double>(0.5)); // kept for adam
    kind->setCurrentText(QStringLiteral("adagrad"));
    panel->findChild<QComboBox *>(QStringLiteral("optimizer.rule"))->setCurrentText(QStringLiteral("mxnet"));
    QCOMPARE(eps->placeholderText(), QStringLiteral("1e-07"));
    // Text that is not a number is refused by name at the run, not taken as the default.
    eps->setText(QStringLiteral("1e"));
    QVERIFY(std::isnan(*panel->request().hyperparameters.eps));
}

// What the run would refuse is said under Run as the form changes, and Run is disabled until
// it is fixed: weight decay with lazy semantics (torch's sparse optimizers have none, mxnet's
// lazy adagrad neither, mxnet's lazy sgd does), no semantics ticked, an eps that is not a number.
void TestOptimizerPanel::formRefusalsShowBeforeRun()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *panel = window.optimizerPanel();
    auto *kind = panel->findChild<QComboBox *>(QStringLiteral("optimizer.kind"));
    auto *rule = panel->findChild<QComboBox *>(QStringLiteral("optimizer.rule"));
    auto *weightDecay = panel->findChild<QDoubleSpinBox *>(QStringLiteral("optimizer.weight_decay"));
    auto *eps = panel->findChild<QLineEdit *>(QStringLiteral("optimizer.eps"));
    auto *lazy = panel->findChild<QCheckBox *>(QStringLiteral("optimizer.lazy"));
    auto *dense = panel->findChild<QCheckBox *>(QStringLiteral("optimizer.dense"));
    auto *run = panel->findChild<QPushButton *>(QStringLiteral("optimizer.run"));
    auto *problem = panel->findChild<QLabel *>(QStringLiteral("optimizer.form_problem"));
    QVERIFY(kind && rule && weightDecay && eps && lazy && dense && run && problem);
    QVERIFY(lazy->isChecked() && run->isEnabled() && problem->isHidden());

    weightDecay->setValue(0.01); // adagrad, torch rule, dense and lazy ticked
    QVERIFY(!run->isEnabled() && !problem->isHidden());
    QCOMPARE(problem->text(), QStringLiteral("Cannot run: lazy adagrad under the torch rule has no weight decay: untick lazy, "
                                             "or set Weight decay to 0."));
    lazy->setChecked(false);
    QVERIFY(run->isEnabled() && problem->isHidden());
    lazy->setChecked(true);
    QVERIFY(!run->isEnabled());
    kind->setCurrentText(QStringLiteral("sgd"));
    rule->setCurrentText(QStringLiteral("mxnet")); // mxnet's lazy sgd decays the rows it updates
    QVERIFY2(run->isEnabled() && problem->isHidden(), qPrintable(problem->text()));
    kind->setCurrentText(QStringLiteral("adagrad")); // mxnet's lazy adagrad has no wd
    QVERIFY(!run->isEnabled());
    weightDecay->setValue(0.0);
    QVERIFY(run->isEnabled() && problem->isHidden());

    eps->setText(QStringLiteral("1e"));
    QVERIFY(!run->isEnabled());
    QCOMPARE(problem->text(), QStringLiteral("Cannot run: Eps is not a number: 1e"));
    eps->clear();
    lazy->setChecked(false);
    dense->setChecked(false);
    QVERIFY(!run->isEnabled());
    QVERIFY2(problem->text().contains(QStringLiteral("semantics")), qPrintable(problem->text()));
    dense->setChecked(true);
    QVERIFY(run->isEnabled() && problem->isHidden());
}

// A run stepped the values shown then: an Apply (or its Undo) since changes them, and the
// Inspector and the panel say the results are stale instead of showing them beside values
// they were not computed from; undoing back to the run's values, they are current again.
void TestOptimizerPanel::aRunGoesStaleWhenTheValuesChange()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *document = window.document();
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runOptimizer(adamRequest()));
    QVERIFY(finished.wait(60000));
    QVERIFY(document->optimizerRun() && !document->optimizerRunIsStale());
    auto *summary = window.optimizerPanel()->findChild<QLabel *>(QStringLiteral("optimizer.summary"));
    QVERIFY(!summary->text().contains(QStringLiteral("stale")));
    document->setHover(0);
    QVERIFY2(window.inspector()->statesText().startsWith(QStringLiteral("dense")), qPrintable(window.inspector()->statesText()));

    document->changeThreshold(0.5);
    QVERIFY(document->applySparsifier());
    QVERIFY(document->optimizerRunIsStale());
    QVERIFY2(summary->text().contains(QStringLiteral("stale")), qPrintable(summary->text()));
    document->setHover(0);
    QVERIFY2(window.inspector()->statesText().startsWith(QStringLiteral("stale")), qPrintable(window.inspector()->statesText()));

    document->undoStack()->undo(); // the Apply: the values the run stepped again
    QVERIFY(!document->optimizerRunIsStale());
    QVERIFY(!summary->text().contains(QStringLiteral("stale")));
    document->undoStack()->redo();
    QVERIFY(document->optimizerRunIsStale());
    finished.clear();
    QVERIFY(window.documentJobs()->runOptimizer(adamRequest())); // from the pruned values
    QVERIFY(finished.wait(60000));
    QVERIFY(!document->optimizerRunIsStale());
}

QTEST_MAIN(TestOptimizerPanel)
// A table over the 4 Mi elements loaded whole steps the window of rows shown: each semantics'
// parameter, state and staleness there equal the rows `sparsity step` writes for the whole table,
// bit for bit, for dense, csr, coo (uncoalesced, with duplicates) and row_sparse gradients and a
// coo mask, which are read by rows or whole and sliced. A moved window unlinks the run, which a
// new run steps; an input of another shape is refused as the whole step refuses it.
void TestOptimizerPanel::tableTooLargeToLoadStepsTheWindowShown()
{
    constexpr std::int64_t kRows = 70000, kCols = 64, kWindow = 65536;
    QTemporaryDir dir;
    const QString input = dir.filePath(QStringLiteral("tall.h5"));
    {
        const auto random = [](double density, unsigned seed) {
            auto t = core::makeDense<float>({kRows, kCols});
            std::mt19937 rng(seed);
            std::uniform_real_distribution<float> value(-1.0f, 1.0f);
            std::bernoulli_distribution keep(density);
            for (auto &v : t.values)
                v = keep(rng) ? value(rng) : 0.0f;
            return core::Tensor(core::Storage{std::move(t)});
        };
        // Duplicates of one element on each side of the window's edges, in the file's order.
        core::CooTensor<float> coo{{kRows, kCols}, 2, 0, {}, {}, false};
        std::vector<std::int64_t> rows, cols;
        for (const std::int64_t row : {5, 65535, 65536, 4463, 4464, 69999, 5, 65535, 65536, 4464, 12345})
            for (const std::int64_t col : {0, 7, 63}) {
                rows.push_back(row);
                cols.push_back(col);
                coo.values.push_back(static_cast<float>(row % 97) / 50.0f - 1.0f + static_cast<float>(col) / 100.0f);
            }
        coo.nnz = static_cast<std::int64_t>(rows.size());
        coo.indices.insert(coo.indices.end(), rows.begin(), rows.end());
        coo.indices.insert(coo.indices.end(), cols.begin(), cols.end());
        auto file = core::H5File::create(input.toStdString());
        core::writeTensor(file, "/emb", random(1.0, 1));
        core::writeTensor(file, "/gd", random(0.3, 2));
        core::writeTensor(file, "/gc", core::toLayout(random(0.01, 3), core::Layout::Csr));
        core::writeTensor(file, "/go", core::Tensor(core::Storage{std::move(coo)}));
        core::writeTensor(file, "/gr", core::toLayout(random(0.002, 4), core::Layout::RowSparse));
        core::writeTensor(file, "/mask", core::toLayout(random(0.1, 5), core::Layout::Coo));
        core::writeTensor(file, "/short", core::Tensor(core::Storage{core::makeDense<float>({kRows - 1, kCols})}));
        file.close();
    }
    const QStringList gradients{QStringLiteral("/gd"), QStringLiteral("/gc"), QStringLiteral("/go"), QStringLiteral("/gr")};
    QStringList gradientOptions;
    for (const auto &g : gradients)
        gradientOptions << QStringLiteral("--grad") << g;
    // The whole table stepped by the CLI under each semantics (the mask goes to the masked run).
    const QStringList semantics{QStringLiteral("dense"), QStringLiteral("lazy"), QStringLiteral("masked")};
    QStringList outputs;
    for (const auto &s : semantics) {
        outputs << dir.filePath(s + QStringLiteral(".h5"));
        auto options = QStringList{QStringLiteral("--optimizer"), QStringLiteral("adagrad"),     QStringLiteral("--lr"),
                                   QStringLiteral("0.1"),         QStringLiteral("--semantics"), s}
                       + gradientOptions;
        if (s == QStringLiteral("masked"))
            options << QStringLiteral("--mask") << QStringLiteral("/mask");
        runCliStep(input, outputs.back(), options);
        if (QTest::currentTestFailed())
            return;
    }

    ui::MainWindow window;
    QVERIFY(window.openFile(input));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QCOMPARE(window.document()->values().shape, (core::Shape{kWindow, kCols}));
    ui::OptimizerRequest request;
    request.kind = core::OptimizerKind::Adagrad;
    request.hyperparameters.lr = 0.1;
    request.semantics = {core::Semantics::Dense, core::Semantics::Lazy, core::Semantics::Masked};
    request.gradients = gradients;
    request.mask = QStringLiteral("/mask");
    auto *panel = window.optimizerPanel();
    auto *views = panel->findChild<QComboBox *>(QStringLiteral("optimizer.view"));

    // Runs the request on the window shown and compares every result with the CLI's rows.
    const auto runAndCompare = [&](std::int64_t firstRow) {
        QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
        QVERIFY(window.documentJobs()->runOptimizer(request));
        QVERIFY(finished.wait(120000));
        QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
        const auto run = window.document()->optimizerRun();
        QVERIFY(run && window.document()->optimizerRunShown());
        QCOMPARE(run->rows.begin, firstRow);
        QCOMPARE(run->rows.count(), kWindow);
        QCOMPARE(run->totalRows, kRows);
        const core::RowRange rows{firstRow, firstRow + kWindow};
        for (qsizetype k = 0; k < semantics.size(); ++k) {
            const auto file = core::H5File::openRead(outputs[k].toStdString());
            const auto &result = run->comparison.results[static_cast<std::size_t>(k)];
            QCOMPARE(result.tensors.size(), std::size_t{2}); // param, sum
            for (const auto &[name, tensor] : result.tensors) {
                const auto element = name == "param" ? std::string("/param") : "/state/" + name;
                const auto expected = core::toDenseDouble(core::readTensor(file, element, nullptr, rows));
                QVERIFY2(tensor.values == expected.values, qPrintable(semantics[k] + QStringLiteral(" ") + element.c_str()));
            }
            const auto lastUpdate = core::toDenseDouble(core::readTensor(file, "/last_update", nullptr, rows));
            QCOMPARE(result.lastUpdate.size(), lastUpdate.values.size());
            for (std::size_t r = 0; r < lastUpdate.values.size(); ++r)
                QCOMPARE(static_cast<double>(result.lastUpdate[r]), lastUpdate.values[r]);
        }
        // A new run keeps the view chosen for the one before.
        if (firstRow > 0)
            QCOMPARE(views->currentText(), QStringLiteral("lazy − dense: param"));
        // Its views link to the rows shown and number them as the table's.
        views->setCurrentText(QStringLiteral("lazy − dense: param"));
        QVERIFY(panel->matrixView()->link() == ui::CellLink::Elements);
        QVERIFY2(panel->matrixView()->title().endsWith(
                     QStringLiteral("(rows %1–%2 of %3)").arg(firstRow).arg(firstRow + kWindow - 1).arg(kRows)),
                 qPrintable(panel->matrixView()->title()));
        // Its 65,536 rows are pooled into the view: a pixel's tooltip names the element it shows,
        // the largest |difference| of its block, with the block.
        const auto tip = panel->matrixView()->toolTipAt(panel->matrixView()->positionOf(0, 0));
        const QRegularExpression parts(
            QStringLiteral(R"(^\[(\d+), (\d+)\] = (\S+) \(the strongest of rows (\d+)–(\d+), columns 0–0\)$)"));
        const auto match = parts.match(tip);
        QVERIFY2(match.hasMatch(), qPrintable(tip));
        const auto row = match.captured(1).toLongLong(), blockEnd = match.captured(5).toLongLong();
        QCOMPARE(match.captured(4).toLongLong(), firstRow);
        QVERIFY2(row >= firstRow && row <= blockEnd && blockEnd > firstRow, qPrintable(tip));
        const auto &dense = run->comparison.results[0].tensors[0].second.values;
        const auto &lazy = run->comparison.results[1].tensors[0].second.values;
        const auto difference = [&](std::int64_t r) {
            const auto k = static_cast<std::size_t>((r - firstRow) * kCols);
            return lazy[k] - dense[k];
        };
        QCOMPARE(match.captured(3), QString::number(difference(row), 'g', 8));
        for (auto r = firstRow; r <= blockEnd; ++r)
            QVERIFY2(std::abs(difference(r)) <= std::abs(difference(row)), qPrintable(tip));
    };
    runAndCompare(0);
    if (QTest::currentTestFailed())
        return;

    // The window moves: the run's rows are no longer shown, and nothing says they are.
    QSignalSpy moved(window.loader(), &ui::TensorLoader::loaded);
    window.rowScrollBar()->setValue(static_cast<int>(kRows - kWindow));
    QVERIFY(moved.wait(30000));
    QCOMPARE(window.document()->source().firstRow, kRows - kWindow);
    QVERIFY(!window.document()->optimizerRunShown());
    QVERIFY(panel->matrixView()->link() == ui::CellLink::None);
    // The Inspector still shows the run's values where the run stepped the row hovered (rows
    // 4464–65535), and says it did not step the others.
    const auto &stepped = window.document()->optimizerRun()->comparison.results[0].tensors[0].second.values;
    window.document()->setHover(0); // row 4464, element 4464 * 64 of the run's
    QVERIFY2(window.inspector()->statesText().startsWith(QStringLiteral("dense")), qPrintable(window.inspector()->statesText()));
    QVERIFY2(window.inspector()->statesText().contains(QStringLiteral("param %1").arg(stepped[4464 * 64], 0, 'g', 6)),
             qPrintable(window.inspector()->statesText()));
    window.document()->setHover(kWindow * kCols - 1); // row 69999
    QCOMPARE(window.inspector()->statesText(), QStringLiteral("not stepped (the run took rows 0–65535)"));
    runAndCompare(kRows - kWindow);
    if (QTest::currentTestFailed())
        return;

    // An input of another shape than the table's is refused before its rows are read.
    request.gradients = {QStringLiteral("/short")};
    const auto issues = window.issuesModel()->rowCount();
    QVERIFY(!window.documentJobs()->runOptimizer(request));
    QCOMPARE(window.issuesModel()->rowCount(), issues + 1);
    const auto summary = window.issuesModel()->issue(issues).summary();
    QVERIFY2(summary.contains(QStringLiteral("tall.h5:/short: "))
                 && summary.contains(
                     QStringLiteral("gradient shape must equal the parameter's shape [70000, 64], but got [69999, 64]")),
             qPrintable(summary));
    request.gradients = gradients;
    request.mask = QStringLiteral("/short");
    QVERIFY(!window.documentJobs()->runOptimizer(request));
    QVERIFY2(
        window.issuesModel()->issue(issues + 1).summary().contains(QStringLiteral("the mask must have the parameter's shape")),
        qPrintable(window.issuesModel()->issue(issues + 1).summary()));
}

#include "tst_optimizer_panel.moc"
