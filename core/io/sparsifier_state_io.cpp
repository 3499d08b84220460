#include "core/io/sparsifier_state_io.h"

#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/tensor/conversions.h"
#include "core/tensor/tensor_ops.h"
#include "core/util/errors.h"

namespace sparsity::core {
namespace {

H5Handle createGroup(H5File &file, const std::string &path)
{
    H5Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose);
    H5Pset_create_intermediate_group(lcpl.id(), 1);
    H5Handle gcpl(H5Pcreate(H5P_GROUP_CREATE), H5Pclose);
    H5Pset_link_creation_order(gcpl.id(), H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED);
    H5Handle group(H5Gcreate2(file.id(), path.c_str(), lcpl.id(), gcpl.id(), H5P_DEFAULT), H5Gclose);
    if (!group.isValid())
        throw IoError(file.where(path) + ": cannot create group");
    return group;
}

void writeConfig(hid_t group, const SparsifierConfig &c)
{
    writeStringAttribute(group, "method", std::string(methodName(c.method)));
    writeDoubleAttribute(group, "threshold", c.threshold);
    writeDoubleAttribute(group, "sparsity_level", c.sparsityLevel);
    writeIntArrayAttribute(group, "block_rows", {c.blockRows});
    writeIntArrayAttribute(group, "block_cols", {c.blockCols});
    if (c.zerosPerBlock)
        writeIntArrayAttribute(group, "zeros_per_block", {*c.zerosPerBlock});
    writeStringAttribute(group, "norm", c.norm == BlockNorm::L1 ? "L1" : "L2");
    writeIntArrayAttribute(group, "n", {c.n});
    writeIntArrayAttribute(group, "m", {c.m});
    writeDoubleAttribute(group, "keep", c.keep);
}

SparsifierConfig readConfig(hid_t group, const std::string &where)
{
    SparsifierConfig c;
    const auto method = readStringAttribute(group, "method");
    if (!method)
        throw errors::mustBe(where, "carry a 'method' attribute (data_sparsifier_state)", "none");
    c.method = parseMethod(*method);
    auto real = [&](const char *name, double &slot) {
        if (const auto v = readDoubleAttribute(group, name))
            slot = *v;
    };
    auto integer = [&](const char *name, std::int64_t &slot) {
        if (const auto v = readIntArrayAttribute(group, name); v && v->size() == 1)
            slot = v->front();
    };
    real("threshold", c.threshold);
    real("sparsity_level", c.sparsityLevel);
    integer("block_rows", c.blockRows);
    integer("block_cols", c.blockCols);
    if (const auto v = readIntArrayAttribute(group, "zeros_per_block"); v && v->size() == 1)
        c.zerosPerBlock = v->front();
    c.norm = readStringAttribute(group, "norm").value_or("L1") == "L2" ? BlockNorm::L2 : BlockNorm::L1;
    integer("n", c.n);
    integer("m", c.m);
    real("keep", c.keep);
    try {
        c.validate();
    } catch (const Error &error) {
        rethrowWithContext(error, where);
    }
    return c;
}

} // namespace

void writeSparsifierState(H5File &file, const std::string &path, const SparsifierState &state)
{
    H5Handle root = createGroup(file, path);
    writeEncoding(root.id(), "data_sparsifier_state", "0.1.0");
    for (const auto &entry : state) {
        const std::string base = path + "/" + entry.name;
        H5Handle group = createGroup(file, base);
        writeConfig(group.id(), entry.config);
        writeTensor(file, base + "/data", entry.data);
        if (!entry.mask)
            continue;
        Buffer<std::int64_t> kept;
        for (std::size_t k = 0; k < entry.mask->size(); ++k)
            if ((*entry.mask)[k])
                kept.push_back(static_cast<std::int64_t>(k));
        const Buffer<float> ones(kept.size(), 1.0f);
        writeTensor(file, base + "/mask", Tensor(Storage{cooFromLinear<float>(entry.data.shape(), kept, ones)}));
    }
}

SparsifierState readSparsifierState(const H5File &file, const std::string &path)
{
    H5Handle root = openObject(file, path);
    if (readStringAttribute(root.id(), "encoding-type") != "data_sparsifier_state")
        throw errors::mustBe(file.where(path), "be a data_sparsifier_state group", "another object");
    const auto names = childNames(file, path);
    SparsifierState state;
    for (const auto &name : names) {
        const std::string base = path + "/" + name;
        H5Handle group = openObject(file, base);
        SparsifierStateEntry entry{name, readTensor(file, base + "/data"), std::nullopt,
                                   readConfig(group.id(), file.where(base))};
        if (linkExists(file.id(), base + "/mask")) {
            const auto mask = toDenseDouble(readTensor(file, base + "/mask"));
            if (mask.shape != entry.data.shape())
                throw errors::mustBe(file.where(base + "/mask"), "have the data's shape " + shapeToString(entry.data.shape()),
                                     shapeToString(mask.shape));
            Mask bits(mask.values.size());
            for (std::size_t k = 0; k < bits.size(); ++k)
                bits[k] = mask.values[k] != 0.0;
            entry.mask = std::move(bits);
        }
        state.push_back(std::move(entry));
    }
    return state;
}

} // namespace sparsity::core
