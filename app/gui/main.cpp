// sparsity-workbench [FILE.h5 | WORKSPACE.json] [--select PATH] [--threshold T] [--screenshot PNG]: with no file it
// opens the bundled sample.
#include "core/io/h5_handle.h"
#include "core/util/allocator_tuning.h"
#include "core/util/memory_budget.h"
#include "ui/document/tensor_document.h"
#include "ui/mainwindow/main_window.h"
#include "ui/models/h5_browser_model.h"
#include "ui/workspace/workspace.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QIcon>
#include <QTimer>
#include <cstdio>
#include <cstdlib>

namespace {

QString bundledSample()
{
    // Next to an installed binary first (/usr/bin -> /usr/share/...), then the source tree.
    const QString installed =
        QCoreApplication::applicationDirPath() + QStringLiteral("/../share/sparsity-workbench/samples/sample.h5");
    for (const QString &candidate :
         {installed, QStringLiteral(SPARSITY_INSTALLED_SAMPLE), QStringLiteral(SPARSITY_SOURCE_SAMPLE)})
        if (QFileInfo::exists(candidate))
            return candidate;
    return {};
}

} // namespace

int main(int argc, char *argv[])
{
    sparsity::core::retainFreedHeapMemory();
    // A tensor read whole (a coo or masked table is never windowed) is refused over the CLI's
    // auto budget, with why, in the Issues dock: the OOM killer would take unsaved work with it.
    sparsity::core::setWholeTensorBudget(sparsity::core::resolveMemoryLimit(std::nullopt));
    QApplication app(argc, argv);
    // Ties windows to the installed launcher and its icon (installer/linux).
    QApplication::setDesktopFileName(QStringLiteral("sparsity-workbench"));
    QApplication::setWindowIcon(QIcon::fromTheme(QStringLiteral("sparsity-workbench")));
    QApplication::setApplicationName(QStringLiteral("sparsity-workbench"));
    QApplication::setOrganizationName(QStringLiteral("sparsity"));
    QApplication::setApplicationVersion(QStringLiteral(SPARSITY_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Sparsity Workbench: sparse and masked tensors"));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("HDF5 file or WORKSPACE.json to open (default: the bundled sample)"));
    QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("Save a PNG of the window and exit"),
                                  QStringLiteral("png"));
    QCommandLineOption select(QStringLiteral("select"), QStringLiteral("Element to preview first"), QStringLiteral("path"));
    QCommandLineOption threshold(QStringLiteral("threshold"), QStringLiteral("Start with this threshold preview"),
                                 QStringLiteral("T"));
    parser.addOption(screenshot);
    parser.addOption(select);
    parser.addOption(threshold);
    parser.process(app);

    sparsity::ui::MainWindow window;
    const auto files = parser.positionalArguments();
    const QString file = files.isEmpty() ? bundledSample() : files.first();
    if (sparsity::ui::isWorkspacePath(file)) {
        window.openWorkspace(file);
    } else if (!file.isEmpty() && window.openFile(file)) {
        // --select's element, else /emb (the sample's), else the file's first: a file opened
        // this way without /emb showed nothing.
        const auto *model = window.browserModel();
        const auto opened = model->index(0, 0);
        if (!window.selectElement(parser.isSet(select) ? parser.value(select) : QStringLiteral("/emb")) && !parser.isSet(select)
            && model->rowCount(opened) > 0)
            window.selectElement(model->objectPath(model->index(0, 0, opened)), model->filePath(opened));
    }
    if (parser.isSet(threshold)) {
        bool ok = false;
        const double t = parser.value(threshold).toDouble(&ok);
        if (!ok || !(t >= 0.0)) {
            std::fprintf(stderr, "error: --threshold must be a number >= 0, but got '%s'\n", qPrintable(parser.value(threshold)));
            return 2;
        }
        window.document()->changeThreshold(t);
    }
    window.show();

    if (parser.isSet(screenshot)) {
        const QString path = parser.value(screenshot);
        QTimer::singleShot(500, &window, [&window, path] {
            const bool saved = window.grab().save(path);
            if (!saved)
                std::fprintf(stderr, "error: %s: cannot write screenshot\n", qPrintable(path));
            QApplication::exit(saved ? 0 : 3);
        });
    }
    const int code = QApplication::exec();
    // A file HDF5 failed to close (an Export onto a full disk) would crash its exit handler:
    // then the application ends without it (settings are written as they change).
    if (sparsity::core::hdf5HoldsAHalfClosedFile())
        std::_Exit(code);
    return code;
}
