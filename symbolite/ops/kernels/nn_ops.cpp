// Neural-network layers: the family's shared argument readers, dropout, softmax and
// embedding here; convolutions, pooling and normalization in their own files.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/legacy_type_name.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace nn {

using tensor::DType;
using tensor::Tensor;

const Tensor* optional_tensor(const IValue& value) {
  return value.is_none() ? nullptr : &value.to_tensor();
}

std::string format_ints(const std::vector<std::int64_t>& values) {
  return tensor::format_sizes(values);
}

void check_conv_params(const std::vector<std::int64_t>& padding,
                       const std::vector<std::int64_t>& output_padding,
                       const std::vector<std::int64_t>& stride) {
  auto any = [](const std::vector<std::int64_t>& v, auto pred) {
    return std::any_of(v.begin(), v.end(), pred);
  };
  if (any(padding, [](std::int64_t p) { return p < 0; })) fail("negative padding is not supported");
  if (any(output_padding, [](std::int64_t p) { return p < 0; })) {
    fail("negative output_padding is not supported");
  }
  if (any(stride, [](std::int64_t p) { return p <= 0; }))
    fail("non-positive stride is not supported");
}

void check_weight_groups(const std::vector<std::int64_t>& ws, std::int64_t groups) {
  if (ws[0] < groups) {
    fail(
        fmt::format("Given groups={0}, expected weight to be at least {0} at dimension 0, but "
                    "got weight of size {1} instead",
                    groups, format_ints(ws)));
  }
  if (ws[0] % groups != 0) {
    fail(
        fmt::format("Given groups={0}, expected weight to be divisible by {0} at dimension 0, "
                    "but got weight of size [{1}] instead",
                    groups, format_ints(ws)));
  }
}

std::vector<std::int64_t> expand_conv_param(const std::vector<std::int64_t>& param,
                                            const char* name, std::int64_t dim) {
  if (param.size() == 1) return std::vector<std::int64_t>(static_cast<std::size_t>(dim), param[0]);
  if (static_cast<std::int64_t>(param.size()) != dim) {
    fail(
        fmt::format("expected {0} to be a single integer value or a list of {1} values to match "
                    "the convolution dimensions, but got {0}={2}",
                    name, dim, format_ints(param)));
  }
  return param;
}

void unsupported_dtype(std::string_view op, DType dtype) {
  throw Error(ErrorKind::kUnsupported, fmt::format("{}: symbolite implements float32 only, got {}",
                                                   op, tensor::scalar_type_name(dtype)));
}

void unsupported_float_dtype(std::string_view op, DType dtype) {
  throw Error(ErrorKind::kUnsupported,
              fmt::format("{}: symbolite implements float32 and float64 only, got {}", op,
                          tensor::scalar_type_name(dtype)));
}

void require_floating(std::string_view op, std::string_view kernel_name, DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
      return;
    case DType::kFloat16:
    case DType::kBFloat16:
      unsupported_float_dtype(op, dtype);
    default:
      fail(fmt::format("\"{}\" not implemented for '{}'", kernel_name,
                       tensor::scalar_type_name(dtype)));
  }
}

}  // namespace nn

