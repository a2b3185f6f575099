// `Tensor`: a strided view of a `Storage` — dtype, sizes, strides and a storage offset, all
// in elements, as PyTorch's TensorImpl. Tensors built from model files go through
// `from_storage`, which proves that every element they can address lies inside the storage,
// so element access after that needs no further bounds checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "symbolite/support/error.h"
#include "symbolite/tensor/dtype.h"
#include "symbolite/tensor/storage.h"

namespace symbolite::tensor {

// Product of `sizes`; throws Error(kModel) for a negative size or an int64 overflow. Sizes 0
// count as 1 in the overflow check, so a shape that passes has contiguous strides that fit.
std::int64_t checked_numel(std::span<const std::int64_t> sizes);

// The bytes of a contiguous tensor of `sizes` and `dtype`; throws Error when the count
// overflows (kModel) or is more than this machine's memory and swap (kLimit, PyTorch's
// "can't allocate memory" with the tensor's sizes). Tensor::uninitialized checks so; a kernel
// whose side tables grow with its output checks its output first.
std::size_t checked_nbytes(std::span<const std::int64_t> sizes, DType dtype);

// Row-major (C order) strides of `sizes`, as PyTorch computes them (a size of 0 or 1 counts
// as 1). Sizes must be valid (see checked_numel).
std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> sizes);

// "[2, 3]", for messages.
std::string format_sizes(std::span<const std::int64_t> sizes);

class Tensor {
 public:
  // An empty float tensor (sizes [0]) over an empty storage.
  Tensor() = default;

  // A contiguous, zero-filled tensor in a new storage. Throws Error(kModel) for negative
  // sizes or a byte size that overflows.
  static Tensor empty(std::vector<std::int64_t> sizes, DType dtype);
  // The same, uninitialized: only for outputs the caller writes in full.
  static Tensor uninitialized(std::vector<std::int64_t> sizes, DType dtype);

  // A view of `storage`. Validates everything, since the numbers come from model files:
  // as many strides as sizes, no negative size, stride or offset, and the furthest
  // addressable element inside the storage, all in overflow-checked arithmetic. Throws
  // Error(kModel) naming the sizes, strides, offset and storage size otherwise.
  static Tensor from_storage(Storage storage, DType dtype, std::vector<std::int64_t> sizes,
                             std::vector<std::int64_t> strides, std::int64_t storage_offset);

  DType dtype() const { return dtype_; }
  const Storage& storage() const { return storage_; }
  const std::vector<std::int64_t>& sizes() const { return sizes_; }
  const std::vector<std::int64_t>& strides() const { return strides_; }
  std::int64_t storage_offset() const { return storage_offset_; }
  std::int64_t dim() const { return static_cast<std::int64_t>(sizes_.size()); }
  std::int64_t numel() const { return numel_; }
  std::size_t element_size() const { return tensor::element_size(dtype_); }
  // Bytes of the elements (numel × element size), not of the storage.
  std::size_t nbytes() const { return static_cast<std::size_t>(numel_) * element_size(); }

  // A nested tensor (PyTorch's NestedTensor, which nn.TransformerEncoder makes of its input
  // and padding mask) is held padded, [N, L, ...]: sequence i is rows [0, lengths[i]) of
  // dimension 1, and the rows past it are padding whose values mean nothing. Null for every
  // other tensor; kernels that produce a new tensor drop it.
  const std::shared_ptr<const std::vector<std::int64_t>>& nested_lengths() const {
    return nested_lengths_;
  }
  // This tensor (sharing its storage) marked nested with `lengths`, one per row of dim 0.
  Tensor as_nested(std::vector<std::int64_t> lengths) const;

  // PyTorch's definition: strides are row-major, ignoring dimensions of size 1; any tensor
  // without elements is contiguous.
  bool is_contiguous() const;
  // This tensor if contiguous, else a contiguous copy in a new owned storage.
  Tensor contiguous() const;
  // A contiguous copy in a new owned storage, always.
  Tensor copy() const;

  // Address of element 0 (storage + offset); no dtype check.
  const std::uint8_t* raw_data() const {
    return storage_.data() + static_cast<std::size_t>(storage_offset_) * element_size();
  }

  // Typed address of element 0. Throws Error(kUsage) if T is not the dtype or the storage is
  // not aligned for it. Index with strides() unless is_contiguous().
  template <typename T>
  const T* data() const {
    check_access(dtype_of<T>);
    return reinterpret_cast<const T*>(raw_data());
  }
  // Writable typed address; also throws for a read-only (view) storage.
  template <typename T>
  T* mutable_data() const {
    check_access(dtype_of<T>);
    return reinterpret_cast<T*>(storage_.mutable_data() +
                                static_cast<std::size_t>(storage_offset_) * element_size());
  }

 private:
  void check_access(DType requested) const;

  Storage storage_;
  DType dtype_ = DType::kFloat32;
  std::vector<std::int64_t> sizes_{0};
  std::vector<std::int64_t> strides_{1};
  std::int64_t storage_offset_ = 0;
  std::int64_t numel_ = 0;
  std::shared_ptr<const std::vector<std::int64_t>> nested_lengths_;
};

}  // namespace symbolite::tensor
