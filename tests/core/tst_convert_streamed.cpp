// convert of a csr or row_sparse element into csr, coo, row_sparse or csc, of a coo whose
// rows ascend into csr, row_sparse, csc or dense, of any coo into coo, and of a masked_tensor (dense, csr and
// row_sparse data) into dense, csr, coo, row_sparse and csc, a block of rows at a time (convertFile; csc in
// column panels, a column larger than a panel a run per block), against
// the whole conversion it replaces (readTensor of the whole element,
// toLayout, writeTensor), byte for byte: every dataset and attribute of the element, and the
// notes. The inputs hold what a block could get wrong: csr rows with shuffled indices and
// duplicates (1e8 + 1 - 1e8, whose float sum depends on the order), stored zeros, a -0, NaN and
// infinities, empty rows and a full one; float32 and float64 values; row_sparse elements of 2
// and 3 dims with a stored row of zeros and a -0; coo elements of the csr's entries (columns
// shuffled within a row), the same coalesced, the same shuffled (rows going back: converted in
// bands of rows, each a scan of it), and a hybrid one with duplicate entries; each of them, and an
// empty one, into coo (copied a run of entries at a time); csc elements (each column's rows
// shuffled, with duplicates) into csr, coo, row_sparse and dense in bands of rows, and into csc a
// panel of columns at a time. Budgets of a few rows a block (under which a whole read is
// refused), of dozens, and the default (one block); under 4K and 2K the coo whose rows go back
// (a hybrid one, and one with a row heavier than a band) and the csc take dozens of bands and
// are spilled sorted by row first (core/io/row_spill.h), and a spilled band reader's bands are
// compared bit for bit with its scans' (and a spill that cannot be made is an IoError).
#include "core/io/coo_band_reader.h"
#include "core/io/csc_band_reader.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/io/row_counts.h"
#include "core/pipeline/convert_file.h"
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/row_sparse_tensor.h"
#include "core/tensor/tensor_ops.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <hdf5.h>
#include <limits>
#include <linux/magic.h>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <sys/statfs.h>

using namespace sparsity;

class TestConvertStreamed : public QObject {
    Q_OBJECT

private slots:
    void matchesWholeConversion_data();
    void matchesWholeConversion();
    void spilledBandsAreTheScannedOnes_data();
    void spilledBandsAreTheScannedOnes();
    void aSpillThatCannotBeMadeIsAnIoError();
    void aTmpdirInMemoryIsScannedNotSpilled();
    void rowCountsAreAVectorOfCounts();
    void aBadIndexIsTheWholeReadsFirst_data();
    void aBadIndexIsTheWholeReadsFirst();
    void aBadCscIndexIsTheWholeReadsFirst();
    void aBadMaskedCooIsTheWholeReadsRefusal_data();
    void aBadMaskedCooIsTheWholeReadsRefusal();
};

