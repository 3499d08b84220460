// The browser model against QAbstractItemModelTester, on the bundled sample.
#include "ui/document/file_labels.h"
#include "ui/models/h5_browser_model.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using sparsity::ui::H5BrowserModel;

class TestH5BrowserModel : public QObject {
    Q_OBJECT

private slots:
    void listsSampleElements();
    void reopeningReplacesInPlace();
    void badFileLeavesModelUnchanged();
    void removeFile();
    void closingAFileKeepsTheRowsBelow();
    void filesOfOneNameShowTheirFolders();
};

static const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

void TestH5BrowserModel::listsSampleElements()
{
    H5BrowserModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.addFile(kSample));
    QCOMPARE(model.rowCount(), 1);
    const auto file = model.index(0, 0);
    QCOMPARE(model.data(file).toString(), QStringLiteral("sample.h5"));
    QCOMPARE(model.rowCount(file), 8);
    const auto pixels = model.index(3, 0, file);
    QCOMPARE(model.data(pixels).toString(), QStringLiteral("/pixels"));
    QCOMPARE(model.data(model.index(3, H5BrowserModel::Layout, file)).toString(), QStringLiteral("csr"));
    QCOMPARE(model.data(model.index(3, H5BrowserModel::Shape, file)).toString(), QStringLiteral("1797 × 64"));
    QCOMPARE(model.data(model.index(3, H5BrowserModel::Nnz, file)).toString(), QStringLiteral("58736"));
    QCOMPARE(model.data(model.index(6, H5BrowserModel::Layout, file)).toString(), QStringLiteral("masked (dense)"));
    QCOMPARE(model.data(model.index(7, 0, file)).toString(), QStringLiteral("/inst"));
    QCOMPARE(model.data(model.index(7, H5BrowserModel::Layout, file)).toString(), QStringLiteral("coo"));
    QCOMPARE(model.data(model.index(7, H5BrowserModel::Shape, file)).toString(), QStringLiteral("2 × 2"));
    QCOMPARE(model.parent(pixels), file);
    QCOMPARE(model.filePath(pixels), kSample);
    QVERIFY(model.element(file) == nullptr);
    QCOMPARE(model.element(pixels)->path, std::string("/pixels"));
}

void TestH5BrowserModel::reopeningReplacesInPlace()
{
    H5BrowserModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.addFile(kSample));
    QVERIFY(model.addFile(kSample));
    QCOMPARE(model.rowCount(), 1);
}

void TestH5BrowserModel::badFileLeavesModelUnchanged()
{
    QTemporaryDir dir;
    const auto path = dir.filePath(QStringLiteral("text.h5"));
    std::ofstream(path.toStdString()) << "not hdf5";
    H5BrowserModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy inserted(&model, &QAbstractItemModel::rowsInserted);
    QVERIFY(!model.addFile(path));
    QVERIFY(model.errorString().contains(QStringLiteral("not an HDF5 file")));
    QCOMPARE(model.rowCount(), 0);
    QCOMPARE(inserted.count(), 0);
}

void TestH5BrowserModel::removeFile()
{
    H5BrowserModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.addFile(kSample));
    model.removeFile(0);
    QCOMPARE(model.rowCount(), 0);
}

void TestH5BrowserModel::closingAFileKeepsTheRowsBelow()
{
    // An index to an element of the second file (the view's current row) still names that
    // element after the first file is closed: element rows carry their file's id, not its row.
    QTemporaryDir dir;
    const QString second = dir.filePath(QStringLiteral("second.h5"));
    QVERIFY(QFile::copy(kSample, second));
    H5BrowserModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(model.addFile(kSample));
    QVERIFY(model.addFile(second));
    const QPersistentModelIndex row(model.index(2, 0, model.index(1, 0)));
    const auto path = model.element(row)->path;
    model.removeFile(0);
    QVERIFY(row.isValid());
    QCOMPARE(model.filePath(row), second);
    QVERIFY(model.element(row) != nullptr);
    QCOMPARE(model.element(row)->path, path);
    QCOMPARE(model.parent(row), model.index(0, 0));
    model.removeFile(0);
    QVERIFY(!row.isValid());
    QCOMPARE(model.element(model.index(0, 0)), nullptr);
}

// Two open files named sample.h5 are told apart by their folders (the Files panel, and the
// title and Gradcheck inputs through fileLabel); closing one makes the other's name plain.
void TestH5BrowserModel::filesOfOneNameShowTheirFolders()
{
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("sample.h5"));
    QVERIFY(QFile::copy(kSample, copy));
    H5BrowserModel model;
    QVERIFY(model.addFile(kSample));
    QCOMPARE(model.index(0, H5BrowserModel::Name).data().toString(), QStringLiteral("sample.h5"));
    QSignalSpy relabelled(&model, &QAbstractItemModel::dataChanged);
    QVERIFY(model.addFile(copy));
    QVERIFY(!relabelled.isEmpty());
    QCOMPARE(model.index(0, H5BrowserModel::Name).data().toString(),
             QStringLiteral("sample.h5 — %1").arg(sparsity::ui::shownFolder(kSample)));
    QCOMPARE(model.index(1, H5BrowserModel::Name).data().toString(),
             QStringLiteral("sample.h5 — %1").arg(sparsity::ui::shownFolder(copy)));
    QVERIFY(model.fileLabel(kSample) != model.fileLabel(copy));
    model.removeFile(0);
    QCOMPARE(model.index(0, H5BrowserModel::Name).data().toString(), QStringLiteral("sample.h5"));
}

QTEST_MAIN(TestH5BrowserModel)
#include "tst_h5_browser_model.moc"
