// listAttributes: every attribute of an object as (name, type, value) text, whatever its type:
// numbers and strings (fixed and variable length) printed, long arrays and strings
// abbreviated, types with no text form (compound, reference, opaque) named and not shown,
// and nothing printed on stderr by HDF5 when a value cannot be named.
#include "core/io/h5_attribute_list.h"
#include "core/io/h5_attributes.h"
#include "core/io/h5_types.h"
#include "core/io/h5_writer.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

#include <QTemporaryDir>
#include <QTest>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <unistd.h>

using namespace sparsity;
using core::H5Handle;

class TestH5AttributeList : public QObject {
    Q_OBJECT

private slots:
    void init() { QVERIFY(m_dir.isValid()); }
    void numbersAndStringsArePrinted();
    void longValuesAreAbbreviated();
    void typesWithoutTextAreNamedNotShown();
    void rootGroupAndSparseGroup();
    void missingObjectIsInputError();
    void unnamedEnumValuePrintsNothing();

private:
    std::string path(const char *name) const { return m_dir.filePath(name).toStdString(); }
    QTemporaryDir m_dir;
};

namespace {

// An attribute of `fileType` and shape `dims` (empty: scalar) holding `data` (in `memType`).
void writeAttribute(hid_t object, const char *name, hid_t fileType, hid_t memType, std::vector<hsize_t> dims, const void *data)
{
    H5Handle space(dims.empty() ? H5Screate(H5S_SCALAR) : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr),
                   H5Sclose);
    H5Handle attr(H5Acreate2(object, name, fileType, space.id(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    QVERIFY(attr.isValid());
    QVERIFY(H5Awrite(attr.id(), memType, data) >= 0);
}

void writeFixedString(hid_t object, const char *name, std::size_t size, const std::string &value)
{
    H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.id(), size);
    H5Tset_strpad(type.id(), H5T_STR_NULLPAD);
    std::string padded = value;
    padded.resize(size, '\0');
    writeAttribute(object, name, type.id(), type.id(), {}, padded.data());
}

// A 1-d float64 dataset with no attributes (writeTensor would tag it with anndata's encoding).
H5Handle plainDataset(const core::H5File &file, const char *name)
{
    const hsize_t size = 2;
    H5Handle space(H5Screate_simple(1, &size, nullptr), H5Sclose);
    return H5Handle(H5Dcreate2(file.id(), name, H5T_IEEE_F64LE, space.id(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
}

// Name -> (type, value) of every listed attribute, in listing order.
std::vector<std::tuple<std::string, std::string, std::string>> rowsOf(const std::vector<core::AttributeText> &attributes)
{
    std::vector<std::tuple<std::string, std::string, std::string>> rows;
    for (const auto &a : attributes)
        rows.emplace_back(a.name, a.type, a.value);
    return rows;
}

const core::AttributeText &find(const std::vector<core::AttributeText> &attributes, const std::string &name)
{
    static const core::AttributeText missing{"(missing)", "", ""};
    for (const auto &a : attributes)
        if (a.name == name)
            return a;
    return missing;
}

} // namespace

void TestH5AttributeList::numbersAndStringsArePrinted()
{
    {
        auto file = core::H5File::create(path("a.h5"));
        const auto t = plainDataset(file, "/t");
        core::writeStringAttribute(t.id(), "vlen", "csr_matrix");
        writeFixedString(t.id(), "fixed_full", 10, "csr_matrix");
        writeFixedString(t.id(), "fixed_padded", 8, "abc");
        core::writeIntArrayAttribute(t.id(), "shape", {3, 4, 5});
        core::writeDoubleAttribute(t.id(), "tenth", 0.1);
        const float tenth = 0.1f;
        writeAttribute(t.id(), "tenth32", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, {}, &tenth);
        const std::uint8_t grid[6] = {0, 1, 2, 3, 4, 255};
        writeAttribute(t.id(), "grid", H5T_STD_U8LE, H5T_NATIVE_UINT8, {2, 3}, grid);
        const std::int16_t negative = -7;
        writeAttribute(t.id(), "negative", H5T_STD_I16BE, H5T_NATIVE_INT16, {}, &negative);
        const char *words[2] = {"a, b", "ü"};
        H5Handle vlen(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(vlen.id(), H5T_VARIABLE);
        H5Tset_cset(vlen.id(), H5T_CSET_UTF8);
        writeAttribute(t.id(), "words", vlen.id(), vlen.id(), {2}, words);
        const auto boolType = core::makeBoolType();
        const std::int8_t flags[2] = {1, 0};
        writeAttribute(t.id(), "flags", boolType.id(), boolType.id(), {2}, flags);
        core::writeIntArrayAttribute(t.id(), "zero_d_shape", {}); // null dataspace
    }
    const auto file = core::H5File::openRead(path("a.h5"));
    const auto rows = rowsOf(core::listAttributes(file, "/t"));
    using Row = std::tuple<std::string, std::string, std::string>;
    const std::vector<Row> expected{
        {"fixed_full", "string", "csr_matrix"},
        {"fixed_padded", "string", "abc"},
        {"flags", "bool [2]", "true, false"},
        {"grid", "uint8 [2 × 3]", "0, 1, 2, 3, 4, 255"},
        {"negative", "int16", "-7"},
        {"shape", "int64 [3]", "3, 4, 5"},
        {"tenth", "float64", "0.1"},
        {"tenth32", "float32", "0.1"},
        {"vlen", "string", "csr_matrix"},
        {"words", "string [2]", "\"a, b\", \"ü\""},
        {"zero_d_shape", "int64", "(empty)"},
    };
    QCOMPARE(rows.size(), expected.size());
    for (std::size_t i = 0; i < rows.size(); ++i)
        QVERIFY2(rows[i] == expected[i],
                 (std::get<0>(rows[i]) + ": " + std::get<1>(rows[i]) + " = " + std::get<2>(rows[i])).c_str());
}

void TestH5AttributeList::longValuesAreAbbreviated()
{
    {
        auto file = core::H5File::create(path("long.h5"));
        std::vector<std::int32_t> counts(1000);
        std::iota(counts.begin(), counts.end(), 1);
        writeAttribute(file.id(), "counts", H5T_STD_I32LE, H5T_NATIVE_INT32, {1000}, counts.data());
        std::vector<double> ten(10, 0.5);
        writeAttribute(file.id(), "ten", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {10}, ten.data());
        std::vector<double> eleven(11, 0.5);
        writeAttribute(file.id(), "eleven", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, {11}, eleven.data());
        // 999 ASCII bytes then "é" (2 bytes): the cut at 1000 bytes must not split it.
        core::writeStringAttribute(file.id(), "document", std::string(999, 'x') + "é" + std::string(3000, 'y'));
    }
    const auto file = core::H5File::openRead(path("long.h5"));
    const auto attributes = core::listAttributes(file, "/");
    QCOMPARE(find(attributes, "counts").type, std::string("int32 [1000]"));
    QCOMPARE(find(attributes, "counts").value, std::string("1, 2, 3, … (1000 values)"));
    QCOMPARE(find(attributes, "ten").value, std::string("0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5"));
    QCOMPARE(find(attributes, "eleven").value, std::string("0.5, 0.5, 0.5, … (11 values)"));
    QCOMPARE(find(attributes, "document").value, std::string(999, 'x') + "… (4001 bytes)");
}

void TestH5AttributeList::typesWithoutTextAreNamedNotShown()
{
    {
        auto file = core::H5File::create(path("odd.h5"));
        const auto t = plainDataset(file, "/t");
        struct Pair {
            double x;
            std::int32_t n;
        } pair{1.5, 2};
        H5Handle compound(H5Tcreate(H5T_COMPOUND, sizeof(Pair)), H5Tclose);
        H5Tinsert(compound.id(), "x", HOFFSET(Pair, x), H5T_NATIVE_DOUBLE);
        H5Tinsert(compound.id(), "n", HOFFSET(Pair, n), H5T_NATIVE_INT32);
        writeAttribute(t.id(), "pair", compound.id(), compound.id(), {}, &pair);
        hobj_ref_t reference{};
        QVERIFY(H5Rcreate(&reference, file.id(), "/", H5R_OBJECT, -1) >= 0);
        writeAttribute(t.id(), "root", H5T_STD_REF_OBJ, H5T_STD_REF_OBJ, {}, &reference);
        H5Handle opaque(H5Tcreate(H5T_OPAQUE, 4), H5Tclose);
        const char blob[4] = {1, 2, 3, 4};
        writeAttribute(t.id(), "blob", opaque.id(), opaque.id(), {}, blob);
        core::writeStringAttribute(t.id(), "readable", "yes"); // listed as usual among the others
    }
    const auto file = core::H5File::openRead(path("odd.h5"));
    const auto rows = rowsOf(core::listAttributes(file, "/t"));
    using Row = std::tuple<std::string, std::string, std::string>;
    const std::vector<Row> expected{{"blob", "opaque", "(not shown)"},
                                    {"pair", "compound", "(not shown)"},
                                    {"readable", "string", "yes"},
                                    {"root", "reference", "(not shown)"}};
    QVERIFY(rows == expected);
}

void TestH5AttributeList::rootGroupAndSparseGroup()
{
    {
        auto file = core::H5File::create(path("groups.h5"));
        core::writeStringAttribute(file.id(), "title", "run 7");
        core::writeTensor(
            file, "/csr",
            core::toLayout(core::Tensor(core::Storage{core::DenseTensor<float>{{2, 2}, {1, 0, 0, 2}}}), core::Layout::Csr));
    }
    const auto file = core::H5File::openRead(path("groups.h5"));
    const auto root = core::listAttributes(file, "/");
    QCOMPARE(root.size(), std::size_t{1});
    QCOMPARE(root[0].value, std::string("run 7"));
    const auto csr = core::listAttributes(file, "/csr");
    QCOMPARE(find(csr, "encoding-type").value, std::string("csr_matrix"));
    QCOMPARE(find(csr, "shape").type, std::string("int64 [2]"));
    QCOMPARE(find(csr, "shape").value, std::string("2, 2"));
    // A dataset inside the sparse group is an object too; it has none.
    QVERIFY(core::listAttributes(file, "/csr/indptr").empty());
}

void TestH5AttributeList::missingObjectIsInputError()
{
    {
        auto file = core::H5File::create(path("empty.h5"));
    }
    const auto file = core::H5File::openRead(path("empty.h5"));
    QVERIFY_THROWS_EXCEPTION(core::InputError, core::listAttributes(file, "/nothing/here"));
}

void TestH5AttributeList::unnamedEnumValuePrintsNothing()
{
    {
        auto file = core::H5File::create(path("enum.h5"));
        H5Handle colour(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose);
        std::int8_t red = 0, blue = 1;
        H5Tenum_insert(colour.id(), "RED", &red);
        H5Tenum_insert(colour.id(), "BLUE", &blue);
        const std::int8_t values[3] = {1, 0, 9}; // 9 names no member
        writeAttribute(file.id(), "colours", colour.id(), colour.id(), {3}, values);
    }
    const auto file = core::H5File::openRead(path("enum.h5"));
    // HDF5 reports the failed name lookup on its error stack; it must not reach stderr.
    std::fflush(stderr);
    const int saved = ::dup(2);
    const auto captured = path("stderr.txt");
    std::FILE *sink = std::fopen(captured.c_str(), "w");
    ::dup2(::fileno(sink), 2);
    const auto attributes = core::listAttributes(file, "/");
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::fclose(sink);
    QCOMPARE(attributes.size(), std::size_t{1});
    QCOMPARE(attributes[0].type, std::string("enum [3]"));
    QCOMPARE(attributes[0].value, std::string("BLUE, RED, (no member)"));
    std::ifstream in(captured);
    std::stringstream text;
    text << in.rdbuf();
    QCOMPARE(text.str(), std::string());
}

QTEST_MAIN(TestH5AttributeList)
#include "tst_h5_attribute_list.moc"
