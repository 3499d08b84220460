#pragma once
// Layout-level operations on Tensor: conversion between every pair of layouts (masks carried
// along), MXNet's cast_storage, sparse_mask and densification.
#include "core/tensor/tensor.h"

#include <span>

namespace sparsity::core {

// Converts to `target`. Unmasked: dense -> sparse drops zeros; sparse -> sparse keeps the
// stored pattern (see conversions.h). Masked: the result stays masked with the same specified
// elements; a sparse result stores exactly the specified elements (widened to whole rows for
// row_sparse, whose extra slots are unspecified). Throws InputError when the layout cannot
// hold the tensor's rank ("layout csr needs a 2-d tensor, but got shape [2, 3, 4]").
Tensor toLayout(const Tensor &tensor, Layout target);
// Throws that InputError when `target` cannot hold a tensor of `shape`.
void requireLayoutCanHold(Layout target, const Shape &shape);

// MXNet cast_storage: dense <-> csr, dense <-> row_sparse, same layout is a copy; any other
// pair is refused by name.
Tensor castStorage(const Tensor &tensor, Layout target);

// Values of `dense` at the stored positions of `pattern` (zeros included), in pattern's layout.
Tensor sparseMask(const Tensor &dense, const Tensor &pattern);

// Dense values with unstored elements 0 (masked: unspecified elements 0 too).
DenseTensor<double> toDenseDouble(const Tensor &tensor);
// The same in value type T (float or double); exact when T is the tensor's dtype.
template <class T>
DenseTensor<T> toDenseAs(const Tensor &tensor);
// toDenseAs(tensor)'s values written into `out` (numel(shape) of them): an unmasked tensor whose
// values are of type T is densified there directly, with no buffer of its own (a block of rows
// densified into a buffer reused from block to block); another through toDenseAs.
template <class T>
void toDenseInto(const Tensor &tensor, T *out);
// Dense row-major mask of specified elements (unmasked sparse: every element is specified).
Mask specifiedMaskDense(const Tensor &tensor);
// The same into `out` (numel(shape) bytes).
void specifiedMaskInto(const Tensor &tensor, std::uint8_t *out);
// Both at once, toDenseInto's values into `values` and specifiedMaskInto's bytes into
// `specified`: a block of a masked_tensor read by rows. A masked coo of values of type T is
// densified in one pass over its entries, each specified value added into its element in stored
// order: the bits its coalescing (duplicates summed in stored order, by a stable sort) and
// densifying (each sum added to a zero) give, without the sort. Another masked sparse tensor is
// converted to dense once for both, not once each.
template <class T>
void toDenseWithSpecifiedInto(const Tensor &tensor, T *values, std::uint8_t *specified);
// The values it stores, and the bytes it holds (values, indices, mask).
std::int64_t storedValueCount(const Tensor &tensor);
std::int64_t heldBytes(const Tensor &tensor);

} // namespace sparsity::core
