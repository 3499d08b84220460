#pragma once
// Tensor: one value of any layout and compute dtype, optionally masked.
//
// Storage is one of the typed layouts (float or double values). A masked tensor adds a mask
// with one byte per *stored value*, in storage order (true = specified): for dense storage one
// per element, for sparse storage one per stored entry, so a sparse mask shares the data's
// index structure exactly as torch.masked requires. Elements that are not stored are
// unspecified. An unmasked tensor has every element specified (sparse: unstored = 0).
#include "core/tensor/compressed_tensor.h"
#include "core/tensor/coo_tensor.h"
#include "core/tensor/dense_tensor.h"
#include "core/tensor/dtype.h"
#include "core/tensor/layout.h"
#include "core/tensor/row_sparse_tensor.h"

#include <optional>
#include <utility>
#include <variant>

namespace sparsity::core {

using Storage = std::variant<DenseTensor<float>,
                             DenseTensor<double>,
                             CooTensor<float>,
                             CooTensor<double>,
                             CompressedTensor<float>,
                             CompressedTensor<double>,
                             RowSparseTensor<float>,
                             RowSparseTensor<double>>;
using Mask = Buffer<std::uint8_t>;

class Tensor {
public:
    Tensor() = default;
    explicit Tensor(Storage storage, std::optional<Mask> mask = std::nullopt);

    const Storage &storage() const { return m_storage; }
    Storage &storage() { return m_storage; }
    const std::optional<Mask> &mask() const { return m_mask; }
    void setMask(std::optional<Mask> mask);
    // Moves the mask out, leaving the tensor unmasked.
    std::optional<Mask> takeMask() { return std::exchange(m_mask, std::nullopt); }

    Layout layout() const;
    DType dtype() const;
    const Shape &shape() const;
    int rank() const { return static_cast<int>(shape().size()); }
    bool isMasked() const { return m_mask.has_value(); }
    std::int64_t storedCount() const;    // values held in storage
    std::int64_t specifiedCount() const; // masked: true mask bytes; else storedCount()

    template <class F>
    decltype(auto) visit(F &&f) const
    {
        return std::visit(std::forward<F>(f), m_storage);
    }

private:
    Storage m_storage{DenseTensor<float>{}};
    std::optional<Mask> m_mask;
};

template <class S>
struct StorageTraits;
template <class T>
struct StorageTraits<DenseTensor<T>> {
    using Value = T;
};
template <class T>
struct StorageTraits<CooTensor<T>> {
    using Value = T;
};
template <class T>
struct StorageTraits<CompressedTensor<T>> {
    using Value = T;
};
template <class T>
struct StorageTraits<RowSparseTensor<T>> {
    using Value = T;
};
template <class S>
using ValueOf = typename StorageTraits<std::decay_t<S>>::Value;

} // namespace sparsity::core
