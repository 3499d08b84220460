// File > Open Recent names each file once, however it was reached (symlink, "../", an older
// settings file listing it twice), and tells apart two files of the same name by their
// folders. Settings are this test's own (organization sparsity-tests-recent), cleared first.
#include "ui/mainwindow/main_window.h"
#include "ui/mainwindow/recent_files.h"
#include "ui/models/h5_browser_model.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QMenu>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

namespace ui = sparsity::ui;

class TestRecentFiles : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void cleanupTestCase() { QSettings().clear(); }
    void sameFileIsOneEntry();
    void sameNameShowsTheFolder();
    void duplicatesInOldSettingsAreDropped();
    void keyOfAMissingFileIsItsCleanPath();
    void aFileGoneSinceIsNotOffered();

private:
    QString m_a, m_b; // a/sample.h5 and b/sample.h5: copies of the sample
    QTemporaryDir m_dir;
};

namespace {

const QString kSample = QStringLiteral(SPARSITY_SAMPLE_DIR "/sample.h5");

QMenu *recentMenu(const ui::MainWindow &window) { return window.findChild<QMenu *>(QStringLiteral("menu.file.recent")); }

QStringList labels(const ui::MainWindow &window)
{
    QStringList texts;
    for (auto *action : recentMenu(window)->actions())
        texts << action->text();
    return texts;
}

} // namespace

void TestRecentFiles::initTestCase()
{
    QCoreApplication::setOrganizationName(QStringLiteral("sparsity-tests-recent"));
    QVERIFY(m_dir.isValid());
    const QDir root(m_dir.path());
    QVERIFY(root.mkpath(QStringLiteral("a")) && root.mkpath(QStringLiteral("b")) && root.mkpath(QStringLiteral("links")));
    m_a = QFileInfo(root.filePath(QStringLiteral("a/sample.h5"))).absoluteFilePath();
    m_b = QFileInfo(root.filePath(QStringLiteral("b/sample.h5"))).absoluteFilePath();
    QVERIFY(QFile::copy(kSample, m_a));
    QVERIFY(QFile::copy(kSample, m_b));
    QVERIFY(QFile::link(m_a, root.filePath(QStringLiteral("links/alias.h5"))));
}

void TestRecentFiles::sameFileIsOneEntry()
{
    ui::MainWindow window;
    QVERIFY(!recentMenu(window)->isEnabled());
    const QDir root(m_dir.path());
    QVERIFY(window.openFile(m_a));
    QVERIFY(window.openFile(root.filePath(QStringLiteral("b/../a/sample.h5"))));
    QVERIFY(window.openFile(root.filePath(QStringLiteral("links/alias.h5"))));
    QCOMPARE(labels(window), QStringList{QStringLiteral("sample.h5")});
    QCOMPARE(recentMenu(window)->actions().first()->toolTip(), QFileInfo(m_a).canonicalFilePath());
    QCOMPARE(ui::loadRecentFiles(), QStringList{QFileInfo(m_a).canonicalFilePath()});
}

void TestRecentFiles::sameNameShowsTheFolder()
{
    ui::MainWindow window;
    QVERIFY(window.openFile(m_a));
    QVERIFY(window.openFile(m_b));
    const QString folderA = QDir::toNativeSeparators(QFileInfo(m_a).canonicalPath());
    const QString folderB = QDir::toNativeSeparators(QFileInfo(m_b).canonicalPath());
    QVERIFY2(!folderA.startsWith(QDir::homePath()), "the temporary folder is under home: labels would say ~");
    // Newest first.
    QCOMPARE(labels(window), (QStringList{QStringLiteral("sample.h5 — ") + folderB, QStringLiteral("sample.h5 — ") + folderA}));
    // A file of another name keeps its plain name beside them.
    QCOMPARE(ui::recentFileLabels({m_a, QStringLiteral("/data/other.h5"), m_b}),
             (QStringList{QStringLiteral("sample.h5 — ") + QDir::toNativeSeparators(QFileInfo(m_a).absolutePath()),
                          QStringLiteral("other.h5"),
                          QStringLiteral("sample.h5 — ") + QDir::toNativeSeparators(QFileInfo(m_b).absolutePath())}));
    // Choosing an entry opens that file, which becomes the newest.
    recentMenu(window)->actions().last()->trigger();
    QCOMPARE(labels(window).first(), QStringLiteral("sample.h5 — ") + folderA);
}

void TestRecentFiles::duplicatesInOldSettingsAreDropped()
{
    const QString canonical = QFileInfo(m_a).canonicalFilePath();
    QSettings().setValue(QStringLiteral("recentFiles"),
                         QStringList{m_a, QFileInfo(m_a).absolutePath() + QStringLiteral("/./sample.h5"),
                                     QDir(m_dir.path()).filePath(QStringLiteral("links/alias.h5"))});
    ui::MainWindow window;
    QCOMPARE(labels(window), QStringList{QStringLiteral("sample.h5")});
    QCOMPARE(ui::loadRecentFiles(), QStringList{canonical});
}

void TestRecentFiles::keyOfAMissingFileIsItsCleanPath()
{
    QCOMPARE(ui::recentFileKey(QStringLiteral("/no/such/../folder/./x.h5")), QStringLiteral("/no/folder/x.h5"));
    // The list keeps at most `limit` entries, newest first.
    for (int i = 0; i < 5; ++i)
        ui::rememberRecentFile(QStringLiteral("/gone/f%1.h5").arg(i), 3);
    QCOMPARE(ui::loadRecentFiles(),
             (QStringList{QStringLiteral("/gone/f4.h5"), QStringLiteral("/gone/f3.h5"), QStringLiteral("/gone/f2.h5")}));
}

void TestRecentFiles::aFileGoneSinceIsNotOffered()
{
    // A file renamed or deleted since it was opened stays listed, marked and disabled: choosing
    // it only failed again ("cannot open: no such file").
    const QString gone = QDir(m_dir.path()).filePath(QStringLiteral("gone.h5"));
    QVERIFY(QFile::copy(kSample, gone));
    ui::MainWindow window;
    QVERIFY(window.openFile(gone));
    QVERIFY(window.openFile(m_a));
    QVERIFY(QFile::remove(gone));
    emit recentMenu(window)->aboutToShow();
    const auto actions = recentMenu(window)->actions();
    QCOMPARE(labels(window), (QStringList{QStringLiteral("sample.h5"), QStringLiteral("gone.h5 (not found)")}));
    QVERIFY(actions[0]->isEnabled());
    QVERIFY(!actions[1]->isEnabled());
    QVERIFY(QFile::copy(kSample, gone)); // back again: offered again
    emit recentMenu(window)->aboutToShow();
    QVERIFY(recentMenu(window)->actions()[1]->isEnabled());
    QCOMPARE(labels(window)[1], QStringLiteral("gone.h5"));
}

QTEST_MAIN(TestRecentFiles)
#include "tst_recent_files.moc"
