#include "core/tensor/tensor.h"

#include "core/util/errors.h"

#include <algorithm>

namespace sparsity::core {
namespace {

template <class T>
Layout layoutOf(const DenseTensor<T> &)
{
    return Layout::Dense;
}
template <class T>
Layout layoutOf(const CooTensor<T> &)
{
    return Layout::Coo;
}
template <class T>
Layout layoutOf(const RowSparseTensor<T> &)
{
    return Layout::RowSparse;
}
template <class T>
Layout layoutOf(const CompressedTensor<T> &t)
{
    return t.axis == CompressedAxis::Row ? Layout::Csr : Layout::Csc;
}

} // namespace

Tensor::Tensor(Storage storage, std::optional<Mask> mask) : m_storage(std::move(storage)) { setMask(std::move(mask)); }

void Tensor::setMask(std::optional<Mask> mask)
{
    if (mask && static_cast<std::int64_t>(mask->size()) != storedCount())
        throw errors::mustBe("mask", "have one entry per stored value (" + std::to_string(storedCount()) + ")",
                             std::to_string(mask->size()));
    m_mask = std::move(mask);
}

Layout Tensor::layout() const
{
    return visit([](const auto &t) { return layoutOf(t); });
}

DType Tensor::dtype() const
{
    return visit([](const auto &t) { return dtypeOf<ValueOf<decltype(t)>>(); });
}

const Shape &Tensor::shape() const
{
    return visit([](const auto &t) -> const Shape & { return t.shape; });
}

std::int64_t Tensor::storedCount() const
{
    return visit([](const auto &t) { return static_cast<std::int64_t>(t.values.size()); });
}

std::int64_t Tensor::specifiedCount() const
{
    if (!m_mask)
        return storedCount();
    return std::count_if(m_mask->begin(), m_mask->end(), [](std::uint8_t m) { return m != 0; });
}

} // namespace sparsity::core
