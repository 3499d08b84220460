// Work is never lost: edits applied to a tensor stay with it while others are shown and come
// back with their undo history; quitting, closing a file and opening a workspace with unsaved
// edits ask first (the question is answered here as a user would); the Optimizer's gradient
// ticks outlive switching tensors; the title names the file and marks unsaved changes.
#include "ui/document/tensor_document.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/h5_browser_model.h"
#include "ui/panels/optimizer_panel.h"
#include "ui/workspace/workspace.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

using sparsity::ui::MainWindow;

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// Answers the next question the window asks with `button`; `asked` counts the questions.
void answerNextQuestion(QMessageBox::StandardButton button, int *asked)
{
    QTimer::singleShot(0, [button, asked] {
        auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
        if (!box)
            return;
        ++*asked;
        // It says what saving keeps: recipes, not pruned values (Export writes those). With the
        // workspace saved, or a file closed, only what no workspace keeps is at stake: no Save.
        QVERIFY(box->informativeText().contains(QStringLiteral("recipes")));
        QVERIFY(box->informativeText().contains(QStringLiteral("Export")));
        if (box->objectName() == QStringLiteral("unkeptWork"))
            QVERIFY(!box->button(QMessageBox::Save));
        else
            QCOMPARE(box->button(QMessageBox::Save)->text(), QStringLiteral("Save Workspace…"));
        box->button(button)->click();
    });
}

// Opens the sample, shows /emb and applies a threshold that prunes some of it.
void applyOnEmb(MainWindow &window)
{
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    window.document()->changeThreshold(0.5);
    QVERIFY(window.document()->applySparsifier());
    QVERIFY(window.isWindowModified());
}

std::int64_t zeros(const sparsity::ui::TensorDocument &document)
{
    return std::count(document.values().values.begin(), document.values().values.end(), 0.0);
}

} // namespace

class TestUnsavedWork : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests-unsaved")); }
    void editsStayWithTheirTensor();
    void undoShowsTheTensorItChanges();
    void quittingAsks();
    void closingAFileAsks();
    void openingAWorkspaceAsks();
    void aWorkspaceOpenedStartsFromTheFiles();
    void gradientTicksOutliveSwitchingTensors();
    void titleNamesTheFileAndMarksChanges();
    void panelFormsAreWorkspaceChanges();
};

void TestUnsavedWork::editsStayWithTheirTensor()
{
    MainWindow window;
    applyOnEmb(window);
    auto *document = window.document();
    const auto pruned = zeros(*document);
    QVERIFY(pruned > 0);
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    QCOMPARE(document->applications().size(), std::size_t{0});
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QCOMPARE(document->applications().size(), std::size_t{1});
    QCOMPARE(zeros(*document), pruned);
    QVERIFY(document->undoStack()->canUndo());
    document->undoStack()->undo();
    QVERIFY(zeros(*document) < pruned);
    QCOMPARE(document->applications().size(), std::size_t{0});
    document->undoStack()->redo();
    QCOMPARE(zeros(*document), pruned);
}

void TestUnsavedWork::undoShowsTheTensorItChanges()
{
    MainWindow window;
    applyOnEmb(window);
    auto *document = window.document();
    const auto pruned = zeros(*document);
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    // The last step applied to /emb: undoing it from /W shows /emb as it was before.
    QVERIFY(document->undoStack()->undoText().contains(QStringLiteral("/emb")));
    document->undoStack()->undo();
    QCOMPARE(document->source().elementPath, QStringLiteral("/emb"));
    QVERIFY(zeros(*document) < pruned);
    QVERIFY(window.selectElement(QStringLiteral("/W")));
    document->undoStack()->redo();
    QCOMPARE(document->source().elementPath, QStringLiteral("/emb"));
    QCOMPARE(zeros(*document), pruned);
}