namespace {

// TMPDIR set to `folder` for its lifetime, then restored (or unset, as it was).
class TmpdirScope {
public:
    explicit TmpdirScope(const std::string &folder)
    {
        if (const char *before = std::getenv("TMPDIR"))
            m_before = before;
        ::setenv("TMPDIR", folder.c_str(), 1);
    }
    TmpdirScope(const TmpdirScope &) = delete;
    TmpdirScope &operator=(const TmpdirScope &) = delete;
    ~TmpdirScope()
    {
        if (m_before)
            ::setenv("TMPDIR", m_before->c_str(), 1);
        else
            ::unsetenv("TMPDIR");
    }

private:
    std::optional<std::string> m_before;
};

// A csr of `rows` x `columns`: each row's entries in shuffled order, about a tenth of its
// columns, with what a repair or a block boundary could change.
template <class T>
core::Tensor awkwardCsr(std::int64_t rows, std::int64_t columns, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> uniform(-2.0, 2.0);
    core::CompressedTensor<T> c;
    c.shape = {rows, columns};
    c.indptr.push_back(0);
    for (std::int64_t r = 0; r < rows; ++r) {
        std::vector<std::pair<std::int64_t, T>> entries;
        if (r % 13 != 5) // every 13th row empty
            for (std::int64_t j = 0; j < columns; ++j)
                if (r == 7 || rng() % 10 == 0) // row 7 full
                    entries.emplace_back(j, static_cast<T>(uniform(rng)));
        if (r % 17 == 3) { // duplicates summed in stored order
            entries.emplace_back(1, T(1e8));
            entries.emplace_back(1, T(1));
            entries.emplace_back(1, T(-1e8));
        }
        if (r % 19 == 2) { // stored zeros, a -0, specials
            entries.emplace_back(0, T(0));
            entries.emplace_back(2, T(-0.0));
            entries.emplace_back(3, std::numeric_limits<T>::quiet_NaN());
            entries.emplace_back(4, std::numeric_limits<T>::infinity());
        }
        std::shuffle(entries.begin(), entries.end(), rng);
        for (const auto &[j, v] : entries) {
            c.indices.push_back(j);
            c.values.push_back(v);
        }
        c.indptr.push_back(static_cast<std::int64_t>(c.indices.size()));
    }
    return core::Tensor(core::Storage{std::move(c)});
}

// awkwardCsr(columns, rows) read as the csc of rows x columns: each column's rows shuffled, with
// duplicates (summed in stored order), stored zeros, a -0, NaN and an infinity, empty columns.
template <class T>
core::Tensor awkwardCsc(std::int64_t rows, std::int64_t columns, unsigned seed)
{
    auto c = std::get<core::CompressedTensor<T>>(awkwardCsr<T>(columns, rows, seed).storage());
    c.shape = {rows, columns};
    c.axis = core::CompressedAxis::Column;
    return core::Tensor(core::Storage{std::move(c)});
}

// A row_sparse of `shape`: every third row stored, one of them all zeros, one holding a -0.
core::Tensor awkwardRowSparse(const core::Shape &shape, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
    core::RowSparseTensor<float> t;
    t.shape = shape;
    for (std::int64_t r = 1; r < shape[0]; r += 3)
        t.rows.push_back(r);
    for (std::size_t k = 0; k < t.rows.size(); ++k)
        for (std::int64_t j = 0; j < t.rowSize(); ++j)
            t.values.push_back(k == 2 ? 0.0f : k == 4 && j == 0 ? -0.0f : uniform(rng));
    return core::Tensor(core::Storage{std::move(t)});
}

// The entries of awkwardCsr as a coo, in the csr's order: rows ascending (what a coo read by
// rows needs), each row's columns shuffled, its duplicates, zeros and specials kept.
template <class T>
core::Tensor awkwardCoo(std::int64_t rows, std::int64_t columns, unsigned seed)
{
    const auto csr = std::get<core::CompressedTensor<T>>(awkwardCsr<T>(rows, columns, seed).storage());
    core::CooTensor<T> coo;
    coo.shape = csr.shape;
    coo.sparseDims = 2;
    coo.nnz = static_cast<std::int64_t>(csr.values.size());
    coo.values = csr.values;
    coo.indices.resize(static_cast<std::size_t>(2 * coo.nnz));
    for (std::int64_t r = 0; r < rows; ++r)
        for (auto k = csr.indptr[static_cast<std::size_t>(r)]; k < csr.indptr[static_cast<std::size_t>(r + 1)]; ++k) {
            coo.indices[static_cast<std::size_t>(k)] = r;
            coo.indices[static_cast<std::size_t>(coo.nnz + k)] = csr.indices[static_cast<std::size_t>(k)];
        }
    return core::Tensor(core::Storage{std::move(coo)});
}

// `coo`'s entries in a random order (duplicates' order among themselves too): rows going back.
core::Tensor shuffledEntries(const core::Tensor &coo, unsigned seed)
{
    auto t = std::get<core::CooTensor<float>>(coo.storage());
    const auto slot = static_cast<std::size_t>(t.denseSize()); // values an entry stores
    std::vector<std::int64_t> order(static_cast<std::size_t>(t.nnz));
    std::iota(order.begin(), order.end(), std::int64_t{0});
    std::shuffle(order.begin(), order.end(), std::mt19937(seed));
    auto shuffled = t;
    for (std::int64_t k = 0; k < t.nnz; ++k) {
        const auto from = order[static_cast<std::size_t>(k)];
        for (int d = 0; d < t.sparseDims; ++d)
            shuffled.indices[static_cast<std::size_t>(d * t.nnz + k)] = t.indices[static_cast<std::size_t>(d * t.nnz + from)];
        std::copy_n(t.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(from) * slot), slot,
                    shuffled.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(k) * slot));
    }
    shuffled.coalesced = false;
    return core::Tensor(core::Storage{std::move(shuffled)});
}

// A coo of rows x columns whose row `heavy` stores `copies` entries (duplicates of a few places,
// 1e8 + 1 - 1e8 among them) beside a few in every other row, shuffled: a row that takes more
// than a band, and more than a spill's bucket.
core::Tensor heavyRowCoo(std::int64_t rows, std::int64_t columns, std::int64_t heavy, std::int64_t copies, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
    core::CooTensor<float> coo;
    coo.shape = {rows, columns};
    coo.sparseDims = 2;
    std::vector<std::int64_t> r, c;
    for (std::int64_t row = 0; row < rows; ++row)
        for (std::int64_t n = row == heavy ? copies : 3; n > 0; --n) {
            r.push_back(row);
            c.push_back(static_cast<std::int64_t>(rng() % static_cast<unsigned>(row == heavy ? 5 : columns)));
            coo.values.push_back(uniform(rng));
        }
    for (const float v : {1e8f, 1.0f, -1e8f}) {
        r.push_back(heavy);
        c.push_back(columns - 1);
        coo.values.push_back(v);
    }
    coo.nnz = static_cast<std::int64_t>(r.size());
    coo.indices.assign(r.begin(), r.end());
    coo.indices.insert(coo.indices.end(), c.begin(), c.end());
    return shuffledEntries(core::Tensor(core::Storage{std::move(coo)}), seed + 1);
}

// A hybrid coo of `shape` (3-d, its first two dims sparse, a row of shape[2] values per entry):
// entries in ascending rows with duplicates (1e8 + 1 - 1e8 in one place) and a row of zeros.
core::Tensor hybridCoo(const core::Shape &shape, unsigned seed)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> uniform(-2.0f, 2.0f);
    core::CooTensor<float> coo;
    coo.shape = shape;
    coo.sparseDims = 2;
    std::vector<std::int64_t> rows, columns;
    for (std::int64_t r = 0; r < shape[0]; ++r)
        for (std::int64_t j = 0; j < shape[1]; ++j)
            for (auto copies = rng() % 4 == 0 ? 1 + rng() % 3 : 0; copies > 0; --copies) {
                rows.push_back(r);
                columns.push_back(j);
                for (std::int64_t v = 0; v < shape[2]; ++v)
                    coo.values.push_back(r == 5 ? 0.0f : uniform(rng));
            }
    for (const float v : {1e8f, 1.0f, -1e8f}) { // three entries of one place, last row
        rows.push_back(shape[0] - 1);
        columns.push_back(1);
        coo.values.insert(coo.values.end(), static_cast<std::size_t>(shape[2]), v);
    }
    coo.nnz = static_cast<std::int64_t>(rows.size());
    coo.indices.assign(rows.begin(), rows.end());
    coo.indices.insert(coo.indices.end(), columns.begin(), columns.end());
    return core::Tensor(core::Storage{std::move(coo)});
}

