// Colour mapping of tensor slices, checked pixel by pixel without a widget.
#include "ui/views/heatmap_image.h"

#include <QTest>

using namespace sparsity;

class TestHeatmapImage : public QObject {
    Q_OBJECT

private slots:
    void divergingScale();
    void unspecifiedElementsAreDistinct();
    void oneDimensionalIsOneRow();
};

void TestHeatmapImage::divergingScale()
{
    QCOMPARE(ui::divergingColour(0.0, 2.0), QColor(255, 255, 255));
    QCOMPARE(ui::divergingColour(2.0, 2.0), QColor(178, 24, 43));
    QCOMPARE(ui::divergingColour(-5.0, 2.0), QColor(33, 102, 172));   // clamped
    QCOMPARE(ui::divergingColour(std::nan(""), 2.0), QColor(255, 0, 255));
}

void TestHeatmapImage::unspecifiedElementsAreDistinct()
{
    core::DenseTensor<double> values{{2, 2}, {0.0, 1.0, -1.0, 0.0}};
    core::Mask mask{1, 1, 1, 0};
    const auto heatmap = ui::renderHeatmap(values, &mask);
    QCOMPARE(heatmap.image.size(), QSize(2, 2));
    QCOMPARE(heatmap.maxAbs, 1.0);
    QCOMPARE(heatmap.image.pixelColor(0, 0), QColor(255, 255, 255));   // a specified zero is white
    QCOMPARE(heatmap.image.pixelColor(1, 0), QColor(178, 24, 43));
    QCOMPARE(heatmap.image.pixelColor(0, 1), QColor(33, 102, 172));
    const auto unspecified = heatmap.image.pixelColor(1, 1);
    QVERIFY(unspecified.red() == unspecified.green() && unspecified.red() < 255);   // grey, not white
}

void TestHeatmapImage::oneDimensionalIsOneRow()
{
    core::DenseTensor<double> values{{5}, {1, 2, 3, 4, 5}};
    QCOMPARE(ui::renderHeatmap(values, nullptr).image.size(), QSize(5, 1));
}

QTEST_MAIN(TestHeatmapImage)
#include "tst_heatmap_image.moc"
