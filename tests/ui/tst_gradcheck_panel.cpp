// The Gradcheck panel on the instructive case (docs/SEMANTICS.md) x = [[--, 1], [2, 3]] (COO): syntax
// errors point at their column as they are typed, inputs bind by name, the check runs as a
// job and its Jacobians equal `sparsity gradcheck --json` on the same file; non-masked and
// masked both fail, each with its reason listed; undo takes the result back. The Jacobians'
// maps are made by the job, not on the GUI thread, and the progress bar counts them.
#include "core/io/h5_writer.h"
#include "core/util/memory_budget.h"
#include "ui/document/tensor_document.h"
#include "ui/jobs/document_jobs.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/issues_model.h"
#include "ui/panels/gradcheck_panel.h"
#include "ui/views/matrix_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestGradcheckPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void syntaxErrorPointsAtItsColumn();
    void instructiveCaseEqualsTheCli_data();
    void instructiveCaseEqualsTheCli();
    void inputsFromEveryOpenFile();
    void cancelledCheckChangesNothing();
    void bindingsSurviveTensorsAndFiles();
    void failedRunReplacesTheVerdict();
    void mapsComeWithTheRun();
    void nameWithoutAnElementBindsTheShownTensor();
    void secondNameWithoutAnElementIsLeftToChoose();
    void nameOfAnElementTakesItFirst();
    void defaultBindingsAreChoices();
    void jacobiansOverTheBudgetAreRefused();

private:
    QTemporaryDir m_dir;
    QString m_file, m_other;
};

namespace {

void setExpression(ui::GradcheckPanel *panel, const QString &expression)
{
    panel->findChild<QLineEdit *>(QStringLiteral("gradcheck.expression"))->setText(expression);
}

bool findingsContain(QListWidget *list, const QString &text)
{
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text().contains(text))
            return true;
    return false;
}

} // namespace

void TestGradcheckPanel::initTestCase()
{
    QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests"));
    m_file = m_dir.filePath(QStringLiteral("inst.h5"));
    core::CooTensor<double> x{{2, 2}, 2, 3, {0, 1, 1, 1, 0, 1}, {1.0, 2.0, 3.0}, true};
    auto file = core::H5File::create(m_file.toStdString());
    core::writeTensor(file, "/x", core::Tensor(core::Storage{x}));
    m_other = m_dir.filePath(QStringLiteral("other.h5"));
    auto other = core::H5File::create(m_other.toStdString());
    core::writeTensor(other, "/w",
                      core::Tensor(core::Storage{core::DenseTensor<double>{{2, 3}, {0.5, -1.0, 2.0, 1.5, 0.25, -0.75}}}));
    // Big enough for maps that take real work; bench_gui times the panel at 64 x 64.
    core::DenseTensor<double> big{{24, 24}, {}};
    for (int i = 0; i < 24 * 24; ++i)
        big.values.push_back(std::sin(0.1 * i));
    core::writeTensor(other, "/big", core::Tensor(core::Storage{big}));
    // A check that takes seconds, for Cancel to stop (it never runs to its end).
    core::DenseTensor<double> slow{{64, 64}, {}};
    for (int i = 0; i < 64 * 64; ++i)
        slow.values.push_back(std::cos(0.1 * i));
    core::writeTensor(other, "/slow", core::Tensor(core::Storage{slow}));
}

void TestGradcheckPanel::syntaxErrorPointsAtItsColumn()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.selectElement(QStringLiteral("/x")));
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("sum(x, )"));
    QVERIFY2(panel->expressionError().contains(QStringLiteral("column 8")), qPrintable(panel->expressionError()));
    const auto lines = panel->findChild<QLabel *>(QStringLiteral("gradcheck.error"))->text().split(QLatin1Char('\n'));
    QCOMPARE(lines.value(0), QStringLiteral("sum(x, )"));
    QCOMPARE(lines.value(1), QStringLiteral("       ^"));
    // Fixing it clears the error and offers a chooser for x, bound to /x by name.
    setExpression(panel, QStringLiteral("sum(x, 1)"));
    QVERIFY(panel->expressionError().isEmpty());
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.x"))->currentText(), QStringLiteral("/x"));
}

