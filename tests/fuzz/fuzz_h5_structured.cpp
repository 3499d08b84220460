// libFuzzer target: the HDF5 decoders fed well-formed files with fuzzed contents.
//
// The input bytes drive a generator that writes, through libhdf5, an in-memory file holding
// elements of every encoding the reader knows (docs/HDF5_ENCODINGS.md): members present or
// missing, of any numeric type (or a string, or a group), any rank and small extents, index
// arrays either consistent or broken in one place, shape attributes of any length and sign,
// encoding tags right or wrong, fixed or variable-length strings. The file's image is then
// opened with H5File::openImage and goes through runDecoders (decoder_workload.h).
//
// libhdf5 itself only ever reads a file it wrote, so every finding is in what our decoders
// make of the contents: the part of the input our code controls. (Raw images, which corrupt
// libhdf5's own metadata, are fuzz_h5_decoders' job; see docs/TESTING.md.)
#include "core/io/h5_handle.h"
#include "core/io/h5_types.h"
#include "core/util/errors.h"
#include "tests/fuzz/decoder_workload.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fuzzer/FuzzedDataProvider.h>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace {

using sparsity::core::H5File;
using sparsity::core::H5Handle;

constexpr int kMaxElements = 4;
constexpr hsize_t kMaxExtent = 6;

class Generator {
public:
    explicit Generator(FuzzedDataProvider &in) : m_in(in) {}

