// The Sparsifier panel edits the document's recipe through commands: the preview is the
// core's mask, each edited field is one undo step, Apply squashes exactly the pruned
// elements and undoes exactly, the widgets follow undo and the histogram, and the report
// model passes QAbstractItemModelTester.
#include "core/sparsify/data_sparsifier.h"
#include "core/sparsify/scheduler.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/sparsify/sparsifier_parameters.h"
#include "ui/document/tensor_document.h"
#include "ui/models/sparsify_report_model.h"
#include "ui/panels/sparsifier_panel.h"

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestSparsifierPanel : public QObject {
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void methodChoicePreviewsTheCoreMask();
    void editsOfOneFieldAreOneUndoStep();
    void applySquashesAndUndoesExactly();
    void recipeThatDoesNotFitIsExplained();
    void scheduleLevelBecomesTheSparsityLevel();
    void widgetsFollowTheDocument();
    void everyParameterOfTheTableHasAField();
    void blockAndOptionalZerosAreEdited();
    void valuesTheBoxCannotShowAreKept();
    void numbersTypedKeyByKeyAreKept();
    void exportSettingsUndoAndRedo();
    void datasetOwnRecipeOverridesTheShared();

private:
    template <class W>
    W *child(const char *name) const
    {
        return m_panel->findChild<W *>(QString::fromLatin1(name));
    }

    ui::TensorDocument *m_document = nullptr;
    ui::SparsifierPanel *m_panel = nullptr;
    std::unique_ptr<QAbstractItemModelTester> m_tester;
};

namespace {

// 16 x 8 float values with distinct magnitudes (no ties), signs alternating.
core::Tensor table()
{
    core::DenseTensor<float> t{{16, 8}, {}};
    for (int i = 0; i < 128; ++i)
        t.values.push_back((i % 2 ? -1.0f : 1.0f) * static_cast<float>((i * 37) % 128 + 1) / 64.0f);
    return core::Tensor(core::Storage{t});
}

} // namespace

void TestSparsifierPanel::init()
{
    m_document = new ui::TensorDocument;
    m_document->setTensor(QStringLiteral("table"), table(), 16, {QStringLiteral("t.h5"), QStringLiteral("/t")});
    m_panel = new ui::SparsifierPanel(m_document);
    m_tester = std::make_unique<QAbstractItemModelTester>(m_panel->reportModel(),
                                                          QAbstractItemModelTester::FailureReportingMode::QtTest);
}

void TestSparsifierPanel::cleanup()
{
    m_tester.reset();
    delete m_panel;
    delete m_document;
}

void TestSparsifierPanel::methodChoicePreviewsTheCoreMask()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("n-m"));
    QVERIFY(m_document->sparsifier().has_value());
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::NM);
    const auto kept = core::computeMask(m_document->tensor(), *m_document->sparsifier());
    QCOMPARE(m_document->pruned().size(), kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i)
        QCOMPARE(m_document->pruned()[i], static_cast<std::uint8_t>(!kept[i]));
    QCOMPARE(m_document->prunedFraction(), 0.5);
    QVERIFY(child<QLabel>("sparsifier.status")->text().contains(QStringLiteral("50.0% pruned")));
    QVERIFY(child<QPushButton>("sparsifier.apply")->isEnabled());
}

void TestSparsifierPanel::editsOfOneFieldAreOneUndoStep()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("threshold"));
    auto *threshold = child<QDoubleSpinBox>("sparsifier.threshold");
    for (double t : {0.1, 0.2, 0.3, 0.4})
        threshold->setValue(t);
    QCOMPARE(m_document->undoStack()->count(), 2); // the method, then the threshold edits
    QCOMPARE(m_document->threshold().value(), 0.4);
    m_document->undoStack()->undo();
    QCOMPARE(m_document->threshold().value(), 0.0);
    QCOMPARE(threshold->value(), 0.0);
    m_document->undoStack()->undo();
    QVERIFY(!m_document->sparsifier().has_value());
    QCOMPARE(child<QComboBox>("sparsifier.method")->currentIndex(), 0);
}

