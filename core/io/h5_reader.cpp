#include "core/io/h5_reader.h"

#include "core/io/exact_reading.h"
#include "core/io/h5_attributes.h"
#include "core/io/h5_filters.h"
#include "core/io/h5_types.h"
#include "core/io/parallel_deflate.h"
#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"
#include "core/util/memory_bound.h"
#include "core/util/memory_budget.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace sparsity::core {
namespace {

inline std::size_t at(std::int64_t i) { return static_cast<std::size_t>(i); }

struct DatasetView {
    H5Handle dataset;
    H5Handle type;
    Shape shape;
    std::optional<DType> dtype;
    std::string where;
};

DatasetView viewDataset(const H5File &file, const std::string &path)
{
    DatasetView view;
    view.dataset = openDataset(file, path);
    view.type = datasetType(view.dataset.id());
    H5Handle space = datasetSpace(view.dataset.id());
    const int rank = H5Sget_simple_extent_ndims(space.id());
    if (rank < 0)
        throw IoError(file.where(path) + ": cannot read dataspace (file corrupt?)");
    std::vector<hsize_t> dims(at(rank));
    H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr);
    view.shape.assign(dims.begin(), dims.end());
    view.dtype = dtypeFromH5(view.type.id());
    view.where = file.where(path);
    try {
        checkedNumel(view.shape);
    } catch (const Error &error) {
        rethrowWithContext(error, view.where);
    }
    return view;
}

// Values of a dataset of no numeric type (a string, a compound) cannot be read.
void requireNumeric(std::optional<DType> dtype, const std::string &where)
{
    if (!dtype)
        throw errors::mustBe(where, "be a numeric dataset", "a non-numeric type");
}

// A box of a compressed dataset inflated on every core (core/io/parallel_deflate.h) and
// converted there, chunk by chunk. False where H5Dread is to read it: another layout or filter,
// a file the ranks share, a conversion HDF5 makes its own way, a chunk that does not read, or a
// box within one chunk that is not kept for the next read (no second thread to share it; a
// dataset kept open keeps it in HDF5's chunk cache). A kept one is worth it: a coo's block
// bounds, found by small reads of its rows, inflated a chunk each time (a fifth of a convert).
template <class T>
bool readInflated(hid_t dataset, DType stored, const DatasetBox &box, T *out)
{
    const auto reading = exactReadingOf<T>(stored);
    const auto layout = reading ? deflatedChunksOf(dataset, reading->fileType) : std::nullopt;
    // The dataset's own layout first: most are not compressed, and the file's driver is asked of
    // those that are.
    return layout && plainFileDescriptor(dataset) && (chunksTouched(*layout, box) >= 2 || keepsInflatedChunks(dataset, *layout))
           && readDeflatedBox(dataset, *layout, box, out, reading->conversion ? &*reading->conversion : nullptr);
}

// Reads the whole dataset, or rows [begin, end) of dim 0 (with `columns`, only those of dim 1:
// a 2-d box, row-major), into `out` (numel of the selection), converting to T; HDF5 reads
// straight into `out` when the stored type is T.
template <class T>
void readValuesInto(hid_t dataset,
                    const Shape &shape,
                    std::optional<DType> dtype,
                    const std::string &where,
                    std::optional<RowRange> rows,
                    T *out,
                    std::optional<RowRange> columns = std::nullopt)
{
    requireNumeric(dtype, where);
    Shape selected = shape;
    if (rows)
        selected[0] = rows->end - rows->begin;
    if (columns)
        selected[1] = columns->count();
    const auto count = numel(selected);
    if (count == 0)
        return;
    DatasetBox box{std::vector<hsize_t>(shape.size(), 0), std::vector<hsize_t>(selected.begin(), selected.end())};
    if (rows)
        box.start[0] = static_cast<hsize_t>(rows->begin);
    if (columns)
        box.start[1] = static_cast<hsize_t>(columns->begin);
    if (!shape.empty() && readInflated(dataset, *dtype, box, out))
        return;
    H5Handle fileSpace = datasetSpace(dataset);
    H5Handle memSpace;
    if (rows) {
        H5Sselect_hyperslab(fileSpace.id(), H5S_SELECT_SET, box.start.data(), nullptr, box.count.data(), nullptr);
        memSpace = H5Handle(H5Screate_simple(static_cast<int>(box.count.size()), box.count.data(), nullptr), H5Sclose);
    }
    const hid_t mem = rows ? memSpace.id() : H5S_ALL;
    const hid_t fileSel = rows ? fileSpace.id() : H5S_ALL;
    herr_t status = 0;
    if (*dtype == DType::Bool) {
        // HDF5 1.10 cannot convert an enum to a number: read the raw 0/1 bytes.
        H5Handle boolType = makeBoolType();
        Buffer<std::uint8_t> raw(at(count));
        status = H5Dread(dataset, boolType.id(), mem, fileSel, H5P_DEFAULT, raw.data());
        std::transform(raw.begin(), raw.end(), out, [](std::uint8_t b) { return static_cast<T>(b != 0); });
    } else {
        status = H5Dread(dataset, nativeH5Type<T>(), mem, fileSel, H5P_DEFAULT, out);
    }
    if (status < 0)
        throw valuesUnreadable(dataset, where);
}

