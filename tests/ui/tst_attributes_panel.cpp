// The Attributes dock shows the HDF5 attributes of what is selected in the Files tree (a
// dataset, a sparse-layout group, a file's root group); it shares the Inspector's tab, and
// while a job uses HDF5 it waits for the job like every other read on the GUI thread.
#include "core/io/h5_attributes.h"
#include "core/io/h5_writer.h"
#include "ui/jobs/job_runner.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/attribute_table_model.h"
#include "ui/models/h5_browser_model.h"
#include "ui/models/issues_model.h"
#include "ui/panels/attributes_panel.h"

#include <QDockWidget>
#include <QSemaphore>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

namespace core = sparsity::core;
namespace ui = sparsity::ui;

class TestAttributesPanel : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void datasetAttributesAreListed();
    void sparseGroupAndRootGroup();
    void dockSharesTheInspectorTab();
    void readsWhileAJobRuns();

private:
    QString m_file;
    QTemporaryDir m_dir;
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

// The panel's rows as "name | type | value".
QStringList rowsOf(const ui::AttributesPanel *panel)
{
    const auto *model = panel->model();
    QStringList rows;
    for (int row = 0; row < model->rowCount(); ++row) {
        QStringList cells;
        for (int column = 0; column < model->columnCount(); ++column)
            cells << model->index(row, column).data().toString();
        rows << cells.join(QStringLiteral(" | "));
    }
    return rows;
}

} // namespace

void TestAttributesPanel::initTestCase()
{
    QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests-attributes"));
    QVERIFY(m_dir.isValid());
    m_file = m_dir.filePath(QStringLiteral("attributes.h5"));
    auto file = core::H5File::create(m_file.toStdString());
    core::writeStringAttribute(file.id(), "title", "calibration run");
    core::writeTensor(file, "/weights", core::Tensor(core::Storage{core::DenseTensor<float>{{2, 2}, {1, 2, 3, 4}}}));
    const auto weights = core::openObject(file, "/weights");
    core::writeStringAttribute(weights.id(), "units", "volts");
    core::writeDoubleAttribute(weights.id(), "scale", 0.25);
    core::writeIntArrayAttribute(weights.id(), "window", {3, 5, 7});
}

void TestAttributesPanel::datasetAttributesAreListed()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.selectElement(QStringLiteral("/weights")));
    auto *panel = window.attributesPanel();
    // In name order: the anndata tags the writer puts on every tensor, then ours.
    QCOMPARE(rowsOf(panel),
             (QStringList{QStringLiteral("encoding-type | string | array"), QStringLiteral("encoding-version | string | 0.2.0"),
                          QStringLiteral("scale | float64 | 0.25"), QStringLiteral("units | string | volts"),
                          QStringLiteral("window | int64 [3] | 3, 5, 7")}));
    QCOMPARE(panel->objectText(), QStringLiteral("attributes.h5:/weights — 5 attributes"));
    // The header names the columns.
    QCOMPARE(panel->model()->headerData(ui::AttributeTableModel::Value, Qt::Horizontal).toString(), QStringLiteral("Value"));
    QCOMPARE(window.issuesModel()->count(sparsity::ui::Issue::Severity::Error), 0);
}

void TestAttributesPanel::sparseGroupAndRootGroup()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/pixels"))); // a CSR group in the sample
    const auto rows = rowsOf(window.attributesPanel());
    QVERIFY2(rows.contains(QStringLiteral("encoding-type | string | csr_matrix")), qPrintable(rows.join('\n')));
    QVERIFY2(rows.contains(QStringLiteral("shape | int64 [2] | 1797, 64")), qPrintable(rows.join('\n')));
    // The file's own row stands for its root group.
    QVERIFY(window.openFile(m_file));
    auto *tree = window.findChild<QTreeView *>();
    tree->setCurrentIndex(window.browserModel()->index(1, 0));
    QCOMPARE(rowsOf(window.attributesPanel()), QStringList{QStringLiteral("title | string | calibration run")});
    QCOMPARE(window.attributesPanel()->objectText(), QStringLiteral("attributes.h5:/ — 1 attribute"));
    QCOMPARE(window.issuesModel()->count(sparsity::ui::Issue::Severity::Error), 0);
}

void TestAttributesPanel::dockSharesTheInspectorTab()
{
    ui::MainWindow window;
    auto *attributes = window.findChild<QDockWidget *>(QStringLiteral("AttributesDock"));
    auto *inspector = window.findChild<QDockWidget *>(QStringLiteral("InspectorDock"));
    QVERIFY(attributes && inspector);
    QCOMPARE(attributes->windowTitle(), QStringLiteral("Attributes"));
    QVERIFY(window.tabifiedDockWidgets(inspector).contains(attributes));
    QCOMPARE(attributes->widget(), static_cast<QWidget *>(window.attributesPanel()));
}

void TestAttributesPanel::readsWhileAJobRuns()
{
    // HDF5's serial build serialises calls itself: the panel reads while a job holds the pool
    // thread, instead of waiting for it to end.
    ui::MainWindow window;
    QVERIFY(window.openFile(m_file));
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    QSemaphore release;
    QSignalSpy finished(window.jobs(), &ui::JobRunner::finished);
    QVERIFY(window.jobs()->start(QStringLiteral("blocker"), [&release](const core::ProgressCallback &) {
        release.acquire();
        return ui::JobRunner::Continuation{};
    }));
    QVERIFY(window.selectElement(QStringLiteral("/weights"), m_file));
    QCOMPARE(rowsOf(window.attributesPanel()).size(), 5);
    QVERIFY(window.attributesPanel()->objectText().startsWith(QStringLiteral("attributes.h5:/weights")));
    release.release();
    QVERIFY(finished.wait(10000));
}

QTEST_MAIN(TestAttributesPanel)
#include "tst_attributes_panel.moc"