// `tensor` (unmasked) masked: about two thirds of what it stores specified, at random.
core::Tensor maskedOf(const core::Tensor &tensor, unsigned seed)
{
    std::mt19937 rng(seed);
    core::Mask mask(static_cast<std::size_t>(tensor.storedCount()));
    for (auto &bit : mask)
        bit = rng() % 3 != 0;
    return core::Tensor(tensor.storage(), std::move(mask));
}

// Every dataset under `path` (itself, or a group's members, nested) and every attribute, as bytes.
std::map<std::string, std::string> rawElement(const core::H5File &file, const std::string &path)
{
    std::map<std::string, std::string> out;
    const auto readAttributes = [&](hid_t object, const std::string &name) {
        const auto count = H5Aget_num_attrs(object);
        for (int a = 0; a < count; ++a) {
            const hid_t attribute = H5Aopen_idx(object, static_cast<unsigned>(a));
            char attributeName[256] = {};
            H5Aget_name(attribute, sizeof attributeName, attributeName);
            const hid_t type = H5Aget_type(attribute), space = H5Aget_space(attribute);
            const auto size =
                H5Tget_size(type) * static_cast<std::size_t>(std::max<hssize_t>(1, H5Sget_simple_extent_npoints(space)));
            std::string bytes(size, '\0');
            if (H5Tget_class(type) == H5T_STRING && H5Tis_variable_str(type) > 0) {
                char *text = nullptr;
                H5Aread(attribute, type, &text);
                bytes = text ? text : "";
                H5free_memory(text);
            } else {
                H5Aread(attribute, type, bytes.data());
            }
            out[name + "@" + attributeName] = bytes;
            H5Tclose(type);
            H5Sclose(space);
            H5Aclose(attribute);
        }
    };
    const auto readDataset = [&](const std::string &name) {
        const hid_t dataset = H5Dopen2(file.id(), name.c_str(), H5P_DEFAULT);
        const hid_t type = H5Dget_type(dataset), space = H5Dget_space(dataset);
        std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
        H5Sget_simple_extent_dims(space, dims.data(), nullptr);
        std::string shape;
        for (const auto d : dims)
            shape += std::to_string(d) + ",";
        std::string bytes(H5Tget_size(type) * static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)), '\0');
        if (!bytes.empty())
            H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
        out[name] = "class " + std::to_string(H5Tget_class(type)) + " size " + std::to_string(H5Tget_size(type)) + " shape "
                    + shape + " " + bytes;
        readAttributes(dataset, name);
        H5Tclose(type);
        H5Sclose(space);
        H5Dclose(dataset);
    };
    H5O_info_t info;
    H5Oget_info_by_name2(file.id(), path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT);
    if (info.type == H5O_TYPE_DATASET) {
        readDataset(path);
        return out;
    }
    const hid_t group = H5Gopen2(file.id(), path.c_str(), H5P_DEFAULT);
    readAttributes(group, path);
    H5G_info_t members;
    H5Gget_info(group, &members);
    for (hsize_t k = 0; k < members.nlinks; ++k) {
        char name[256] = {};
        H5Lget_name_by_idx(group, ".", H5_INDEX_NAME, H5_ITER_INC, k, name, sizeof name, H5P_DEFAULT);
        out.merge(rawElement(file, path + "/" + name)); // a masked_tensor's data and mask groups
    }
    H5Gclose(group);
    return out;
}

// Dataset `name` of `file` replaced by what `edit` makes of its bytes and dims (its type kept).
void rewriteDataset(core::H5File &file,
                    const std::string &name,
                    const std::function<void(std::string &, std::vector<hsize_t> &)> &edit)
{
    const hid_t dataset = H5Dopen2(file.id(), name.c_str(), H5P_DEFAULT);
    const hid_t type = H5Dget_type(dataset), space = H5Dget_space(dataset);
    std::vector<hsize_t> dims(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    std::string bytes(H5Tget_size(type) * static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)), '\0');
    H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    H5Sclose(space);
    H5Dclose(dataset);
    H5Ldelete(file.id(), name.c_str(), H5P_DEFAULT);
    edit(bytes, dims);
    const hid_t newSpace = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
    const hid_t rewritten = H5Dcreate2(file.id(), name.c_str(), type, newSpace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(rewritten, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data());
    H5Dclose(rewritten);
    H5Sclose(newSpace);
    H5Tclose(type);
}

// Whether `a` and `b` are the same coo or compressed tensor, bit for bit (NaN and -0 too).
bool sameBits(const core::Tensor &a, const core::Tensor &b)
{
    return std::visit(
        [&](const auto &x) {
            using X = std::decay_t<decltype(x)>;
            const auto *y = std::get_if<X>(&b.storage());
            if (!y || x.shape != y->shape || x.values.size() != y->values.size()
                || (!x.values.empty() // an empty vector's data() may be null, which memcmp must not get
                    && std::memcmp(x.values.data(), y->values.data(), x.values.size() * sizeof(x.values[0])) != 0))
                return false;
            if constexpr (requires { x.sparseDims; })
                return x.nnz == y->nnz && x.sparseDims == y->sparseDims && x.indices == y->indices && x.coalesced == y->coalesced;
            else if constexpr (requires { x.indptr; })
                return x.axis == y->axis && x.indptr == y->indptr && x.indices == y->indices;
            else
                return false;
        },
        a.storage());
}