// Reads the whole dataset, or rows [begin, end) of dim 0, converting to T, within the
// whole-tensor memory budget.
template <class T>
Buffer<T> readValues(const DatasetView &view, std::optional<RowRange> rows = std::nullopt)
{
    Shape selected = view.shape;
    if (rows)
        selected[0] = rows->end - rows->begin;
    // Overflow-safe against the machine's memory first (a declared 2^62 elements), then the
    // budget: a whole read must fit it; a range of rows is a streaming pipeline's block, sized
    // by its caller to the budget (at least one row, whatever the budget).
    requireAllocatable(numel(selected), sizeof(T), view.where, rows ? "a read of" : "declares");
    if (!rows)
        requireWithinBudget(bytesFor(numel(selected), sizeof(T)), view.where, "reading it");
    Buffer<T> out(at(numel(selected)));
    readValuesInto(view.dataset.id(), view.shape, view.dtype, view.where, rows, out.data());
    return out;
}

void requireIntegerIndices(const DatasetView &view)
{
    if (!view.dtype || isFloatingPoint(*view.dtype) || *view.dtype == DType::Bool)
        throw errors::mustBe(view.where, "hold integer indices",
                             view.dtype ? std::string(dtypeName(*view.dtype)) : "a non-numeric type");
}

Buffer<std::int64_t> readIndices(const DatasetView &view, std::optional<RowRange> range = std::nullopt)
{
    requireIntegerIndices(view);
    return readValues<std::int64_t>(view, range);
}

Tensor readDense(const H5File &file, const ElementInfo &info, ValidationReport *report, std::optional<RowRange> rows)
{
    const auto view = viewDataset(file, info.path);
    if (rows && (view.shape.empty() || !rows->within(view.shape[0])))
        throw errors::mustBe(view.where + " row range", "lie within the dataset's rows", rows->text());
    noteConversion(report, view.where, info.dtype);
    return withComputeType(info.dtype, [&](auto tag) {
        using T = decltype(tag);
        Shape shape = view.shape;
        if (rows)
            shape[0] = rows->end - rows->begin;
        return Tensor(Storage{DenseTensor<T>{shape, readValues<T>(view, rows)}});
    });
}

// A compressed element's three datasets, opened: their ranks and lengths checked (I4) and the
// conversion of its values noted, as every read of it begins.
struct CompressedParts {
    DatasetView data, indices, indptr;
    std::string where, tag;
};

CompressedParts openCompressed(const H5File &file, const ElementInfo &info, ValidationReport *report)
{
    CompressedParts parts{viewDataset(file, info.path + "/data"), viewDataset(file, info.path + "/indices"),
                          viewDataset(file, info.path + "/indptr"), file.where(info.path),
                          info.layout == Layout::Csr ? "CSR" : "CSC"};
    const auto &data = parts.data, &indices = parts.indices, &indptr = parts.indptr;
    const auto &where = parts.where, &tag = parts.tag;
    if (data.shape.size() != 1 || indices.shape.size() != 1 || indptr.shape.size() != 1)
        rethrowWithContext(errors::invariant(tag, "I4", "data, indices and indptr must be 1-d",
                                             "got " + shapeToString(data.shape) + ", " + shapeToString(indices.shape) + ", "
                                                 + shapeToString(indptr.shape)),
                           where);
    if (data.shape[0] != indices.shape[0])
        rethrowWithContext(errors::invariant(tag, "I4", "data and indices must have the same length",
                                             "got " + std::to_string(data.shape[0]) + " and " + std::to_string(indices.shape[0])),
                           where);
    noteConversion(report, where, info.dtype);
    return parts;
}

// Rows of a CSR element whose indptr points outside its entries: the error a whole read gives,
// which checks I4 (indptr's last entry, the entries' counts) before I5 (the first pair that
// decreases). Rows read in order from the first have met no decrease before `rows`, so the first
// is found by reading on from there.
InputError
indptrOutOfEntries(const DatasetView &indptr, std::int64_t indices, std::int64_t values, RowRange rows, const std::string &name)
{
    const auto entries = indptr.shape[0];
    const auto end = readIndices(indptr, RowRange{entries - 1, entries}).front();
    if (end != indices || values != indices)
        return compressedCountsDisagree(name, entries - 1, end, indices, values);
    constexpr std::int64_t kChunk = 1 << 16;
    for (std::int64_t at = rows.begin; at + 1 < entries; at += kChunk) {
        const auto part = readIndices(indptr, RowRange{at, std::min(entries, at + kChunk + 1)});
        for (std::size_t i = 0; i + 1 < part.size(); ++i)
            if (part[i] > part[i + 1])
                return compressedIndptrDecreases(name, at + std::int64_t(i), part[i], part[i + 1]);
    }
    return errors::invariant(name, "I5", "indptr must be non-decreasing within [0, nnz]",
                             "rows " + std::to_string(rows.begin) + ".." + std::to_string(rows.end) + " point outside it");
}

