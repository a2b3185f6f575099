#include "symbolite/ops/common/tensor_loops.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "symbolite/ops/registry/op_error.h"
#include "symbolite/tensor/half_float.h"

namespace symbolite::ops {

using tensor::DType;
using tensor::Tensor;

std::vector<std::int64_t> broadcast_strides(const Tensor& t, std::span<const std::int64_t> out) {
  std::vector<std::int64_t> strides(out.size(), 0);
  std::size_t offset = out.size() - t.sizes().size();
  for (std::size_t d = 0; d < t.sizes().size(); ++d) {
    if (t.sizes()[d] != 1) strides[offset + d] = t.strides()[d];
  }
  return strides;
}

namespace {

template <typename To, typename From>
void convert_loop(const Tensor& src, To* dst) {
  const From* in = src.data<From>();
  std::array<const std::int64_t*, 1> strides{src.strides().data()};
  for_each_offset<1>(src.sizes(), strides,
                     [&](const std::array<std::int64_t, 1>& o) { *dst++ = convert<To>(in[o[0]]); });
}

}  // namespace

namespace {

bool is_16_bit_float(DType d) { return d == DType::kFloat16 || d == DType::kBFloat16; }

// float16 / bfloat16 `t` (any strides) as a contiguous float32 tensor.
Tensor widened(const Tensor& t) {
  Tensor out = Tensor::uninitialized(t.sizes(), DType::kFloat32);
  float* dst = out.mutable_data<float>();
  const auto* in = reinterpret_cast<const std::uint16_t*>(t.raw_data());
  const bool half = t.dtype() == DType::kFloat16;
  const std::vector<std::int64_t> dense = tensor::contiguous_strides(t.sizes());
  std::array<const std::int64_t*, 2> strides{dense.data(), t.strides().data()};
  for_each_offset<2>(t.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
    dst[o[0]] = half ? tensor::half_to_float(in[o[1]]) : tensor::bfloat16_to_float(in[o[1]]);
  });
  return out;
}

// Writes float32 `src` into float16 / bfloat16 `dst` of the same sizes (any strides).
void narrow_into(const Tensor& dst, const Tensor& src) {
  const Tensor f = src.contiguous();
  const float* in = f.data<float>();
  auto* out = reinterpret_cast<std::uint16_t*>(dst.storage().mutable_data()) + dst.storage_offset();
  const bool half = dst.dtype() == DType::kFloat16;
  const std::vector<std::int64_t> dense = tensor::contiguous_strides(dst.sizes());
  std::array<const std::int64_t*, 2> strides{dst.strides().data(), dense.data()};
  for_each_offset<2>(dst.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
    out[o[0]] = half ? tensor::float_to_half(in[o[1]]) : tensor::float_to_bfloat16(in[o[1]]);
  });
}

}  // namespace

Tensor to_dtype(const Tensor& t, DType dtype) {
  if (t.dtype() == dtype) return t.contiguous();
  // 16-bit floats convert through float32, as c10's conversions do.
  if (is_16_bit_float(t.dtype())) return to_dtype(widened(t), dtype);
  if (is_16_bit_float(dtype)) {
    Tensor out = Tensor::uninitialized(t.sizes(), dtype);
    narrow_into(out, to_dtype(t, DType::kFloat32));
    return out;
  }
  Tensor out = Tensor::uninitialized(t.sizes(), dtype);  // convert_loop writes every element
  dispatch_all(dtype, "copy_", [&](auto to) {
    using To = decltype(to);
    To* dst = out.mutable_data<To>();
    dispatch_all(t.dtype(), "copy_", [&](auto from) {
      using From = decltype(from);
      convert_loop<To, From>(t, dst);
    });
  });
  return out;
}

Tensor scalar_tensor(const IValue& s, DType dtype) {
  Tensor out = Tensor::uninitialized({}, dtype);
  dispatch_all(dtype, "scalar_tensor", [&](auto tag) {
    using T = decltype(tag);
    *out.mutable_data<T>() = scalar_as<T>(s);
  });
  return out;
}