void TestGradcheckPanel::instructiveCaseEqualsTheCli_data()
{
    QTest::addColumn<bool>("masked");
    QTest::addColumn<QString>("reason");
    QTest::newRow("non-masked") << false << QStringLiteral("masked backward of sparse_mm operand 1");
    QTest::newRow("masked") << true << QStringLiteral("masked gradcheck does not perturb it");
}

void TestGradcheckPanel::instructiveCaseEqualsTheCli()
{
    QFETCH(bool, masked);
    QFETCH(QString, reason);
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.selectElement(QStringLiteral("/x")));
    auto *panel = window.gradcheckPanel();
    const QString expression = QStringLiteral("mm(sparse_mm(x, x), x)");
    setExpression(panel, expression);
    panel->findChild<QCheckBox *>(QStringLiteral("gradcheck.masked"))->setChecked(masked);

    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runGradcheck(panel->request()));
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    const auto run = window.document()->gradcheckRun();
    QVERIFY(run);
    QVERIFY(!run->report.passed);
    QVERIFY(panel->findChild<QLabel *>(QStringLiteral("gradcheck.verdict"))->text().contains(QStringLiteral("FAILED")));
    QVERIFY2(findingsContain(panel->findings(), reason), qPrintable(reason));
    QCOMPARE(panel->numericalView()->image().size(), QSize(4, 4));
    // x is the tensor shown: its Jacobian rows are its elements, linked to the heatmap.
    QVERIFY(panel->numericalView()->link() == ui::CellLink::ElementRows);
    window.document()->setSelection(ui::ElementSelection::rectangle(1, 1, 0, 1));
    QCOMPARE(panel->differenceView()->selectionWash().size(), QSize(1, 4));
    QCOMPARE(qAlpha(panel->differenceView()->selectionWash().pixel(0, 2)), 0);
    QVERIFY(qAlpha(panel->differenceView()->selectionWash().pixel(0, 0)) > 0);
    window.document()->setSelection({});
    QCOMPARE(panel->differenceView()->title(), QStringLiteral("analytical − numerical"));

    QStringList arguments{QStringLiteral("gradcheck"),           QStringLiteral("--expr"), expression, QStringLiteral("--input"),
                          QStringLiteral("x=%1:/x").arg(m_file), QStringLiteral("--json")};
    if (masked)
        arguments << QStringLiteral("--masked");
    QProcess cli;
    cli.start(QStringLiteral(SPARSITY_CLI), arguments);
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 1);
    const auto report = QJsonDocument::fromJson(cli.readAllStandardOutput()).object();
    const auto input = report[QStringLiteral("inputs")].toArray()[0].toObject();
    const auto &j = run->report.inputs[0];
    for (const auto &[key, values] :
         {std::pair{QStringLiteral("numerical"), &j.numerical}, {QStringLiteral("analytical"), &j.analytical}}) {
        const auto rows = input[key].toArray();
        QCOMPARE(rows.size(), 4);
        for (int r = 0; r < 4; ++r)
            for (int c = 0; c < 4; ++c)
                QCOMPARE((*values)[static_cast<std::size_t>(4 * r + c)], rows[r].toArray()[c].toDouble());
    }

    // For the docs: SPARSITY_SCREENSHOT_DIR=docs/screenshots saves the window with the panel.
    if (const auto folder = qEnvironmentVariable("SPARSITY_SCREENSHOT_DIR"); !folder.isEmpty() && !masked) {
        window.resize(1400, 900);
        window.show();
        window.findChild<QDockWidget *>(QStringLiteral("GradcheckDock"))->raise();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.grab().save(folder + QStringLiteral("/gradcheck_panel.png")));
    }

    window.document()->undoStack()->undo();
    QVERIFY(!window.document()->gradcheckRun());
    QCOMPARE(panel->findings()->count(), 0);
}