Tensor readCompressed(const H5File &file, const ElementInfo &info, ValidationReport *report, std::optional<RowRange> rows)
{
    // Named, not bound: clang 14 (the fuzz build) does not let lambdas capture bindings.
    const auto parts = openCompressed(file, info, report);
    const auto &data = parts.data, &indices = parts.indices, &indptr = parts.indptr;
    const auto &where = parts.where, &tag = parts.tag;
    return withComputeType(info.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        CompressedTensor<T> c;
        c.shape = info.shape;
        c.axis = info.layout == Layout::Csr ? CompressedAxis::Row : CompressedAxis::Column;
        std::int64_t first = 0; // the element's entry the rows read start at
        if (rows) {
            if (c.axis != CompressedAxis::Row || !rows->within(c.shape[0]))
                throw errors::mustBe(where + " row range", "lie within the rows of a CSR element", rows->text());
            // Compared as sizes, as validateCompressed does: a row extent of 2^63-1 has no int64 rows + 1.
            const auto entries = static_cast<std::uint64_t>(c.shape[0]) + 1;
            if (static_cast<std::uint64_t>(indptr.shape[0]) != entries)
                throw errors::invariant(where + ": " + tag, "I2", "indptr must have " + std::to_string(entries) + " entries",
                                        "got " + std::to_string(indptr.shape[0]));
            c.indptr = readIndices(indptr, RowRange{rows->begin, rows->end + 1});
            first = c.indptr.front();
            const auto last = c.indptr.back();
            // What a whole read checks of these rows' part of indptr, numbered as there: I3 in the
            // first rows, I4 in the last, I5 between.
            const auto name = where + ": " + tag;
            if (rows->begin == 0 && first != 0)
                throw compressedIndptrStart(name, first);
            if (rows->end == c.shape[0] && (last != indices.shape[0] || last != data.shape[0]))
                throw compressedCountsDisagree(name, c.shape[0], last, indices.shape[0], data.shape[0]);
            for (std::size_t i = 0; i + 1 < c.indptr.size(); ++i)
                if (c.indptr[i] > c.indptr[i + 1])
                    throw compressedIndptrDecreases(name, rows->begin + std::int64_t(i), c.indptr[i], c.indptr[i + 1]);
            if (first < 0 || last > data.shape[0] || last > indices.shape[0])
                throw indptrOutOfEntries(indptr, indices.shape[0], data.shape[0], *rows, name);
            for (auto &p : c.indptr)
                p -= first;
            c.indices = readIndices(indices, RowRange{first, last});
            c.values = readValues<T>(data, RowRange{first, last});
            c.shape[0] = rows->end - rows->begin;
        } else {
            c.indptr = readIndices(indptr);
            c.indices = readIndices(indices);
            c.values = readValues<T>(data);
        }
        try {
            validateCompressed(c, report, where, first);
        } catch (const Error &error) {
            rethrowWithContext(error, where);
        }
        return Tensor(Storage{std::move(c)});
    });
}

// Columns [begin, end) of the first `dims` rows (default: all) of a COO element's 2-d indices
// [sparse_dims, nnz], dim-major as CooTensor holds them.
Buffer<std::int64_t> readIndexColumns(const DatasetView &view, RowRange columns, std::optional<std::int64_t> firstDims = {})
{
    requireIntegerIndices(view);
    const auto dims = firstDims.value_or(view.shape[0]);
    requireAllocatable(dims * columns.count(), sizeof(std::int64_t), view.where, "a read of");
    Buffer<std::int64_t> out(at(dims * columns.count()));
    readValuesInto(view.dataset.id(), view.shape, view.dtype, view.where, RowRange{0, dims}, out.data(), columns);
    return out;
}

