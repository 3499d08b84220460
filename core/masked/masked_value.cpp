#include "core/masked/masked_value.h"

#include "core/tensor/tensor_ops.h"

#include <algorithm>
#include <utility>

namespace sparsity::core {
namespace {

// Dense mask of the stored entries of an unmasked sparse tensor.
Mask storedPattern(const Tensor &tensor)
{
    Tensor everyStoredSpecified(tensor.storage(), Mask(static_cast<std::size_t>(tensor.storedCount()), 1));
    return specifiedMaskDense(everyStoredSpecified);
}

} // namespace

template <class T>
MaskedValue<T> toMaskedValue(const Tensor &tensor, bool isBool)
{
    MaskedValue<T> value;
    value.shape = tensor.shape();
    value.storage = tensor.layout();
    value.isBool = isBool;
    // The data of a masked tensor is read without its mask so unspecified data survives.
    if (const auto *dense = std::get_if<DenseTensor<T>>(&tensor.storage()))
        value.values = dense->values;
    else
        value.values = toDenseAs<T>(Tensor(tensor.storage())).values;
    if (tensor.isMasked()) {
        value.kind = ValueKind::Masked;
        // Dense storage holds one mask byte per element already; sparse storage is densified.
        value.mask = std::make_shared<const Mask>(tensor.layout() == Layout::Dense ? *tensor.mask() : specifiedMaskDense(tensor));
    } else if (tensor.layout() != Layout::Dense) {
        value.kind = ValueKind::Sparse;
        value.mask = std::make_shared<const Mask>(storedPattern(tensor));
    }
    return value;
}

template <class T>
MaskedValue<T> toMaskedValue(Tensor &&tensor, bool isBool)
{
    auto *dense = std::get_if<DenseTensor<T>>(&tensor.storage());
    if (!dense)
        return toMaskedValue<T>(std::as_const(tensor), isBool);
    MaskedValue<T> value;
    value.shape = dense->shape;
    value.isBool = isBool;
    value.values = std::move(dense->values);
    if (auto mask = tensor.takeMask()) {
        value.kind = ValueKind::Masked;
        value.mask = std::make_shared<const Mask>(std::move(*mask));
    }
    return value;
}

template <class T>
Tensor toTensor(const MaskedValue<T> &value)
{
    Tensor dense(Storage{DenseTensor<T>{value.shape, value.values}});
    if (value.kind == ValueKind::Plain)
        return dense;
    dense.setMask(*value.mask);
    if (value.storage == Layout::Dense && value.kind == ValueKind::Masked)
        return dense;
    // A sparse layout stores exactly the masked (or pattern) elements; row_sparse widens to
    // whole rows, whose extra entries are 0 in a Sparse value.
    const Layout target = value.storage == Layout::Dense ? Layout::Coo : value.storage;
    Tensor out = toLayout(dense, target);
    if (value.kind == ValueKind::Sparse)
        out.setMask(std::nullopt);
    return out;
}

template <class T>
std::int64_t specifiedCount(const MaskedValue<T> &value)
{
    if (!value.mask)
        return value.numel();
    return std::count_if(value.mask->begin(), value.mask->end(), [](std::uint8_t bit) { return bit != 0; });
}

std::string_view valueKindName(ValueKind kind)
{
    switch (kind) {
    case ValueKind::Plain:
        return "plain";
    case ValueKind::Sparse:
        return "sparse";
    case ValueKind::Masked:
        return "masked";
    }
    return "?";
}

template MaskedValue<float> toMaskedValue<float>(const Tensor &, bool);
template MaskedValue<double> toMaskedValue<double>(const Tensor &, bool);
template MaskedValue<float> toMaskedValue<float>(Tensor &&, bool);
template MaskedValue<double> toMaskedValue<double>(Tensor &&, bool);
template Tensor toTensor<float>(const MaskedValue<float> &);
template Tensor toTensor<double>(const MaskedValue<double> &);
template std::int64_t specifiedCount<float>(const MaskedValue<float> &);
template std::int64_t specifiedCount<double>(const MaskedValue<double> &);

} // namespace sparsity::core
