// HDF5 write -> read round trips over layout x dtype x index width (and masks, 0-d, empty),
// metadata listing, hyperslab row ranges, atomic output and file-level errors.
#include "core/io/atomic_output.h"
#include "core/io/element_count.h"
#include "core/io/element_rows.h"
#include "core/io/exact_reading.h"
#include "core/io/file_identity.h"
#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/io/parallel_deflate.h"
#include "core/parallel/rank_group.h"
#include "core/pipeline/csc_panels.h"
#include "core/tensor/slice_rows.h"
#include "core/util/errors.h"
#include "test_tensors.h"

#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

using namespace sparsity;
using core::DType;
using core::IndexWidth;
using core::Layout;
using core::Shape;

Q_DECLARE_METATYPE(core::Layout)
Q_DECLARE_METATYPE(core::DType)
Q_DECLARE_METATYPE(core::IndexWidth)
Q_DECLARE_METATYPE(core::Shape)

class TestH5Io : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }
    void roundTrip_data();
    void roundTrip();
    void maskedRoundTrip_data();
    void maskedRoundTrip();
    void listingReadsMetadata();
    void rowRangesReadByHyperslab();
    void rowRangeOfAHugeDeclaredCsrIsRefused();
    void rawRowsReadWhatHdf5Reads();
    void rawRowsOfAFileCutShortAreAnIoError();
    void elementRowsOfEveryLayout();
    void maskedRowsAreCheckedAsAWholeRead_data();
    void maskedRowsAreCheckedAsAWholeRead();
    void sparseRowStreamsWriteWhatWriteTensorWrites_data();
    void sparseRowStreamsWriteWhatWriteTensorWrites();
    void cscPanelsWriteWhatWriteTensorWrites_data();
    void cscPanelsWriteWhatWriteTensorWrites();
    void int32IndicesAreCheckedBeforeNarrowing();
    void gzipWritesChunkedCompressed();
    void compressedRowsHoldTheChunksHdf5Writes_data();
    void compressedRowsHoldTheChunksHdf5Writes();
    void appendedColumnsHoldTheChunksHdf5Writes();
    void deflatedRowsReadWhatHdf5Reads();
    void exactReadingsInflateAsHdf5Converts();
    void keptTailsNeverOutliveTheirFile();
    void atomicOutputLeavesNothingOnFailure();
    void refusesOutputEqualToInput();
    void fileErrors();
    void missingDatasetIsInputError();
    void fixedLengthStringAttributeReadWhole();

private:
    std::string path(const char *name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

void TestH5Io::roundTrip_data()
{
    QTest::addColumn<Layout>("layout");
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<IndexWidth>("width");
    QTest::addColumn<Shape>("shape");
    const std::pair<const char *, Shape> shapes[] = {
        {"2d", {9, 13}}, {"empty", {0, 3}}, {"1d", {17}}, {"3d", {2, 3, 4}}, {"0d", {}}};
    const std::pair<const char *, IndexWidth> widths[] = {
        {"auto", IndexWidth::Auto}, {"int32", IndexWidth::Int32}, {"int64", IndexWidth::Int64}};
    for (const auto &layout : core::allLayouts())
        for (DType dtype : {DType::Float32, DType::Float64})
            for (const auto &[widthName, width] : widths)
                for (const auto &[shapeName, shape] : shapes)
                    if (core::layoutAcceptsRank(layout.layout, static_cast<int>(shape.size())))
                        QTest::addRow("%s/%s/%s/%s", layout.name.data(), core::dtypeName(dtype).data(), widthName, shapeName)
                            << layout.layout << dtype << width << shape;
}

void TestH5Io::roundTrip()
{
    QFETCH(Layout, layout);
    QFETCH(DType, dtype);
    QFETCH(IndexWidth, width);
    QFETCH(Shape, shape);
    const auto original = core::toLayout(test::randomTensor(dtype, shape, 0.35, 23), layout);
    {
        auto file = core::H5File::create(path("rt.h5"));
        core::writeTensor(file, "/group/t", original, {0, width});
        file.close();
    }
    const auto file = core::H5File::openRead(path("rt.h5"));
    const auto info = core::requireElement(file, "/group/t");
    QCOMPARE(info.layout, layout);
    QCOMPARE(info.shape, shape);
    QCOMPARE(info.dtype, dtype);
    QVERIFY(info.tagged);
    const auto back = core::readTensor(file, "/group/t");
    QCOMPARE(back.layout(), layout);
    QCOMPARE(back.dtype(), dtype);
    QCOMPARE(back.storedCount(), original.storedCount());
    test::compareDense(back, original);
}

void TestH5Io::maskedRoundTrip_data()
{
    QTest::addColumn<Layout>("layout");
    for (const auto &layout : core::allLayouts())
        QTest::addRow("%s", layout.name.data()) << layout.layout;
}

void TestH5Io::maskedRoundTrip()
{
    QFETCH(Layout, layout);
    auto dense = test::randomTensor(DType::Float32, {6, 8}, 0.5, 4);
    dense.setMask(test::randomMask(48, 0.5, 8));
    const auto original = core::toLayout(dense, layout);
    {
        auto file = core::H5File::create(path("masked.h5"));
        core::writeTensor(file, "m", original);
        file.close();
    }
    const auto file = core::H5File::openRead(path("masked.h5"));
    const auto info = core::requireElement(file, "/m");
    QVERIFY(info.masked);
    QCOMPARE(info.encoding, core::Encoding::MaskedTensor);
    const auto back = core::readTensor(file, "/m");
    QVERIFY(back.isMasked());
    QCOMPARE(back.layout(), layout);
    test::compareDense(back, original);
}

void TestH5Io::listingReadsMetadata()
{
    {
        auto file = core::H5File::create(path("list.h5"));
        core::writeTensor(file, "/a", test::randomTensor(DType::Float32, {4, 4}, 0.5, 1));
        core::writeTensor(file, "/nested/b", core::toLayout(test::randomTensor(DType::Float64, {5, 6}, 0.5, 2), Layout::Csr));
        core::writeTensor(file, "/nested/c",
                          core::toLayout(test::randomTensor(DType::Float32, {7, 2}, 0.5, 3), Layout::RowSparse));
        file.close();
    }
    const auto file = core::H5File::openRead(path("list.h5"));
    const auto elements = core::listElements(file);
    QCOMPARE(elements.size(), std::size_t{3});
    QCOMPARE(elements[0].path, std::string("/a"));
    QVERIFY(!elements[0].nnz.has_value()); // dense: unknown without --count
    QCOMPARE(elements[1].path, std::string("/nested/b"));
    QCOMPARE(elements[1].encoding, core::Encoding::CsrMatrix);
    QCOMPARE(*elements[1].nnz, core::toLayout(test::randomTensor(DType::Float64, {5, 6}, 0.5, 2), Layout::Csr).storedCount());
    QCOMPARE(elements[2].layout, Layout::RowSparse);
    QCOMPARE(core::countNonzeros(file, elements[0]),
             core::toLayout(test::randomTensor(DType::Float32, {4, 4}, 0.5, 1), Layout::Coo).storedCount());
}

void TestH5Io::rowRangesReadByHyperslab()
{
    const auto dense = test::randomTensor(DType::Float32, {40, 5}, 0.4, 6);
    {
        auto file = core::H5File::create(path("rows.h5"));
        core::writeTensor(file, "/d", dense);
        core::writeTensor(file, "/s", core::toLayout(dense, Layout::Csr));
        file.close();
    }
    const auto file = core::H5File::openRead(path("rows.h5"));
    const auto expected = core::sliceRows(dense, {13, 29});
    test::compareDense(core::readTensor(file, "/d", nullptr, core::RowRange{13, 29}), expected);
    const auto csrRows = core::readTensor(file, "/s", nullptr, core::RowRange{13, 29});
    QCOMPARE(csrRows.layout(), Layout::Csr);
    test::compareDense(csrRows, expected);
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::readTensor(file, "/d", nullptr, core::RowRange{30, 41}));
}