// The whole element, or its entries [begin, end) (C4 then left to the caller).
Tensor
readCoo(const H5File &file, const ElementInfo &info, ValidationReport *report, std::optional<RowRange> entries = std::nullopt)
{
    const auto indices = viewDataset(file, info.path + "/indices");
    const auto values = viewDataset(file, info.path + "/values");
    const std::string where = file.where(info.path);
    noteConversion(report, where, info.dtype);
    return withComputeType(info.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        CooTensor<T> coo;
        coo.shape = info.shape;
        try {
            if (indices.shape.size() != 2)
                throw errors::invariant("COO", "C2", "indices must be 2-d [sparse_dims, nnz]",
                                        "got shape " + shapeToString(indices.shape));
            coo.sparseDims = static_cast<int>(indices.shape[0]);
            coo.nnz = indices.shape[1];
            if (coo.sparseDims > static_cast<int>(coo.shape.size()))
                throw errors::invariant("COO", "C1", "sparse dims must be in [0, rank=" + std::to_string(coo.shape.size()) + "]",
                                        "indices has " + std::to_string(coo.sparseDims) + " rows");
            Shape expectedValues{coo.nnz};
            expectedValues.insert(expectedValues.end(), coo.shape.begin() + coo.sparseDims, coo.shape.end());
            if (values.shape != expectedValues)
                throw errors::invariant("COO", "C3", "values must have shape " + shapeToString(expectedValues),
                                        "got " + shapeToString(values.shape));
            if (entries && !entries->within(coo.nnz))
                throw errors::mustBe(where + " entry range", "lie within its " + std::to_string(coo.nnz) + " entries",
                                     entries->text());
            if (!entries) {
                coo.indices = readIndices(indices);
                coo.values = readValues<T>(values);
                validateCoo(coo, /*detectCoalesced=*/true);
            } else {
                // A share must fit the budget as a whole read must (the same check and message).
                coo.nnz = entries->count();
                requireWithinBudget(bytesFor(coo.sparseDims * coo.nnz, sizeof(std::int64_t)), indices.where, "reading it");
                coo.indices = readIndexColumns(indices, *entries);
                requireWithinBudget(bytesFor(coo.nnz * coo.denseSize(), sizeof(T)), values.where, "reading it");
                coo.values = readValues<T>(values, *entries);
            }
        } catch (const Error &error) {
            rethrowWithContext(error, where);
        }
        return Tensor(Storage{std::move(coo)});
    });
}

// R1 and R2 from the datasets' shapes, before anything is read.
void checkRowSparseShapes(const Shape &shape, const DatasetView &indices, const DatasetView &data)
{
    if (shape.empty())
        throw errors::invariant("row_sparse", "R1", "rank must be >= 1", "the shape attribute is 0-d");
    if (indices.shape.size() != 1)
        throw errors::invariant("row_sparse", "R2", "indices must be 1-d", "got shape " + shapeToString(indices.shape));
    Shape expected{indices.shape[0]};
    expected.insert(expected.end(), shape.begin() + 1, shape.end());
    if (data.shape != expected)
        throw errors::invariant("row_sparse", "R2",
                                "data must have shape " + shapeToString(expected) + " (len(indices), shape[1:] of "
                                    + shapeToString(shape) + ")",
                                "got " + shapeToString(data.shape));
}

Tensor readRowSparse(const H5File &file, const ElementInfo &info, ValidationReport *report)
{
    const auto indices = viewDataset(file, info.path + "/indices");
    const auto data = viewDataset(file, info.path + "/data");
    const std::string where = file.where(info.path);
    noteConversion(report, where, info.dtype);
    return withComputeType(info.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        RowSparseTensor<T> rsp;
        rsp.shape = info.shape;
        try {
            checkRowSparseShapes(rsp.shape, indices, data);
            rsp.rows = readIndices(indices);
            rsp.values = readValues<T>(data);
            validateRowSparse(rsp);
        } catch (const Error &error) {
            rethrowWithContext(error, where);
        }
        return Tensor(Storage{std::move(rsp)});
    });
}

} // namespace

// The mask child is a dense bool dataset of the full shape, or the data's sparse encoding with
// bool values and the same index structure (torch.masked's rule for sparse masked tensors).
InputError maskShapeMisfit(const Shape &data, const Shape &mask)
{
    return errors::invariant("masked_tensor", "M1", "mask must have the data's shape " + shapeToString(data),
                             "got " + shapeToString(mask));
}

InputError maskPatternMisfit(Layout mask)
{
    return errors::invariant("masked_tensor", "M2", "a sparse mask must have the data's layout and index structure",
                             "mask is " + std::string(layoutName(mask)) + " with a different pattern");
}

namespace {

Mask alignMask(const Tensor &data, const Tensor &mask, const std::string &where)
{
    if (mask.shape() != data.shape())
        throw maskShapeMisfit(data.shape(), mask.shape());
    const auto dataLinear = data.visit([](const auto &t) { return storedLinearIndices(t); });
    const auto maskValues = mask.visit([](const auto &t) { return Buffer<double>(t.values.begin(), t.values.end()); });
    Mask aligned(dataLinear.size());
    if (mask.layout() == Layout::Dense) {
        std::int64_t specifiedInMask = 0;
        for (double m : maskValues)
            specifiedInMask += m != 0.0;
        std::int64_t specifiedStored = 0;
        for (std::size_t k = 0; k < dataLinear.size(); ++k) {
            aligned[k] = maskValues[at(dataLinear[k])] != 0.0;
            specifiedStored += aligned[k];
        }
        if (specifiedStored != specifiedInMask)
            throw errors::invariant("masked_tensor", "M3", "mask must not specify elements that data does not store",
                                    std::to_string(specifiedInMask - specifiedStored) + " specified elements are not stored");
        return aligned;
    }
    const auto maskLinear = mask.visit([](const auto &t) { return storedLinearIndices(t); });
    if (mask.layout() != data.layout() || maskLinear != dataLinear)
        throw maskPatternMisfit(mask.layout());
    for (std::size_t k = 0; k < aligned.size(); ++k)
        aligned[k] = maskValues[k] != 0.0;
    (void)where;
    return aligned;
}

// The layouts a hyperslab of rows reads: dense and CSR, and a masked_tensor of either (its
// mask is checked as it is read).
bool layoutReadsRows(const ElementInfo &element) { return element.layout == Layout::Dense || element.layout == Layout::Csr; }

// Whether a masked_tensor's rows are read with the same rows of its mask: a mask of the data's
// layout, dense or CSR. Each block's mask is then checked against the block's data as a whole read
// checks the whole (M2: the same pattern, row by row; a file with two defects, M2 in an early block
// and a broken index in a later one, is refused for the one its first block meets). A dense mask of
// sparse data is read whole: M3 counts what the whole mask specifies and the data does not store.
bool maskReadsRowsWith(const ElementInfo &data, const ElementInfo &mask)
{
    return !mask.masked && mask.layout == data.layout && layoutReadsRows(data);
}

} // namespace

