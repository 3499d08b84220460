// Buffer's storage (core/tensor/buffer.h): large buffers come zeroed from the system, and
// populateForWrite maps pages without changing what any of them holds, wherever the range
// starts and ends: a fresh mapping, one half written, a range inside a page, a heap block.
#include "core/tensor/buffer.h"

#include <QTest>
#include <algorithm>
#include <cstdint>
#include <numeric>

using namespace sparsity;

class TestBuffer : public QObject {
    Q_OBJECT

private slots:
    void largeBuffersComeZeroed();
    void populateKeepsWhatPagesHold();
    void populateOfSmallAndEmptyRanges();
};

void TestBuffer::largeBuffersComeZeroed()
{
    const auto values = core::zeroedBuffer<float>(std::size_t{5} << 20); // 20 MiB: a mapping
    QVERIFY(std::all_of(values.begin(), values.end(), [](float v) { return v == 0.0f; }));
    const auto small = core::zeroedBuffer<double>(100); // the heap's, filled
    QVERIFY(std::all_of(small.begin(), small.end(), [](double v) { return v == 0.0; }));
}

void TestBuffer::populateKeepsWhatPagesHold()
{
    // 9 MiB: four and a half huge pages. The first half is written before, the rest is fresh.
    constexpr std::size_t kCount = std::size_t{9} << 18;
    core::Buffer<std::int32_t> values;
    values.resize(kCount);
    std::iota(values.begin(), values.begin() + kCount / 2, 1);
    // From an odd element (not page-aligned) to one before the end.
    core::populateForWrite(values.data() + 3, (kCount - 4) * sizeof(std::int32_t));
    for (std::size_t i = 0; i < kCount / 2; ++i)
        QCOMPARE(values[i], static_cast<std::int32_t>(i + 1));
    for (std::size_t i = kCount / 2; i < kCount; ++i)
        QCOMPARE(values[i], 0);
    // Written after, as the reads write a populated block.
    std::iota(values.begin() + kCount / 2, values.end(), -7);
    QCOMPARE(values.back(), static_cast<std::int32_t>(kCount - kCount / 2 - 8));
}

void TestBuffer::populateOfSmallAndEmptyRanges()
{
    std::vector<double> heap(300, 2.5); // a heap block: its pages are shared with other blocks
    core::populateForWrite(heap.data() + 7, 100 * sizeof(double));
    core::populateForWrite(heap.data(), 0);
    QVERIFY(std::all_of(heap.begin(), heap.end(), [](double v) { return v == 2.5; }));
}

QTEST_GUILESS_MAIN(TestBuffer)
#include "tst_buffer.moc"