void TestUnsavedWork::quittingAsks()
{
    MainWindow window;
    window.show();
    applyOnEmb(window);
    int asked = 0;
    QString unsaved; // the one question asked names what no workspace keeps too
    QTimer::singleShot(0, [&unsaved] {
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget()))
            unsaved = box->objectName() + QLatin1Char(':') + box->text();
    });
    answerNextQuestion(QMessageBox::Cancel, &asked);
    QVERIFY(!window.close());
    QCOMPARE(asked, 1);
    QCOMPARE(unsaved, QStringLiteral("unsavedChanges:Quitting loses the edits made since the workspace was last saved, and "
                                     "drops the values Apply pruned in /emb of sample.h5."));
    QVERIFY(window.isVisible());
    answerNextQuestion(QMessageBox::Discard, &asked);
    QVERIFY(window.close());
    QCOMPARE(asked, 2);

    // Saved, the workspace is not asked about, but the pruned values it does not keep are
    // (quitting dropped them unasked); without them, nothing is asked.
    MainWindow saved;
    saved.show();
    applyOnEmb(saved);
    QTemporaryDir dir;
    QVERIFY(saved.saveWorkspaceTo(dir.filePath(QStringLiteral("w.json"))));
    QVERIFY(!saved.isWindowModified());
    QString question;
    QTimer::singleShot(0, [&question] {
        if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget()))
            question = box->objectName() + QLatin1Char(':') + box->text();
    });
    answerNextQuestion(QMessageBox::Cancel, &asked);
    QVERIFY(!saved.close());
    QCOMPARE(asked, 3);
    QCOMPARE(question, QStringLiteral("unkeptWork:Quitting drops the values Apply pruned in /emb of sample.h5."));
    answerNextQuestion(QMessageBox::Discard, &asked);
    QVERIFY(saved.close());
    QCOMPARE(asked, 4);
    MainWindow recipeOnly; // a recipe, saved, and nothing applied: nothing to ask
    recipeOnly.show();
    QVERIFY(recipeOnly.openFile(kSample));
    QVERIFY(recipeOnly.selectElement(QStringLiteral("/emb")));
    recipeOnly.document()->changeThreshold(0.5);
    QVERIFY(recipeOnly.saveWorkspaceTo(dir.filePath(QStringLiteral("w2.json"))));
    QVERIFY(recipeOnly.close());
    QCOMPARE(asked, 4);
}

void TestUnsavedWork::closingAFileAsks()
{
    MainWindow window;
    window.show();
    applyOnEmb(window);
    int asked = 0;
    answerNextQuestion(QMessageBox::Cancel, &asked);
    QVERIFY(!window.closeFile(kSample));
    QCOMPARE(asked, 1);
    QCOMPARE(window.browserModel()->fileCount(), 1);
    QVERIFY(window.document()->hasEdits());
    answerNextQuestion(QMessageBox::Discard, &asked);
    QVERIFY(window.closeFile(kSample));
    QCOMPARE(asked, 2);
    QCOMPARE(window.browserModel()->fileCount(), 0);
    QVERIFY(!window.document()->hasEdits());
    QVERIFY(!window.document()->hasTensor());
}

void TestUnsavedWork::openingAWorkspaceAsks()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("w.json"));
    {
        MainWindow other;
        QVERIFY(other.openFile(kSample));
        QVERIFY(other.selectElement(QStringLiteral("/W")));
        QVERIFY(other.saveWorkspaceTo(path));
    }
    MainWindow window;
    window.show();
    applyOnEmb(window);
    int asked = 0;
    answerNextQuestion(QMessageBox::Cancel, &asked);
    QVERIFY(!window.openWorkspace(path));
    QCOMPARE(asked, 1);
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/emb"));
    answerNextQuestion(QMessageBox::Discard, &asked);
    QVERIFY(window.openWorkspace(path));
    QCOMPARE(asked, 2);
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/W"));
}

// Discarding the edits to open a workspace discards them: the values pruned since go, from
// the tensor shown and from the others, and there is nothing to undo (they stayed, unmarked
// and beyond Undo, and the preview counted them as the file's).
void TestUnsavedWork::aWorkspaceOpenedStartsFromTheFiles()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("w.json"));
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/pixels")));
    const auto pixelZeros = zeros(*window.document());
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    const auto embZeros = zeros(*window.document());
    QVERIFY(window.saveWorkspaceTo(path)); // showing /emb
    // /pixels pruned and left, /emb pruned and shown.
    QVERIFY(window.selectElement(QStringLiteral("/pixels")));
    window.document()->changeThreshold(3.0);
    QVERIFY(window.document()->applySparsifier());
    QVERIFY(zeros(*window.document()) > pixelZeros);
    applyOnEmb(window);
    QVERIFY(zeros(*window.document()) > embZeros);
    int asked = 0;
    answerNextQuestion(QMessageBox::Discard, &asked);
    QVERIFY(window.openWorkspace(path));
    QCOMPARE(asked, 1);
    QCOMPARE(window.document()->source().elementPath, QStringLiteral("/emb"));
    QCOMPARE(zeros(*window.document()), embZeros);
    QVERIFY(!window.document()->hasEdits());
    QVERIFY(!window.document()->undoStack()->canUndo());
    QVERIFY(!window.isWindowModified());
    QVERIFY(window.selectElement(QStringLiteral("/pixels")));
    QCOMPARE(zeros(*window.document()), pixelZeros);
}

