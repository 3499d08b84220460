// Colour mapping of tensor slices, checked pixel by pixel without a widget, and the row
// overview of tables too large to load.
#include "ui/views/heatmap_image.h"
#include "ui/views/row_overview.h"

#include <QTest>
#include <cmath>
#include <limits>
#include <random>

using namespace sparsity;

class TestHeatmapImage : public QObject {
    Q_OBJECT

private slots:
    void divergingScale();
    void unspecifiedElementsAreDistinct();
    void oneDimensionalIsOneRow();
    void poolingKeepsSparseEntries();
    void imagePoolingKeepsStrongPixels();
    void rowOverviewKeepsTheStrongestValue();
    void rowOverviewPoolsWideTables();
    void poolingKeepsTheFarthestValueOfEitherSign();
    void poolingShowsThePrunedFraction();
};

void TestHeatmapImage::divergingScale()
{
    QCOMPARE(ui::divergingColour(0.0, 2.0), QColor(255, 255, 255));
    QCOMPARE(ui::divergingColour(2.0, 2.0), QColor(178, 24, 43));
    QCOMPARE(ui::divergingColour(-5.0, 2.0), QColor(33, 102, 172)); // clamped
    QCOMPARE(ui::divergingColour(std::nan(""), 2.0), QColor(255, 0, 255));
}

void TestHeatmapImage::unspecifiedElementsAreDistinct()
{
    core::DenseTensor<double> values{{2, 2}, {0.0, 1.0, -1.0, 0.0}};
    core::Mask mask{1, 1, 1, 0};
    const auto heatmap = ui::renderHeatmap(values, &mask);
    QCOMPARE(heatmap.image.size(), QSize(2, 2));
    QCOMPARE(heatmap.scale.high, 1.0);
    QCOMPARE(heatmap.image.pixelColor(0, 0), QColor(255, 255, 255)); // a specified zero is white
    QCOMPARE(heatmap.image.pixelColor(1, 0), QColor(178, 24, 43));
    QCOMPARE(heatmap.image.pixelColor(0, 1), QColor(33, 102, 172));
    const auto unspecified = heatmap.image.pixelColor(1, 1);
    QVERIFY(unspecified.red() == unspecified.green() && unspecified.red() < 255); // grey, not white
}

void TestHeatmapImage::oneDimensionalIsOneRow()
{
    core::DenseTensor<double> values{{5}, {1, 2, 3, 4, 5}};
    QCOMPARE(ui::renderHeatmap(values, nullptr).image.size(), QSize(5, 1));
}

void TestHeatmapImage::poolingKeepsSparseEntries()
{
    // 1000 x 10 zeros with one -3 and one +2: shrunk to 10 x 5 pixels, both still show, each
    // in the pixel whose block holds it, and nothing else is coloured.
    sparsity::core::DenseTensor<double> values{{1000, 10}, {}};
    values.values.resize(10000, 0.0);
    values.values[537 * 10 + 4] = -3.0;
    values.values[12 * 10 + 9] = 2.0;
    const QImage pooled = sparsity::ui::renderPooled(values, sparsity::ui::ColourScale{-3.0, 3.0, -3.0, 3.0}, QSize(5, 10));
    QCOMPARE(pooled.size(), QSize(5, 10));
    QCOMPARE(QColor(pooled.pixel(2, 5)), sparsity::ui::divergingColour(-3.0, 3.0));
    QCOMPARE(QColor(pooled.pixel(4, 0)), sparsity::ui::divergingColour(2.0, 3.0));
    int white = 0;
    for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 5; ++x)
            white += QColor(pooled.pixel(x, y)) == sparsity::ui::divergingColour(0.0, 3.0);
    QCOMPARE(white, 48);
}

void TestHeatmapImage::imagePoolingKeepsStrongPixels()
{
    // A white 400 x 40 image with one pruned pixel and one pale one: shrunk to 40 x 4, the
    // pruned pixel wins its block, the pale one wins its own, everything else stays white.
    QImage image(40, 400, QImage::Format_RGB32);
    image.fill(Qt::white);
    image.setPixel(3, 250, sparsity::ui::kPrunedColour);
    image.setPixel(30, 10, qRgb(250, 240, 240));
    const QImage pooled = sparsity::ui::poolImage(image, image.rect(), QSize(40, 4));
    QCOMPARE(pooled.size(), QSize(40, 4));
    QCOMPARE(pooled.pixel(3, 2), sparsity::ui::kPrunedColour);
    QCOMPARE(pooled.pixel(30, 0), qRgb(250, 240, 240));
    int white = 0;
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 40; ++x)
            white += pooled.pixel(x, y) == qRgb(255, 255, 255);
    QCOMPARE(white, 158);
}