ElementInfo requireMaskOf(const H5File &file, const ElementInfo &info, bool dataIsMasked)
{
    const std::string where = file.where(info.path);
    const auto maskInfo = describeElement(file, info.path + "/mask");
    if (!maskInfo)
        throw errors::mustBe(where, "have a bool child 'mask' (masked_tensor)", "none");
    if (maskInfo->dtype != DType::Bool && maskInfo->dtype != DType::UInt8)
        throw InputError(where + ": masked_tensor M4: mask must be bool (or uint8 0/1), but got "
                         + std::string(dtypeName(maskInfo->dtype)));
    if (dataIsMasked)
        throw errors::mustBe(where + "/data", "be unmasked", "a nested masked_tensor");
    return *maskInfo;
}

void requireMaskShapeOfParts(const H5File &file, const ElementInfo &info, const ElementInfo &mask)
{
    if (mask.shape == info.shape)
        return;
    readTensor(file, info.path + "/mask");
    rethrowWithContext(maskShapeMisfit(info.shape, mask.shape), file.where(info.path));
}

namespace {

// A dense mask of dense data of its shape, as the bits alignMask() would make of it (uint8
// values other than 0 set too): read as one byte each, not as values to be checked against
// a pattern (dense data stores every element, so M3 holds).
Mask readDenseMaskBits(const H5File &file, const ElementInfo &mask, std::optional<RowRange> rows)
{
    const auto view = viewDataset(file, mask.path);
    Shape selected = view.shape;
    if (rows)
        selected[0] = rows->end - rows->begin;
    requireAllocatable(numel(selected), 1, view.where, rows ? "a read of" : "declares");
    if (!rows)
        requireWithinBudget(bytesFor(numel(selected), 1), view.where, "reading it");
    Mask bits(at(numel(selected)));
    readValuesInto(view.dataset.id(), view.shape, view.dtype, view.where, rows, bits.data());
    for (auto &bit : bits)
        bit = bit != 0;
    return bits;
}

// `rows`: rows [begin, end) of data and mask, where maskReadsRowsWith says they can be.
Tensor readMasked(const H5File &file, const ElementInfo &info, ValidationReport *report, std::optional<RowRange> rows)
{
    const std::string where = file.where(info.path);
    Tensor data = readTensor(file, info.path + "/data", report, rows);
    const auto maskInfo = requireMaskOf(file, info, data.isMasked());
    if (rows && !maskReadsRowsWith(info, maskInfo))
        throw errors::mustBe(where + " row range read", "target a masked_tensor whose mask has its data's layout, dense or csr",
                             std::string(layoutName(maskInfo.layout)));
    if (data.layout() == Layout::Dense && maskInfo.layout == Layout::Dense && !maskInfo.masked && maskInfo.shape == info.shape
        && (rows || data.shape() == info.shape)) {
        data.setMask(readDenseMaskBits(file, maskInfo, rows));
        return data;
    }
    // Shapes are compared whole: a block of a misfit mask could still match the data's block.
    const bool maskMisfits = rows && maskInfo.shape != info.shape;
    const Tensor mask = maskMisfits ? Tensor() : readTensor(file, info.path + "/mask", nullptr, rows);
    try {
        if (maskMisfits) // what alignMask() says of the whole tensors
            throw maskShapeMisfit(info.shape, maskInfo.shape);
        data.setMask(alignMask(data, mask, where));
    } catch (const Error &error) {
        rethrowWithContext(error, where);
    }
    return data;
}

// A masked_tensor's part (its data or mask), described; none when it cannot be (the whole
// read says why).
std::optional<ElementInfo> describedPart(const H5File &file, const ElementInfo &element, const char *part)
{
    try {
        return describeElement(file, element.path + "/" + part);
    } catch (const Error &) {
        return std::nullopt;
    }
}
std::optional<ElementInfo> describedMask(const H5File &file, const ElementInfo &element)
{
    return describedPart(file, element, "mask");
}

} // namespace

bool readableByRows(const H5File &file, const ElementInfo &element)
{
    if (!layoutReadsRows(element))
        return false;
    if (!element.masked)
        return true;
    const auto mask = describedMask(file, element);
    return mask && maskReadsRowsWith(element, *mask);
}

