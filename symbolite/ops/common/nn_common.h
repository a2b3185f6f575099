// Shared by the neural-network kernel files (nn_ops.cpp, conv_ops.cpp, pooling_ops.cpp,
// normalization_ops.cpp): argument readers and the per-file register functions that
// `register_nn_ops` calls. Internal to the ops layer.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/ops/common/tensor_args.h"  // int_list_arg, the int[] reader
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/ops/registry/operator_registry.h"
#include "symbolite/tensor/tensor.h"

namespace symbolite::ops::nn {

// A `Tensor?` argument: null for None.
const tensor::Tensor* optional_tensor(const IValue& value);
// "[1, 2]", as PyTorch prints an IntArrayRef.
std::string format_ints(const std::vector<std::int64_t>& values);
// A convolution's stride, padding, dilation, ... for `dim` spatial dimensions: one value
// repeated, or exactly `dim` (PyTorch's message otherwise).
std::vector<std::int64_t> expand_conv_param(const std::vector<std::int64_t>& param,
                                            const char* name, std::int64_t dim);
// PyTorch's check_shape_forward checks that convolutions and transposed convolutions share,
// with its messages: padding and output_padding not negative, stride positive ...
void check_conv_params(const std::vector<std::int64_t>& padding,
                       const std::vector<std::int64_t>& output_padding,
                       const std::vector<std::int64_t>& stride);
// ... and the weight sizes `ws`: the first at least `groups` and divisible by it.
void check_weight_groups(const std::vector<std::int64_t>& ws, std::int64_t groups);
// Error(kUnsupported) "<op>: symbolite implements float32 only, got Double".
[[noreturn]] void unsupported_dtype(std::string_view op, tensor::DType dtype);
// Error(kUnsupported) "<op>: symbolite implements float32 and float64 only, got Half".
[[noreturn]] void unsupported_float_dtype(std::string_view op, tensor::DType dtype);
// PyTorch's `"<kernel>" not implemented for 'Long'` for a non-floating dtype, else
// unsupported_float_dtype for float16 / bfloat16. Returns for float32 and float64.
void require_floating(std::string_view op, std::string_view kernel_name, tensor::DType dtype);
// A float32 zero-initialized contiguous tensor.
inline tensor::Tensor empty_float(std::vector<std::int64_t> sizes) {
  return tensor::Tensor::empty(std::move(sizes), tensor::DType::kFloat32);
}
// An int[] argument: ints({1, 1}) for a kernel's defaults or a nested run_op call.
inline IValue ints(std::initializer_list<std::int64_t> values) {
  IValueList items;
  for (auto v : values) items.emplace_back(v);
  return IValue::list(std::move(items));
}

// A contiguous tensor's data under new sizes with the same element count (a view).
inline tensor::Tensor view_as(const tensor::Tensor& contiguous, std::vector<std::int64_t> sizes) {
  auto strides = tensor::contiguous_strides(sizes);
  return tensor::Tensor::from_storage(contiguous.storage(), contiguous.dtype(), std::move(sizes),
                                      std::move(strides), contiguous.storage_offset());
}

// A transposed convolution of a batched input [N, C, 1 to 3 spatial sizes] whose weight has
// as many dimensions, with parameters expanded to one per spatial dimension: PyTorch's checks
// and messages from the groups on; `op` names it in unsupported-dtype errors
// (conv_transpose_ops.cpp; aten::_convolution with transposed=True calls it too).
tensor::Tensor transposed_convolution(const tensor::Tensor& input, const tensor::Tensor& weight,
                                      const tensor::Tensor* bias,
                                      const std::vector<std::int64_t>& stride,
                                      const std::vector<std::int64_t>& padding,
                                      const std::vector<std::int64_t>& output_padding,
                                      const std::vector<std::int64_t>& dilation,
                                      std::int64_t groups, std::string_view op);

void register_conv_ops(OperatorRegistry& registry);
void register_pooling_ops(OperatorRegistry& registry);
void register_normalization_ops(OperatorRegistry& registry);
void register_recurrent_ops(OperatorRegistry& registry);
void register_pooling1d_ops(OperatorRegistry& registry);
void register_pooling3d_ops(OperatorRegistry& registry);
void register_upsample_ops(OperatorRegistry& registry);
void register_attention_ops(OperatorRegistry& registry);
void register_transformer_ops(OperatorRegistry& registry);
void register_nested_tensor_ops(OperatorRegistry& registry);
void register_norm_ops(OperatorRegistry& registry);
// The p-norm of x over `dims` as torch.norm defines it for every p (norm_ops.cpp).
IValue vector_norm(const IValue& x, double p, const IValue& dims, bool keepdim);
void register_adaptive_max_pooling_ops(OperatorRegistry& registry);
void register_embedding_bag_ops(OperatorRegistry& registry);
void register_conv_transpose_ops(OperatorRegistry& registry);
void register_pooling_nd_ops(OperatorRegistry& registry);
void register_rnn_gru_ops(OperatorRegistry& registry);
void register_loss_ops(OperatorRegistry& registry);

}  // namespace symbolite::ops::nn
