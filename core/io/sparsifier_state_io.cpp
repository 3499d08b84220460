#include "core/io/sparsifier_state_io.h"

#include "core/io/h5_attributes.h"
#include "core/io/h5_catalog.h"
#include "core/io/h5_reader.h"
#include "core/io/h5_writer.h"
#include "core/sparsify/sparsifier_methods.h"
#include "core/sparsify/sparsifier_parameters.h"
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

// The method's parameters, each an attribute under its key (sparsifier_parameters.h).
void writeConfig(hid_t group, const SparsifierConfig &c)
{
    writeStringAttribute(group, "method", std::string(methodName(c.method)));
    for (const auto &parameter : sparsifierParameters()) {
        const auto value = parameter.method == c.method ? parameter.get(c) : std::nullopt;
        if (!value)
            continue;
        const std::string key(parameter.key);
        if (const auto *number = std::get_if<double>(&*value))
            writeDoubleAttribute(group, key.c_str(), *number);
        else if (const auto *integer = std::get_if<std::int64_t>(&*value))
            writeIntArrayAttribute(group, key.c_str(), {*integer});
        else
            writeStringAttribute(group, key.c_str(), std::get<std::string>(*value));
    }
}

// The attribute `key` as a value of the parameter's kind; none when it is absent.
std::optional<ParameterValue> readParameter(hid_t group, const SparsifierParameter &parameter)
{
    const std::string key(parameter.key);
    switch (parameter.kind) {
    case ParameterKind::Number:
        return readDoubleAttribute(group, key.c_str());
    case ParameterKind::Integer:
        if (const auto v = readIntArrayAttribute(group, key.c_str()); v && v->size() == 1)
            return v->front();
        return std::nullopt;
    case ParameterKind::Text:
        return readStringAttribute(group, key.c_str());
    }
    return std::nullopt;
}

SparsifierConfig readConfig(hid_t group, const std::string &where)
{
    SparsifierConfig c;
    const auto method = readStringAttribute(group, "method");
    if (!method)
        throw errors::mustBe(where, "carry a 'method' attribute (data_sparsifier_state)", "none");
    try {
        c.method = parseMethod(*method);
        for (const auto &parameter : sparsifierParameters())
            if (parameter.method == c.method)
                if (const auto value = readParameter(group, parameter))
                    parameter.set(c, *value);
        // Encoding 0.1.0 wrote data-norm's block as two integers.
        const auto rows = readIntArrayAttribute(group, "block_rows"), cols = readIntArrayAttribute(group, "block_cols");
        if (c.method == SparsifierMethod::DataNorm && !hasStringAttribute(group, "block") && rows && cols && rows->size() == 1
            && cols->size() == 1)
            std::tie(c.blockRows, c.blockCols) = std::pair{rows->front(), cols->front()};
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
    writeEncoding(root.id(), "data_sparsifier_state", "0.2.0");
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