void TestSparsifierPanel::applySquashesAndUndoesExactly()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("threshold"));
    child<QDoubleSpinBox>("sparsifier.threshold")->setValue(1.0);
    const auto before = m_document->values().values;
    const auto pruned = m_document->pruned();
    QTest::mouseClick(child<QPushButton>("sparsifier.apply"), Qt::LeftButton);
    const auto &after = m_document->values().values;
    std::int64_t kept = 0;
    for (std::size_t i = 0; i < before.size(); ++i) {
        QCOMPARE(after[i], pruned[i] ? 0.0 : before[i]);
        kept += !pruned[i];
    }
    auto *report = m_panel->reportModel();
    QCOMPARE(report->rowCount(), 1);
    QCOMPARE(report->index(0, ui::SparsifyReportModel::Element).data().toString(), QStringLiteral("/t"));
    QCOMPARE(report->index(0, ui::SparsifyReportModel::NnzBefore).data().toLongLong(), 128);
    QCOMPARE(report->index(0, ui::SparsifyReportModel::NnzAfter).data().toLongLong(), kept);

    m_document->undoStack()->undo();
    QCOMPARE(m_document->values().values, before);
    QCOMPARE(report->rowCount(), 0);
    m_document->undoStack()->redo();
    QCOMPARE(report->rowCount(), 1);
    QCOMPARE(m_document->values().values[0], pruned[0] ? 0.0 : before[0]);
}

void TestSparsifierPanel::recipeThatDoesNotFitIsExplained()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("n-m"));
    child<QSpinBox>("sparsifier.m")->setValue(3); // 8 columns are not groups of 3
    QVERIFY(!m_document->hasPreview());
    QVERIFY(!m_document->previewError().isEmpty());
    QCOMPARE(child<QLabel>("sparsifier.status")->text(), m_document->previewError());
    QVERIFY(!child<QPushButton>("sparsifier.apply")->isEnabled());
    QVERIFY(!m_document->applySparsifier());

    // N > M is not a recipe at all: the document keeps the last valid one.
    child<QSpinBox>("sparsifier.m")->setValue(4);
    const auto count = m_document->undoStack()->count();
    child<QSpinBox>("sparsifier.n")->setValue(5);
    QCOMPARE(m_document->undoStack()->count(), count);
    QCOMPARE(m_document->sparsifier()->n, std::int64_t{2});
    QVERIFY(child<QLabel>("sparsifier.status")->text().contains(QStringLiteral("5")));
}

void TestSparsifierPanel::scheduleLevelBecomesTheSparsityLevel()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("data-norm"));
    child<QLineEdit>("sparsifier.schedule")->setText(QStringLiteral("cubic:0,0.8,0,1,20"));
    child<QSpinBox>("sparsifier.at_step")->setValue(5);
    QTest::mouseClick(child<QPushButton>("sparsifier.use_level"), Qt::LeftButton);
    const double expected = core::parseSchedule("cubic:0,0.8,0,1,20")->level(5);
    QVERIFY(std::abs(m_document->sparsifier()->sparsityLevel - expected) < 1e-3); // the spin box's 3 decimals

    // row-norm keeps 1 - level (core/sparsify/sparsifier_methods.h), as `sparsify --schedule` does.
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("row-norm"));
    QTest::mouseClick(child<QPushButton>("sparsifier.use_level"), Qt::LeftButton);
    QCOMPARE(m_document->sparsifier()->method, core::SparsifierMethod::RowNorm);
    QVERIFY(std::abs(m_document->sparsifier()->keep - (1.0 - expected)) < 1e-3);
}

void TestSparsifierPanel::widgetsFollowTheDocument()
{
    // What the histogram drag does: the panel shows the threshold recipe it set.
    m_document->changeThreshold(0.75);
    QCOMPARE(child<QComboBox>("sparsifier.method")->currentText(), QStringLiteral("threshold"));
    QCOMPARE(child<QDoubleSpinBox>("sparsifier.threshold")->value(), 0.75);
}

