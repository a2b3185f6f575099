#include "symbolite/profiler/flops.h"

#include <string>

namespace symbolite::profiler {
namespace {

std::int64_t numel(const ValueMeta& v) {
  std::int64_t n = 1;
  for (auto s : v.sizes) n *= s;
  return n;
}

const ValueMeta* tensor_at(std::span<const ValueMeta> values, std::size_t i) {
  return i < values.size() && values[i].is_tensor ? &values[i] : nullptr;
}

// "aten::add" of "aten::add.Tensor"; in-place "aten::add_" counts as "aten::add".
std::string_view base_name(std::string_view op) {
  auto dot = op.find('.');
  if (dot != std::string_view::npos) op = op.substr(0, dot);
  if (op.ends_with('_') && !op.ends_with("__")) op.remove_suffix(1);
  return op;
}

// 2 * M * K * N per matrix for a [.., M, K] x [.., K, N] product (batched or not).
std::int64_t gemm_flops(const ValueMeta* a, const ValueMeta* b) {
  if (a == nullptr || b == nullptr || a->sizes.size() < 2 || b->sizes.size() < 2) return -1;
  return 2 * numel(*a) * b->sizes.back();
}

}  // namespace

std::int64_t estimate_flops(std::string_view op, std::span<const ValueMeta> inputs,
                            std::span<const ValueMeta> outputs) {
  std::string_view name = base_name(op);
  const ValueMeta* out = tensor_at(outputs, 0);
  if (name == "aten::conv1d" || name == "aten::conv2d" || name == "aten::conv3d" ||
      name == "aten::convolution" || name == "aten::_convolution") {
    // Each output element is a dot product over Cin/groups * kernel taps: 2 * that.
    const ValueMeta* weight = tensor_at(inputs, 1);
    if (weight == nullptr || out == nullptr || weight->sizes.size() < 2) return -1;
    std::int64_t taps = 1;
    for (std::size_t i = 1; i < weight->sizes.size(); ++i) taps *= weight->sizes[i];
    return 2 * numel(*out) * taps;
  }
  if (name == "aten::mm" || name == "aten::bmm") {
    return gemm_flops(tensor_at(inputs, 0), tensor_at(inputs, 1));
  }
  if (name == "aten::addmm" || name == "aten::baddbmm") {
    return gemm_flops(tensor_at(inputs, 1), tensor_at(inputs, 2));
  }
  if (name == "aten::linear") {
    // input [..., K] x weight [N, K]^T: 2 * (elements of input) * N.
    const ValueMeta* input = tensor_at(inputs, 0);
    const ValueMeta* weight = tensor_at(inputs, 1);
    if (input == nullptr || weight == nullptr || weight->sizes.size() != 2) return -1;
    return 2 * numel(*input) * weight->sizes[0];
  }
  if (name == "aten::matmul") {
    // Every output element is a dot product of length K, the first operand's last size.
    const ValueMeta* a = tensor_at(inputs, 0);
    if (a == nullptr || out == nullptr || a->sizes.empty()) return -1;
    return 2 * numel(*out) * a->sizes.back();
  }
  if (name == "aten::add" || name == "aten::mul" || name == "aten::sub" || name == "aten::div") {
    if (out == nullptr) return -1;
    return numel(*out);
  }
  return -1;
}

}  // namespace symbolite::profiler
