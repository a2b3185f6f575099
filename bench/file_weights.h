// Tensors for the benchmarks of kernels that take a path of their own for weights read-only
// in a model file (conv_bench.cpp, linear_bench.cpp): deterministic values, and the same
// values as a read-only view, as a model file's tensors are.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "symbolite/tensor/tensor.h"

namespace symbolite::bench {

// sin(step * i) at element i.
inline tensor::Tensor filled(std::vector<std::int64_t> sizes, float step) {
  tensor::Tensor t = tensor::Tensor::empty(std::move(sizes), tensor::DType::kFloat32);
  float* p = t.mutable_data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = std::sin(step * static_cast<float>(i));
  return t;
}

// `t`'s values as a read-only view of bytes of their own.
inline tensor::Tensor read_only(const tensor::Tensor& t) {
  std::vector<std::uint8_t> bytes(t.nbytes());
  std::memcpy(bytes.data(), t.raw_data(), bytes.size());
  return tensor::Tensor::from_storage(tensor::Storage::view(Bytes::from_vector(std::move(bytes))),
                                      t.dtype(), t.sizes(), t.strides(), 0);
}

}  // namespace symbolite::bench