void TestUnsavedWork::gradientTicksOutliveSwitchingTensors()
{
    MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    auto *gradients = window.optimizerPanel()->findChild<QListWidget *>(QStringLiteral("optimizer.gradients"));
    const auto g0 = gradients->findItems(QStringLiteral("/g0"), Qt::MatchExactly);
    QCOMPARE(g0.size(), 1);
    g0.first()->setCheckState(Qt::Checked);
    // The file row (no tensor), then another tensor: the tick stays, and a workspace saved
    // meanwhile keeps it.
    auto *tree = window.findChild<QTreeView *>();
    tree->setCurrentIndex(window.browserModel()->index(0, 0));
    QCOMPARE(window.workspace().optimizer->gradients, QStringList{QStringLiteral("/g0")});
    QVERIFY(window.selectElement(QStringLiteral("/pixels"))); // the same shape
    QCOMPARE(window.optimizerPanel()->request().gradients, QStringList{QStringLiteral("/g0")});
    QVERIFY(window.selectElement(QStringLiteral("/W"))); // another shape: greyed out, not lost
    QVERIFY(window.optimizerPanel()->request().gradients.isEmpty());
    QCOMPARE(window.workspace().optimizer->gradients, QStringList{QStringLiteral("/g0")});
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QCOMPARE(window.optimizerPanel()->request().gradients, QStringList{QStringLiteral("/g0")});
}

void TestUnsavedWork::titleNamesTheFileAndMarksChanges()
{
    MainWindow window;
    QVERIFY(!window.isWindowModified());
    applyOnEmb(window);
    QVERIFY2(window.windowTitle().contains(QStringLiteral("sample.h5")), qPrintable(window.windowTitle()));
    QVERIFY(window.windowTitle().contains(QStringLiteral("[*]")));
    QVERIFY(window.isWindowModified());
    window.document()->undoStack()->undo();
    window.document()->undoStack()->undo();
    QVERIFY(!window.isWindowModified());
}

// The Optimizer's and the Gradcheck panel's forms are in the workspace but not in the undo
// history: a change of either marks the workspace changed and quitting asks (a learning rate
// typed was lost unasked); set back as saved, nothing is changed.
void TestUnsavedWork::panelFormsAreWorkspaceChanges()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QTemporaryDir dir;
    QVERIFY(window.saveWorkspaceTo(dir.filePath(QStringLiteral("w.json"))));
    QVERIFY(!window.isWindowModified());
    auto *lr = window.optimizerPanel()->findChild<QDoubleSpinBox *>(QStringLiteral("optimizer.lr"));
    QVERIFY(lr);
    const double saved = lr->value();
    lr->setValue(0.2);
    QVERIFY(window.isWindowModified());
    lr->setValue(saved);
    QVERIFY(!window.isWindowModified());
    lr->setValue(0.2);
    int asked = 0;
    answerNextQuestion(QMessageBox::Cancel, &asked);
    QVERIFY(!window.close());
    QCOMPARE(asked, 1);
    QVERIFY(window.saveWorkspaceTo(dir.filePath(QStringLiteral("w.json"))));
    QVERIFY(!window.isWindowModified());

    auto *expression = window.findChild<QLineEdit *>(QStringLiteral("gradcheck.expression"));
    QVERIFY(expression);
    expression->setText(QStringLiteral("sum(emb * emb)"));
    QVERIFY(window.isWindowModified());
    // Opening the workspace saved takes the forms back as they were: nothing changed.
    answerNextQuestion(QMessageBox::Discard, &asked);
    QVERIFY(window.openWorkspace(dir.filePath(QStringLiteral("w.json"))));
    QCOMPARE(asked, 2);
    QCOMPARE(lr->value(), 0.2);
    QVERIFY(expression->text().isEmpty()); // the workspace had no Gradcheck form
    QVERIFY(!window.isWindowModified());
}

QTEST_MAIN(TestUnsavedWork)
#include "tst_unsaved_work.moc"