// The elements every case converts, into `input`.
void writeInputs(const std::string &input)
{
    auto file = core::H5File::create(input);
    core::writeTensor(file, "/csr32", awkwardCsr<float>(700, 37, 1));
    core::writeTensor(file, "/csr64", awkwardCsr<double>(300, 90, 2));
    core::writeTensor(file, "/rows", awkwardRowSparse({500, 9}, 3));
    core::writeTensor(file, "/cube_rows", awkwardRowSparse({60, 4, 3}, 4));
    core::writeTensor(file, "/coo32", awkwardCoo<float>(700, 37, 5));
    core::writeTensor(file, "/coo64", awkwardCoo<double>(300, 90, 6));
    // Sorted and unique (stored zeros, -0 and specials kept): written into csr as read.
    core::writeTensor(
        file, "/coo_coalesced",
        core::Tensor(core::Storage{core::coalesce(std::get<core::CooTensor<float>>(awkwardCoo<float>(400, 50, 8).storage()))}));
    core::writeTensor(file, "/coo_hybrid", hybridCoo({80, 6, 4}, 7));
    core::writeTensor(file, "/coo_shuffled", shuffledEntries(awkwardCoo<float>(700, 37, 9), 10));
    core::writeTensor(file, "/coo_hybrid_shuffled", shuffledEntries(hybridCoo({80, 6, 4}, 21), 22));
    core::writeTensor(file, "/coo_heavy_row", heavyRowCoo(300, 20, 117, 2000, 23));
    core::writeTensor(file, "/csc32", awkwardCsc<float>(700, 37, 19));
    core::writeTensor(file, "/csc64", awkwardCsc<double>(300, 90, 20));
    core::CooTensor<double> empty;
    empty.shape = {5, 3};
    empty.sparseDims = 2;
    core::writeTensor(file, "/coo_empty", core::Tensor(core::Storage{std::move(empty)}));
    // Masked: dense data holding NaN, infinities, -0 and stored zeros, of 2 and 3 dims; csr
    // data (sorted: a masked csr's data and mask share one pattern); row_sparse data.
    core::writeTensor(file, "/masked32",
                      maskedOf(core::Tensor(core::Storage{core::toDenseAs<float>(awkwardCsr<float>(700, 37, 11))}), 12));
    auto cube = core::toDenseAs<double>(awkwardCsr<double>(60, 12, 13));
    cube.shape = {60, 4, 3};
    core::writeTensor(file, "/masked_cube", maskedOf(core::Tensor(core::Storage{std::move(cube)}), 14));
    core::writeTensor(file, "/masked_csr", maskedOf(core::toLayout(awkwardCsr<float>(500, 40, 15), core::Layout::Csr), 16));
    core::writeTensor(file, "/masked_rows", maskedOf(awkwardRowSparse({500, 9}, 17), 18));
    // coo data whose rows ascend (columns shuffled within a row, duplicates, specials), and a
    // hybrid one, with a coo mask of the same entries: read by rows, the mask's values of each
    // run of entries beside the data's.
    core::writeTensor(file, "/masked_coo", maskedOf(awkwardCoo<float>(700, 37, 24), 25));
    core::writeTensor(file, "/masked_coo_hybrid", maskedOf(hybridCoo({80, 6, 4}, 26), 27));
}

// The message a whole read of element `path` of `input` refuses it with (empty where it reads).
QString wholeReadRefusal(const std::string &input, const std::string &path)
{
    try {
        core::readTensor(core::H5File::openRead(input), path);
    } catch (const core::InputError &error) {
        return QString::fromUtf8(error.what());
    }
    return {};
}

// Converting all of `input` into each of `layouts` under `budget` (0: auto) is refused with a
// message that ends in `whole` (the whole read's), and leaves no `output`.
void expectConvertRefused(const std::string &input,
                          const std::string &output,
                          std::initializer_list<core::Layout> layouts,
                          qint64 budget,
                          const QString &whole)
{
    for (const auto layout : layouts) {
        core::ConvertRequest request;
        request.input = input;
        request.output = output;
        request.layout = layout;
        if (budget > 0)
            request.memoryLimit = budget;
        core::ValidationReport notes;
        try {
            core::convertFile(request, notes);
            QFAIL(qPrintable(QStringLiteral("converted into %1").arg(core::layoutName(layout).data())));
        } catch (const core::InputError &error) {
            QVERIFY2(QString::fromUtf8(error.what()).endsWith(whole), error.what());
        }
        QVERIFY(!QFile::exists(QString::fromStdString(output)));
    }
}

std::vector<std::string> notesOf(const core::ValidationReport &report)
{
    std::vector<std::string> notes;
    for (const auto &f : report.findings())
        notes.push_back(f.invariant + " | " + f.location + " | " + f.detail);
    return notes;
}

} // namespace

