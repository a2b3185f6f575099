// `Storage`: the bytes under a tensor. Either owned (allocated here, writable) or a zero-copy
// read-only view into someone else's bytes — typically an archive entry of a memory-mapped
// model, kept alive by the `Bytes` owner. Copies share the same buffer, as PyTorch storages
// do: a Storage is a handle.
#pragma once

#include <cstddef>
#include <cstdint>

#include "symbolite/support/bytes.h"
#include "symbolite/tensor/dtype.h"

namespace symbolite::tensor {

class Storage {
 public:
  // An empty owned storage.
  Storage() = default;

  // `nbytes` zeroed bytes, 64-byte aligned (as PyTorch's CPU allocator, so any dtype fits).
  static Storage allocate(std::size_t nbytes);
  // `nbytes` uninitialized bytes, 64-byte aligned: for kernel outputs that write every
  // element (zero-filling them first cost a measurable share of a model run).
  static Storage allocate_uninitialized(std::size_t nbytes);
  // A read-only view of `bytes`. Alignment is not checked: see is_aligned.
  static Storage view(Bytes bytes);

  const std::uint8_t* data() const { return bytes_.data(); }
  std::size_t nbytes() const { return bytes_.size(); }
  const Bytes& bytes() const { return bytes_; }

  bool is_view() const { return writable_ == nullptr && !bytes_.empty(); }
  // Whether this is an owned storage and the only handle to its buffer: no tensor, view or
  // copy elsewhere sees it, so a kernel may overwrite it instead of allocating its result.
  bool is_unshared() const { return writable_ != nullptr && bytes_.owner().use_count() == 1; }
  // Writable bytes; throws Error(kUsage) for a view (mapped files are read-only).
  std::uint8_t* mutable_data() const;

  // Whether the first byte is aligned for elements of `dtype`. Typed access requires it;
  // PyTorch aligns the data records of its archives to 64 bytes, so views of them are.
  bool is_aligned(DType dtype) const;

 private:
  Bytes bytes_;
  std::uint8_t* writable_ = nullptr;  // set for owned storages only
};

}  // namespace symbolite::tensor