void TestSparsifierPanel::everyParameterOfTheTableHasAField()
{
    // The panel's fields are built from core/sparsify/sparsifier_parameters.h: each parameter
    // has one, and a recipe set in the document shows in its method's fields.
    core::SparsifierConfig recipe;
    recipe.threshold = 0.625;
    recipe.sparsityLevel = 0.25;
    recipe.blockRows = 2;
    recipe.blockCols = 2;
    recipe.zerosPerBlock = 3;
    recipe.norm = core::BlockNorm::L2;
    recipe.n = 1;
    recipe.m = 2;
    recipe.keep = 0.75;
    for (const auto &facts : core::kSparsifierMethods) {
        recipe.method = facts.method;
        m_document->changeSparsifier(recipe);
        QCOMPARE(child<QComboBox>("sparsifier.method")->currentText(), QString::fromUtf8(facts.name.data()));
        for (const auto &parameter : core::sparsifierParameters()) {
            if (parameter.method != facts.method)
                continue;
            const QString name = QStringLiteral("sparsifier.") + QString::fromUtf8(parameter.key.data());
            auto *editor = m_panel->findChild<QWidget *>(name);
            QVERIFY2(editor, qPrintable(name));
            QVERIFY2(editor->isVisibleTo(m_panel) || !m_panel->isVisible(), qPrintable(name));
            QString shown;
            if (auto *number = qobject_cast<QDoubleSpinBox *>(editor))
                shown = QString::number(number->value());
            else if (auto *integer = qobject_cast<QSpinBox *>(editor))
                shown = QString::number(integer->value());
            else if (auto *choice = qobject_cast<QComboBox *>(editor))
                shown = choice->currentText();
            else if (auto *line = qobject_cast<QLineEdit *>(editor))
                shown = line->text();
            const auto value = *parameter.get(recipe);
            const QString expected = std::visit(
                [](const auto &v) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
                        return QString::fromStdString(v);
                    else
                        return QString::number(v);
                },
                value);
            QCOMPARE(shown, expected);
        }
        // The fields give back the recipe they show, after another method and back.
        const auto count = m_document->undoStack()->count();
        auto *method = child<QComboBox>("sparsifier.method");
        method->setCurrentIndex(method->currentIndex() % method->count() + 1 == method->count() ? 1 : method->currentIndex() + 1);
        method->setCurrentText(QString::fromUtf8(facts.name.data()));
        QCOMPARE(m_document->undoStack()->count(), count + 2);
        for (const auto &parameter : core::sparsifierParameters())
            if (parameter.method == facts.method)
                QVERIFY2(parameter.get(*m_document->sparsifier()) == parameter.get(recipe), parameter.key.data());
    }
}

void TestSparsifierPanel::blockAndOptionalZerosAreEdited()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("data-norm"));
    auto *block = child<QLineEdit>("sparsifier.block");
    auto *zeros = child<QSpinBox>("sparsifier.zeros_per_block");
    QCOMPARE(block->text(), QStringLiteral("1x4"));
    QCOMPARE(zeros->text(), QStringLiteral("whole block")); // unset: PyTorch's default
    QVERIFY(!m_document->sparsifier()->zerosPerBlock);

    // Typed as a user would: "2x" is not a block yet, and the document keeps 1x4.
    block->clear();
    QTest::keyClicks(block, QStringLiteral("2x"));
    QCOMPARE(m_document->sparsifier()->blockRows, std::int64_t{1});
    QVERIFY(child<QLabel>("sparsifier.status")->text().contains(QStringLiteral("block must be ROWSxCOLS")));
    QTest::keyClicks(block, QStringLiteral("2"));
    QCOMPARE(m_document->sparsifier()->blockRows, std::int64_t{2});
    QCOMPARE(m_document->sparsifier()->blockCols, std::int64_t{2});
    QCOMPARE(block->text(), QStringLiteral("2x2"));

    // 0 zeros per block is a value of its own, not the unset default.
    zeros->setValue(0);
    QCOMPARE(m_document->sparsifier()->zerosPerBlock, std::optional<std::int64_t>(0));
    QCOMPARE(m_document->prunedFraction(), 0.0);
    zeros->setValue(zeros->minimum());
    QVERIFY(!m_document->sparsifier()->zerosPerBlock);

    // zeros_per_block above the block's 4 values is refused by validate()'s rule between them.
    zeros->setValue(5);
    QCOMPARE(m_document->sparsifier()->zerosPerBlock, std::optional<std::int64_t>());
    QVERIFY(child<QLabel>("sparsifier.status")->text().contains(QStringLiteral("at most the block size 4")));
}