void TestConvertStreamed::matchesWholeConversion_data()
{
    QTest::addColumn<QString>("element");
    QTest::addColumn<int>("layout");
    QTest::addColumn<qint64>("budget"); // 0: auto
    const std::pair<const char *, std::vector<core::Layout>> elements[] = {
        {"/csr32", {core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/csr64", {core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/rows", {core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/cube_rows", {core::Layout::Coo, core::Layout::RowSparse}},
        {"/coo32", {core::Layout::Csr, core::Layout::RowSparse, core::Layout::Csc, core::Layout::Dense, core::Layout::Coo}},
        {"/coo64", {core::Layout::Csr, core::Layout::RowSparse, core::Layout::Csc, core::Layout::Dense, core::Layout::Coo}},
        {"/coo_coalesced", {core::Layout::Csr, core::Layout::RowSparse, core::Layout::Csc, core::Layout::Coo}},
        {"/coo_hybrid", {core::Layout::RowSparse, core::Layout::Dense, core::Layout::Coo}},
        {"/coo_shuffled", {core::Layout::Coo}}, // copied a run of entries at a time, rows going back or not
        {"/coo_empty", {core::Layout::Coo}},
        {"/masked32", {core::Layout::Dense, core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/masked_cube", {core::Layout::Dense, core::Layout::Coo, core::Layout::RowSparse}},
        {"/masked_csr", {core::Layout::Dense, core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/masked_rows", {core::Layout::Dense, core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/masked_coo", {core::Layout::Dense, core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Csc}},
        {"/masked_coo_hybrid", {core::Layout::Dense, core::Layout::Coo, core::Layout::RowSparse}},
    };
    for (const auto &[element, layouts] : elements)
        for (const auto layout : layouts)
            for (const qint64 budget : {qint64{2048}, qint64{64 << 10}, qint64{0}})
                // A masked coo into csc under 2K reads each block of two rows again for each of
                // 37 panels (12 s); under 64K its whole read does not fit either.
                if (std::string_view(element) != "/masked_coo" || layout != core::Layout::Csc || budget != 2048)
                    QTest::addRow("%s into %s, budget %lld", element, core::layoutName(layout).data(),
                                  static_cast<long long>(budget))
                        << QString(element) << static_cast<int>(layout) << budget;
    // A coo whose rows go back, in bands of rows: under 64K its whole conversion (about 240K) does
    // not fit and 5 to 9 bands do (past two, each one read of the spill it is first sorted into);
    // under 96K, a few more rows each.
    for (const auto layout : {core::Layout::Csr, core::Layout::RowSparse, core::Layout::Csc})
        for (const qint64 budget : {qint64{64 << 10}, qint64{96 << 10}, qint64{0}})
            QTest::addRow("/coo_shuffled into %s, budget %lld", core::layoutName(layout).data(), static_cast<long long>(budget))
                << QStringLiteral("/coo_shuffled") << static_cast<int>(layout) << budget;
    // A csc, in bands of rows (spilled, as above) when its whole conversion does not
    // fit: a canonical csr of each band's rows, its I7 repair told as a whole read tells it.
    // Into dense, each band held coalesced as the whole element is, and the blocks within it
    // densified from it.
    for (const char *element : {"/csc32", "/csc64"})
        for (const auto layout : {core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Dense})
            for (const qint64 budget : {qint64{64 << 10}, qint64{96 << 10}, qint64{0}})
                QTest::addRow("%s into %s, budget %lld", element, core::layoutName(layout).data(), static_cast<long long>(budget))
                    << QString(element) << static_cast<int>(layout) << budget;
    for (const qint64 budget : {qint64{64 << 10}, qint64{96 << 10}})
        QTest::addRow("/coo_shuffled into dense, budget %lld", static_cast<long long>(budget))
            << QStringLiteral("/coo_shuffled") << static_cast<int>(core::Layout::Dense) << budget;
    // Dozens of bands (under 4K and 2K: each about 20 and 10 values), sorted by row into a spill file first
    // (core/io/row_spill.h), each band then one read of it: a coo whose rows go back (a hybrid
    // one, and one whose heavy row fills buckets of its own), and a csc.
    const std::pair<const char *, std::vector<core::Layout>> spilled[] = {
        {"/coo_shuffled", {core::Layout::Csr, core::Layout::RowSparse, core::Layout::Csc, core::Layout::Dense}},
        {"/coo_hybrid_shuffled", {core::Layout::RowSparse, core::Layout::Dense}},
        {"/coo_heavy_row", {core::Layout::Csr, core::Layout::RowSparse, core::Layout::Dense}},
        {"/csc32", {core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Dense}},
        {"/csc64", {core::Layout::Csr, core::Layout::Dense}},
    };
    for (const auto &[element, layouts] : spilled)
        for (const auto layout : layouts)
            for (const qint64 budget : {qint64{4096}, qint64{2048}})
                QTest::addRow("%s into %s, budget %lld (spilled)", element, core::layoutName(layout).data(),
                              static_cast<long long>(budget))
                    << QString(element) << static_cast<int>(layout) << budget;
    // A csc into csc, a panel of columns at a time (under 2K, a column each), each canonicalized
    // as the whole read canonicalizes it.
    for (const auto &element : {QStringLiteral("/csc32"), QStringLiteral("/csc64")})
        for (const qint64 budget : {qint64{2048}, qint64{64 << 10}, qint64{0}})
            QTest::addRow("%s into csc, budget %lld", qPrintable(element), static_cast<long long>(budget))
                << element << static_cast<int>(core::Layout::Csc) << budget;
}

void TestConvertStreamed::matchesWholeConversion()
{
    QFETCH(QString, element);
    QFETCH(int, layout);
    QFETCH(qint64, budget);
    const auto path = element.toStdString();
    const auto target = static_cast<core::Layout>(layout);
    QTemporaryDir dir;
    const auto input = dir.filePath("in.h5").toStdString();
    writeInputs(input);
    // The whole conversion: the element read whole, converted, written.
    core::ValidationReport wholeNotes;
    const auto wholeOutput = dir.filePath("whole.h5").toStdString();
    {
        const auto in = core::H5File::openRead(input);
        auto out = core::H5File::create(wholeOutput);
        core::writeTensor(out, path, core::toLayout(core::readTensor(in, path, &wholeNotes), target));
    }
    core::ValidationReport blockNotes;
    core::ConvertRequest request;
    request.input = input;
    request.output = dir.filePath("blocks.h5").toStdString();
    request.layout = target;
    request.datasets = {path};
    if (budget > 0)
        request.memoryLimit = budget;
    const auto converted = core::convertFile(request, blockNotes);
    QCOMPARE(converted.size(), std::size_t{1});
    const auto whole = core::readTensor(core::H5File::openRead(wholeOutput), path);
    QCOMPARE(converted.front().storedAfter, whole.storedCount());
    QCOMPARE(notesOf(blockNotes), notesOf(wholeNotes));
    if (path.starts_with("/csr") || path.starts_with("/csc")) // the repair of shuffled and duplicated indices is told
        QVERIFY(std::any_of(wholeNotes.findings().begin(), wholeNotes.findings().end(),
                            [](const core::Finding &f) { return f.invariant.ends_with(" I7") && f.count > 0; }));
    const auto expected = rawElement(core::H5File::openRead(wholeOutput), path);
    const auto actual = rawElement(core::H5File::openRead(request.output), path);
    QVERIFY(expected.size() > 2);
    for (const auto &[name, bytes] : expected) {
        QVERIFY2(actual.count(name) == 1, name.c_str());
        QVERIFY2(actual.at(name) == bytes, name.c_str());
    }
    QCOMPARE(actual.size(), expected.size());
}

void TestConvertStreamed::spilledBandsAreTheScannedOnes_data()
{
    QTest::addColumn<QString>("element");
    QTest::addColumn<qint64>("memory"); // what the spill holds while it is built
    for (const char *element : {"/coo_shuffled", "/coo_hybrid_shuffled", "/coo_heavy_row", "/csc32", "/csc64"})
        for (const qint64 memory : {qint64{1}, qint64{4096}, qint64{1 << 20}}) // a record a bucket, a few, one bucket
            // newRow, not addRow: GCC's format check took `element` for a possible null.
            QTest::newRow((QByteArray(element) + ", " + QByteArray::number(memory) + " bytes").constData())
                << QString(element) << memory;
}

// A band reader spilled (RowBandReader::planReads past kMostScannedBands) gives, for any rows, the
// tensor its scans give, bit for bit: each row's entries in stored order, duplicates and the
// order-dependent sum 1e8 + 1 - 1e8 included. Bands of one row, of the heavy row alone, across
// buckets, empty, and all rows; and a spill of some rows only, past which the reader scans.
void TestConvertStreamed::spilledBandsAreTheScannedOnes()
{
    QFETCH(QString, element);
    QFETCH(qint64, memory);
    const auto path = element.toStdString();
    QTemporaryDir dir;
    const auto input = dir.filePath("in.h5").toStdString();
    writeInputs(input);
    const auto file = core::H5File::openRead(input);
    const auto open = [&]() -> std::unique_ptr<core::RowBandReader> {
        if (path.starts_with("/csc"))
            return std::make_unique<core::CscBandReader>(file, path);
        return std::make_unique<core::CooBandReader>(file, path);
    };
    const auto scanned = open();
    auto spilled = open();
    const auto rows = core::requireElement(file, path).shape[0];
    spilled->planReads({0, rows}, core::kMostScannedBands, memory);
    QVERIFY(!spilled->spilled()); // up to kMostScannedBands bands, each a scan
    spilled->planReads({0, rows}, core::kMostScannedBands + 1, memory);
    QVERIFY(spilled->spilled());
    std::vector<core::RowRange> bands = {{0, rows}, {0, 1}, {rows - 1, rows}, {rows / 2, rows / 2}, {3, rows - 3}};
    for (const auto &band : spilled->bandsOfEntries({0, rows}, 37, rows))
        bands.push_back(band);
    if (path == "/coo_heavy_row")
        bands.insert(bands.end(), {{117, 118}, {116, 119}});
    for (const auto &band : bands)
        QVERIFY2(sameBits(spilled->readRows(band), scanned->readRows(band)),
                 qPrintable(QStringLiteral("rows %1 to %2").arg(band.begin).arg(band.end)));
    // Some rows spilled: a band outside them is scanned.
    auto part = open();
    part->planReads({rows / 4, rows / 2}, core::kMostScannedBands + 1, memory);
    for (const core::RowRange band : {core::RowRange{rows / 4, rows / 2}, core::RowRange{rows / 4 + 1, rows / 3},
                                      core::RowRange{0, rows}, core::RowRange{rows / 2, rows}})
        QVERIFY(sameBits(part->readRows(band), scanned->readRows(band)));
}

// A spill file that cannot be made (TMPDIR a folder that does not exist) is an IoError (exit 3)
// naming the element and the folder, raised by planReads, before any band is read.
void TestConvertStreamed::aSpillThatCannotBeMadeIsAnIoError()
{
    QTemporaryDir dir;
    const auto input = dir.filePath("in.h5").toStdString();
    writeInputs(input);
    const auto file = core::H5File::openRead(input);
    core::CooBandReader reader(file, "/coo_shuffled");
    const auto missing = dir.filePath("no-such-folder").toStdString();
    const TmpdirScope scope(missing);
    try {
        reader.planReads({0, 700}, core::kMostScannedBands + 1, 4096);
        QFAIL("a spill into a missing folder was made");
    } catch (const core::IoError &error) {
        const std::string message = error.what();
        QVERIFY2(message.find("in.h5:/coo_shuffled") != std::string::npos && message.find(missing) != std::string::npos
                     && message.find("No such file or directory") != std::string::npos,
                 error.what());
    }
    QVERIFY(!reader.spilled());
}

// RowCounts gives each row's count, first entry and range sums as a plain vector of counts
// does: rows of 254, 255 and 256 entries (the byte's edge), thousands (its table of large rows),
// empty groups and a last group cut short; and it holds about a byte and an eighth a row.
void TestConvertStreamed::rowCountsAreAVectorOfCounts()
{
    for (const std::int64_t rows : {std::int64_t{0}, std::int64_t{1}, std::int64_t{64}, std::int64_t{1000}, std::int64_t{4099}}) {
        std::vector<std::int64_t> expected(static_cast<std::size_t>(rows), 0);
        std::mt19937_64 random(static_cast<std::uint64_t>(rows));
        core::RowCounts counts(rows);
        const auto add = [&](std::int64_t row, std::int64_t n) {
            for (std::int64_t i = 0; i < n; ++i)
                counts.add(row);
            expected[static_cast<std::size_t>(row)] += n;
        };
        if (rows > 0) {
            for (int i = 0; i < 5000; ++i) // most rows a few, in random order
                add(static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(std::min<std::int64_t>(rows, 700))), 1);
            add(rows - 1, 254);
        }
        if (rows >= 1000) {
            add(3, 255);
            add(130, 256);
            add(700, 4000);
        }
        counts.finish();
        QCOMPARE(counts.rows(), rows);
        std::int64_t first = 0;
        for (std::int64_t row = 0; row < rows; ++row) {
            QCOMPARE(counts.firstEntryOf(row), first);
            QCOMPARE(counts.of(row), expected[static_cast<std::size_t>(row)]);
            first += expected[static_cast<std::size_t>(row)];
        }
        QCOMPARE(counts.firstEntryOf(rows), first);
        for (int i = 0; i < 200 && rows > 0; ++i) {
            const auto a = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(rows + 1));
            const auto b = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(rows + 1));
            const core::RowRange range{std::min(a, b), std::max(a, b)};
            QCOMPARE(counts.in(range),
                     std::accumulate(expected.begin() + range.begin, expected.begin() + range.end, std::int64_t{0}));
        }
        QVERIFY(counts.heldBytes() <= core::RowCounts::bytesFor(rows) + 3 * 16 + 64);
    }
}

// TMPDIR on a tmpfs (/dev/shm): a spill there would be memory the budget does not see, so the
// reader reads its bands by scans instead, the same tensors, and notes why once in its report.
void TestConvertStreamed::aTmpdirInMemoryIsScannedNotSpilled()
{
    struct statfs fs {};
    if (::statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC)
        QSKIP("no tmpfs at /dev/shm here");
    QTemporaryDir dir;
    const auto input = dir.filePath("in.h5").toStdString();
    writeInputs(input);
    const auto file = core::H5File::openRead(input);
    core::ValidationReport report;
    core::CooBandReader reader(file, "/coo_shuffled", &report);
    const core::CooBandReader scanned(file, "/coo_shuffled");
    const TmpdirScope scope("/dev/shm");
    reader.planReads({0, 700}, core::kMostScannedBands + 1, 4096);
    reader.planReads({0, 700}, core::kMostScannedBands + 5, 4096); // said once
    QVERIFY(!reader.spilled());
    QCOMPARE(report.findings().size(), std::size_t{1});
    const auto &note = report.findings().front();
    QVERIFY2(
        note.location.find("in.h5:/coo_shuffled") != std::string::npos
            && note.detail.find("read in 3 bands of rows, each by a scan of it: not spilled sorted by row to /dev/shm, a tmpfs")
                   != std::string::npos,
        note.detail.c_str());
    for (const auto &band : reader.bandsOfEntries({0, 700}, 37, 700))
        QVERIFY(sameBits(reader.readRows(band), scanned.readRows(band)));
}

void TestConvertStreamed::aBadIndexIsTheWholeReadsFirst_data()
{
    QTest::addColumn<bool>("rowsAscend");
    QTest::addColumn<bool>("negativeFirstRow"); // else bad indices in dims 2 and 1
    QTest::addColumn<qint64>("budget");         // 0: auto
    for (const bool ascend : {true, false})
        for (const bool negative : {false, true})
            for (const qint64 budget : {qint64{64 << 10}, qint64{0}})
                QTest::addRow("rows %s%s, budget %lld", ascend ? "ascending" : "going back", negative ? ", the first -1" : "",
                              static_cast<long long>(budget))
                    << ascend << negative << budget;
}

// A 3-d coo with a bad index in dim 2 at its first entry and one in dim 1 far later: a whole
// read checks dim by dim, so it names dim 1's. Or its first row -1, the rows ascending after
// it. Read by rows or in bands, the same error, and no output.
void TestConvertStreamed::aBadIndexIsTheWholeReadsFirst()
{
    QFETCH(bool, rowsAscend);
    QFETCH(bool, negativeFirstRow);
    QFETCH(qint64, budget);
    QTemporaryDir dir;
    const auto input = dir.filePath("bad.h5").toStdString();
    {
        core::CooTensor<float> coo;
        coo.shape = {2000, 6, 5};
        coo.sparseDims = 3;
        coo.nnz = 20000;
        coo.indices.resize(3 * 20000);
        for (std::int64_t k = 0; k < coo.nnz; ++k) {
            coo.indices[static_cast<std::size_t>(k)] = rowsAscend ? k / 10 : (k * 7919) % 2000;
            coo.indices[static_cast<std::size_t>(coo.nnz + k)] = k % 6;
            coo.indices[static_cast<std::size_t>(2 * coo.nnz + k)] = k % 5;
            coo.values.push_back(static_cast<float>(k));
        }
        if (negativeFirstRow) { // rows still ascending: a whole read's C4 of dim 0
            coo.indices[0] = -1;
        } else {
            coo.indices[static_cast<std::size_t>(2 * coo.nnz)] = 5;     // dim 2, entry 0
            coo.indices[static_cast<std::size_t>(coo.nnz + 15000)] = 6; // dim 1, entry 15000
        }
        auto file = core::H5File::create(input);
        core::writeTensor(file, "/a", core::Tensor(core::Storage{std::move(coo)}));
    }
    const auto whole = wholeReadRefusal(input, "/a");
    QVERIFY2(whole.contains(negativeFirstRow ? QStringLiteral("indices[0, 0]=-1") : QStringLiteral("indices[1, 15000]=6")),
             qPrintable(whole));
    // Into row_sparse by rows or bands; into coo copied a run of entries at a time.
    expectConvertRefused(input, dir.filePath("out.h5").toStdString(), {core::Layout::RowSparse, core::Layout::Coo}, budget,
                         whole);
}

// A csc with two bad row indices, converted in bands or in column panels under 64K: the whole
// read's error (the first in entry order, I6), and no output.
void TestConvertStreamed::aBadCscIndexIsTheWholeReadsFirst()
{
    QTemporaryDir dir;
    const auto input = dir.filePath("bad.h5").toStdString();
    {
        auto csc = std::get<core::CompressedTensor<float>>(awkwardCsc<float>(700, 37, 21).storage());
        csc.indices[500] = 900;
        csc.indices[2000] = -1;
        auto file = core::H5File::create(input);
        core::writeTensor(file, "/c", core::Tensor(core::Storage{std::move(csc)}));
    }
    const auto whole = wholeReadRefusal(input, "/c");
    QVERIFY2(whole.contains(QStringLiteral("CSC I6")) && whole.contains(QStringLiteral("indices[500]=900")), qPrintable(whole));
    // In bands into a row layout or dense; into csc, a panel of columns at a time.
    expectConvertRefused(input, dir.filePath("out.h5").toStdString(),
                         {core::Layout::Csr, core::Layout::Coo, core::Layout::RowSparse, core::Layout::Dense, core::Layout::Csc},
                         64 << 10, whole);
}

void TestConvertStreamed::aBadMaskedCooIsTheWholeReadsRefusal_data()
{
    QTest::addColumn<QString>("defect");
    QTest::addColumn<QString>("expected"); // in the whole read's message
    QTest::newRow("the mask's column differs late") << QStringLiteral("mask column") << QStringLiteral("masked_tensor M2");
    QTest::newRow("the mask's column out of range") << QStringLiteral("mask index") << QStringLiteral("/m/mask: ");
    QTest::newRow("the data's column out of range") << QStringLiteral("data index") << QStringLiteral("/m/data: ");
    QTest::newRow("the mask one entry short") << QStringLiteral("mask short") << QStringLiteral("masked_tensor M2");
}

// A masked_tensor of coo data and mask whose rows ascend, with one defect: a whole read's
// refusal (the data's checks, then the mask's own, then M2: the same indices), and the same one
// from a conversion by rows under 64K, into csr and dense, with no output.
void TestConvertStreamed::aBadMaskedCooIsTheWholeReadsRefusal()
{
    QFETCH(QString, defect);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const auto input = dir.filePath("bad.h5").toStdString();
    {
        auto file = core::H5File::create(input);
        core::writeTensor(file, "/m", maskedOf(awkwardCoo<float>(700, 37, 28), 29));
        // A column index late in the data or mask changed, or the mask's last entry dropped.
        const auto part = defect.startsWith("mask") ? std::string("/m/mask") : std::string("/m/data");
        rewriteDataset(file, part + "/indices", [&](std::string &bytes, std::vector<hsize_t> &dims) {
            auto *indices = reinterpret_cast<std::int64_t *>(bytes.data());
            const auto entries = static_cast<std::int64_t>(dims[1]);
            auto &column = indices[entries + entries * 9 / 10];
            if (defect == "mask column")
                column = (column + 1) % 37;
            else if (defect == "mask index")
                column = 37;
            else if (defect == "data index")
                column = 40;
            if (defect != "mask short")
                return;
            std::string shorter;
            for (std::int64_t d = 0; d < 2; ++d)
                shorter.append(bytes, static_cast<std::size_t>(d * entries * 8), static_cast<std::size_t>((entries - 1) * 8));
            bytes = std::move(shorter);
            dims[1] -= 1;
        });
        if (defect == "mask short")
            rewriteDataset(file, "/m/mask/values", [](std::string &bytes, std::vector<hsize_t> &dims) {
                bytes.resize(bytes.size() / dims[0] * (dims[0] - 1));
                dims[0] -= 1;
            });
    }
    const auto whole = wholeReadRefusal(input, "/m");
    QVERIFY2(whole.contains(expected), qPrintable(whole));
    expectConvertRefused(input, dir.filePath("out.h5").toStdString(), {core::Layout::Csr, core::Layout::Dense}, 64 << 10, whole);
}

QTEST_GUILESS_MAIN(TestConvertStreamed)
#include "tst_convert_streamed.moc"