void TestGradcheckPanel::inputsFromEveryOpenFile()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.openFile(m_other));
    QVERIFY(window.selectElement(QStringLiteral("/x"), m_file));
    auto *panel = window.gradcheckPanel();
    const QString expression = QStringLiteral("softmax(mm(x, w), 1)");
    setExpression(panel, expression);
    // The shown tensor's file by path alone, the other file by name; w binds to other.h5:/w.
    auto *w = panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.w"));
    QCOMPARE(w->itemText(0), QStringLiteral("/x"));
    QCOMPARE(w->currentText(), QStringLiteral("other.h5:/w"));
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.x"))->currentText(), QStringLiteral("/x"));
    const auto request = panel->request();
    QCOMPARE(request.inputs[QStringLiteral("w")].file, m_other);

    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runGradcheck(request));
    QVERIFY(finished.wait(60000));
    QVERIFY2(finished.first().at(0).toBool(), qPrintable(finished.first().at(2).toString()));
    const auto run = window.document()->gradcheckRun();
    QVERIFY(run && run->report.passed);
    // w is not the tensor shown: its Jacobian is not linked.
    panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input"))->setCurrentText(QStringLiteral("w"));
    QVERIFY(panel->numericalView()->link() == ui::CellLink::None);

    QProcess cli;
    cli.start(QStringLiteral(SPARSITY_CLI),
              {QStringLiteral("gradcheck"), QStringLiteral("--expr"), expression, QStringLiteral("--input"),
               QStringLiteral("x=%1:/x").arg(m_file), QStringLiteral("--input"), QStringLiteral("w=%1:/w").arg(m_other),
               QStringLiteral("--json")});
    QVERIFY(cli.waitForFinished(60000));
    QCOMPARE(cli.exitCode(), 0);
    const auto inputs = QJsonDocument::fromJson(cli.readAllStandardOutput()).object()[QStringLiteral("inputs")].toArray();
    QCOMPARE(inputs.size(), static_cast<qsizetype>(run->report.inputs.size()));
    for (qsizetype k = 0; k < inputs.size(); ++k) {
        const auto &j = run->report.inputs[static_cast<std::size_t>(k)];
        QCOMPARE(inputs[k].toObject()[QStringLiteral("name")].toString().toStdString(), j.name);
        const auto rows = inputs[k].toObject()[QStringLiteral("analytical")].toArray();
        QCOMPARE(rows.size(), static_cast<qsizetype>(j.rows));
        for (std::int64_t r = 0; r < j.rows; ++r)
            for (std::int64_t c = 0; c < j.cols; ++c)
                QCOMPARE(j.analytical[static_cast<std::size_t>(r * j.cols + c)], rows[r].toArray()[c].toDouble());
    }
}

void TestGradcheckPanel::cancelledCheckChangesNothing()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.selectElement(QStringLiteral("/x")));
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("mm(x, x)"));
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runGradcheck(panel->request()));
    QVERIFY(finished.wait(60000));
    const auto first = window.document()->gradcheckRun();
    QVERIFY(first);
    const int history = window.document()->undoStack()->count();
    const QString verdict = panel->verdict()->text();
    QVERIFY2(verdict.contains(QStringLiteral("mm(x, x)")), qPrintable(verdict));

    // A check of 4096 perturbed rows (seconds of work): Cancel right away stops it early.
    QVERIFY(window.openFile(m_other));
    setExpression(panel, QStringLiteral("sum(mm(slow, slow), 1)"));
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.slow"))->currentText(),
             QStringLiteral("other.h5:/slow"));
    QVERIFY(window.documentJobs()->runGradcheck(panel->request()));
    window.jobs()->cancel();
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.last().at(0).toBool(), false);
    QCOMPARE(finished.last().at(1).toBool(), true);
    QCOMPARE(window.document()->gradcheckRun(), first);
    QCOMPARE(window.document()->undoStack()->count(), history);
    QCOMPARE(window.issuesModel()->rowCount(), 0);
    // The panel still shows that result (it said "did not run: cancelled" over empty views).
    QCOMPARE(panel->verdict()->text(), verdict);
    QVERIFY(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input"))->count() > 0);
}

namespace {

ui::ElementRef bound(ui::GradcheckPanel *panel, const QString &name) { return panel->request().inputs.value(name); }

// Clicks Check and waits for the job it starts, if any.
void clickCheck(ui::MainWindow &window)
{
    QSignalSpy started(window.jobs(), &ui::JobRunner::started);
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    window.gradcheckPanel()->findChild<QPushButton *>(QStringLiteral("gradcheck.run"))->click();
    if (!started.isEmpty())
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
}

} // namespace