void TestHeatmapImage::rowOverviewKeepsTheStrongestValue()
{
    // 10 rows x 2 columns into at most 4 bins: 3 rows per bin, 4 bins (the last has 1 row).
    ui::RowOverview overview(10, 2, 4);
    QCOMPARE(overview.rowsPerBin(), std::int64_t{3});
    QCOMPARE(overview.bins(), std::int64_t{4});
    std::vector<double> rows(20);
    for (int r = 0; r < 10; ++r) {
        rows[static_cast<std::size_t>(2 * r)] = r % 2 ? -r : r; // signs alternate: |value| = row
        rows[static_cast<std::size_t>(2 * r + 1)] = 0.5;
    }
    rows[2 * 4 + 1] = std::numeric_limits<double>::quiet_NaN(); // a NaN in bin 1 always shows
    // Chunks in any order give the same overview.
    overview.addRows(6, rows.data() + 12, 8);
    QVERIFY(!overview.complete());
    overview.addRows(0, rows.data(), 12);
    QVERIFY(overview.complete());
    const auto &v = overview.values().values;
    QCOMPARE(v[0], 2.0);  // rows 0..2: 0, -1, 2
    QCOMPARE(v[2], -5.0); // rows 3..5: -3, 4, -5
    QCOMPARE(v[4], 8.0);  // rows 6..8: 6, -7, 8
    QCOMPARE(v[6], -9.0); // row 9
    QVERIFY(std::isnan(v[3]));
    QCOMPARE(v[1], 0.5);
}