namespace {

// A float dataset written through the C API, so that its file type, layout and the file's
// user block are chosen here: rows*cols values i * 0.25 - 3, stored as `fileType`.
void writeRawCase(
    hid_t file, const char *name, hid_t fileType, hid_t dcpl, std::int64_t rows, std::int64_t cols, bool write = true)
{
    const hsize_t dims[2] = {static_cast<hsize_t>(rows), static_cast<hsize_t>(cols)};
    const core::H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    const core::H5Handle dataset(H5Dcreate2(file, name, fileType, space.id(), H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
    QVERIFY(dataset.isValid());
    std::vector<double> values(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = static_cast<double>(i) * 0.25 - 3.0;
    if (write)
        QVERIFY(H5Dwrite(dataset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

template <class T>
std::vector<T> rowsRead(const core::DenseRowReader &reader, std::int64_t begin, std::int64_t end)
{
    std::vector<T> out(static_cast<std::size_t>((end - begin) * reader.shape()[1]), T(-99));
    reader.readRows(begin, end, out.data());
    return out;
}

} // namespace

// DenseRowReader reads a dataset stored as it lies in memory (contiguous, allocated, no filter,
// the machine's float or double) with pread, without HDF5 (core/io/raw_values.h), and every
// other one through H5Dread: both give what H5Dread gives, a user block before the data
// included. Only the first kind is read concurrently.
void TestH5Io::rawRowsReadWhatHdf5Reads()
{
    const auto name = path("raw.h5");
    {
        const core::H5Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
        QVERIFY(H5Pset_userblock(fcpl.id(), 4096) >= 0);
        const core::H5Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, fcpl.id(), H5P_DEFAULT), H5Fclose);
        const core::H5Handle contiguous(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        const core::H5Handle chunked(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        const hsize_t chunk[2] = {7, 5};
        QVERIFY(H5Pset_chunk(chunked.id(), 2, chunk) >= 0);
        writeRawCase(file.id(), "f32", H5T_IEEE_F32LE, contiguous.id(), 40, 5);
        writeRawCase(file.id(), "f64", H5T_IEEE_F64LE, contiguous.id(), 33, 7);
        writeRawCase(file.id(), "f32be", H5T_IEEE_F32BE, contiguous.id(), 40, 5);
        writeRawCase(file.id(), "f32chunked", H5T_IEEE_F32LE, chunked.id(), 40, 5);
        writeRawCase(file.id(), "i32", H5T_STD_I32LE, contiguous.id(), 40, 5);
        writeRawCase(file.id(), "unwritten", H5T_IEEE_F32LE, contiguous.id(), 40, 5, false);
    }
    const auto file = core::H5File::openRead(name);
    struct Case {
        const char *path;
        bool raw; // read without HDF5, as float (f32) or double (f64)
    };
    for (const auto &c : {Case{"/f32", true}, Case{"/f64", true}, Case{"/f32be", false}, Case{"/f32chunked", false},
                          Case{"/i32", false}, Case{"/unwritten", false}}) {
        const core::DenseRowReader reader(file, c.path);
        const bool isDouble = std::string(c.path) == "/f64";
        QCOMPARE(reader.readsWithoutHdf5<float>(), c.raw && !isDouble);
        QCOMPARE(reader.readsWithoutHdf5<double>(), c.raw && isDouble);
        // The same rows through H5Dread (readTensor's hyperslab), in the reader's compute type.
        const auto expected = core::readTensor(file, c.path, nullptr, core::RowRange{13, 29});
        const auto compare = [&](auto tag) {
            using T = decltype(tag);
            const auto got = rowsRead<T>(reader, 13, 29);
            std::vector<double> want;
            expected.visit([&](const auto &storage) {
                if constexpr (requires { storage.values; })
                    for (const auto v : storage.values)
                        want.push_back(static_cast<double>(v));
            });
            QCOMPARE(got.size(), want.size());
            for (std::size_t i = 0; i < got.size(); ++i)
                QCOMPARE(static_cast<double>(got[i]), static_cast<double>(static_cast<T>(want[i])));
        };
        compare(float{});
        compare(double{});
    }
}

// A file cut short while it is open: a raw read past its new end is a clear IoError naming
// the dataset, not a crash and not stale bytes.
void TestH5Io::rawRowsOfAFileCutShortAreAnIoError()
{
    const auto name = path("raw_cut.h5");
    {
        const core::H5Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        const core::H5Handle contiguous(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        writeRawCase(file.id(), "x", H5T_IEEE_F32LE, contiguous.id(), 1000, 100);
    }
    const auto file = core::H5File::openRead(name);
    const core::DenseRowReader reader(file, "/x");
    QVERIFY(reader.readsWithoutHdf5<float>());
    QCOMPARE(rowsRead<float>(reader, 999, 1000).back(), 99999 * 0.25f - 3.0f);
    std::filesystem::resize_file(name, std::filesystem::file_size(name) / 2);
    try {
        rowsRead<float>(reader, 900, 1000);
        QFAIL("a read past the end of the file was not refused");
    } catch (const core::IoError &error) {
        const std::string message = error.what();
        QVERIFY2(message.find("raw_cut.h5:/x: cannot read values: the file ends before them") != std::string::npos,
                 message.c_str());
    }
}

// readElementRows gives, for every layout, masked or not, sliceRows of the whole element (the
// layout kept, the rows' stored values and mask), whichever way it reads them; countNonzeros
// counts a masked one's specified elements as the whole element has them.
void TestH5Io::elementRowsOfEveryLayout()
{
    auto dense = test::randomTensor(DType::Float32, {40, 5}, 0.4, 8);
    auto masked = dense;
    masked.setMask(test::randomMask(200, 0.5, 4));
    {
        auto file = core::H5File::create(path("every_rows.h5"));
        for (const auto &info : core::allLayouts()) {
            const auto layout = info.layout;
            const auto name = std::string(core::layoutName(layout));
            core::writeTensor(file, "/" + name, core::toLayout(dense, layout));
            core::writeTensor(file, "/masked_" + name, core::toLayout(masked, layout));
        }
        file.close();
    }
    const auto file = core::H5File::openRead(path("every_rows.h5"));
    for (const auto &info : core::allLayouts())
        for (const auto &prefix : {std::string("/"), std::string("/masked_")}) {
            const auto layout = info.layout;
            const auto element = prefix + std::string(core::layoutName(layout));
            const auto whole = core::readTensor(file, element);
            for (const core::RowRange rows : {core::RowRange{13, 29}, core::RowRange{0, 40}, core::RowRange{39, 39}}) {
                const auto read = core::readElementRows(file, element, rows);
                const auto expected = core::sliceRows(whole, rows);
                QVERIFY2(read.layout() == layout && read.isMasked() == whole.isMasked(), element.c_str());
                QCOMPARE(read.storedCount(), expected.storedCount());
                test::compareDense(read, expected);
            }
            QVERIFY_THROWS_EXCEPTION(core::InputError, core::readElementRows(file, element, {30, 41}));
            // inspect --count: a masked one's specified elements, by rows where it reads by rows.
            if (whole.isMasked())
                QCOMPARE(core::countNonzeros(file, core::requireElement(file, element)), whole.specifiedCount());
        }
}

// A CSR element whose shape declares 2^63-1 rows (a valid shape, found by the fuzzer) is refused
// by a read of some rows as by a whole read: its indptr cannot hold rows + 1 entries, a count
// no int64 can hold either.
void TestH5Io::rowRangeOfAHugeDeclaredCsrIsRefused()
{
    {
        auto file = core::H5File::create(path("huge_rows.h5"));
        core::writeTensor(file, "/s", core::toLayout(test::randomTensor(DType::Float32, {4, 1}, 0.6, 6), Layout::Csr));
        core::H5Handle group(H5Gopen2(file.id(), "/s", H5P_DEFAULT), H5Gclose);
        QVERIFY(H5Adelete(group.id(), "shape") >= 0);
        core::writeIntArrayAttribute(group.id(), "shape", {std::numeric_limits<std::int64_t>::max(), 1});
        group.reset();
        file.close();
    }
    const auto file = core::H5File::openRead(path("huge_rows.h5"));
    for (const std::optional<core::RowRange> rows : {std::optional<core::RowRange>{}, std::optional(core::RowRange{0, 1})}) {
        try {
            core::readTensor(file, "/s", nullptr, rows);
            QFAIL("read");
        } catch (const core::InputError &error) {
            QVERIFY2(std::string(error.what()).find("indptr must have 9223372036854775808 entries") != std::string::npos,
                     error.what());
        }
    }
}

void TestH5Io::maskedRowsAreCheckedAsAWholeRead_data()
{
    QTest::addColumn<Layout>("layout");
    QTest::addRow("csr") << Layout::Csr;
    QTest::addRow("row_sparse") << Layout::RowSparse;
}

// A masked_tensor of csr or row_sparse data and a mask of its layout is read by rows (the step's
// blocks): each block holds the whole read's rows, data and mask, and a mask that does not fit
// its data (M1 shape, M2 pattern, M4 dtype) is refused with the whole read's message.
void TestH5Io::maskedRowsAreCheckedAsAWholeRead()
{
    QFETCH(Layout, layout);
    const Shape shape{40, 6};
    // `clearedRow`: a row left empty, so the pattern differs from the same seed's without it.
    const auto maskedOf = [&](unsigned seed, const Shape &s, std::int64_t clearedRow = -1) {
        auto dense = test::randomTensor(DType::Float32, s, 0.4, seed);
        if (clearedRow >= 0)
            dense = core::Tensor(core::Storage{[&] {
                auto values = core::toDenseAs<float>(dense);
                std::fill_n(values.values.begin() + clearedRow * s[1], s[1], 0.0f);
                return values;
            }()});
        auto sparse = core::toLayout(dense, layout);
        sparse.setMask(test::randomMask(static_cast<std::size_t>(sparse.storedCount()), 0.5, seed + 1));
        return sparse;
    };
    const auto good = maskedOf(6, shape);
    {
        auto file = core::H5File::create(path("masked_rows.h5"));
        core::writeTensor(file, "/good", good);
        // Each bad one: the good data with another element's part as its mask.
        for (const char *bad : {"/m1", "/m2", "/m4"})
            core::writeTensor(file, bad, good);
        core::writeTensor(file, "/other_shape", maskedOf(7, {41, 6}));
        // The good pattern less the first row that stores anything.
        const auto goodDense = core::toDenseDouble(core::toLayout(good, Layout::Dense));
        std::int64_t stored = 0;
        while (std::all_of(goodDense.values.begin() + stored * 6, goodDense.values.begin() + (stored + 1) * 6,
                           [](double v) { return v == 0.0; }))
            ++stored;
        core::writeTensor(file, "/other_pattern", maskedOf(6, shape, stored));
        const auto swapMask = [&](const char *bad, const std::string &from) {
            QVERIFY(H5Ldelete(file.id(), (std::string(bad) + "/mask").c_str(), H5P_DEFAULT) >= 0);
            QVERIFY(H5Lmove(file.id(), from.c_str(), file.id(), (std::string(bad) + "/mask").c_str(), H5P_DEFAULT, H5P_DEFAULT)
                    >= 0);
        };
        swapMask("/m1", "/other_shape/mask");
        swapMask("/m2", "/other_pattern/mask");
        swapMask("/m4", "/other_pattern/data");
        file.close();
    }
    const auto file = core::H5File::openRead(path("masked_rows.h5"));
    const auto info = core::requireElement(file, "/good");
    const auto readRows = [&](const std::string &element, core::RowRange rows) {
        if (layout == Layout::RowSparse)
            return core::RowSparseRowReader(file, element).readRows(rows);
        return core::readTensor(file, element, nullptr, rows);
    };
    QVERIFY(layout == Layout::RowSparse ? core::rowSparseReadableByRows(file, info) : core::readableByRows(file, info));
    // The whole read's rows 13..28, densified: values (0 where unspecified) and mask bytes.
    const auto wholeDense = core::toLayout(core::readTensor(file, "/good"), Layout::Dense);
    const auto rows = readRows("/good", {13, 29});
    QCOMPARE(rows.layout(), layout);
    QVERIFY(rows.isMasked());
    const auto rowsDense = core::toLayout(rows, Layout::Dense);
    const auto valuesOf = [](const core::Tensor &t) { return core::toDenseDouble(t).values; };
    const auto wholeValues = valuesOf(wholeDense), rowsValues = valuesOf(rowsDense);
    const std::size_t first = 13 * 6, count = 16 * 6;
    QCOMPARE(rowsValues.size(), count);
    QCOMPARE(rowsDense.mask()->size(), count);
    for (std::size_t k = 0; k < count; ++k) {
        QCOMPARE((*rowsDense.mask())[k], (*wholeDense.mask())[first + k]);
        QCOMPARE(rowsValues[k], wholeValues[first + k]);
    }

    for (const char *bad : {"/m1", "/m2", "/m4"}) {
        std::string wholeError, rowsError;
        try {
            core::readTensor(file, bad);
        } catch (const core::InputError &error) {
            wholeError = error.what();
        }
        try {
            // the first block: a block's own rows fit, what the whole does not
            readRows(bad, {0, 1});
        } catch (const core::InputError &error) {
            rowsError = error.what();
        }
        QVERIFY2(!wholeError.empty(), bad);
        QCOMPARE(QString::fromStdString(rowsError), QString::fromStdString(wholeError));
    }
}

void TestH5Io::sparseRowStreamsWriteWhatWriteTensorWrites_data()
{
    QTest::addColumn<Layout>("layout");
    QTest::addColumn<int>("gzip");
    QTest::addColumn<std::int64_t>("rows");
    QTest::addColumn<std::int64_t>("columns");
    // gzip: the entries' arrays held by AppendedRows until their chunks are whole; 4000 x 1500
    // half filled, 3 M entries of 6 in a block: 12 chunks, written 8 at once, then the rest.
    for (const auto &[name, layout] : {std::pair{"csr", Layout::Csr}, {"coo", Layout::Coo}, {"row_sparse", Layout::RowSparse}}) {
        QTest::addRow("%s", name) << layout << 0 << std::int64_t{41} << std::int64_t{13};
        QTest::addRow("%s gzip", name) << layout << 4 << std::int64_t{41} << std::int64_t{13};
        QTest::addRow("%s gzip, many chunks", name) << layout << 4 << std::int64_t{4000} << std::int64_t{1500};
    }
}

void TestH5Io::sparseRowStreamsWriteWhatWriteTensorWrites()
{
    QFETCH(Layout, layout);
    QFETCH(int, gzip);
    QFETCH(std::int64_t, rows);
    QFETCH(std::int64_t, columns);
    const std::int64_t blockRows = 6;
    const core::WriteOptions options{gzip, IndexWidth::Auto};
    auto dense = test::randomTensor(DType::Float32, {rows, columns}, rows > 100 ? 0.5 : 0.15, 4);
    auto &values = std::get<core::DenseTensor<float>>(dense.storage()).values;
    std::fill(values.begin() + 7 * columns, values.begin() + 9 * columns, 0.0f); // rows with nothing stored
    std::vector<std::int64_t> stored(static_cast<std::size_t>(rows));
    for (std::int64_t i = 0; i < rows * columns; ++i)
        stored[static_cast<std::size_t>(i / columns)] += values[static_cast<std::size_t>(i)] != 0.0f;
    const auto writeInBlocks = [&](core::H5File &file, const std::string &path, std::vector<std::int64_t> counted) {
        const auto counts = core::sparseRowCountsAcrossRanks(0, core::RowCounts::fromCounts(counted));
        core::SparseRowStreamWriter writer(file, path, layout, {rows, columns}, DType::Float32, counts, options);
        for (std::int64_t first = 0; first < rows; first += blockRows)
            writer.writeRows(first, std::min(blockRows, rows - first), values.data() + first * columns);
    };
    {
        auto file = core::H5File::create(path("rows.h5"));
        core::writeTensor(file, "/whole", core::toLayout(dense, layout), options);
        writeInBlocks(file, "/blocks", stored);
        file.close();
    }
    const auto file = core::H5File::openRead(path("rows.h5"));
    const auto whole = core::readTensor(file, "/whole");
    const auto blocks = core::readTensor(file, "/blocks");
    QCOMPARE(blocks.layout(), layout);
    test::compareDense(core::toLayout(blocks, Layout::Dense), core::toLayout(whole, Layout::Dense));
    QCOMPARE(blocks.storedCount(), whole.storedCount());
    if (rows > 100)
        return; // the miscounts below are of the small table's rows
    // Rows that hold other counts than counted are an internal error, before anything is
    // written from them (indptr and the offsets come from the counts; a shared file's datasets
    // have no fill values): one more nonzero counted than a row holds, one fewer, and both in
    // one block, where the totals still agree. row_sparse counts stored rows: a row counted
    // empty that holds nonzeros, or the other way.
    std::size_t partner = 6; // a stored row in row 8's block, rows 6..11 (7 and 8 are empty)
    while (partner < 12 && (partner == 7 || partner == 8 || stored[partner] == 0))
        ++partner;
    QVERIFY(partner < 12);
    for (const auto &[more, fewer] : {std::pair{true, false}, std::pair{false, true}, std::pair{true, true}}) {
        auto miscounted = stored;
        if (more)
            miscounted[8] += 1; // an empty row
        if (fewer)
            miscounted[partner] = layout == Layout::RowSparse ? 0 : miscounted[partner] - 1;
        auto bad = core::H5File::create(path("miscounted.h5"));
        QVERIFY_THROWS_EXCEPTION(core::InternalError, writeInBlocks(bad, "/m", miscounted));
    }
    // Rows past those counted, too.
    auto bad = core::H5File::create(path("past.h5"));
    const auto fewerRows = core::sparseRowCountsAcrossRanks(
        0, core::RowCounts::fromCounts(std::vector<std::int64_t>(stored.begin(), stored.end() - 1)));
    core::SparseRowStreamWriter writer(bad, "/m", layout, {rows, columns}, DType::Float32, fewerRows);
    QVERIFY_THROWS_EXCEPTION(core::InternalError, writer.writeRows(0, rows, values.data()));
}

void TestH5Io::cscPanelsWriteWhatWriteTensorWrites_data()
{
    QTest::addColumn<std::int64_t>("budget");
    QTest::addColumn<std::int64_t>("rowAlignment");
    QTest::addColumn<std::int64_t>("columnAlignment");
    // 64 bytes: a column per panel, written tile by tile; 2 KiB: panels of several columns,
    // gathered; 1 MiB: one panel. Alignments as data-norm's 3x4 blocks make them (22 columns:
    // the last group is partial).
    QTest::newRow("column by column") << std::int64_t{64} << std::int64_t{1} << std::int64_t{1};
    QTest::newRow("gathered panels") << std::int64_t{2048} << std::int64_t{1} << std::int64_t{1};
    QTest::newRow("one panel") << std::int64_t{1 << 20} << std::int64_t{1} << std::int64_t{1};
    QTest::newRow("aligned, tile by tile") << std::int64_t{64} << std::int64_t{3} << std::int64_t{4};
    QTest::newRow("aligned, gathered") << std::int64_t{2048} << std::int64_t{3} << std::int64_t{4};
}

void TestH5Io::cscPanelsWriteWhatWriteTensorWrites()
{
    QFETCH(std::int64_t, budget);
    QFETCH(std::int64_t, rowAlignment);
    QFETCH(std::int64_t, columnAlignment);
    const std::int64_t rows = 37, columns = 22;
    const auto dense = test::randomTensor(DType::Float64, {rows, columns}, 0.4, 9);
    const auto &values = std::get<core::DenseTensor<double>>(dense.storage()).values;
    std::vector<std::int64_t> stored(columns);
    for (std::int64_t i = 0; i < rows * columns; ++i)
        stored[static_cast<std::size_t>(i % columns)] += values[static_cast<std::size_t>(i)] != 0.0;
    std::vector<int> asked(static_cast<std::size_t>(rows * columns));
    auto copyBox = [&](core::RowRange box, core::RowRange cols, double *tile) {
        for (auto r = box.begin; r < box.end; ++r)
            for (auto c = cols.begin; c < cols.end; ++c)
                tile[(r - box.begin) * cols.count() + (c - cols.begin)] = values[static_cast<std::size_t>(r * columns + c)];
    };
    {
        auto file = core::H5File::create(path("panels.h5"));
        core::writeTensor(file, "/whole", core::toLayout(dense, Layout::Csc));
        core::CscStreamWriter writer(file, "/panels", {rows, columns}, DType::Float64, stored);
        std::int64_t lastColumn = -1, nextRow = 0;
        auto checkedBox = [&](core::RowRange box, core::RowRange cols, double *tile) {
            // Panels in column order, tiles in row order, on the alignments.
            if (cols.begin != lastColumn) {
                QCOMPARE(box.begin, std::int64_t{0});
                QVERIFY(cols.begin > lastColumn);
                lastColumn = cols.begin;
                nextRow = 0;
            }
            QCOMPARE(box.begin, nextRow);
            nextRow = box.end;
            QCOMPARE(box.begin % rowAlignment, std::int64_t{0});
            QCOMPARE(cols.begin % columnAlignment, std::int64_t{0});
            for (auto r = box.begin; r < box.end; ++r)
                for (auto c = cols.begin; c < cols.end; ++c)
                    ++asked[static_cast<std::size_t>(r * columns + c)];
            copyBox(box, cols, tile);
        };
        core::writeCscInPanels<double>(writer, {rows, columns, rowAlignment, columnAlignment}, budget, checkedBox, core::ranks());
        file.close();
    }
    QVERIFY(std::all_of(asked.begin(), asked.end(), [](int n) { return n == 1; }));
    const auto file = core::H5File::openRead(path("panels.h5"));
    for (const auto *child : {"data", "indices", "indptr"}) {
        const auto whole = core::readTensor(file, std::string("/whole/") + child);
        const auto panels = core::readTensor(file, std::string("/panels/") + child);
        QCOMPARE(panels.dtype(), whole.dtype());
        test::compareDense(panels, whole);
    }
    // Counts that do not match the tiles are an internal error, not a wrong file.
    auto bad = core::H5File::create(path("miscounted.h5"));
    stored[3] += 1;
    core::CscStreamWriter writer(bad, "/m", {rows, columns}, DType::Float64, stored);
    QVERIFY_THROWS_EXCEPTION(core::InternalError,
                             core::writeCscInPanels<double>(writer, {rows, columns}, budget, copyBox, core::ranks()));
}

void TestH5Io::int32IndicesAreCheckedBeforeNarrowing()
{
    // A 1 x 3e9 CSR row: column indices beyond int32 must not be narrowed silently.
    core::CompressedTensor<float> wide{{1, 3'000'000'000}, core::CompressedAxis::Row, {0, 1}, {2'999'999'999}, {1.0f}};
    auto file = core::H5File::create(path("wide.h5"));
    try {
        core::writeTensor(file, "/w", core::Tensor(core::Storage{wide}), {0, IndexWidth::Int32});
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QVERIFY(QString(error.what()).contains("must fit int32 indices"));
    }
    core::writeTensor(file, "/w64", core::Tensor(core::Storage{wide}), {0, IndexWidth::Auto});
    file.close();
    const auto back = core::readTensor(core::H5File::openRead(path("wide.h5")), "/w64");
    QCOMPARE(std::get<core::CompressedTensor<float>>(back.storage()).indices[0], std::int64_t{2'999'999'999});
}

void TestH5Io::gzipWritesChunkedCompressed()
{
    const auto zeros = test::randomTensor(DType::Float64, {512, 512}, 0.0, 1);
    {
        auto file = core::H5File::create(path("gz.h5"));
        core::writeTensor(file, "/z", zeros, {6, IndexWidth::Auto});
        file.close();
    }
    QVERIFY(std::filesystem::file_size(path("gz.h5")) < 512 * 512 * 8 / 20);
    test::compareDense(core::readTensor(core::H5File::openRead(path("gz.h5")), "/z"), zeros);
}

namespace {

// Chunk for chunk, `ours` holds the stored bytes and filter mask that `theirs` (a dataset of the
// same shape and creation properties) does; each(offset, stored size) for every chunk.
template <class Each>
void sameStoredChunks(hid_t ours, hid_t theirs, Each each)
{
    hsize_t chunks = 0, theirChunks = 0;
    const core::H5Handle ourSpace(H5Dget_space(ours), H5Sclose), theirSpace(H5Dget_space(theirs), H5Sclose);
    QVERIFY(H5Dget_num_chunks(ours, ourSpace.id(), &chunks) >= 0);
    QVERIFY(H5Dget_num_chunks(theirs, theirSpace.id(), &theirChunks) >= 0);
    QCOMPARE(chunks, theirChunks);
    for (hsize_t i = 0; i < chunks; ++i) {
        std::vector<hsize_t> offset(static_cast<std::size_t>(H5Sget_simple_extent_ndims(ourSpace.id())));
        unsigned mask = 0;
        haddr_t address = 0;
        hsize_t stored = 0;
        QVERIFY(H5Dget_chunk_info(ours, ourSpace.id(), i, offset.data(), &mask, &address, &stored) >= 0);
        hsize_t theirStored = 0;
        QVERIFY(H5Dget_chunk_storage_size(theirs, offset.data(), &theirStored) >= 0);
        QCOMPARE(stored, theirStored);
        std::vector<unsigned char> mine(stored), theirBytes(theirStored);
        std::uint32_t myMask = 0, theirMask = 0;
        QVERIFY(H5Dread_chunk(ours, H5P_DEFAULT, offset.data(), &myMask, mine.data()) >= 0);
        QVERIFY(H5Dread_chunk(theirs, H5P_DEFAULT, offset.data(), &theirMask, theirBytes.data()) >= 0);
        QCOMPARE(myMask, theirMask);
        QVERIFY2(mine == theirBytes, ("chunk " + std::to_string(i) + " differs").c_str());
        each(offset, stored);
    }
}

} // namespace

void TestH5Io::compressedRowsHoldTheChunksHdf5Writes_data()
{
    QTest::addColumn<DType>("dtype");
    QTest::addColumn<Shape>("shape");
    QTest::addColumn<std::vector<std::int64_t>>("blockEnds"); // the row blocks written, in turn
    // Chunks of ~1 MiB (h5_writer): (6, 40000) rows of 160 KB, blocks cut chunks at both ends
    // and end on a part chunk; (1, 262144) of rows of 1.2 MB, an edge chunk in dim 1; a 3-d
    // float64 element; int64 random bits, which deflate cannot shrink (stored larger, as HDF5
    // stores them); bool; a 1-d element in blocks.
    QTest::newRow("f32 rows") << DType::Float32 << Shape{301, 40000} << std::vector<std::int64_t>{12, 17, 40, 41, 301};
    QTest::newRow("f32 wide rows") << DType::Float32 << Shape{3, 300000} << std::vector<std::int64_t>{1, 3};
    QTest::newRow("f64 3d") << DType::Float64 << Shape{50, 70, 90} << std::vector<std::int64_t>{3, 50};
    QTest::newRow("i64 incompressible") << DType::Int64 << Shape{64, 40000} << std::vector<std::int64_t>{64};
    QTest::newRow("bool") << DType::Bool << Shape{1000, 3000} << std::vector<std::int64_t>{349, 1000};
    QTest::newRow("f32 1d") << DType::Float32 << Shape{1000000} << std::vector<std::int64_t>{262144, 300000, 1000000};
}

// A compressed dataset written a block of rows at a time, its whole chunks filtered on the
// OpenMP threads (core/io/parallel_deflate.h), holds what HDF5's own filters write: the same
// values, and chunk for chunk the same stored bytes and filter mask as one H5Dwrite of the
// whole array into a dataset of the same creation properties.
void TestH5Io::compressedRowsHoldTheChunksHdf5Writes()
{
    QFETCH(DType, dtype);
    QFETCH(Shape, shape);
    QFETCH(std::vector<std::int64_t>, blockEnds);
    const auto count = core::numel(shape);
    const auto size = static_cast<std::int64_t>(core::dtypeSize(dtype));
    std::vector<unsigned char> values(static_cast<std::size_t>(count * size));
    std::mt19937_64 random(7);
    if (dtype == DType::Int64) {
        for (auto &byte : values)
            byte = static_cast<unsigned char>(random());
    } else if (dtype == DType::Bool) {
        for (auto &byte : values)
            byte = random() % 3 == 0;
    } else {
        // Normal values rounded to a few bits: compressible, as a sparsified tensor is.
        std::normal_distribution<double> normal;
        for (std::int64_t i = 0; i < count; ++i) {
            const double v = random() % 3 == 0 ? 0.0 : std::round(normal(random) * 64) / 64;
            if (dtype == DType::Float32) {
                const auto f = static_cast<float>(v);
                std::memcpy(values.data() + i * size, &f, sizeof f);
            } else {
                std::memcpy(values.data() + i * size, &v, sizeof v);
            }
        }
    }
    const auto rowBytes = count / shape[0] * size;
    {
        auto file = core::H5File::create(path("deflated.h5"));
        core::RowStreamWriter writer(file, "/x", shape, dtype, {4, IndexWidth::Auto});
        std::int64_t first = 0;
        for (const auto end : blockEnds) {
            writer.writeRows(first, end - first, values.data() + first * rowBytes);
            first = end;
        }
        file.close();
    }
    const core::H5Handle written(H5Fopen(path("deflated.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    const core::H5Handle ours(H5Dopen2(written.id(), "/x", H5P_DEFAULT), H5Dclose);
    QVERIFY(ours.isValid());
    const core::H5Handle type(H5Dget_type(ours.id()), H5Tclose);
    const core::H5Handle dcpl(H5Dget_create_plist(ours.id()), H5Pclose);
    QCOMPARE(H5Pget_nfilters(dcpl.id()), 2);
    // Its whole chunks took the parallel path, not H5Dwrite's filters.
    const auto layout = core::deflatedChunksOf(ours.id(), type.id());
    QVERIFY(layout && layout->shuffleBit != 0 && layout->level == 4);
    const core::H5Handle reference(H5Fcreate(path("hdf5_filtered.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                                   H5Fclose);
    std::vector<hsize_t> dims(shape.begin(), shape.end());
    const core::H5Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    const core::H5Handle theirs(H5Dcreate2(reference.id(), "x", type.id(), space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT),
                                H5Dclose);
    QVERIFY(H5Dwrite(theirs.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    QVERIFY(H5Fflush(reference.id(), H5F_SCOPE_GLOBAL) >= 0);

    std::vector<unsigned char> back(values.size());
    QVERIFY(H5Dread(ours.id(), type.id(), H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()) >= 0);
    QVERIFY(back == values);
    std::vector<hsize_t> chunk(dims.size());
    QCOMPARE(H5Pget_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()), static_cast<int>(chunk.size()));
    const auto chunkBytes = std::accumulate(chunk.begin(), chunk.end(), hsize_t(size), std::multiplies<>());
    sameStoredChunks(ours.id(), theirs.id(), [&](const std::vector<hsize_t> &offset, hsize_t stored) {
        // Random bits do not deflate: stored larger than they are, as HDF5 stores them (but the
        // edge chunk, whose rows past the end are zeros).
        if (dtype == DType::Int64 && offset[0] + chunk[0] <= dims[0])
            QVERIFY(stored > static_cast<hsize_t>(chunkBytes));
    });
}

// A coo's indices [rank, nnz] appended a block of entries (columns) at a time, at offsets that
// fall on no chunk, are held until they fill whole chunks along dim 1 and written by
// parallel_deflate: chunk for chunk what HDF5's filters store for one write of the whole array.
// Also one line [1, n] (a coo of whole rows) and the same along dim 0 of a 1-d array.
void TestH5Io::appendedColumnsHoldTheChunksHdf5Writes()
{
    struct Case {
        std::vector<hsize_t> dims, chunk;
        std::size_t axis;
    };
    const Case cases[] = {{{2, 1000003}, {1, 65536}, 1}, {{1, 300001}, {1, 16384}, 1}, {{500000}, {32768}, 0}};
    std::mt19937_64 random(5);
    for (const auto &c : cases) {
        const auto count = std::accumulate(c.dims.begin(), c.dims.end(), hsize_t{1}, std::multiplies<>());
        const auto steps = c.dims[c.axis], lines = count / steps;
        std::vector<std::int64_t> values(count); // ascending, as coordinates of sorted entries are
        for (hsize_t i = 0; i < count; ++i)
            values[i] = static_cast<std::int64_t>(i / 3 + random() % 5);
        const core::H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        H5Pset_chunk(dcpl.id(), static_cast<int>(c.chunk.size()), c.chunk.data());
        H5Pset_shuffle(dcpl.id());
        H5Pset_deflate(dcpl.id(), 4);
        const core::H5Handle space(H5Screate_simple(static_cast<int>(c.dims.size()), c.dims.data(), nullptr), H5Sclose);
        {
            auto file = core::H5File::create(path("appended.h5"));
            const core::H5Handle dataset(
                H5Dcreate2(file.id(), "x", H5T_STD_I64LE, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT), H5Dclose);
            core::AppendedRows rows(file, "/x", dataset.id(), c.axis);
            std::vector<std::int64_t> block;
            for (hsize_t first = 0, n = 1000; first < steps; first += n, n = n * 3 + 7) {
                n = std::min(n, steps - first);
                block.clear(); // the box [lines, n] of the block's steps, row-major
                for (hsize_t line = 0; line < lines; ++line)
                    block.insert(block.end(), values.begin() + static_cast<std::ptrdiff_t>(line * steps + first),
                                 values.begin() + static_cast<std::ptrdiff_t>(line * steps + first + n));
                rows.append(first, n, H5T_NATIVE_INT64, block.data());
            }
        }
        const core::H5Handle written(H5Fopen(path("appended.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
        const core::H5Handle ours(H5Dopen2(written.id(), "x", H5P_DEFAULT), H5Dclose);
        std::vector<std::int64_t> back(count);
        QVERIFY(H5Dread(ours.id(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()) >= 0);
        QVERIFY(back == values);
        const core::H5Handle reference(H5Fcreate(path("appended_hdf5.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT),
                                       H5Fclose);
        const core::H5Handle theirs(
            H5Dcreate2(reference.id(), "x", H5T_STD_I64LE, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT), H5Dclose);
        QVERIFY(H5Dwrite(theirs.id(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
        QVERIFY(H5Fflush(reference.id(), H5F_SCOPE_GLOBAL) >= 0);
        sameStoredChunks(ours.id(), theirs.id(), [](const std::vector<hsize_t> &, hsize_t) {});
    }
}

// Rows of a deflated dataset (h5py's gzip, with or without shuffle) read by DenseRowReader,
// their chunks inflated on the OpenMP threads (core/io/parallel_deflate.h), are H5Dread's rows,
// for row ranges that cut chunks, edge chunks in every dim, float and double, 1-d to 3-d.
// Where a chunk was never written (its fill value), a filter other than these, or a type read
// converted, HDF5 reads them; a chunk whose bytes were damaged is an IoError, as it was.
void TestH5Io::deflatedRowsReadWhatHdf5Reads()
{
    const auto name = path("deflated_in.h5");
    struct Case {
        const char *name;
        hid_t type;
        std::vector<hsize_t> dims, chunk;
        bool shuffle, fletcher, partly;
        bool parallel; // read by readDeflatedRows
    };
    const Case cases[] = {
        {"gzip", H5T_IEEE_F32LE, {301, 50}, {7, 16}, false, false, false, true},
        {"shuffled", H5T_IEEE_F64LE, {97, 13}, {10, 13}, true, false, false, true},
        {"cube", H5T_IEEE_F32LE, {20, 9, 11}, {3, 4, 5}, true, false, false, true},
        {"line", H5T_IEEE_F64LE, {1000}, {64}, true, false, false, true},
        {"partly", H5T_IEEE_F32LE, {100, 8}, {10, 8}, false, false, true, true},
        {"fletcher", H5T_IEEE_F32LE, {60, 8}, {10, 8}, true, true, false, false},
        {"big_endian", H5T_IEEE_F32BE, {60, 8}, {10, 8}, false, false, false, false},
    };
    std::mt19937 random(3);
    std::normal_distribution<double> normal;
    {
        const core::H5Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        for (const auto &c : cases) {
            const core::H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
            QVERIFY(H5Pset_chunk(dcpl.id(), static_cast<int>(c.chunk.size()), c.chunk.data()) >= 0);
            if (c.fletcher)
                QVERIFY(H5Pset_fletcher32(dcpl.id()) >= 0);
            if (c.shuffle)
                QVERIFY(H5Pset_shuffle(dcpl.id()) >= 0);
            QVERIFY(H5Pset_deflate(dcpl.id(), 5) >= 0);
            const core::H5Handle space(H5Screate_simple(static_cast<int>(c.dims.size()), c.dims.data(), nullptr), H5Sclose);
            const core::H5Handle dataset(H5Dcreate2(file.id(), c.name, c.type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT),
                                         H5Dclose);
            const auto count = std::accumulate(c.dims.begin(), c.dims.end(), hsize_t{1}, std::multiplies<>());
            std::vector<double> values(count);
            for (auto &v : values)
                v = std::round(normal(random) * 16) / 16;
            if (c.partly) { // rows 20-49 only: the other chunks are never written
                std::vector<hsize_t> start(c.dims.size(), 0), rows = c.dims;
                start[0] = 20;
                rows[0] = 30;
                const core::H5Handle box(H5Screate_simple(static_cast<int>(rows.size()), rows.data(), nullptr), H5Sclose);
                const core::H5Handle fileBox(H5Dget_space(dataset.id()), H5Sclose);
                H5Sselect_hyperslab(fileBox.id(), H5S_SELECT_SET, start.data(), nullptr, rows.data(), nullptr);
                QVERIFY(H5Dwrite(dataset.id(), H5T_NATIVE_DOUBLE, box.id(), fileBox.id(), H5P_DEFAULT, values.data()) >= 0);
            } else {
                QVERIFY(H5Dwrite(dataset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
            }
        }
    }
    const auto file = core::H5File::openRead(name);
    const auto readAll = [&](const char *dataset, auto zero) {
        using T = decltype(zero);
        const core::H5Handle d(H5Dopen2(file.id(), dataset, H5P_DEFAULT), H5Dclose);
        const core::H5Handle space(H5Dget_space(d.id()), H5Sclose);
        std::vector<T> all(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space.id())));
        H5Dread(d.id(), std::is_same_v<T, float> ? H5T_NATIVE_FLOAT : H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                all.data());
        return all;
    };
    for (const auto &c : cases) {
        const bool isDouble = H5Tget_size(c.type) == 8;
        const core::H5Handle d(H5Dopen2(file.id(), c.name, H5P_DEFAULT), H5Dclose);
        QCOMPARE(core::deflatedChunksOf(d.id(), isDouble ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT).has_value(), c.parallel);
        const core::DenseRowReader reader(file, std::string("/") + c.name);
        const auto rows = static_cast<std::int64_t>(c.dims[0]);
        const auto width =
            static_cast<std::int64_t>(std::accumulate(c.dims.begin() + 1, c.dims.end(), hsize_t{1}, std::multiplies<>()));
        const auto check = [&](auto zero) {
            using T = decltype(zero);
            const auto all = readAll(c.name, zero);
            for (const auto &[begin, end] : std::vector<std::pair<std::int64_t, std::int64_t>>{
                     {0, rows}, {1, rows - 1}, {rows - 1, rows}, {rows / 3, rows / 2 + 1}, {0, 1}}) {
                std::vector<T> got(static_cast<std::size_t>((end - begin) * width));
                reader.readRows(begin, end, got.data());
                QVERIFY2(std::equal(got.begin(), got.end(), all.begin() + begin * width),
                         (std::string(c.name) + " rows " + std::to_string(begin) + "-" + std::to_string(end)).c_str());
            }
        };
        // The type read converted (double as float) is HDF5's conversion, unchanged.
        check(float{});
        check(double{});
    }
    // A damaged chunk: inflate fails, and HDF5's read tells it as before.
    haddr_t address = 0;
    {
        const core::H5Handle d(H5Dopen2(file.id(), "gzip", H5P_DEFAULT), H5Dclose);
        const core::H5Handle space(H5Dget_space(d.id()), H5Sclose);
        hsize_t offset[2] = {};
        unsigned mask = 0;
        hsize_t size = 0;
        QVERIFY(H5Dget_chunk_info(d.id(), space.id(), 3, offset, &mask, &address, &size) >= 0);
    }
    const auto damaged = path("deflated_damaged.h5");
    std::filesystem::copy_file(name, damaged);
    {
        std::fstream bytes(damaged, std::ios::in | std::ios::out | std::ios::binary);
        bytes.seekp(static_cast<std::streamoff>(address) + 4);
        bytes.write("\xff\xff\xff\xff\xff\xff\xff\xff", 8);
    }
    const auto broken = core::H5File::openRead(damaged);
    const core::DenseRowReader reader(broken, "/gzip");
    std::vector<float> rows(301 * 50);
    QVERIFY_THROWS_EXCEPTION(core::IoError, reader.readRows(0, 301, rows.data()));
}

namespace {

// A chunked, shuffled and deflated dataset `name` of `type` in `file`, holding `values`.
void writeDeflated(hid_t file,
                   const char *name,
                   hid_t type,
                   const std::vector<hsize_t> &dims,
                   const std::vector<hsize_t> &chunk,
                   const std::vector<double> &values,
                   unsigned level = 5)
{
    const core::H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    QVERIFY(H5Pset_chunk(dcpl.id(), static_cast<int>(chunk.size()), chunk.data()) >= 0);
    QVERIFY(H5Pset_shuffle(dcpl.id()) >= 0);
    QVERIFY(H5Pset_deflate(dcpl.id(), level) >= 0);
    const core::H5Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose);
    const core::H5Handle dataset(H5Dcreate2(file, name, type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT), H5Dclose);
    QVERIFY(dataset.isValid());
    if (core::isH5Bool(type)) {
        // Bytes 0, 1 and 2: a byte other than 0 or 1 reads as 1.
        std::vector<std::uint8_t> bits(values.size());
        std::transform(values.begin(), values.end(), bits.begin(), [](double v) { return static_cast<std::uint8_t>(v); });
        QVERIFY(H5Dwrite(dataset.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bits.data()) >= 0);
    } else {
        QVERIFY(H5Dwrite(dataset.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
    }
}

// Rows [begin, end) of `dataset`, or the box `start`, `count`, into T as H5Dread gives them (a
// bool's bytes as 0 or 1).
template <class T>
std::vector<T> hdf5Box(hid_t dataset, const std::vector<hsize_t> &start, const std::vector<hsize_t> &count, bool isBool)
{
    const core::H5Handle space(H5Dget_space(dataset), H5Sclose);
    H5Sselect_hyperslab(space.id(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
    const core::H5Handle memory(H5Screate_simple(static_cast<int>(count.size()), count.data(), nullptr), H5Sclose);
    const auto n = std::accumulate(count.begin(), count.end(), hsize_t{1}, std::multiplies<>());
    std::vector<T> out(n);
    if (isBool) {
        const auto boolType = core::makeBoolType();
        std::vector<std::uint8_t> bits(n);
        H5Dread(dataset, boolType.id(), memory.id(), space.id(), H5P_DEFAULT, bits.data());
        std::transform(bits.begin(), bits.end(), out.begin(), [](std::uint8_t b) { return static_cast<T>(b != 0); });
    } else {
        H5Dread(dataset, core::nativeH5Type<T>(), memory.id(), space.id(), H5P_DEFAULT, out.data());
    }
    return out;
}

template <class T>
std::vector<T> hdf5Rows(hid_t dataset, hsize_t begin, hsize_t end, bool isBool)
{
    const core::H5Handle space(H5Dget_space(dataset), H5Sclose);
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space.id())));
    H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr);
    std::vector<hsize_t> start(dims.size(), 0), count = dims;
    start[0] = begin;
    count[0] = end - begin;
    return hdf5Box<T>(dataset, start, count, isBool);
}

} // namespace

// A compressed dataset read into another type than stored (a csr's int32 indices into int64, an
// int32 tensor into its float64 compute type, a bool mask into bytes or floats) is inflated on
// every core where the conversion is exact, and reads what H5Dread's conversion gives. Read in
// consecutive blocks that cut chunks, so each block begins in the chunk the last one kept
// (InflatedTails), in 1-d and in 2-d.
void TestH5Io::exactReadingsInflateAsHdf5Converts()
{
    // Which conversions are made here, and which stay HDF5's.
    static_assert(core::convertsExactly<std::int32_t, std::int64_t>() && core::convertsExactly<std::uint32_t, std::int64_t>());
    static_assert(core::convertsExactly<std::int32_t, double>() && core::convertsExactly<std::uint16_t, float>());
    static_assert(core::convertsExactly<float, double>() && core::convertsExactly<std::uint8_t, std::uint8_t>());
    static_assert(!core::convertsExactly<std::int64_t, double>() && !core::convertsExactly<std::int32_t, float>());
    static_assert(!core::convertsExactly<std::uint64_t, std::int64_t>() && !core::convertsExactly<std::int8_t, std::uint8_t>());
    static_assert(!core::convertsExactly<double, float>() && !core::convertsExactly<float, std::int64_t>());

    const auto name = path("exact_readings.h5");
    const auto boolType = core::makeBoolType();
    struct Stored {
        const char *name;
        hid_t type;
        DType dtype;
        double low, high; // the values' range
    };
    const Stored stored[] = {
        {"int8", H5T_NATIVE_INT8, DType::Int8, -128, 127},
        {"int16", H5T_NATIVE_INT16, DType::Int16, -32768, 32767},
        {"uint16", H5T_NATIVE_UINT16, DType::UInt16, 0, 65535},
        {"int32", H5T_NATIVE_INT32, DType::Int32, -2147483648.0, 2147483647.0},
        {"uint32", H5T_NATIVE_UINT32, DType::UInt32, 0, 4294967295.0},
        {"int64", H5T_NATIVE_INT64, DType::Int64, -1e15, 1e15},
        {"float", H5T_NATIVE_FLOAT, DType::Float32, -1e3, 1e3},
        {"double", H5T_NATIVE_DOUBLE, DType::Float64, -1e3, 1e3},
        {"bool", boolType.id(), DType::Bool, 0, 2},
    };
    struct Shape2 {
        const char *name;
        std::vector<hsize_t> dims, chunk;
    };
    const Shape2 shapes[] = {{"line", {1000}, {64}}, {"rows", {90, 7}, {8, 7}}};
    std::mt19937 random(11);
    {
        const core::H5Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        for (const auto &s : stored)
            for (const auto &shape : shapes) {
                const auto n = std::accumulate(shape.dims.begin(), shape.dims.end(), hsize_t{1}, std::multiplies<>());
                std::uniform_real_distribution<double> uniform(s.low, s.high);
                std::vector<double> values(n);
                for (auto &v : values)
                    v = core::isFloatingPoint(s.dtype) ? uniform(random) : std::round(uniform(random));
                const auto dataset = std::string(s.name) + "_" + shape.name;
                writeDeflated(file.id(), dataset.c_str(), s.type, shape.dims, shape.chunk, values);
            }
    }
    const auto file = core::H5File::openRead(name);
    int parallelReads = 0;
    const auto readAs = [&](auto zero, const Stored &s, const Shape2 &shape) {
        using T = decltype(zero);
        const auto dataset = std::string(s.name) + "_" + shape.name;
        const auto reading = core::exactReadingOf<T>(s.dtype);
        if (!reading)
            return;
        const core::H5Handle d(H5Dopen2(file.id(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
        const auto layout = core::deflatedChunksOf(d.id(), reading->fileType);
        QVERIFY2(layout.has_value(), dataset.c_str());
        const auto rows = shape.dims[0];
        const auto width = layout->chunk.size() > 1 ? shape.dims[1] : 1;
        for (const hsize_t block : {hsize_t{1}, hsize_t{3}, hsize_t{13}, shape.chunk[0] + 5, rows}) {
            for (hsize_t begin = 0; begin < rows; begin += block) {
                const auto end = std::min(rows, begin + block);
                std::vector<T> got((end - begin) * width);
                QVERIFY(core::readDeflatedRows(d.id(), *layout, begin, end, got.data(),
                                               reading->conversion ? &*reading->conversion : nullptr));
                ++parallelReads;
                const auto want = hdf5Rows<T>(d.id(), begin, end, s.dtype == DType::Bool);
                QVERIFY2(std::memcmp(got.data(), want.data(), got.size() * sizeof(T)) == 0,
                         (dataset + " as " + std::to_string(sizeof(T)) + "-byte values, rows " + std::to_string(begin) + "-"
                          + std::to_string(end))
                             .c_str());
            }
        }
    };
    for (const auto &s : stored)
        for (const auto &shape : shapes) {
            readAs(float{}, s, shape);
            readAs(double{}, s, shape);
            readAs(std::int64_t{}, s, shape);
            readAs(std::uint8_t{}, s, shape);
        }
    // Boxes of rows and columns (csc panels, a coo's index columns): consecutive column ranges
    // of a few rows each, so boxes begin in the chunks the last one kept, in both dims.
    for (const auto &s : stored) {
        const auto dataset = std::string(s.name) + "_rows";
        const auto reading = core::exactReadingOf<double>(s.dtype);
        if (!reading)
            continue;
        const core::H5Handle d(H5Dopen2(file.id(), dataset.c_str(), H5P_DEFAULT), H5Dclose);
        const auto layout = core::deflatedChunksOf(d.id(), reading->fileType);
        QVERIFY(layout.has_value());
        for (const auto &[rowsStart, rowsCount] : {std::pair<hsize_t, hsize_t>{0, 90}, {5, 20}, {89, 1}})
            for (hsize_t column = 0; column < 7; column += 2) {
                const core::DatasetBox box{{rowsStart, column}, {rowsCount, std::min<hsize_t>(2, 7 - column)}};
                std::vector<double> got(box.count[0] * box.count[1]);
                QVERIFY(core::readDeflatedBox(d.id(), *layout, box, got.data(),
                                              reading->conversion ? &*reading->conversion : nullptr));
                const auto want = hdf5Box<double>(d.id(), box.start, box.count, s.dtype == DType::Bool);
                QVERIFY2(got == want,
                         (dataset + " box at row " + std::to_string(rowsStart) + ", column " + std::to_string(column)).c_str());
            }
    }
    // float: int8, int16, uint16, float, bool; double: those and int32, uint32, double; int64:
    // every integer but uint64 (none here); uint8: bool alone. Each in 2 shapes.
    QVERIFY(!core::exactReadingOf<double>(DType::Int64) && !core::exactReadingOf<float>(DType::Int32));
    QVERIFY(!core::exactReadingOf<double>(DType::Float16) && !core::exactReadingOf<std::uint8_t>(DType::Int8));
    QVERIFY(parallelReads > 0);

    // Through the readers: an int32 tensor read whole as float64, in blocks by DenseRowReader as
    // float64 (its compute type), the same values as HDF5's conversion.
    const core::DenseRowReader reader(file, "/int32_rows");
    const core::H5Handle d(H5Dopen2(file.id(), "int32_rows", H5P_DEFAULT), H5Dclose);
    const auto all = hdf5Rows<double>(d.id(), 0, 90, false);
    for (std::int64_t begin = 0; begin < 90; begin += 20) {
        const auto end = std::min<std::int64_t>(90, begin + 20);
        std::vector<double> got(static_cast<std::size_t>((end - begin) * 7));
        reader.readRows(begin, end, got.data());
        QVERIFY(std::equal(got.begin(), got.end(), all.begin() + begin * 7));
    }
    // Small reads in any order, as a coo's block bounds are found: within one chunk (read here,
    // the chunk kept), again where an earlier read began or ended, between reads of another
    // dataset; each the same values as HDF5's.
    const core::DenseRowReader other(file, "/int16_rows");
    const core::H5Handle o(H5Dopen2(file.id(), "int16_rows", H5P_DEFAULT), H5Dclose);
    const auto otherAll = hdf5Rows<double>(o.id(), 0, 90, false);
    std::uniform_int_distribution<std::int64_t> firstRow(0, 89), rowCount(1, 3);
    for (int k = 0; k < 300; ++k) {
        const auto begin = firstRow(random), end = std::min<std::int64_t>(90, begin + rowCount(random));
        const bool fromOther = k % 3 == 0;
        std::vector<double> got(static_cast<std::size_t>((end - begin) * 7));
        (fromOther ? other : reader).readRows(begin, end, got.data());
        QVERIFY2(
            std::equal(got.begin(), got.end(), (fromOther ? otherAll : all).begin() + begin * 7),
            (std::string(fromOther ? "int16" : "int32") + " rows " + std::to_string(begin) + "-" + std::to_string(end)).c_str());
    }
    const auto whole = core::readTensor(file, "/int32_rows");
    QCOMPARE(whole.dtype(), DType::Float64);
    const auto &values = std::get<core::DenseTensor<double>>(whole.storage()).values;
    QVERIFY(std::equal(values.begin(), values.end(), all.begin(), all.end()));
}

// A chunk kept at the end of one read is used by the next only while its file stays open: a
// file closed, written again with other values whose chunks lie where the old ones lay (deflate
// level 0 stores every chunk at the same size), and opened again reads the new values.
void TestH5Io::keptTailsNeverOutliveTheirFile()
{
    const auto name = path("kept_tails.h5");
    const std::vector<hsize_t> dims{100}, chunk{10};
    for (const double offset : {0.0, 1000.0}) {
        {
            const core::H5Handle file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
            std::vector<double> values(100);
            std::iota(values.begin(), values.end(), offset);
            writeDeflated(file.id(), "x", H5T_NATIVE_FLOAT, dims, chunk, values, 0);
        }
        const auto file = core::H5File::openRead(name);
        const core::H5Handle d(H5Dopen2(file.id(), "x", H5P_DEFAULT), H5Dclose);
        const auto layout = core::deflatedChunksOf(d.id(), H5T_NATIVE_FLOAT);
        QVERIFY(layout.has_value());
        // [0, 25) keeps chunk [20, 30), and [25, 45) begins in it and keeps [40, 50): what the
        // first file's last read kept is where the second file's first read begins.
        for (const auto &[begin, end] : {std::pair<hsize_t, hsize_t>{45, 60}, {0, 25}, {25, 45}}) {
            std::vector<float> got(end - begin);
            QVERIFY(core::readDeflatedRows(d.id(), *layout, begin, end, got.data()));
            for (hsize_t i = 0; i < got.size(); ++i)
                QCOMPARE(got[i], static_cast<float>(offset + static_cast<double>(begin + i)));
        }
    }
}

void TestH5Io::atomicOutputLeavesNothingOnFailure()
{
    const auto target = path("atomic.h5");
    {
        core::AtomicOutput output(target);
        core::writeTensor(output.file(), "/x", test::randomTensor(DType::Float32, {3}, 1.0, 1));
        QVERIFY(std::filesystem::exists(output.temporaryPath()));
        // No commit: as if an error was thrown.
    }
    QVERIFY(!std::filesystem::exists(target));
    for (const auto &entry : std::filesystem::directory_iterator(m_dir.path().toStdString()))
        QVERIFY2(entry.path().filename().string().find("atomic.h5") == std::string::npos, "temporary file left behind");
    {
        core::AtomicOutput output(target);
        core::writeTensor(output.file(), "/x", test::randomTensor(DType::Float32, {3}, 1.0, 1));
        output.commit();
    }
    QVERIFY(std::filesystem::exists(target));
    QVERIFY_THROWS_EXCEPTION(core::IoError, core::AtomicOutput(path("no/such/dir/out.h5")));
}

void TestH5Io::refusesOutputEqualToInput()
{
    {
        std::ofstream(path("in.h5")) << "x";
    }
    QVERIFY(core::isSameFile(path("in.h5"), m_dir.filePath("./in.h5").toStdString()));
    std::filesystem::create_symlink(path("in.h5"), path("link.h5"));
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::refuseOverwritingInput(path("link.h5"), path("in.h5")));
    core::refuseOverwritingInput(path("other.h5"), path("in.h5"));
}

void TestH5Io::fileErrors()
{
    auto expectIo = [](const std::string &file, const char *text) {
        try {
            core::H5File::openRead(file);
            QFAIL("expected an IoError");
        } catch (const core::IoError &error) {
            QVERIFY2(QString(error.what()).contains(text), error.what());
            QVERIFY(QString(error.what()).startsWith(QString::fromStdString(file)));
        }
    };
    expectIo(path("missing.h5"), "no such file");
    {
        std::ofstream(path("text.h5")) << "not hdf5 at all";
    }
    expectIo(path("text.h5"), "not an HDF5 file");
    {
        auto file = core::H5File::create(path("full.h5"));
        core::writeTensor(file, "/x", test::randomTensor(DType::Float32, {256, 256}, 1.0, 1));
        file.close();
    }
    std::filesystem::copy_file(path("full.h5"), path("cut.h5"));
    std::filesystem::resize_file(path("cut.h5"), 1200);
    expectIo(path("cut.h5"), "truncated");
}

void TestH5Io::missingDatasetIsInputError()
{
    {
        auto file = core::H5File::create(path("one.h5"));
        core::writeTensor(file, "/x", test::randomTensor(DType::Float32, {3}, 1.0, 1));
        file.close();
    }
    const auto file = core::H5File::openRead(path("one.h5"));
    try {
        core::readTensor(file, "/nope/deeper");
        QFAIL("expected an InputError");
    } catch (const core::InputError &error) {
        QCOMPARE(QString(error.what()), QString::fromStdString(path("one.h5") + ":/nope/deeper: dataset not found"));
    }
}

// numpy.bytes_ attributes are fixed-length strings exactly as long as their text, without a
// terminator (found writing the fuzz seed corpus: "csr_matrix" was read as "csr_matri", the group not
// recognised as CSR).
void TestH5Io::fixedLengthStringAttributeReadWhole()
{
    const std::string text = "csr_matrix";
    {
        auto file = core::H5File::create(path("fixed.h5"));
        core::H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(type.id(), text.size());
        H5Tset_strpad(type.id(), H5T_STR_NULLPAD);
        core::H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
        core::H5Handle attr(H5Acreate2(file.id(), "encoding-type", type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        QVERIFY(H5Awrite(attr.id(), type.id(), text.data()) >= 0);
        attr.reset();
        file.close();
    }
    const auto file = core::H5File::openRead(path("fixed.h5"));
    QCOMPARE(core::readStringAttribute(file.id(), "encoding-type").value_or("none"), text);
}

QTEST_GUILESS_MAIN(TestH5Io)
#include "tst_h5_io.moc"