void TestGradcheckPanel::bindingsSurviveTensorsAndFiles()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.openFile(m_other));
    QVERIFY(window.selectElement(QStringLiteral("/x"), m_file));
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("sum(mm(x, w))"));
    const ui::ElementRef x{m_file, QStringLiteral("/x")}, w{m_other, QStringLiteral("/w")}, big{m_other, QStringLiteral("/big")};
    QCOMPARE(bound(panel, QStringLiteral("x")), x);
    QCOMPARE(bound(panel, QStringLiteral("w")), w);
    // The user binds w to /big, then looks at other.h5: its elements now come first in every
    // chooser, and each binding stays where it was.
    auto *wChooser = panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.w"));
    const int bigIndex = wChooser->findText(QStringLiteral("other.h5:/big"));
    QVERIFY(bigIndex >= 0);
    wChooser->setCurrentIndex(bigIndex);
    emit wChooser->activated(bigIndex);
    QCOMPARE(bound(panel, QStringLiteral("w")), big);
    QVERIFY(window.selectElement(QStringLiteral("/w"), m_other));
    QCOMPARE(bound(panel, QStringLiteral("x")), x);
    QCOMPARE(bound(panel, QStringLiteral("w")), big);
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.x"))->currentText(), QStringLiteral("inst.h5:/x"));
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.w"))->currentText(), QStringLiteral("/big"));
    wChooser = panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.w"));
    const int wIndex = wChooser->findText(QStringLiteral("/w"));
    wChooser->setCurrentIndex(wIndex);
    emit wChooser->activated(wIndex);

    // Closing inst.h5 keeps x bound to it, shown as not open; Check refuses in the panel.
    QVERIFY(window.closeFile(m_file));
    QCOMPARE(bound(panel, QStringLiteral("x")), x);
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.x"))->currentText(),
             QStringLiteral("inst.h5:/x (not open)"));
    QVERIFY(panel->unboundInputs().contains(QStringLiteral("not open")));
    clickCheck(window);
    QVERIFY(!window.document()->gradcheckRun());
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("did not run")), qPrintable(panel->verdict()->text()));
    // Reopened, x is bound to it again, and the result names what it was computed on.
    QVERIFY(window.openFile(m_file));
    QCOMPARE(bound(panel, QStringLiteral("x")), x);
    QVERIFY(panel->unboundInputs().isEmpty());
    clickCheck(window);
    const auto run = window.document()->gradcheckRun();
    QVERIFY(run);
    QCOMPARE(run->inputs.value(QStringLiteral("x")), x);
    QCOMPARE(run->inputs.value(QStringLiteral("w")), w);
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("x = /x (inst.h5)"))
                 && panel->verdict()->text().contains(QStringLiteral("w = /w (other.h5)")),
             qPrintable(panel->verdict()->text()));
}

void TestGradcheckPanel::failedRunReplacesTheVerdict()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_other));
    QVERIFY(window.selectElement(QStringLiteral("/w")));
    auto *panel = window.gradcheckPanel();
    auto *expression = panel->findChild<QLineEdit *>(QStringLiteral("gradcheck.expression"));
    expression->setText(QStringLiteral("sum(w * w)"));
    {
        // Enter in the expression checks it, as Check does.
        QSignalSpy started(window.jobs(), &ui::JobRunner::started);
        QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
        QTest::keyClick(expression, Qt::Key_Return);
        QCOMPARE(started.count(), 1);
        QTRY_VERIFY_WITH_TIMEOUT(!finished.isEmpty(), 60000);
    }
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("PASSED")), qPrintable(panel->verdict()->text()));
    // mm of a 2 x 3 by a 2 x 3 cannot run: the panel says so, and PASSED is gone.
    expression->setText(QStringLiteral("sum(mm(w, w))"));
    clickCheck(window);
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("did not run")), qPrintable(panel->verdict()->text()));
    QVERIFY(!panel->verdict()->text().contains(QStringLiteral("PASSED")));
    QCOMPARE(panel->findings()->count(), 0);
    // The Issues row says where: the inputs' file, though the message names none.
    QCOMPARE(window.issuesModel()->rowCount(), 1);
    QCOMPARE(window.issuesModel()->issue(0).location.file, QFileInfo(m_other).absoluteFilePath());
}

