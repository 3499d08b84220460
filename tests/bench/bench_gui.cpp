// Timing driver for the desktop application (issue 7), driving the real widgets offscreen:
//   bench_gui FILE PATH RUNS [GRADCHECK_FILE]
// prints {"open_first_paint_seconds": best of RUNS (open the file, select PATH, paint the
// window), "pan_frame_seconds": mean over 50 pan steps of one heatmap repaint at 8x zoom,
// "page_seconds": mean of 5 moves of the row scroll bar by one window (the next rows read on a
// pool thread, then rendered and repainted), "overview_seconds": building the whole table's overview strip in the
// background after opening, "overview_longest_step_seconds": the longest the event loop waited
// for one chunk of it, "rows_loaded": ..., "rows_total": ...}. With GRADCHECK_FILE (a file whose
// /big is a 64 x 64 float64 tensor) it also times the Gradcheck panel's check of mm(big, big)
// (two 4096 x 4096 Jacobians and their maps): "gradcheck_result_seconds", from the job's start
// to its result shown, and "gradcheck_longest_stall_seconds", a 5 ms timer's longest gap
// meanwhile (how long the window froze). "whole_table_preview_seconds": a data-norm recipe (1x4,
// level 0.5) previewed on the window with the whole table's choice, from the change to the
// preview drawn, computed in the background ("..._longest_stall_seconds": the longest the window
// froze meanwhile, and during the level changes); "preview_level_change_seconds": the mean of 5
// level changes then, each chosen again from the kept scores in the background and drawn.
#include "core/sparsify/sparsifier_config.h"
#include "core/util/allocator_tuning.h"
#include "ui/document/tensor_document.h"
#include "ui/document/tensor_loader.h"
#include "ui/jobs/document_jobs.h"
#include "ui/jobs/job_runner.h"
#include "ui/jobs/overview_builder.h"
#include "ui/mainwindow/main_window.h"
#include "ui/panels/gradcheck_panel.h"
#include "ui/views/tensor_preview.h"

#include <QApplication>
#include <QLineEdit>
#include <QMouseEvent>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTimer>
#include <chrono>
#include <cstdio>
#include <limits>
#include <optional>

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The longest the event loop goes without a turn while it lives: the longest gap between ticks
// of a timer of `interval` ms (the gap includes one interval).
class StallMeter {
public:
    explicit StallMeter(int interval)
    {
        m_ticker.setInterval(interval);
        QObject::connect(&m_ticker, &QTimer::timeout, [this] { note(); });
        m_ticker.start();
    }
    void note()
    {
        m_longest = std::max(m_longest, since(m_last));
        m_last = Clock::now();
    }
    void restart() { m_last = Clock::now(); }
    double longest() const { return m_longest; }

private:
    QTimer m_ticker;
    Clock::time_point m_last = Clock::now();
    double m_longest = 0.0;
};

struct GradcheckTiming {
    double resultSeconds = 0.0, longestStall = 0.0;
};

// The Gradcheck panel checks mm(big, big) as a user would start it, the window open; the clock
// runs from the request to the result shown.
std::optional<GradcheckTiming> timeGradcheck(const QString &file)
{
    sparsity::ui::MainWindow window;
    window.resize(1400, 900);
    window.show();
    if (!window.openFile(file) || !window.selectElement(QStringLiteral("/big")))
        return std::nullopt;
    auto *panel = window.gradcheckPanel();
    panel->findChild<QLineEdit *>(QStringLiteral("gradcheck.expression"))->setText(QStringLiteral("mm(big, big)"));
    QApplication::processEvents();
    QSignalSpy finished(window.jobs(), &sparsity::ui::JobRunner::finished);
    StallMeter stalls(5);
    const auto start = Clock::now();
    if (!window.documentJobs()->runGradcheck(panel->request()) || !finished.wait(600000) || !finished.last().at(0).toBool())
        return std::nullopt;
    GradcheckTiming timing{since(start), 0.0};
    stalls.note();
    timing.longestStall = stalls.longest();
    return timing;
}

} // namespace