    // The file image, or empty when libhdf5 refused to write what was asked (never expected).
    std::vector<std::byte> image()
    {
        H5Handle fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
        H5Pset_fapl_core(fapl.id(), 64 * 1024, 0); // in memory only
        H5Handle fcpl(H5Pcreate(H5P_FILE_CREATE), H5Pclose);
        if (m_in.ConsumeBool()) // as core/io/h5_writer writes
            H5Pset_link_creation_order(fcpl.id(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
        H5Handle file(H5Fcreate("fuzz-structured.h5", H5F_ACC_TRUNC, fcpl.id(), fapl.id()), H5Fclose);
        if (!file.isValid())
            return {};
        const int count = m_in.ConsumeIntegralInRange(1, kMaxElements);
        for (int k = 0; k < count && m_in.remaining_bytes() > 0; ++k) {
            hid_t parent = file.id();
            H5Handle nested;
            if (m_in.ConsumeBool()) {
                nested = H5Handle(H5Gcreate2(file.id(), ("g" + std::to_string(k)).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                                  H5Gclose);
                parent = nested.id();
            }
            element(parent, "e" + std::to_string(k), /*depth=*/0);
        }
        H5Fflush(file.id(), H5F_SCOPE_GLOBAL);
        const ssize_t size = H5Fget_file_image(file.id(), nullptr, 0);
        if (size <= 0)
            return {};
        std::vector<std::byte> bytes(static_cast<std::size_t>(size));
        if (H5Fget_file_image(file.id(), bytes.data(), bytes.size()) != size)
            return {};
        return bytes;
    }

private:
    enum class Kind { Array, Csr, Csc, Coo, RowSparse, Masked, TenX, H5Sparse, PlainGroup, kCount };

    void element(hid_t parent, const std::string &name, int depth)
    {
        const auto kind = static_cast<Kind>(m_in.ConsumeIntegralInRange(0, static_cast<int>(Kind::kCount) - 1));
        switch (kind) {
        case Kind::Array: {
            H5Handle dataset = randomDataset(parent, name, randomShape(0, 3));
            if (dataset.isValid() && m_in.ConsumeBool())
                tag(dataset.id(), "array");
            return;
        }
        case Kind::Csr:
        case Kind::Csc:
        case Kind::TenX:
        case Kind::H5Sparse:
            compressed(parent, name, kind);
            return;
        case Kind::Coo:
            coo(parent, name);
            return;
        case Kind::RowSparse:
            rowSparse(parent, name);
            return;
        case Kind::Masked:
            masked(parent, name, depth);
            return;
        case Kind::PlainGroup:
        case Kind::kCount:
            if (depth < 2) {
                H5Handle group = makeGroup(parent, name);
                element(group.id(), "child", depth + 1);
            }
            return;
        }
    }

    // --- values ---

    // Small numbers mostly (valid indices and extents), now and then an extreme.
    std::int64_t value()
    {
        static constexpr std::array<std::int64_t, 8> extremes{-1,
                                                              std::numeric_limits<std::int64_t>::min(),
                                                              std::numeric_limits<std::int64_t>::max(),
                                                              std::numeric_limits<std::int32_t>::max(),
                                                              std::int64_t{1} << 31,
                                                              std::int64_t{1} << 40,
                                                              255,
                                                              -129};
        const auto pick = m_in.ConsumeIntegral<std::uint8_t>();
        if (pick < 240)
            return static_cast<std::int64_t>(pick % 9) - 1;
        return extremes[pick % extremes.size()];
    }

    std::vector<hsize_t> randomShape(int minRank, int maxRank)
    {
        std::vector<hsize_t> dims(static_cast<std::size_t>(m_in.ConsumeIntegralInRange(minRank, maxRank)));
        for (auto &d : dims)
            d = m_in.ConsumeIntegralInRange<hsize_t>(0, kMaxExtent);
        return dims;
    }

    static std::size_t count(const std::vector<hsize_t> &dims)
    {
        std::size_t n = 1;
        for (auto d : dims)
            n *= d;
        return n;
    }

    // A file type for a member: mostly what the encodings use, sometimes anything numeric,
    // h5py's bool, or a string (never numeric, so refused).
    H5Handle fileType(hid_t preferred)
    {
        static const std::array<hid_t, 10> numeric{H5T_STD_I8LE,  H5T_STD_U8LE,  H5T_STD_I16LE,  H5T_STD_I32LE,  H5T_STD_I64LE,
                                                   H5T_STD_U64LE, H5T_STD_I32BE, H5T_IEEE_F32LE, H5T_IEEE_F64LE, H5T_IEEE_F64BE};
        const auto pick = m_in.ConsumeIntegralInRange(0, 15);
        if (pick < 8)
            return H5Handle(H5Tcopy(preferred), H5Tclose);
        if (pick < 13)
            return H5Handle(H5Tcopy(numeric[static_cast<std::size_t>(m_in.ConsumeIntegralInRange<int>(0, 9))]), H5Tclose);
        if (pick < 15)
            return sparsity::core::makeBoolType();
        H5Handle text(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(text.id(), 4);
        return text;
    }

    H5Handle dataset(hid_t parent,
                     const std::string &name,
                     const std::vector<hsize_t> &dims,
                     hid_t type,
                     const std::vector<std::int64_t> &values)
    {
        H5Handle space(dims.empty() ? H5Screate(H5S_SCALAR)
                                    : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                       H5Sclose);
        H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
        // Chunked with shuffle + deflate now and then, as `--gzip` writes.
        if (!dims.empty() && count(dims) > 0 && m_in.ConsumeBool()) {
            H5Pset_chunk(dcpl.id(), static_cast<int>(dims.size()), dims.data());
            H5Pset_shuffle(dcpl.id());
            H5Pset_deflate(dcpl.id(), 1);
        }
        H5Handle d(H5Dcreate2(parent, name.c_str(), type, space.id(), H5P_DEFAULT, dcpl.id(), H5P_DEFAULT), H5Dclose);
        if (!d.isValid() || values.empty())
            return d;
        if (sparsity::core::isH5Bool(type)) {
            std::vector<std::uint8_t> bytes(values.size());
            for (std::size_t k = 0; k < values.size(); ++k)
                bytes[k] = static_cast<std::uint8_t>(values[k] & 1);
            H5Dwrite(d.id(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
        } else if (H5Tget_class(type) == H5T_FLOAT && m_in.ConsumeBool()) {
            std::vector<double> reals(values.begin(), values.end());
            if (!reals.empty() && m_in.ConsumeBool())
                reals[m_in.ConsumeIntegralInRange<std::size_t>(0, reals.size() - 1)] =
                    m_in.PickValueInArray({std::nan(""), HUGE_VAL, -0.0, 1e-320});
            H5Dwrite(d.id(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, reals.data());
        } else if (H5Tget_class(type) != H5T_STRING) {
            // HDF5 clips what the file type cannot hold (-1 into uint8 is 0).
            H5Dwrite(d.id(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
        }
        return d;
    }

    H5Handle randomDataset(hid_t parent, const std::string &name, const std::vector<hsize_t> &dims)
    {
        std::vector<std::int64_t> values(count(dims));
        for (auto &v : values)
            v = value();
        const H5Handle type = fileType(H5T_IEEE_F32LE);
        return dataset(parent, name, dims, type.id(), values);
    }

    // A member the encoding needs: usually as given, sometimes one entry broken, sometimes
    // with another type, rank or length, sometimes missing altogether.
    void member(hid_t group, const char *name, std::vector<std::int64_t> values, hid_t preferred, std::vector<hsize_t> dims = {})
    {
        const auto fate = m_in.ConsumeIntegralInRange(0, 15);
        if (fate == 0)
            return; // missing
        if (fate == 1) {
            randomDataset(group, name, randomShape(0, 2));
            return;
        }
        if (dims.empty())
            dims = {values.size()};
        if (fate == 2 && !values.empty())
            values[m_in.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1)] = value();
        if (fate == 3 && !values.empty()) { // one entry short, and the dims with it
            values.pop_back();
            dims = {values.size()};
        }
        const H5Handle type = fileType(preferred);
        dataset(group, name, dims, type.id(), values);
    }

    // --- attributes ---

    void stringAttribute(hid_t object, const char *name, const std::string &text)
    {
        H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
        const bool variable = m_in.ConsumeBool(); // h5py's str vs numpy.bytes_
        H5Tset_size(type.id(), variable ? H5T_VARIABLE : std::max<std::size_t>(text.size(), 1));
        H5Tset_cset(type.id(), variable ? H5T_CSET_UTF8 : H5T_CSET_ASCII);
        H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
        H5Handle attr(H5Acreate2(object, name, type.id(), space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        const char *pointer = text.c_str();
        if (attr.isValid())
            H5Awrite(attr.id(), type.id(), variable ? static_cast<const void *>(&pointer) : text.c_str());
    }

    void tag(hid_t object, const std::string &encoding)
    {
        static const std::array<const char *, 8> others{"array",      "csr_matrix",    "csc_matrix", "coo_tensor",
                                                        "row_sparse", "masked_tensor", "dataframe",  ""};
        const std::string name = m_in.ConsumeIntegralInRange(0, 7) == 0 ? m_in.PickValueInArray(others) : encoding;
        stringAttribute(object, "encoding-type", name);
        if (m_in.ConsumeBool())
            stringAttribute(object, "encoding-version", "0.1.0");
    }

    // The shape attribute: usually `shape`, sometimes another length, a float type or absent.
    void shapeAttribute(hid_t object, const char *name, std::vector<std::int64_t> shape)
    {
        const auto fate = m_in.ConsumeIntegralInRange(0, 11);
        if (fate == 0)
            return;
        if (fate == 1)
            shape.resize(static_cast<std::size_t>(m_in.ConsumeIntegralInRange(0, 3)), value());
        if (fate == 2 && !shape.empty())
            shape[m_in.ConsumeIntegralInRange<std::size_t>(0, shape.size() - 1)] = value();
        const hsize_t length = shape.size();
        H5Handle space(length == 0 ? H5Screate(H5S_NULL) : H5Screate_simple(1, &length, nullptr), H5Sclose);
        const hid_t type = fate == 3 ? H5T_IEEE_F64LE : H5T_STD_I64LE;
        H5Handle attr(H5Acreate2(object, name, type, space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
        if (attr.isValid() && length > 0)
            H5Awrite(attr.id(), H5T_NATIVE_INT64, shape.data());
    }

    H5Handle makeGroup(hid_t parent, const std::string &name)
    {
        return H5Handle(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    }

    // --- encodings ---

    // Valid compressed structure over `outer` rows of `inner` entries: indptr, indices.
    std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> compressedPattern(std::int64_t outer, std::int64_t inner)
    {
        std::vector<std::int64_t> indptr{0}, indices;
        for (std::int64_t row = 0; row < outer; ++row) {
            const auto stored = inner == 0 ? 0 : m_in.ConsumeIntegralInRange<std::int64_t>(0, inner);
            for (std::int64_t k = 0; k < stored; ++k) // unsorted and duplicated now and then (CSR I7)
                indices.push_back(m_in.ConsumeIntegralInRange<std::int64_t>(0, inner - 1));
            indptr.push_back(static_cast<std::int64_t>(indices.size()));
        }
        return {indptr, indices};
    }

    std::vector<std::int64_t> values(std::size_t n)
    {
        std::vector<std::int64_t> v(n);
        for (auto &x : v)
            x = value();
        return v;
    }

    void compressed(hid_t parent, const std::string &name, Kind kind)
    {
        const auto rows = m_in.ConsumeIntegralInRange<std::int64_t>(0, kMaxExtent);
        const auto cols = m_in.ConsumeIntegralInRange<std::int64_t>(0, kMaxExtent);
        const bool byColumn = kind == Kind::Csc || kind == Kind::TenX;
        const auto [indptr, indices] = compressedPattern(byColumn ? cols : rows, byColumn ? rows : cols);
        H5Handle group = makeGroup(parent, name);
        switch (kind) {
        case Kind::TenX:
            member(group.id(), "shape", {rows, cols}, H5T_STD_I32LE);
            break;
        case Kind::H5Sparse:
            stringAttribute(group.id(), "h5sparse_format", m_in.ConsumeIntegralInRange(0, 7) == 0 ? "coo" : "csr");
            shapeAttribute(group.id(), "h5sparse_shape", {rows, cols});
            break;
        default:
            tag(group.id(), kind == Kind::Csr ? "csr_matrix" : "csc_matrix");
            shapeAttribute(group.id(), "shape", {rows, cols});
        }
        member(group.id(), "data", values(indices.size()), H5T_IEEE_F32LE);
        member(group.id(), "indices", indices, m_in.ConsumeBool() ? H5T_STD_I32LE : H5T_STD_I64LE);
        member(group.id(), "indptr", indptr, H5T_STD_I64LE);
    }

    void coo(hid_t parent, const std::string &name)
    {
        const auto shape = randomShape(0, 3);
        const auto sparseDims = m_in.ConsumeIntegralInRange<std::size_t>(0, shape.size());
        const auto nnz = m_in.ConsumeIntegralInRange<hsize_t>(0, kMaxExtent);
        std::vector<std::int64_t> indices;
        for (std::size_t d = 0; d < sparseDims; ++d)
            for (hsize_t k = 0; k < nnz; ++k)
                indices.push_back(
                    shape[d] == 0 ? 0 : m_in.ConsumeIntegralInRange<std::int64_t>(0, static_cast<std::int64_t>(shape[d]) - 1));
        std::vector<hsize_t> valueDims{nnz};
        valueDims.insert(valueDims.end(), shape.begin() + static_cast<std::ptrdiff_t>(sparseDims), shape.end());
        H5Handle group = makeGroup(parent, name);
        tag(group.id(), "coo_tensor");
        shapeAttribute(group.id(), "shape", {shape.begin(), shape.end()});
        member(group.id(), "indices", indices, H5T_STD_I64LE, {sparseDims, nnz});
        member(group.id(), "values", values(count(valueDims)), H5T_IEEE_F64LE, valueDims);
    }

    void rowSparse(hid_t parent, const std::string &name)
    {
        const auto shape = randomShape(1, 3);
        std::vector<std::int64_t> rows;
        for (hsize_t r = 0; r < shape[0]; ++r)
            if (m_in.ConsumeBool())
                rows.push_back(static_cast<std::int64_t>(r));
        std::vector<hsize_t> dataDims{rows.size()};
        dataDims.insert(dataDims.end(), shape.begin() + 1, shape.end());
        H5Handle group = makeGroup(parent, name);
        tag(group.id(), "row_sparse");
        shapeAttribute(group.id(), "shape", {shape.begin(), shape.end()});
        member(group.id(), "indices", rows, H5T_STD_I64LE);
        member(group.id(), "data", values(count(dataDims)), H5T_IEEE_F32LE, dataDims);
    }

    // Dense data with a bool mask of its shape, or any element as data and any as mask.
    void masked(hid_t parent, const std::string &name, int depth)
    {
        H5Handle group = makeGroup(parent, name);
        tag(group.id(), "masked_tensor");
        if (m_in.ConsumeBool() || depth >= 2) {
            const auto dims = randomShape(0, 3);
            member(group.id(), "data", values(count(dims)), H5T_IEEE_F32LE, dims);
            H5Handle boolType = sparsity::core::makeBoolType();
            member(group.id(), "mask", values(count(dims)), boolType.id(), dims);
            return;
        }
        element(group.id(), "data", depth + 1);
        element(group.id(), "mask", depth + 1);
    }

    FuzzedDataProvider &m_in;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    sparsity::core::silenceHdf5Errors(); // what we write wrong on purpose fails quietly
    FuzzedDataProvider in(data, size);
    const auto image = Generator(in).image();
    if (image.empty())
        return -1;
    try {
        const H5File file = H5File::openImage(image, "fuzz-structured.h5");
        sparsity::fuzz::runDecoders(file);
    } catch (const sparsity::core::Error &) {
        // runDecoders catches the decoders' refusals; only the open may get here.
    }
    return 0;
}