void TestGradcheckPanel::mapsComeWithTheRun()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_other));
    QVERIFY(window.selectElement(QStringLiteral("/w")));
    auto *panel = window.gradcheckPanel();
    // Before a check, the first map says so, once: three maps saying it read as three findings.
    QCOMPARE(panel->numericalView()->message(), QStringLiteral("No check yet"));
    QVERIFY(panel->analyticalView()->message().isEmpty() && panel->differenceView()->message().isEmpty());
    setExpression(panel, QStringLiteral("mm(big, big)"));
    QSignalSpy progressed(window.jobs(), &ui::JobRunner::progressed);
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.documentJobs()->runGradcheck(panel->request()));
    QVERIFY(finished.wait(120000));
    QCOMPARE(finished.last().at(0).toBool(), true);

    // The bar reaches its end with the result, not before the maps are made.
    QVERIFY(!progressed.isEmpty());
    const auto last = progressed.last();
    QCOMPARE(last.at(0).toLongLong(), last.at(1).toLongLong());
    // 576 rows (input elements) and 576 output columns of the check, and the maps' quarter.
    QCOMPARE(last.at(1).toLongLong(), (576 + 576) * 5 / 4);

    // One set of maps per input, made with the run; the views show them as made, not redrawn.
    const auto run = window.document()->gradcheckRun();
    QVERIFY(run);
    const auto *made = window.document()->gradcheckPictures();
    QVERIFY(made);
    QCOMPARE(made->size(), run->report.inputs.size());
    const auto &maps = made->front();
    QCOMPARE(maps.numerical.values->shape, (core::Shape{576, 576}));
    QCOMPARE(panel->numericalView()->image().cacheKey(), maps.numerical.heatmap.image.cacheKey());
    QCOMPARE(panel->analyticalView()->image().cacheKey(), maps.analytical.heatmap.image.cacheKey());
    QCOMPARE(panel->differenceView()->image().cacheKey(), maps.difference.heatmap.image.cacheKey());
    // Numerical and analytical share one scale; the difference has its own.
    QCOMPARE(maps.numerical.heatmap.scale.high, maps.analytical.heatmap.scale.high);
    const auto &j = run->report.inputs.front();
    for (std::size_t i : {std::size_t{0}, std::size_t{577}, j.numerical.size() - 1})
        QCOMPARE(maps.difference.values->values[i], j.analytical[i] - j.numerical[i]);

    // Only the latest run's maps are kept (outside the undo history): a run that comes back by
    // undo is drawn again from its report, the same maps.
    const QImage first = panel->differenceView()->image().copy();
    setExpression(panel, QStringLiteral("sum(w * w)"));
    QVERIFY(window.documentJobs()->runGradcheck(panel->request()));
    QVERIFY(finished.wait(60000));
    QVERIFY(window.document()->gradcheckRun() != run);
    window.document()->undoStack()->undo();
    QCOMPARE(window.document()->gradcheckRun(), run);
    QVERIFY(!window.document()->gradcheckPictures());
    QCOMPARE(panel->differenceView()->image(), first);
}

void TestGradcheckPanel::nameWithoutAnElementBindsTheShownTensor()
{
    // The sample has no /x: x binds to the tensor shown (/inst, the instructive case), not to
    // the file's first element (/emb).
    ui::MainWindow window;
    const QString sample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");
    QVERIFY(window.openFile(sample));
    QVERIFY(window.selectElement(QStringLiteral("/inst")));
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("mm(sparse_mm(x, x), x)"));
    QCOMPARE(bound(panel, QStringLiteral("x")), (ui::ElementRef{QFileInfo(sample).absoluteFilePath(), QStringLiteral("/inst")}));
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.x"))->currentText(), QStringLiteral("/inst"));
    clickCheck(window);
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("x = /inst (sample.h5): FAILED (non-masked")),
             qPrintable(panel->verdict()->text()));
}