void TestHeatmapImage::rowOverviewPoolsWideTables()
{
    // A 1,000,000-column table: at most 1024 column bins (977 columns each), so 2048 row bins
    // hold 16 MiB, not 16 GB.
    const ui::RowOverview wide(1'000'000'000, 1'000'000, 2048);
    QCOMPARE(wide.columnsPerBin(), std::int64_t{977});
    QCOMPARE(wide.values().shape, (core::Shape{2048, 1024}));
    // 4 rows x 3000 columns into 2 row bins and 1000 column bins of 3 columns.
    ui::RowOverview overview(4, 3000, 2, 1000);
    QCOMPARE(overview.columnsPerBin(), std::int64_t{3});
    std::vector<float> rows(4 * 3000, 0.25f);
    rows[3 * 3000 + 1500] = -7.0f;                                  // row 3 -> bin (1, 500)
    rows[0 * 3000 + 2999] = std::numeric_limits<float>::infinity(); // row 0 -> bin (0, 999)
    rows[1 * 3000 + 2998] = 9.0f;                                   // the Inf still wins
    overview.addRows(0, rows.data(), static_cast<std::int64_t>(rows.size()));
    QVERIFY(overview.complete());
    const auto &v = overview.values();
    QCOMPARE(v.shape, (core::Shape{2, 1000}));
    QCOMPARE(v.values[1000 + 500], -7.0);
    QVERIFY(std::isinf(v.values[999]));
    QCOMPARE(v.values[0], 0.25);
    QCOMPARE(v.values[1000 + 499], 0.25);
}

// Each pooled pixel is the value of its block farthest from the scale's middle, whichever its
// sign: a table and its negation are drawn in opposite colours, pixel for pixel.
void TestHeatmapImage::poolingKeepsTheFarthestValueOfEitherSign()
{
    std::mt19937 rng(7);
    std::normal_distribution<double> normal;
    core::DenseTensor<double> table{{20000, 64}, {}}, negated{{20000, 64}, {}};
    for (int i = 0; i < 20000 * 64; ++i) {
        table.values.push_back(normal(rng));
        negated.values.push_back(-table.values.back());
    }
    const ui::ColourScale scale{-2.5, 2.5, -5.0, 5.0, ui::ColourMap::Diverging};
    const QImage drawn = ui::renderPooled(table, scale, QSize(64, 400));
    const QImage mirrored = ui::renderPooled(negated, scale, QSize(64, 400));
    QCOMPARE(drawn.size(), QSize(64, 400));
    const ui::ColourLookup colour(scale);
    int positive = 0;
    for (int y = 0; y < 400; ++y)
        for (int x = 0; x < 64; ++x) {
            double pick = 0.0;
            for (int r = y * 50; r < (y + 1) * 50; ++r) {
                const double v = table.values[static_cast<std::size_t>(r * 64 + x)];
                if (std::abs(v) > std::abs(pick))
                    pick = v;
            }
            positive += pick > 0;
            QCOMPARE(drawn.pixel(x, y), colour(pick));
            QCOMPARE(mirrored.pixel(x, y), colour(-pick));
        }
    QVERIFY(positive > 400 * 64 * 2 / 5 && positive < 400 * 64 * 3 / 5);

    // The heatmap's own image pooled (the preview's path, overlays included) keeps the same
    // pixels: its colours are read back to their places on the map, either side alike (by
    // colourfulness, 77% of a table and of its negation came out red).
    const QImage full = ui::renderHeatmap(table, nullptr, nullptr, &scale).image;
    const QImage fullNegated = ui::renderHeatmap(negated, nullptr, nullptr, &scale).image;
    const QImage pooled = ui::poolImage(full, full.rect(), QSize(64, 400), ui::ColourMap::Diverging);
    const QImage pooledNegated = ui::poolImage(fullNegated, fullNegated.rect(), QSize(64, 400), ui::ColourMap::Diverging);
    int red = 0, redNegated = 0;
    for (int y = 0; y < 400; ++y)
        for (int x = 0; x < 64; ++x) {
            red += qRed(pooled.pixel(x, y)) > qBlue(pooled.pixel(x, y));
            redNegated += qRed(pooledNegated.pixel(x, y)) > qBlue(pooledNegated.pixel(x, y));
        }
    QVERIFY2(std::abs(red - positive) < 400 * 64 / 50, qPrintable(QStringLiteral("%1 red, %2 positive").arg(red).arg(positive)));
    QVERIFY2(std::abs(redNegated - (400 * 64 - positive)) < 400 * 64 / 50,
             qPrintable(QStringLiteral("%1 red of the negation").arg(redNegated)));
}

void TestHeatmapImage::poolingShowsThePrunedFraction()
{
    // n-m 2:4 on a 64 x 64 image of one pale value, pooled 8:1: half of every block is pruned,
    // so every pooled pixel is clearly darker than the same image pooled unpruned, and
    // lighter than fully pruned (the kept values still show).
    sparsity::core::DenseTensor<double> values{{64, 64}, {}};
    values.values.assign(64 * 64, 0.3);
    sparsity::core::Mask pruned(64 * 64, 0);
    for (std::size_t i = 0; i < pruned.size(); ++i)
        pruned[i] = i % 4 < 2;
    const sparsity::ui::ColourScale scale{-1.0, 1.0, -1.0, 1.0};
    const auto kept = sparsity::ui::renderHeatmap(values, nullptr, nullptr, &scale).image;
    const auto nm = sparsity::ui::renderHeatmap(values, nullptr, &pruned, &scale).image;
    const QImage plain = sparsity::ui::poolImage(kept, kept.rect(), QSize(8, 8));
    const QImage shown = sparsity::ui::poolImage(nm, nm.rect(), QSize(8, 8));
    QCOMPARE(shown.size(), QSize(8, 8));
    const int darkest = qGray(sparsity::ui::kPrunedColour);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
            const int half = (qGray(plain.pixel(x, y)) + darkest) / 2;
            QVERIFY2(
                std::abs(qGray(shown.pixel(x, y)) - half) <= 3,
                qPrintable(QStringLiteral("(%1, %2): %3, half-dark %4").arg(x).arg(y).arg(qGray(shown.pixel(x, y))).arg(half)));
            QVERIFY(qGray(plain.pixel(x, y)) - qGray(shown.pixel(x, y)) > 50);
        }
}

QTEST_MAIN(TestHeatmapImage)
#include "tst_heatmap_image.moc"
