#include "core/io/h5_catalog.h"

#include "core/io/h5_attributes.h"
#include "core/io/h5_types.h"
#include "core/util/errors.h"

#include <map>

namespace sparsity::core {
namespace {

Shape datasetShape(hid_t dataset)
{
    H5Handle space = datasetSpace(dataset);
    const int rank = H5Sget_simple_extent_ndims(space.id());
    std::vector<hsize_t> dims(static_cast<std::size_t>(std::max(rank, 0)));
    if (rank > 0)
        H5Sget_simple_extent_dims(space.id(), dims.data(), nullptr);
    return Shape(dims.begin(), dims.end());
}

bool isDatasetChild(hid_t group, const char *name)
{
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0)
        return false;
    H5O_info_t info{};
    if (H5Oget_info_by_name2(group, name, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
        return false;
    return info.type == H5O_TYPE_DATASET;
}

struct ChildDataset {
    Shape shape;
    std::optional<DType> dtype;
};

ChildDataset childDataset(const H5File &file, const std::string &groupPath, const char *name)
{
    const std::string path = groupPath + "/" + name;
    H5Handle dataset = openDataset(file, path);
    H5Handle type = datasetType(dataset.id());
    return {datasetShape(dataset.id()), dtypeFromH5(type.id())};
}

Shape shapeAttribute(const H5File &file, const std::string &path, hid_t group, const char *attribute)
{
    auto values = readIntArrayAttribute(group, attribute);
    if (!values)
        throw errors::mustBe(file.where(path), std::string("carry an integer '") + attribute + "' attribute", "none");
    Shape shape(values->begin(), values->end());
    try {
        checkedNumel(shape);
    } catch (const Error &error) {
        rethrowWithContext(error, file.where(path));
    }
    return shape;
}

Shape tenXShape(const H5File &file, const std::string &path)
{
    H5Handle dataset = openDataset(file, path + "/shape");
    if (datasetShape(dataset.id()) != Shape{2})
        throw errors::mustBe(file.where(path + "/shape"), "hold 2 integers",
                             "shape " + shapeToString(datasetShape(dataset.id())));
    std::int64_t extents[2] = {0, 0};
    if (H5Dread(dataset.id(), H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, extents) < 0)
        throw IoError(file.where(path + "/shape") + ": cannot read");
    Shape shape{extents[0], extents[1]};
    checkedNumel(shape);
    return shape;
}

std::optional<ElementInfo> describeGroup(const H5File &file, const std::string &path, hid_t group)
{
    ElementInfo info;
    info.path = path;
    const auto encodingType = readStringAttribute(group, "encoding-type");
    info.tagged = encodingType.has_value();
    auto sparseValues = [&](const char *valuesName, Layout layout) {
        const auto values = childDataset(file, path, valuesName);
        info.layout = layout;
        info.dtype = values.dtype.value_or(DType::Float64);
        info.nnz = values.shape.empty() ? 1 : numel(values.shape);
    };
    if (encodingType == "csr_matrix" || encodingType == "csc_matrix") {
        info.encoding = encodingType == "csr_matrix" ? Encoding::CsrMatrix : Encoding::CscMatrix;
        info.shape = shapeAttribute(file, path, group, "shape");
        sparseValues("data", info.encoding == Encoding::CsrMatrix ? Layout::Csr : Layout::Csc);
        return info;
    }
    if (encodingType == "coo_tensor") {
        info.encoding = Encoding::CooTensor;
        info.shape = shapeAttribute(file, path, group, "shape");
        sparseValues("values", Layout::Coo);
        return info;
    }
    if (encodingType == "row_sparse") {
        info.encoding = Encoding::RowSparse;
        info.shape = shapeAttribute(file, path, group, "shape");
        sparseValues("data", Layout::RowSparse);
        return info;
    }
    if (encodingType == "masked_tensor") {
        auto data = describeElement(file, path + "/data");
        if (!data)
            throw errors::mustBe(file.where(path), "have a tensor child 'data' (masked_tensor)", "none");
        info = *data;
        info.path = path;
        info.encoding = Encoding::MaskedTensor;
        info.masked = true;
        info.tagged = true;
        info.nnz.reset(); // specified count needs the mask's values
        return info;
    }
    if (const auto format = readStringAttribute(group, "h5sparse_format")) {
        info.encoding = Encoding::H5Sparse;
        info.shape = shapeAttribute(file, path, group, "h5sparse_shape");
        sparseValues("data", *format == "csc" ? Layout::Csc : Layout::Csr);
        return info;
    }
    if (!encodingType && isDatasetChild(group, "data") && isDatasetChild(group, "indices") && isDatasetChild(group, "indptr")
        && isDatasetChild(group, "shape")) {
        info.encoding = Encoding::TenX;
        info.shape = tenXShape(file, path);
        sparseValues("data", Layout::Csc);
        return info;
    }
    return std::nullopt;
}

std::optional<ElementInfo> describeDataset(const H5File &file, const std::string &path)
{
    H5Handle dataset = openDataset(file, path);
    H5Handle type = datasetType(dataset.id());
    const auto dtype = dtypeFromH5(type.id());
    if (!dtype)
        return std::nullopt;
    ElementInfo info;
    info.path = path;
    info.encoding = Encoding::Array;
    info.layout = Layout::Dense;
    info.tagged = hasStringAttribute(dataset.id(), "encoding-type"); // no need to read its value
    info.shape = datasetShape(dataset.id());
    info.dtype = *dtype;
    return info;
}

// Objects already visited, by address: a group holding a hard link to itself or to an
// ancestor (h5py's g["loop"] = g) would otherwise be walked forever, and an object with two
// names would be listed twice.
struct Walk {
    const H5File &file;
    std::vector<ElementInfo> &out;
    ValidationReport *notes;
    // (file number, address): an external link reaches another file, whose addresses may repeat ours.
    std::map<std::pair<unsigned long, haddr_t>, std::string> visited;

    void skip(const std::string &path, const std::string &why)
    {
        if (notes)
            notes->add(Severity::Notice, "", file.where(path), why);
    }

    // False (with a note) when the object at `path` was reached before under another name.
    bool firstVisit(const std::string &path, const H5O_info_t &info)
    {
        const auto [seen, fresh] = visited.emplace(std::pair{info.fileno, info.addr}, path);
        if (fresh)
            return true;
        const std::string &first = seen->second;
        const bool ancestor = path.rfind(first == "/" ? first : first + "/", 0) == 0;
        skip(path, "skipped: this link repeats the object already listed as " + first + (ancestor ? " (a link cycle)" : ""));
        return false;
    }

    void group(const std::string &groupPath)
    {
        for (const auto &name : childNames(file, groupPath.empty() ? "/" : groupPath)) {
            const std::string path = groupPath + "/" + name;
            H5O_info_t info{};
            if (H5Oget_info_by_name2(file.id(), path.c_str(), &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0) {
                skip(path, "skipped: the link points at no object (a dangling soft or external link)");
                continue;
            }
            if (info.type != H5O_TYPE_DATASET && info.type != H5O_TYPE_GROUP)
                continue; // a named datatype: not data
            if (!firstVisit(path, info))
                continue;
            if (info.type == H5O_TYPE_DATASET) {
                if (auto element = describeDataset(file, path))
                    out.push_back(std::move(*element));
                else
                    skip(path, "skipped: not a numeric or bool dataset");
                continue;
            }
            H5Handle child(H5Gopen2(file.id(), path.c_str(), H5P_DEFAULT), H5Gclose);
            if (auto element = describeGroup(file, path, child.id()))
                out.push_back(std::move(*element));
            else
                group(path);
        }
    }
};

std::string normalise(const std::string &path) { return path.empty() || path[0] != '/' ? "/" + path : path; }

} // namespace

std::string_view encodingName(Encoding encoding)
{
    switch (encoding) {
    case Encoding::Array:
        return "array";
    case Encoding::CsrMatrix:
        return "csr_matrix";
    case Encoding::CscMatrix:
        return "csc_matrix";
    case Encoding::CooTensor:
        return "coo_tensor";
    case Encoding::RowSparse:
        return "row_sparse";
    case Encoding::MaskedTensor:
        return "masked_tensor";
    case Encoding::TenX:
        return "10x";
    case Encoding::H5Sparse:
        return "h5sparse";
    }
    return "array";
}

std::optional<ElementInfo> describeElement(const H5File &file, const std::string &rawPath)
{
    const auto path = normalise(rawPath);
    H5Handle object = openObject(file, path);
    H5O_info_t info{};
    if (H5Oget_info2(object.id(), &info, H5O_INFO_BASIC) < 0)
        throw IoError(file.where(path) + ": cannot read object header (file corrupt?)");
    if (info.type == H5O_TYPE_DATASET)
        return describeDataset(file, path);
    if (info.type == H5O_TYPE_GROUP)
        return describeGroup(file, path, object.id());
    return std::nullopt;
}

ElementInfo requireElement(const H5File &file, const std::string &path)
{
    auto info = describeElement(file, path);
    if (!info)
        throw errors::mustBe(file.where(normalise(path)), "be a numeric dataset or an encoded sparse/masked group",
                             "a non-numeric object");
    return *info;
}

std::vector<std::string> childNames(const H5File &file, const std::string &path)
{
    H5Handle group(H5Gopen2(file.id(), path.c_str(), H5P_DEFAULT), H5Gclose);
    if (!group.isValid())
        throw IoError(file.where(path) + ": cannot open group (file corrupt?)");
    std::vector<std::string> names;
    auto collect = [](hid_t, const char *name, const H5L_info_t *, void *data) -> herr_t {
        static_cast<std::vector<std::string> *>(data)->emplace_back(name);
        return 0;
    };
    if (H5Literate(group.id(), H5_INDEX_CRT_ORDER, H5_ITER_INC, nullptr, collect, &names) < 0) {
        names.clear();
        if (H5Literate(group.id(), H5_INDEX_NAME, H5_ITER_INC, nullptr, collect, &names) < 0)
            throw IoError(file.where(path) + ": cannot list group (file truncated or corrupt)");
    }
    return names;
}

std::vector<ElementInfo> selectElements(const H5File &file, const std::vector<std::string> &paths, ValidationReport *notes)
{
    if (paths.empty()) {
        auto elements = listElements(file, notes);
        if (elements.empty())
            throw InputError(file.path() + ": must hold at least one numeric dataset, but has none");
        return elements;
    }
    std::vector<ElementInfo> elements;
    for (const auto &path : paths)
        elements.push_back(requireElement(file, path));
    return elements;
}

std::vector<ElementInfo> listElements(const H5File &file, ValidationReport *notes)
{
    std::vector<ElementInfo> elements;
    Walk walk{file, elements, notes, {}};
    H5O_info_t root{};
    if (H5Oget_info_by_name2(file.id(), "/", &root, H5O_INFO_BASIC, H5P_DEFAULT) >= 0)
        walk.visited.emplace(std::pair{root.fileno, root.addr}, "/");
    walk.group("");
    return elements;
}

} // namespace sparsity::core