Tensor readTensor(const H5File &file, const std::string &path, ValidationReport *report, std::optional<RowRange> rows)
{
    const ElementInfo info = requireElement(file, path);
    if (rows && !layoutReadsRows(info))
        throw errors::mustBe(file.where(info.path) + " row range read",
                             "target a dense or csr element, or a masked_tensor of one",
                             std::string(info.masked ? "a masked " : "") + std::string(layoutName(info.layout)));
    if (info.masked)
        return readMasked(file, info, report, rows);
    switch (info.layout) {
    case Layout::Dense:
        return readDense(file, info, report, rows);
    case Layout::Csr:
    case Layout::Csc:
        return readCompressed(file, info, report, rows);
    case Layout::Coo:
        return readCoo(file, info, report);
    case Layout::RowSparse:
        return readRowSparse(file, info, report);
    }
    throw InternalError("unknown layout");
}

namespace {

ElementInfo requireCoo(const H5File &file, const std::string &path)
{
    ElementInfo info = requireElement(file, path);
    if (info.masked || info.layout != Layout::Coo)
        throw errors::mustBe(file.where(info.path) + " entry range read", "target an unmasked coo element",
                             info.masked ? "masked_tensor" : std::string(layoutName(info.layout)));
    return info;
}

} // namespace

CooExtent describeCooEntries(const H5File &file, const std::string &path)
{
    const auto info = requireCoo(file, path);
    const auto indices = viewDataset(file, info.path + "/indices");
    if (indices.shape.size() != 2)
        return {}; // readCooEntries() reports it, as a whole read does
    return {static_cast<int>(indices.shape[0]), indices.shape[1]};
}

Tensor readCooEntries(const H5File &file, const std::string &path, RowRange entries, ValidationReport *report)
{
    return readCoo(file, requireCoo(file, path), report, entries);
}

CompressedOutline readCompressedOutline(const H5File &file, const std::string &path, ValidationReport *report)
{
    const auto info = requireElement(file, path);
    if (info.masked || (info.layout != Layout::Csr && info.layout != Layout::Csc))
        throw InternalError("readCompressedOutline: a csr or csc element");
    const auto parts = openCompressed(file, info, report);
    CompressedOutline outline{
        info.shape, info.layout == Layout::Csr ? CompressedAxis::Row : CompressedAxis::Column, {}, parts.where, parts.tag};
    // A whole read reads the three parts before it checks them: the types of the indices and
    // values are refused first, as there.
    outline.indptr = readIndices(parts.indptr);
    requireIntegerIndices(parts.indices);
    requireNumeric(parts.data.dtype, parts.data.where);
    try {
        validateCompressedOutline(parts.tag, outline.shape, outline.axis, outline.indptr, parts.indices.shape[0],
                                  parts.data.shape[0]);
    } catch (const Error &error) {
        rethrowWithContext(error, parts.where);
    }
    return outline;
}

Buffer<std::int64_t> readCompressedIndptr(const H5File &file, const std::string &path, RowRange pointers)
{
    const auto indptr = viewDataset(file, requireElement(file, path).path + "/indptr");
    if (indptr.shape.size() != 1)
        return {};
    const RowRange present{std::min(pointers.begin, indptr.shape[0]), std::min(pointers.end, indptr.shape[0])};
    return present.count() > 0 ? readIndices(indptr, present) : Buffer<std::int64_t>{};
}

Buffer<std::int64_t> readCompressedIndices(const H5File &file, const std::string &path, RowRange entries)
{
    const auto indices = viewDataset(file, requireElement(file, path).path + "/indices");
    if (indices.shape.size() != 1 || !entries.within(indices.shape[0]))
        throw InternalError("readCompressedIndices: entries of an element whose outline was read");
    return readIndices(indices, entries);
}

Tensor readCompressedSlices(const H5File &file, const std::string &path, const CompressedOutline &outline, RowRange slices)
{
    const auto info = requireElement(file, path);
    const auto parts = openCompressed(file, info, nullptr);
    const auto majors = static_cast<std::int64_t>(outline.indptr.size()) - 1;
    if (!slices.within(majors))
        throw InternalError("readCompressedSlices: slices within the outline's");
    const RowRange entries{outline.indptr[at(slices.begin)], outline.indptr[at(slices.end)]};
    return withComputeType(info.dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        CompressedTensor<T> c;
        c.shape = outline.shape;
        c.axis = outline.axis;
        (c.axis == CompressedAxis::Row ? c.shape[0] : c.shape[1]) = slices.count();
        c.indptr = Buffer<std::int64_t>(outline.indptr.begin() + slices.begin, outline.indptr.begin() + slices.end + 1);
        for (auto &p : c.indptr)
            p -= entries.begin;
        c.indices = readIndices(parts.indices, entries);
        c.values = readValues<T>(parts.data, entries);
        return Tensor(Storage{std::move(c)});
    });
}

