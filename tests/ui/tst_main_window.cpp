// The main window on the sample: open, select, preview; errors go to the Issues dock.
#include "ui/mainwindow/main_window.h"
#include "ui/models/h5_browser_model.h"
#include "ui/views/tensor_preview.h"

#include <QListWidget>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using sparsity::ui::MainWindow;

class TestMainWindow : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests")); }
    void opensSampleAndPreviewsRows();
    void previewsMaskedAndSparse();
    void badFileGoesToIssues();
};

static const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

void TestMainWindow::opensSampleAndPreviewsRows()
{
    MainWindow window;
    window.show();
    QVERIFY(window.openFile(kSample));
    QVERIFY(window.selectElement(QStringLiteral("/emb")));
    // 1797 rows: the preview reads the first 512 by hyperslab.
    QCOMPARE(window.preview()->image().size(), QSize(64, 512));
    QVERIFY(window.issuesList()->count() == 0);
    QVERIFY(!window.grab().isNull());
}

void TestMainWindow::previewsMaskedAndSparse()
{
    MainWindow window;
    QVERIFY(window.openFile(kSample));
    for (const char *path : {"/pixels", "/g0", "/g1", "/ink", "/labels", "/W"}) {
        QVERIFY(window.selectElement(QString::fromLatin1(path)));
        QVERIFY2(!window.preview()->image().isNull(), path);
    }
    QCOMPARE(window.preview()->image().size(), QSize(10, 64));
    QCOMPARE(window.issuesList()->count(), 0);
}

void TestMainWindow::badFileGoesToIssues()
{
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("broken.h5"));
    std::ofstream(path.toStdString()) << "garbage";
    MainWindow window;
    QVERIFY(!window.openFile(path));
    QCOMPARE(window.issuesList()->count(), 1);
    QVERIFY(window.issuesList()->item(0)->text().contains(QStringLiteral("broken.h5: cannot open: not an HDF5 file")));
    QCOMPARE(window.browserModel()->rowCount(), 0);
}

QTEST_MAIN(TestMainWindow)
#include "tst_main_window.moc"
