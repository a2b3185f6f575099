#include "symbolite/tensor/tensor.h"

#include "symbolite/support/machine_memory.h"
#include "symbolite/tensor/strided_copy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>

namespace symbolite::tensor {
namespace {

// out = a*b (a+b); false on int64 overflow.
bool mul(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return !__builtin_mul_overflow(a, b, &out);
}
bool add(std::int64_t a, std::int64_t b, std::int64_t& out) {
  return !__builtin_add_overflow(a, b, &out);
}

std::string describe(std::span<const std::int64_t> sizes, std::span<const std::int64_t> strides,
                     std::int64_t offset, DType dtype, std::size_t storage_nbytes) {
  return fmt::format("sizes {}, strides {}, storage offset {}, {} storage of {} bytes",
                     format_sizes(sizes), format_sizes(strides), offset, scalar_type_name(dtype),
                     storage_nbytes);
}

}  // namespace

std::int64_t checked_numel(std::span<const std::int64_t> sizes) {
  std::int64_t n = 1;
  for (std::int64_t s : sizes) {
    if (s < 0) {
      throw Error(ErrorKind::kModel, fmt::format("negative size in {}", format_sizes(sizes)));
    }
  }
  bool any_zero = false;
  for (std::int64_t s : sizes) {
    // Sizes 0 count as 1, so the contiguous strides of an empty shape cannot overflow either.
    if (!mul(n, std::max<std::int64_t>(s, 1), n)) {
      throw Error(ErrorKind::kModel,
                  fmt::format("number of elements of {} overflows int64", format_sizes(sizes)));
    }
    any_zero = any_zero || s == 0;
  }
  return any_zero ? 0 : n;
}

std::vector<std::int64_t> contiguous_strides(std::span<const std::int64_t> sizes) {
  std::vector<std::int64_t> strides(sizes.size());
  std::int64_t stride = 1;
  for (std::size_t d = sizes.size(); d > 0; --d) {
    strides[d - 1] = stride;
    stride *= std::max<std::int64_t>(sizes[d - 1], 1);
  }
  return strides;
}

std::string format_sizes(std::span<const std::int64_t> sizes) {
  return fmt::format("[{}]", fmt::join(sizes, ", "));
}

Tensor Tensor::empty(std::vector<std::int64_t> sizes, DType dtype) {
  Tensor t = uninitialized(std::move(sizes), dtype);
  std::memset(t.storage_.mutable_data(), 0, t.storage_.nbytes());
  return t;
}

std::size_t checked_nbytes(std::span<const std::int64_t> sizes, DType dtype) {
  const std::int64_t numel = checked_numel(sizes);
  std::int64_t nbytes = 0;
  if (!mul(numel, static_cast<std::int64_t>(tensor::element_size(dtype)), nbytes)) {
    throw Error(ErrorKind::kModel, fmt::format("byte size of a {} tensor of sizes {} overflows",
                                               scalar_type_name(dtype), format_sizes(sizes)));
  }
  if (!fits_in_memory(static_cast<std::uint64_t>(nbytes))) {
    throw Error(
        ErrorKind::kLimit,
        fmt::format("can't allocate memory: you tried to allocate {} bytes for a {} tensor "
                    "of sizes {}, more than this machine's memory and swap ({} bytes)",
                    nbytes, scalar_type_name(dtype), format_sizes(sizes), machine_memory_bytes()));
  }
  return static_cast<std::size_t>(nbytes);
}

Tensor Tensor::uninitialized(std::vector<std::int64_t> sizes, DType dtype) {
  const std::size_t nbytes = checked_nbytes(sizes, dtype);
  const auto numel = static_cast<std::int64_t>(nbytes / tensor::element_size(dtype));
  Tensor t;
  t.storage_ = Storage::allocate_uninitialized(nbytes);
  t.dtype_ = dtype;
  t.strides_ = contiguous_strides(sizes);
  t.sizes_ = std::move(sizes);
  t.storage_offset_ = 0;
  t.numel_ = numel;
  return t;
}

Tensor Tensor::from_storage(Storage storage, DType dtype, std::vector<std::int64_t> sizes,
                            std::vector<std::int64_t> strides, std::int64_t storage_offset) {
  auto fail = [&](std::string_view why) -> Error {
    return Error(
        ErrorKind::kModel,
        fmt::format("invalid tensor ({}): {}",
                    describe(sizes, strides, storage_offset, dtype, storage.nbytes()), why));
  };
  if (sizes.size() != strides.size()) throw fail("sizes and strides differ in length");
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) throw fail(fmt::format("negative size at dimension {}", d));
    if (strides[d] < 0) throw fail(fmt::format("negative stride at dimension {}", d));
  }
  if (storage_offset < 0) throw fail("negative storage offset");
  std::int64_t numel = 1;
  for (std::int64_t s : sizes) {
    // As checked_numel: a 0 does not excuse the other sizes.
    if (!mul(numel, std::max<std::int64_t>(s, 1), numel)) {
      throw fail("number of elements overflows int64");
    }
  }
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) numel = 0;
  auto elem = static_cast<std::int64_t>(tensor::element_size(dtype));
  // Elements the storage holds; an offset may point one past the end only if nothing is read.
  auto storage_elements =
      static_cast<std::int64_t>(storage.nbytes() / static_cast<std::size_t>(elem));
  if (storage_offset > storage_elements) throw fail("storage offset past the end of the storage");
  if (numel > 0) {
    std::int64_t last = storage_offset;  // furthest element addressed
    for (std::size_t d = 0; d < sizes.size(); ++d) {
      std::int64_t step = 0;
      if (!mul(strides[d], sizes[d] - 1, step) || !add(last, step, last)) {
        throw fail("extent overflows int64");
      }
    }
    if (last >= storage_elements) {
      throw fail(fmt::format("reaches element {}, past the storage's {} elements", last,
                             storage_elements));
    }
  }
  Tensor t;
  t.storage_ = std::move(storage);
  t.dtype_ = dtype;
  t.sizes_ = std::move(sizes);
  t.strides_ = std::move(strides);
  t.storage_offset_ = storage_offset;
  t.numel_ = numel;
  return t;
}

bool Tensor::is_contiguous() const {
  if (numel_ == 0) return true;
  std::int64_t expected = 1;
  for (std::size_t d = sizes_.size(); d > 0; --d) {
    if (sizes_[d - 1] == 1) continue;
    if (strides_[d - 1] != expected) return false;
    expected *= sizes_[d - 1];
  }
  return true;
}

Tensor Tensor::as_nested(std::vector<std::int64_t> lengths) const {
  Tensor out = *this;
  out.nested_lengths_ = std::make_shared<const std::vector<std::int64_t>>(std::move(lengths));
  return out;
}

Tensor Tensor::contiguous() const {
  if (is_contiguous()) return *this;
  return copy();
}

Tensor Tensor::copy() const {
  Tensor out = uninitialized(sizes_, dtype_);  // copy_strided writes every element
  copy_strided(raw_data(), sizes_, strides_, element_size(), out.storage_.mutable_data());
  return out;
}

void Tensor::check_access(DType requested) const {
  if (requested != dtype_) {
    throw Error(ErrorKind::kUsage,
                fmt::format("tensor is {}, accessed as {}", scalar_type_name(dtype_),
                            scalar_type_name(requested)));
  }
  if (!storage_.is_aligned(dtype_)) {
    throw Error(ErrorKind::kUsage,
                fmt::format("{} storage is not aligned to {} bytes; copy it first",
                            scalar_type_name(dtype_), element_size()));
  }
}

}  // namespace symbolite::tensor