Buffer<std::int64_t> readCooIndices(const H5File &file, const std::string &path, RowRange entries, std::int64_t dims)
{
    const auto info = requireCoo(file, path);
    const auto indices = viewDataset(file, info.path + "/indices");
    if (indices.shape.size() != 2 || dims < 1 || dims > indices.shape[0] || !entries.within(indices.shape[1]))
        throw InternalError("readCooIndices: entries of a COO element whose indices readCooEntries checked");
    requireWithinBudget(bytesFor(dims * entries.count(), sizeof(std::int64_t)), indices.where, "reading it");
    return readIndexColumns(indices, entries, dims);
}

bool rowSparseReadableByRows(const H5File &file, const ElementInfo &element)
{
    if (element.layout != Layout::RowSparse)
        return false;
    if (!element.masked)
        return true;
    const auto mask = describedMask(file, element);
    return mask && !mask->masked && mask->layout == Layout::RowSparse;
}

RowSparseRowReader::RowSparseRowReader(const H5File &file, const std::string &path, ValidationReport *report)
{
    const ElementInfo info = requireElement(file, path);
    if (!info.masked) {
        openStored(file, info, report);
        return;
    }
    // A masked_tensor: its data's rows, checked in the order a whole read checks them (readMasked).
    const auto dataInfo = requireElement(file, info.path + "/data");
    if (!dataInfo.masked)
        openStored(file, dataInfo, report);
    const auto maskInfo = requireMaskOf(file, info, dataInfo.masked);
    const std::string where = file.where(info.path); // m_where stays the data's, as a whole read names its reads
    if (maskInfo.masked || maskInfo.layout != Layout::RowSparse)
        throw errors::mustBe(where + " row range read", "target a masked_tensor whose mask is row_sparse",
                             maskInfo.masked ? "masked_tensor" : std::string(layoutName(maskInfo.layout)));
    auto mask = std::make_shared<RowSparseRowReader>(file, maskInfo.path); // its own checks, named by its path
    try {
        if (mask->m_shape != m_shape)
            throw maskShapeMisfit(m_shape, mask->m_shape);
        if (!std::ranges::equal(mask->m_rows, m_rows))
            throw maskPatternMisfit(Layout::RowSparse);
    } catch (const Error &error) {
        rethrowWithContext(error, where);
    }
    mask->m_rows = {}; // the data's: blocks find their stored rows there
    m_mask = std::move(mask);
}

void RowSparseRowReader::openStored(const H5File &file, const ElementInfo &info, ValidationReport *report)
{
    m_where = file.where(info.path);
    if (info.masked || info.layout != Layout::RowSparse)
        throw errors::mustBe(m_where + " row range read", "target a row_sparse element, or a masked_tensor of one",
                             info.masked ? "masked_tensor" : std::string(layoutName(info.layout)));
    const auto indices = viewDataset(file, info.path + "/indices");
    auto data = viewDataset(file, info.path + "/data");
    noteConversion(report, m_where, info.dtype);
    m_shape = info.shape;
    m_dtype = info.dtype;
    try {
        checkRowSparseShapes(m_shape, indices, data);
        m_rows = readIndices(indices);
        // Where a whole read reads the values (before the rows' checks and a mask's): their type
        // is refused here, not only when a block with stored rows reads them.
        requireNumeric(data.dtype, data.where);
        validateRowSparseRows(m_shape, m_rows);
    } catch (const Error &error) {
        rethrowWithContext(error, m_where);
    }
    m_data = std::move(data.dataset);
    m_dataShape = std::move(data.shape);
    m_dataDType = data.dtype;
    m_dataWhere = std::move(data.where);
}

Tensor RowSparseRowReader::readRows(RowRange rows) const
{
    silenceHdf5Errors();
    if (!rows.within(m_shape[0]))
        throw errors::mustBe(m_where + " row range", "lie within the tensor's rows", rows.text());
    // Indices are sorted: the stored rows in `rows` are one run of them, and of the data's rows.
    const auto first = std::lower_bound(m_rows.begin(), m_rows.end(), rows.begin);
    const auto last = std::lower_bound(first, m_rows.end(), rows.end);
    const RowRange stored{first - m_rows.begin(), last - m_rows.begin()};
    return withComputeType(m_dtype, [&](auto typeTag) {
        using T = decltype(typeTag);
        RowSparseTensor<T> rsp;
        rsp.shape = m_shape;
        rsp.shape[0] = rows.count();
        for (auto k = first; k != last; ++k)
            rsp.rows.push_back(*k - rows.begin);
        requireAllocatable(stored.count() * rsp.rowSize(), sizeof(T), m_where, "a read of");
        rsp.values = Buffer<T>(at(stored.count() * rsp.rowSize()));
        try {
            readValuesInto(m_data.id(), m_dataShape, m_dataDType, m_dataWhere, stored, rsp.values.data());
        } catch (const Error &error) {
            rethrowWithContext(error, m_where); // as a whole read names it
        }
        if (!m_mask)
            return Tensor(Storage{std::move(rsp)});
        // The mask's values of the same stored rows (its rows are the data's, checked once): a
        // byte each, 0 or 1 as alignMask makes them.
        Mask mask(rsp.values.size());
        try {
            readValuesInto(m_mask->m_data.id(), m_mask->m_dataShape, m_mask->m_dataDType, m_mask->m_dataWhere, stored,
                           mask.data());
        } catch (const Error &error) {
            rethrowWithContext(error, m_mask->m_where);
        }
        for (auto &specified : mask)
            specified = specified != 0;
        return Tensor(Storage{std::move(rsp)}, std::move(mask));
    });
}