int main(int argc, char *argv[])
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    sparsity::core::retainFreedHeapMemory();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("sparsity-bench"));
    if (argc != 4 && argc != 5) {
        std::fprintf(stderr, "usage: bench_gui FILE PATH RUNS [GRADCHECK_FILE]\n");
        return 2;
    }
    const QString file = QString::fromLocal8Bit(argv[1]), path = QString::fromLocal8Bit(argv[2]);
    const int runs = std::atoi(argv[3]);

    double open = std::numeric_limits<double>::infinity();
    std::int64_t rowsLoaded = 0, rowsTotal = 0;
    double pan = 0.0, page = 0.0, overview = 0.0, longestStep = 0.0, pageStall = 0.0;
    double previewSeconds = 0.0, previewStall = 0.0, levelChange = 0.0;
    for (int run = 0; run < runs; ++run) {
        sparsity::ui::MainWindow window;
        window.resize(1400, 900);
        window.show();
        QApplication::processEvents();
        const auto start = Clock::now();
        if (!window.openFile(file) || !window.selectElement(path)) {
            std::fprintf(stderr, "error: cannot open %s:%s\n", argv[1], argv[2]);
            return 3;
        }
        window.repaint(); // the first paint of everything, synchronously
        open = std::min(open, since(start));
        rowsLoaded = window.document()->values().shape.at(0);
        rowsTotal = window.document()->totalRows();

        if (run == runs - 1) {
            // The overview strip, built a chunk per event-loop turn while the window stays live.
            auto *builder = window.overviewBuilder();
            auto last = Clock::now();
            QObject::connect(builder, &sparsity::ui::OverviewBuilder::progressed, [&] {
                longestStep = std::max(longestStep, since(last));
                last = Clock::now();
            });
            const auto overviewStart = Clock::now();
            last = overviewStart;
            while (builder->isBuilding())
                QApplication::processEvents(QEventLoop::AllEvents, 50);
            overview = since(overviewStart);

            // Pan frames: zoomed 8x into the heatmap, a right-button drag 50 steps down.
            auto *preview = window.preview();
            preview->zoomAt(preview->rect().center(), 8.0);
            QPoint at = preview->rect().center();
            QMouseEvent press(QEvent::MouseButtonPress, at, preview->mapToGlobal(at), Qt::RightButton, Qt::RightButton,
                              Qt::NoModifier);
            QApplication::sendEvent(preview, &press);
            const auto panStart = Clock::now();
            for (int step = 0; step < 50; ++step) {
                at += QPoint(0, step % 2 ? 7 : -5);
                QMouseEvent move(QEvent::MouseMove, at, preview->mapToGlobal(at), Qt::NoButton, Qt::RightButton, Qt::NoModifier);
                QApplication::sendEvent(preview, &move);
                preview->repaint();
            }
            pan = since(panStart) / 50.0;

            auto *rows = window.rowScrollBar();
            const auto pageStart = Clock::now();
            QSignalSpy moved(window.loader(), &sparsity::ui::TensorLoader::loaded);
            // How long the event loop goes without a turn while pages come.
            StallMeter stalls(1);
            for (int k = 1; k <= 5; ++k) {
                const auto asked = Clock::now();
                rows->setValue(k * rows->pageStep()); // read on a pool thread
                pageStall = std::max(pageStall, since(asked));
                stalls.restart();
                if (!moved.wait(30000))
                    return 1;
                window.repaint();
            }
            pageStall = std::max(pageStall, stalls.longest());
            page = since(pageStart) / 5.0;

            // A data-norm recipe previewed on the window with the whole table's choice, computed
            // in the background; then level changes, chosen again from the kept scores.
            sparsity::core::SparsifierConfig dataNorm;
            dataNorm.method = sparsity::core::SparsifierMethod::DataNorm;
            dataNorm.sparsityLevel = 0.5;
            StallMeter previewStalls(5);
            const auto previewStart = Clock::now();
            window.document()->changeSparsifier(dataNorm);
            window.repaint();
            while (!window.document()->previewScopeNote().isEmpty())
                QApplication::processEvents(QEventLoop::AllEvents, 50);
            window.repaint();
            previewSeconds = since(previewStart);
            previewStalls.note();
            previewStall = previewStalls.longest();
            const auto levelStart = Clock::now();
            previewStalls.restart();
            for (int k = 1; k <= 5; ++k) {
                dataNorm.sparsityLevel = 0.1 * k + 0.2;
                window.document()->changeSparsifier(dataNorm);
                window.repaint();
                while (!window.document()->previewScopeNote().isEmpty())
                    QApplication::processEvents(QEventLoop::AllEvents, 50);
                window.repaint();
            }
            levelChange = since(levelStart) / 5.0;
            previewStalls.note();
            previewStall = std::max(previewStall, previewStalls.longest());
        }
    }
    GradcheckTiming gradcheck;
    if (argc == 5) {
        const auto timing = timeGradcheck(QString::fromLocal8Bit(argv[4]));
        if (!timing) {
            std::fprintf(stderr, "error: the check of mm(big, big) in %s did not succeed\n", argv[4]);
            return 3;
        }
        gradcheck = *timing;
    }
    std::printf(
        "{\"open_first_paint_seconds\": %.6f, \"pan_frame_seconds\": %.6f, \"page_seconds\": %.6f, "
        "\"page_longest_stall_seconds\": %.6f, "
        "\"overview_seconds\": %.6f, \"overview_longest_step_seconds\": %.6f, \"rows_loaded\": %lld, \"rows_total\": %lld, "
        "\"gradcheck_result_seconds\": %.6f, \"gradcheck_longest_stall_seconds\": %.6f, "
        "\"whole_table_preview_seconds\": %.6f, \"whole_table_preview_longest_stall_seconds\": %.6f, "
        "\"preview_level_change_seconds\": %.6f}\n",
        open, pan, page, pageStall, overview, longestStep, static_cast<long long>(rowsLoaded), static_cast<long long>(rowsTotal),
        gradcheck.resultSeconds, gradcheck.longestStall, previewSeconds, previewStall, levelChange);
    return 0;
}