void TestSparsifierPanel::valuesTheBoxCannotShowAreKept()
{
    // A recipe file's m of 3e9 (a valid N:M recipe) is shown at the spin box's bound; an edit of
    // another field keeps it exact, and an edit of the box itself takes the user's value.
    core::SparsifierConfig recipe;
    recipe.method = core::SparsifierMethod::NM;
    recipe.n = 2;
    recipe.m = 3'000'000'000;
    m_document->changeSparsifier(recipe);
    auto *m = child<QSpinBox>("sparsifier.m");
    QCOMPARE(m->value(), m->maximum());
    QVERIFY(m->toolTip().contains(QStringLiteral("3000000000")));
    child<QSpinBox>("sparsifier.n")->setValue(1);
    QCOMPARE(m_document->sparsifier()->n, std::int64_t{1});
    QCOMPARE(m_document->sparsifier()->m, std::int64_t{3'000'000'000});
    m->setValue(8);
    QCOMPARE(m_document->sparsifier()->m, std::int64_t{8});
    QVERIFY(m->toolTip().isEmpty());

    // Likewise a number finer than the box's decimals.
    core::SparsifierConfig dataNorm;
    dataNorm.method = core::SparsifierMethod::DataNorm;
    dataNorm.sparsityLevel = 0.123456789;
    m_document->changeSparsifier(dataNorm);
    auto *level = child<QDoubleSpinBox>("sparsifier.sparsity_level");
    QCOMPARE(level->value(), 0.123);
    QVERIFY(level->toolTip().contains(QStringLiteral("0.123456789")));
    auto *block = child<QLineEdit>("sparsifier.block");
    block->clear();
    QTest::keyClicks(block, QStringLiteral("2x2"));
    QCOMPARE(m_document->sparsifier()->blockRows, std::int64_t{2});
    QCOMPARE(m_document->sparsifier()->sparsityLevel, 0.123456789);
    level->setValue(0.5);
    QCOMPARE(m_document->sparsifier()->sparsityLevel, 0.5);

    // A threshold beyond the box's range is shown at its bound (it showed 0), and kept exact.
    core::SparsifierConfig huge;
    huge.method = core::SparsifierMethod::Threshold;
    huge.threshold = 1e300;
    m_document->changeSparsifier(huge);
    auto *threshold = child<QDoubleSpinBox>("sparsifier.threshold");
    QCOMPARE(threshold->value(), threshold->maximum());
    QVERIFY(threshold->toolTip().contains(QStringLiteral("1e+300")));
    QCOMPARE(m_document->sparsifier()->threshold, 1e300);
}

// Typed a key at a time, as a user types: each key's value goes to the document and comes
// back to the box, which must leave the text being typed alone ("0.25" became 0.0000 when the
// "0" came back as "0.0000" under the cursor).
void TestSparsifierPanel::numbersTypedKeyByKeyAreKept()
{
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("threshold"));
    auto *threshold = child<QDoubleSpinBox>("sparsifier.threshold");
    for (const auto &[typed, expected] : {std::pair{"0.25", 0.25}, std::pair{"1.125", 1.125}, std::pair{"0.75", 0.75}}) {
        threshold->selectAll();
        QTest::keyClicks(threshold, QString::fromLatin1(typed));
        QCOMPARE(threshold->value(), expected);
        QCOMPARE(m_document->threshold().value(), expected);
    }
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("data-norm"));
    auto *level = child<QDoubleSpinBox>("sparsifier.sparsity_level");
    level->selectAll();
    QTest::keyClicks(level, QStringLiteral("0.65"));
    QCOMPARE(level->value(), 0.65);
    QCOMPARE(m_document->sparsifier()->sparsityLevel, 0.65);
    child<QComboBox>("sparsifier.method")->setCurrentText(QStringLiteral("n-m"));
    auto *m = child<QSpinBox>("sparsifier.m");
    m->selectAll();
    QTest::keyClicks(m, QStringLiteral("16"));
    QCOMPARE(m_document->sparsifier()->m, std::int64_t{16});
}