DenseRowReader::DenseRowReader(const H5File &file, const std::string &path)
{
    auto view = viewDataset(file, path);
    m_dataset = std::move(view.dataset);
    m_shape = std::move(view.shape);
    m_dtype = view.dtype;
    m_where = std::move(view.where);
    if (m_shape.empty())
        throw errors::mustBe(m_where, "have rank >= 1 to be read by rows", "a 0-d dataset");
    m_raw = rawValuesOf(m_dataset.id());
}

template <class T>
void DenseRowReader::readRows(std::int64_t begin, std::int64_t end, T *into) const
{
    silenceHdf5Errors(); // it may run on a pipeline's I/O thread
    const RowRange rows{begin, end};
    if (!rows.within(m_shape[0]))
        throw errors::mustBe(m_where + " row range", "lie within the dataset's rows", rows.text());
    if (readsWithoutHdf5<T>()) {
        const auto rowBytes = numel(m_shape, 1, m_shape.size()) * static_cast<std::int64_t>(sizeof(T));
        readRawValues(*m_raw, begin * rowBytes, rows.count() * rowBytes, into, m_where);
        return;
    }
    readValuesInto(m_dataset.id(), m_shape, m_dtype, m_where, rows, into);
}

template <class T>
void DenseRowReader::readBox(RowRange rows, RowRange columns, T *into) const
{
    silenceHdf5Errors();
    if (m_shape.size() != 2 || !rows.within(m_shape[0]) || !columns.within(m_shape[1]))
        throw InternalError(m_where + ": box read outside a 2-d dataset");
    readValuesInto(m_dataset.id(), m_shape, m_dtype, m_where, rows, into, columns);
}

template void DenseRowReader::readRows<float>(std::int64_t, std::int64_t, float *) const;
template void DenseRowReader::readRows<double>(std::int64_t, std::int64_t, double *) const;
template void DenseRowReader::readRows<std::uint8_t>(std::int64_t, std::int64_t, std::uint8_t *) const;
template void DenseRowReader::readBox<float>(RowRange, RowRange, float *) const;
template void DenseRowReader::readBox<double>(RowRange, RowRange, double *) const;
template void DenseRowReader::readBox<std::uint8_t>(RowRange, RowRange, std::uint8_t *) const;

bool maskedReadableByBoxes(const H5File &file, const ElementInfo &element)
{
    if (!element.masked || element.layout != Layout::Dense || element.shape.size() != 2)
        return false;
    const auto data = describedPart(file, element, "data");
    const auto mask = describedMask(file, element);
    return data && data->layout == Layout::Dense && !data->masked && data->shape == element.shape && mask
           && mask->layout == Layout::Dense && !mask->masked && mask->shape == element.shape
           && (mask->dtype == DType::Bool || mask->dtype == DType::UInt8);
}

MaskedBoxReader::MaskedBoxReader(const H5File &file, const std::string &path)
    : m_data(file, path + "/data"), m_mask(file, path + "/mask")
{
}

template <class T>
void MaskedBoxReader::readBox(RowRange rows, RowRange columns, T *into, std::uint8_t *specified) const
{
    m_data.readBox(rows, columns, into);
    m_mask.readBox(rows, columns, specified);
    const auto count = rows.count() * columns.count();
    for (std::int64_t k = 0; k < count; ++k) {
        specified[k] = specified[k] != 0;
        if (!specified[k])
            into[k] = T{};
    }
}

template void MaskedBoxReader::readBox<float>(RowRange, RowRange, float *, std::uint8_t *) const;
template void MaskedBoxReader::readBox<double>(RowRange, RowRange, double *, std::uint8_t *) const;

namespace {
constexpr std::string_view kConverted = "converted "; // how a conversion notice begins
} // namespace

void noteConversion(ValidationReport *report, const std::string &where, DType stored)
{
    if (report && stored != DType::Float32 && stored != DType::Float64)
        report->add(Severity::Notice, "", where,
                    std::string(kConverted) + std::string(dtypeName(stored)) + " to "
                        + std::string(dtypeName(computeTypeFor(stored))));
}

void appendAllButConversions(ValidationReport &report, const ValidationReport &notes)
{
    for (const auto &f : notes.findings())
        if (!(f.invariant.empty() && f.detail.starts_with(kConverted)))
            report.add(f.severity, f.invariant, f.location, f.detail);
}

} // namespace sparsity::core