void copy_into(const Tensor& dst, const Tensor& src) {
  if (dst.dtype() == src.dtype() && dst.is_contiguous() && src.is_contiguous()) {
    std::size_t esize = tensor::element_size(src.dtype());
    std::uint8_t* to =
        dst.storage().mutable_data() + static_cast<std::size_t>(dst.storage_offset()) * esize;
    std::memmove(to, src.raw_data(), static_cast<std::size_t>(src.numel()) * esize);
    return;
  }
  if (is_16_bit_float(dst.dtype())) {
    narrow_into(dst, to_dtype(src, DType::kFloat32));
    return;
  }
  if (is_16_bit_float(src.dtype())) {
    copy_into(dst, widened(src));
    return;
  }
  dispatch_all(dst.dtype(), "copy_", [&](auto to) {
    using To = decltype(to);
    To* out = dst.mutable_data<To>();
    dispatch_all(src.dtype(), "copy_", [&](auto from) {
      using From = decltype(from);
      const From* in = src.data<From>();
      std::array<const std::int64_t*, 2> strides{dst.strides().data(), src.strides().data()};
      for_each_offset<2>(dst.sizes(), strides, [&](const std::array<std::int64_t, 2>& o) {
        out[o[0]] = convert<To>(in[o[1]]);
      });
    });
  });
}

double element_as_double(const Tensor& contiguous, std::int64_t i) {
  if (is_16_bit_float(contiguous.dtype())) {
    const auto bits = reinterpret_cast<const std::uint16_t*>(contiguous.raw_data())[i];
    return contiguous.dtype() == DType::kFloat16 ? tensor::half_to_float(bits)
                                                 : tensor::bfloat16_to_float(bits);
  }
  return dispatch_all(contiguous.dtype(), "element_as_double", [&](auto tag) {
    using T = decltype(tag);
    return static_cast<double>(contiguous.data<T>()[i]);
  });
}

void check_no_internal_overlap(const Tensor& self) {
  for (std::size_t d = 0; d < self.sizes().size(); ++d) {
    if (self.sizes()[d] > 1 && self.strides()[d] == 0) {
      fail(
          "unsupported operation: more than one element of the written-to tensor refers to a "
          "single memory location. Please clone() the tensor before performing the "
          "operation.");
    }
  }
}

bool is_non_overlapping_and_dense(const Tensor& t) {
  const std::vector<std::int64_t>& sizes = t.sizes();
  const std::vector<std::int64_t>& strides = t.strides();
  std::size_t n = sizes.size();
  if (n == 1) return sizes[0] < 2 || strides[0] == 1;
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::stable_sort(perm.begin(), perm.end(), [&](std::size_t a, std::size_t b) {
    if (sizes[a] < 2) return false;
    if (sizes[b] < 2) return true;
    return strides[a] < strides[b];
  });
  std::int64_t required = 1;
  for (std::size_t d : perm) {
    if (sizes[d] < 2) return true;
    if (strides[d] != required) return false;
    required *= sizes[d];
  }
  return true;
}

void check_no_partial_overlap(const Tensor& self, const Tensor& other) {
  if (self.numel() == 0 || other.numel() == 0) return;
  if (self.storage().data() != other.storage().data()) return;
  if (!is_non_overlapping_and_dense(self) || !is_non_overlapping_and_dense(other)) return;
  const std::uint8_t* a = self.raw_data();
  const std::uint8_t* b = other.raw_data();
  const std::uint8_t* a_end = a + self.nbytes();
  const std::uint8_t* b_end = b + other.nbytes();
  const bool same = a == b && a_end == b_end && self.strides() == other.strides();
  if (!same && a < b_end && b < a_end) {
    fail(
        "unsupported operation: some elements of the input tensor and the written-to tensor "
        "refer to a single memory location. Please clone() the tensor before performing the "
        "operation.");
  }
}

Tensor assign_in_place(const Tensor& self, const Tensor& result) {
  if (result.sizes() != self.sizes()) {
    fail(fmt::format("output with shape {} doesn't match the broadcast shape {}",
                     tensor::format_sizes(self.sizes()), tensor::format_sizes(result.sizes())));
  }
  if (!can_cast(result.dtype(), self.dtype())) {
    fail(fmt::format("result type {} can't be cast to the desired output type {}",
                     tensor::scalar_type_name(result.dtype()),
                     tensor::scalar_type_name(self.dtype())));
  }
  if (self.storage().is_view()) return to_dtype(result, self.dtype());
  copy_into(self, result);
  return self;
}

}  // namespace symbolite::ops