// Only one name falls back on the tensor shown: binding w to it as well made mm(x, w) a sure
// shape error, with both choosers showing the one tensor. w's chooser shows no tensor, and
// Check asks for one until it is chosen.
void TestGradcheckPanel::secondNameWithoutAnElementIsLeftToChoose()
{
    ui::MainWindow window;
    const QString sample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");
    QVERIFY(window.openFile(sample));
    QVERIFY(window.selectElement(QStringLiteral("/inst")));
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("softmax(mm(x, w), 1)"));
    const QString file = QFileInfo(sample).absoluteFilePath();
    QCOMPARE(bound(panel, QStringLiteral("x")), (ui::ElementRef{file, QStringLiteral("/inst")}));
    QVERIFY(!panel->request().inputs.contains(QStringLiteral("w")));
    auto *w = panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.w"));
    QCOMPARE(w->currentIndex(), -1);
    QCOMPARE(w->placeholderText(), QStringLiteral("Choose a tensor"));
    clickCheck(window);
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("choose a tensor for w")), qPrintable(panel->verdict()->text()));
    // Chosen, it stays, and the choice survives a rebuilt form (the expression edited).
    const int inst = w->findText(QStringLiteral("/inst"));
    QVERIFY(inst >= 0);
    w->setCurrentIndex(inst);
    emit w->activated(inst);
    QCOMPARE(bound(panel, QStringLiteral("w")), (ui::ElementRef{file, QStringLiteral("/inst")}));
    setExpression(panel, QStringLiteral("softmax(mm(x, w), 0)"));
    QCOMPARE(bound(panel, QStringLiteral("w")), (ui::ElementRef{file, QStringLiteral("/inst")}));
    clickCheck(window);
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("w = /inst")), qPrintable(panel->verdict()->text()));
}

// A name of an element takes it first, whatever its place: with /emb shown, mm(x, emb) binds
// emb to /emb and leaves x to choose (x took /emb, the tensor shown, before, and so did emb).
void TestGradcheckPanel::nameOfAnElementTakesItFirst()
{
    ui::MainWindow window;
    const QString sample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");
    QVERIFY(window.openFile(sample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *panel = window.gradcheckPanel();
    const QString file = QFileInfo(sample).absoluteFilePath();
    setExpression(panel, QStringLiteral("mm(x, emb)"));
    QCOMPARE(bound(panel, QStringLiteral("emb")), (ui::ElementRef{file, QStringLiteral("/emb")}));
    QVERIFY(!panel->request().inputs.contains(QStringLiteral("x")));
    QCOMPARE(panel->findChild<QComboBox *>(QStringLiteral("gradcheck.input.x"))->currentIndex(), -1);
}

// An input bound by default when a file opens is a change of the form (the workspace keeps
// its bindings), as a binding chosen would be: the window's unsaved mark follows at once.
void TestGradcheckPanel::defaultBindingsAreChoices()
{
    ui::MainWindow window;
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("x * 2"));
    QVERIFY(!panel->request().inputs.contains(QStringLiteral("x"))); // nothing open to bind
    QSignalSpy changed(panel, &ui::GradcheckPanel::choicesChanged);
    const QString sample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");
    QVERIFY(window.openFile(sample));
    QCOMPARE(bound(panel, QStringLiteral("x")).file, QFileInfo(sample).absoluteFilePath());
    QVERIFY(!changed.isEmpty());
}

// A full check holds two float64 Jacobians per input: over the memory budget (the app sets
// it at start; small here) it is refused before any is made, the panel saying to use fast
// mode, which runs under the same budget. A 1797 x 64 input once took 16 GB and minutes.
void TestGradcheckPanel::jacobiansOverTheBudgetAreRefused()
{
    const auto budget = core::wholeTensorBudget();
    core::setWholeTensorBudget(std::int64_t{1} << 20); // 1 MiB: /slow's Jacobian needs 512 MiB
    ui::MainWindow window;
    QVERIFY(window.openFile(m_other));
    QVERIFY(window.selectElement(QStringLiteral("/slow")));
    auto *panel = window.gradcheckPanel();
    setExpression(panel, QStringLiteral("softmax(slow, 1)"));
    clickCheck(window);
    const auto verdict = panel->verdict()->text();
    QVERIFY2(verdict.contains(QStringLiteral("did not run")) && verdict.contains(QStringLiteral("fast mode"))
                 && verdict.contains(QStringLiteral("other.h5:/slow")),
             qPrintable(verdict));
    panel->findChild<QCheckBox *>(QStringLiteral("gradcheck.fast"))->setChecked(true);
    clickCheck(window);
    QVERIFY2(panel->verdict()->text().contains(QStringLiteral("PASSED")), qPrintable(panel->verdict()->text()));
    core::setWholeTensorBudget(budget);
}

QTEST_MAIN(TestGradcheckPanel)
#include "tst_gradcheck_panel.moc"