void TestSparsifierPanel::exportSettingsUndoAndRedo()
{
    const ui::ExportSettings first{{QStringLiteral("/t")}, QStringLiteral("csr"), 4}, second{{}, QStringLiteral("masked"), 0};
    m_document->changeExportSettings(first);
    m_document->changeExportSettings(first); // no change, no undo step
    m_document->changeExportSettings(second);
    QCOMPARE(m_document->undoStack()->count(), 2);
    m_document->undoStack()->undo();
    QVERIFY(m_document->exportSettings() == first);
    m_document->undoStack()->undo();
    QVERIFY(m_document->exportSettings() == ui::ExportSettings{});
    m_document->undoStack()->redo();
    m_document->undoStack()->redo();
    QVERIFY(m_document->exportSettings() == second);
}

void TestSparsifierPanel::datasetOwnRecipeOverridesTheShared()
{
    auto *scope = child<QComboBox>("sparsifier.scope");
    auto *method = child<QComboBox>("sparsifier.method");
    QVERIFY(scope->isEnabled());
    QCOMPARE(scope->itemText(1), QStringLiteral("/t only"));
    method->setCurrentText(QStringLiteral("threshold"));
    child<QDoubleSpinBox>("sparsifier.threshold")->setValue(0.5);
    scope->setCurrentIndex(1);
    QVERIFY(m_document->hasOwnSparsifier());
    QCOMPARE(m_document->sparsifier()->threshold, 0.5); // starts as a copy of the shared recipe
    method->setCurrentText(QStringLiteral("n-m"));
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::NM);
    QVERIFY(m_document->sharedSparsifier()->method == core::SparsifierMethod::Threshold);
    QVERIFY(child<QLabel>("sparsifier.own_recipes")->text().contains(QStringLiteral("/t: n-m 2:4")));
    const auto kept = core::computeMask(m_document->tensor(), *m_document->sparsifier());
    for (std::size_t i = 0; i < kept.size(); ++i)
        QCOMPARE(m_document->pruned()[i], static_cast<std::uint8_t>(!kept[i]));

    // Undo walks back through the own recipe's edits, then its creation.
    QCOMPARE(m_document->undoStack()->count(), 4);
    m_document->undoStack()->undo();
    QVERIFY(m_document->hasOwnSparsifier());
    QCOMPARE(method->currentText(), QStringLiteral("threshold"));
    m_document->undoStack()->undo();
    QVERIFY(!m_document->hasOwnSparsifier());
    QCOMPARE(scope->currentIndex(), 0);
    m_document->undoStack()->redo();
    m_document->undoStack()->redo();
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::NM);
    QCOMPARE(scope->currentIndex(), 1);

    // Another dataset gets the shared recipe; coming back shows the own one again.
    m_document->setTensor(QStringLiteral("other"), table(), 16, {QStringLiteral("t.h5"), QStringLiteral("/u")});
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::Threshold);
    QCOMPARE(scope->currentIndex(), 0);
    QCOMPARE(method->currentText(), QStringLiteral("threshold"));
    m_document->setTensor(QStringLiteral("table"), table(), 16, {QStringLiteral("t.h5"), QStringLiteral("/t")});
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::NM);
    QCOMPARE(scope->currentIndex(), 1);

    // Back to the shared recipe drops the own one (undoably).
    scope->setCurrentIndex(0);
    QVERIFY(!m_document->hasOwnSparsifier());
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::Threshold);
    QVERIFY(child<QLabel>("sparsifier.own_recipes")->isHidden());
    m_document->undoStack()->undo();
    QVERIFY(m_document->sparsifier()->method == core::SparsifierMethod::NM);
}

QTEST_MAIN(TestSparsifierPanel)
#include "tst_sparsifier_panel.moc"