namespace {

using tensor::DType;
using tensor::Tensor;

// aten::dropout(Tensor input, float p, bool train) and dropout_: identity in eval mode (the
// input itself, as PyTorch returns it). Training mode (random) is not supported.
void dropout_impl(Stack& s, const char* name) {
  bool train = pop(s).to_bool();
  double p = pop(s).to_double();
  IValue input = pop(s);
  const Tensor& x = input.to_tensor();
  if (!(p >= 0 && p <= 1)) {
    fail(fmt::format("dropout probability has to be between 0 and 1, but got {:g}", p));
  }
  if (p == 0 || !train || x.numel() == 0) {
    s.push_back(std::move(input));
    return;
  }
  throw Error(ErrorKind::kUnsupported,
              fmt::format("{} in training mode is not supported (random)", name));
}

void dropout(Stack& s) { dropout_impl(s, "aten::dropout"); }
void dropout_inplace(Stack& s) { dropout_impl(s, "aten::dropout_"); }
// aten::feature_dropout(Tensor input, float p, bool train) and feature_dropout_ (nn.Dropout1d,
// 2d, 3d): the same in evaluation mode; whole channels dropped at random in training.
void feature_dropout(Stack& s) { dropout_impl(s, "aten::feature_dropout"); }
void feature_dropout_inplace(Stack& s) { dropout_impl(s, "aten::feature_dropout_"); }
// alpha_dropout / feature_alpha_dropout (nn.AlphaDropout, FeatureAlphaDropout): likewise.
void alpha_dropout(Stack& s) { dropout_impl(s, "aten::alpha_dropout"); }
void alpha_dropout_inplace(Stack& s) { dropout_impl(s, "aten::alpha_dropout_"); }
void feature_alpha_dropout(Stack& s) { dropout_impl(s, "aten::feature_alpha_dropout"); }
void feature_alpha_dropout_inplace(Stack& s) { dropout_impl(s, "aten::feature_alpha_dropout_"); }

template <typename T>
Tensor softmax_typed(const Tensor& x, std::int64_t dim, DType out_dtype, bool log) {
  Tensor out = Tensor::uninitialized(x.sizes(), out_dtype);  // every element written
  T* y = out.mutable_data<T>();
  std::int64_t n = x.numel();
  if (n == 0) return out;
  const auto& sizes = x.sizes();
  std::int64_t len = sizes.empty() ? 1 : sizes[static_cast<std::size_t>(dim)];
  std::int64_t inner = 1;
  for (std::size_t d = static_cast<std::size_t>(dim) + 1; d < sizes.size(); ++d) inner *= sizes[d];
  std::int64_t outer = n / (len * inner);
  if constexpr (std::is_same_v<T, float>) {
    if (!log && inner == 1 && x.dtype() == out_dtype) {
      // Over the last dimension (attention scores): rows in parallel, each in vectors as
      // PyTorch's vectorized softmax computes it.
      const float* src = x.data<float>();
      parallel_for(outer, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, len)),
                   [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t o = first; o < last; ++o) {
                       vec::softmax_row_f32(src + o * len, y + o * len, len);
                     }
                   });
      return out;
    }
    if (inner > 1 && x.dtype() == out_dtype) {
      // Along a dimension before the last (a segmentation head's classes, dim 1): blocks of
      // positions across threads, each block's rows of positions in vectors, with the sums of
      // the loop below (a maximum, exp(x - max) summed over the dimension in order, then the
      // reciprocal's product or x - max - log(sum)).
      constexpr std::int64_t kBlock = 1024;
      const std::int64_t blocks = (inner + kBlock - 1) / kBlock;
      const float* src = x.data<float>();
      parallel_for(outer * blocks, 1, [&](std::int64_t first, std::int64_t last) {
        thread_local std::vector<float> top, sum;
        for (std::int64_t unit = first; unit < last; ++unit) {
          const std::int64_t o = unit / blocks, i0 = unit % blocks * kBlock;
          const std::int64_t m = std::min(kBlock, inner - i0);
          const float* in = src + o * len * inner + i0;
          float* to = y + o * len * inner + i0;
          top.assign(static_cast<std::size_t>(m), -std::numeric_limits<float>::infinity());
          sum.assign(static_cast<std::size_t>(m), 0.0f);
          for (std::int64_t k = 0; k < len; ++k) {
            const float* row = in + k * inner;
            for (std::int64_t i = 0; i < m; ++i) {  // branch-free: it vectorizes
              const float v = row[i];
              top[i] = ((v > top[i]) | (v != v)) ? v : top[i];  // NOLINT(misc-redundant-expression)
            }
          }
          for (std::int64_t k = 0; k < len; ++k) {
            const float* row = in + k * inner;
            float* e = to + k * inner;
            for (std::int64_t i = 0; i < m; ++i) e[i] = row[i] - top[i];
            vec::exp_f32(e, e, m);
            for (std::int64_t i = 0; i < m; ++i) sum[i] += e[i];
          }
          for (std::int64_t i = 0; i < m; ++i) {
            sum[i] = log ? std::log(sum[i]) : 1.0f / sum[i];  // log(sum), or its reciprocal
          }
          for (std::int64_t k = 0; k < len; ++k) {
            const float* row = in + k * inner;
            float* e = to + k * inner;
            if (log) {
              for (std::int64_t i = 0; i < m; ++i) e[i] = row[i] - top[i] - sum[i];
            } else {
              for (std::int64_t i = 0; i < m; ++i) e[i] *= sum[i];
            }
          }
        }
      });
      return out;
    }
    if (log && inner == 1 && x.dtype() == out_dtype) {
      // log_softmax over the last dimension (a classifier's or language model's output): rows
      // in parallel, each in vectors.
      const float* src = x.data<float>();
      parallel_for(outer, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, len)),
                   [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t o = first; o < last; ++o) {
                       vec::log_softmax_row_f32(src + o * len, y + o * len, len);
                     }
                   });
      return out;
    }
  }
  if (x.dtype() == out_dtype) {
    std::memcpy(y, x.raw_data(), static_cast<std::size_t>(n) * sizeof(T));
  } else {
    if (x.dtype() == DType::kFloat16 || x.dtype() == DType::kBFloat16) {
      nn::unsupported_dtype("aten::softmax", x.dtype());
    }
    for (std::int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(element_as_double(x, i));
  }
  for (std::int64_t o = 0; o < outer; ++o) {
    for (std::int64_t i = 0; i < inner; ++i) {
      T* row = y + o * len * inner + i;
      T max = -std::numeric_limits<T>::infinity();
      for (std::int64_t k = 0; k < len; ++k) {
        T v = row[k * inner];
        if (v > max || std::isnan(v)) max = v;
      }
      T sum = 0;
      for (std::int64_t k = 0; k < len; ++k) {
        T e = std::exp(row[k * inner] - max);
        if (!log) row[k * inner] = e;
        sum += e;
      }
      if (log) {  // log_softmax: x - max - log(sum(exp(x - max)))
        T log_sum = std::log(sum);
        for (std::int64_t k = 0; k < len; ++k) row[k * inner] = row[k * inner] - max - log_sum;
        continue;
      }
      T inv = T(1) / sum;
      for (std::int64_t k = 0; k < len; ++k) row[k * inner] *= inv;
    }
  }
  return out;
}

// aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None), and log_softmax.int.
void softmax_or_log(Stack& s, bool log) {
  IValue dtype_arg = pop(s);
  std::int64_t dim_arg = pop(s).to_int();
  IValue input = pop(s);
  const Tensor& raw = input.to_tensor();
  std::int64_t dim = wrap_dim(dim_arg, raw.dim());
  DType out_dtype = raw.dtype();
  if (!dtype_arg.is_none()) {
    std::int64_t code = dtype_arg.to_int();
    if (code == 6) {
      out_dtype = DType::kFloat32;
    } else if (code == 7) {
      out_dtype = DType::kFloat64;
    } else {
      throw Error(ErrorKind::kUnsupported,
                  fmt::format("aten::softmax: dtype code {} is not supported", code));
    }
  } else if (out_dtype != DType::kFloat32 && out_dtype != DType::kFloat64) {
    if (out_dtype == DType::kFloat16 || out_dtype == DType::kBFloat16) {
      nn::unsupported_dtype("aten::softmax", out_dtype);
    }
    bool last = raw.dim() == 0 || dim == raw.dim() - 1;
    fail(fmt::format("\"{}{}\" not implemented for '{}'", log ? "log_" : "",
                     last ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl",
                     tensor::scalar_type_name(out_dtype)));
  }
  Tensor x = raw.contiguous();
  if (out_dtype == DType::kFloat32) {
    s.emplace_back(softmax_typed<float>(x, dim, out_dtype, log));
  } else {
    s.emplace_back(softmax_typed<double>(x, dim, out_dtype, log));
  }
}
void softmax(Stack& s) { softmax_or_log(s, false); }
void log_softmax(Stack& s) { softmax_or_log(s, true); }

// aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1,
//                 bool scale_grad_by_freq=False, bool sparse=False): rows of weight, any dtype.
void embedding(Stack& s) {
  drop(s, 3);  // padding_idx, scale_grad_by_freq and sparse only matter for gradients
  IValue indices_arg = pop(s);
  IValue weight_arg = pop(s);
  const Tensor& weight_raw = weight_arg.to_tensor();
  const Tensor& indices_raw = indices_arg.to_tensor();
  if (weight_raw.dim() != 2) fail("'weight' must be 2-D");
  if (indices_raw.dtype() != DType::kInt64 && indices_raw.dtype() != DType::kInt32) {
    fail(
        fmt::format("Expected tensor for argument #1 'indices' to have one of the following "
                    "scalar types: Long, Int; but got {} instead (while checking arguments "
                    "for embedding)",
                    legacy_type_name(indices_raw.dtype())));
  }
  Tensor weight = weight_raw.contiguous();
  Tensor indices = indices_raw.contiguous();
  std::int64_t rows = weight.sizes()[0];
  std::size_t row_bytes = static_cast<std::size_t>(weight.sizes()[1]) * weight.element_size();
  std::vector<std::int64_t> out_sizes = indices.sizes();
  out_sizes.push_back(weight.sizes()[1]);
  Tensor out = Tensor::uninitialized(out_sizes, weight.dtype());  // every row copied below
  std::uint8_t* dst = out.numel() == 0 ? nullptr : out.storage().mutable_data();
  const std::uint8_t* src = weight.raw_data();
  for (std::int64_t i = 0; i < indices.numel(); ++i) {
    std::int64_t index = indices.dtype() == DType::kInt64 ? indices.data<std::int64_t>()[i]
                                                          : indices.data<std::int32_t>()[i];
    if (index < 0 || index >= rows) throw OpError("IndexError", "index out of range in self");
    if (row_bytes != 0) {
      std::memcpy(dst + static_cast<std::size_t>(i) * row_bytes,
                  src + static_cast<std::size_t>(index) * row_bytes, row_bytes);
    }
  }
  s.emplace_back(std::move(out));
}

}  // namespace

void register_nn_ops(OperatorRegistry& r) {
  nn::register_conv_ops(r);
  nn::register_pooling_ops(r);
  nn::register_normalization_ops(r);
  nn::register_recurrent_ops(r);
  nn::register_pooling1d_ops(r);
  nn::register_pooling3d_ops(r);
  nn::register_upsample_ops(r);
  nn::register_attention_ops(r);
  nn::register_transformer_ops(r);
  nn::register_nested_tensor_ops(r);
  nn::register_norm_ops(r);
  nn::register_adaptive_max_pooling_ops(r);
  nn::register_embedding_bag_ops(r);
  nn::register_conv_transpose_ops(r);
  nn::register_pooling_nd_ops(r);
  nn::register_rnn_gru_ops(r);
  nn::register_loss_ops(r);
  r.add({"aten::dropout", 3, {}, dropout});
  r.add({"aten::dropout_", 3, {}, dropout_inplace});
  r.add({"aten::feature_dropout", 3, {}, feature_dropout});
  r.add({"aten::feature_dropout_", 3, {}, feature_dropout_inplace});
  r.add({"aten::alpha_dropout", 3, {}, alpha_dropout});
  r.add({"aten::alpha_dropout_", 3, {}, alpha_dropout_inplace});
  r.add({"aten::feature_alpha_dropout", 3, {}, feature_alpha_dropout});
  r.add({"aten::feature_alpha_dropout_", 3, {}, feature_alpha_dropout_inplace});
  r.add({"aten::softmax.int", 3, {IValue()}, softmax});
  r.add({"aten::log_softmax.int", 3, {IValue()}, log_softmax});
  r.add({"aten::embedding", 5, {IValue(-1), IValue(false), IValue(false)}, embedding});
}

}  // namespace symbolite::ops
