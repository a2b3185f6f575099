// aten::_native_multi_head_attention: the fused self-attention nn.MultiheadAttention takes
// when it may (batch_first, eval, even head count, no grad — vision transformers' encoder
// blocks, and nn.TransformerEncoder's layers under a key padding mask): q, k and v projected
// by qkv_weight, q scaled by 1/sqrt(head_dim) after its bias, softmax(q k^T) v per head
// (masked keys left out), then the output projection; the attention weights averaged over
// heads (or per head) when asked, else an empty tensor. The projections are symbolite's
// linear (oneDNN's matmul on the file's weights); the heads run one per thread.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/cpu/gemm.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

// Rows [part*d, (part+1)*d) of a [3d, ...] weight or [3d] bias.
IValue third(const Tensor& t, std::int64_t part, std::int64_t d) {
  return run_op("aten::slice.Tensor",
                {t, std::int64_t{0}, part * d, (part + 1) * d, std::int64_t{1}});
}

// PyTorch's _masked_softmax of scores [B, heads, T, T] under a bool key padding mask [B, T]
// (true: masked; mask_type 1, or None with that shape): masked keys count as -inf, so a
// sequence with every key masked gives NaN, as in PyTorch 1.13. PyTorch 1.13's other
// mask kind takes a batch-first mask; its check is kept, the kind itself is not supported.
IValue masked_softmax(const IValue& scores, const Tensor& mask, const IValue& mask_type) {
  const auto& sizes = scores.to_tensor().sizes();
  const std::int64_t b = sizes[0], t = sizes[3];
  const bool key_padding =
      mask_type.is_none() ? mask.dim() == 2 && mask.sizes()[0] == b : mask_type.to_int() == 1;
  if (!key_padding && (mask.dim() == 0 || mask.sizes()[0] != b)) {
    fail(
        "Expected attn_mask->sizes()[0] == batch_size to be true, but got false.  (Could this "
        "error message be improved?  If so, please report an enhancement request to PyTorch.)");
  }
  if (!key_padding || mask.dtype() != tensor::DType::kBool ||
      mask.sizes() != std::vector<std::int64_t>{b, t}) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::_native_multi_head_attention: a mask other than a [batch, keys] "
                            "bool key padding mask (got {} {})",
                            tensor::torch_name(mask.dtype()), tensor::format_sizes(mask.sizes())));
  }
  IValue filled = run_op("aten::masked_fill.Scalar",
                         {scores, run_op("aten::view", {mask.contiguous(), ints({b, 1, 1, t})}),
                          -std::numeric_limits<double>::infinity()});
  return run_op("aten::softmax.int", {filled, std::int64_t{-1}});
}

// Whether a, b are the same tensor (PyTorch's is_same): self-attention passes x three times.
bool same_tensor(const Tensor& a, const Tensor& b) {
  return a.raw_data() == b.raw_data() && a.sizes() == b.sizes() && a.strides() == b.strides() &&
         a.dtype() == b.dtype();
}

// PyTorch's transform_bias_rescale_qkv: from the projections' rows ([B, T] rows of `pitch`
// elements, q, k and v at offsets 0, d and 2d), q = (x + bias) * (1 / sqrt(head_dim)), k and v
// = x + bias, each laid out [B, heads, T, head_dim] contiguous.
template <typename T>
void split_qkv(const T* const src[3], std::int64_t pitch, const T* bias, std::int64_t b,
               std::int64_t n, std::int64_t heads, std::int64_t d, T* const dst[3]) {
  const std::int64_t dh = d / heads;
  // As PyTorch computes it: the square root in T, its reciprocal in double, rounded to T.
  const T inv_sqrt = static_cast<T>(1.0 / std::sqrt(static_cast<T>(dh)));
  parallel_for(b * n, std::max<std::int64_t>(1, 4096 / std::max<std::int64_t>(1, 3 * d)),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t row = first; row < last; ++row) {
                   const std::int64_t batch = row / n, t = row % n;
                   for (int part = 0; part < 3; ++part) {
                     const T* x = src[part] + row * pitch;
                     const T* add = bias + part * d;
                     for (std::int64_t h = 0; h < heads; ++h) {
                       T* out = dst[part] + ((batch * heads + h) * n + t) * dh;
                       for (std::int64_t i = 0; i < dh; ++i) {
                         const T v = x[h * dh + i] + add[h * dh + i];
                         out[i] = part == 0 ? v * inv_sqrt : v;
                       }
                     }
                   }
                 }
               });
}

// The attention itself, as PyTorch's native_multi_head_attention_cpu computes it: q, k, v
// projected (one product when query, key and value are one tensor, else one per third of the
// weight) without bias, then split_qkv; per head q k^T, the softmax over keys (masked keys
// left out), then the weights times v, written straight into [B, T, d] rows for the output
// projection.
template <typename T>
std::pair<Tensor, Tensor> attend(const Tensor& query, const Tensor& key, const Tensor& value,
                                 std::int64_t d, std::int64_t heads, const Tensor& qkv_w,
                                 const Tensor& qkv_b, const IValue& mask, const IValue& mask_type) {
  const std::int64_t b = query.sizes()[0], n = query.sizes()[1], dh = d / heads;
  const tensor::DType dtype = query.dtype();
  std::vector<Tensor> projected;  // kept alive while split_qkv reads them
  const T* src[3];
  std::int64_t pitch = d;
  if (same_tensor(query, key) && same_tensor(key, value)) {
    projected.push_back(run_op("aten::linear", {query, qkv_w, IValue()}).to_tensor().contiguous());
    pitch = 3 * d;
    for (int part = 0; part < 3; ++part) src[part] = projected[0].data<T>() + part * d;
  } else {
    const Tensor* inputs[3] = {&query, &key, &value};
    for (int part = 0; part < 3; ++part) {
      projected.push_back(run_op("aten::linear", {*inputs[part], third(qkv_w, part, d), IValue()})
                              .to_tensor()
                              .contiguous());
      src[part] = projected.back().data<T>();
    }
  }
  if (qkv_b.dtype() != dtype) {
    fail(fmt::format("expected scalar type {} but found {}", tensor::scalar_type_name(dtype),
                     tensor::scalar_type_name(qkv_b.dtype())));
  }
  const Tensor bias = qkv_b.contiguous();
  Tensor q = Tensor::uninitialized({b, heads, n, dh}, dtype);
  Tensor k = Tensor::uninitialized({b, heads, n, dh}, dtype);
  Tensor v = Tensor::uninitialized({b, heads, n, dh}, dtype);
  T* const dst[3] = {q.mutable_data<T>(), k.mutable_data<T>(), v.mutable_data<T>()};
  split_qkv<T>(src, pitch, bias.data<T>(), b, n, heads, d, dst);
  projected.clear();

  Tensor scores = Tensor::uninitialized({b, heads, n, n}, dtype);
  T* s = scores.mutable_data<T>();
  const std::int64_t plane = n * dh, square = n * n;
  // Heads are independent: each on one thread (the products inside run inline).
  parallel_for(b * heads, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t bh = first; bh < last; ++bh) {
      gemm(false, true, n, n, dh, T(1), dst[0] + bh * plane, dh, dst[1] + bh * plane, dh, T(0),
           s + bh * square, n);
    }
  });
  Tensor attn;
  if (!mask.is_none()) {
    attn = masked_softmax(scores, mask.to_tensor(), mask_type).to_tensor().contiguous();
  } else if constexpr (std::is_same_v<T, float>) {
    parallel_for(b * heads * n, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, n)),
                 [&](std::int64_t first, std::int64_t last) {
                   for (std::int64_t row = first; row < last; ++row) {
                     vec::softmax_row_f32(s + row * n, s + row * n, n);
                   }
                 });
    attn = scores;
  } else {
    attn = run_op("aten::softmax.int", {scores, std::int64_t{-1}}).to_tensor();
  }
  Tensor ctx = Tensor::uninitialized({b, n, d}, dtype);
  T* c = ctx.mutable_data<T>();
  const T* weights = attn.data<T>();
  parallel_for(b * heads, 1, [&](std::int64_t first, std::int64_t last) {
    for (std::int64_t bh = first; bh < last; ++bh) {
      const std::int64_t batch = bh / heads, h = bh % heads;
      gemm(false, false, n, dh, n, T(1), weights + bh * square, n, dst[2] + bh * plane, dh, T(0),
           c + batch * n * d + h * dh, d);
    }
  });
  return {ctx, attn};
}

// _native_multi_head_attention(Tensor query, Tensor key, Tensor value, int embed_dim,
// int num_head, Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias,
// Tensor? mask=None, bool need_weights=True, bool average_attn_weights=True,
// int? mask_type=None) -> (Tensor, Tensor)
void native_multi_head_attention(Stack& s) {
  IValue* a = last(s, 13);
  const Tensor query = a[0].to_tensor(), key = a[1].to_tensor(), value = a[2].to_tensor();
  const std::int64_t embed_dim = a[3].to_int(), heads = a[4].to_int();
  const Tensor qkv_w = a[5].to_tensor(), qkv_b = a[6].to_tensor();
  const IValue proj_w = a[7], proj_b = a[8], mask = a[9];
  const bool need_weights = a[10].to_bool(), average = a[11].to_bool();
  const IValue a_mask_type = a[12];
  drop(s, 13);
  // PyTorch 1.13's checks, in its order and words (its `qkv_bias` message says 2-D).
  if (query.dim() != 3) fail(fmt::format("expected 3-D `query`, got {}-D tensor", query.dim()));
  if (query.sizes()[2] != embed_dim) {
    fail(fmt::format("passed-in embed_dim {} didn't match last dim of query {}", embed_dim,
                     query.sizes()[2]));
  }
  if (key.dim() != 3) fail(fmt::format("expected 3-D `key`, got {}-D tensor", key.dim()));
  if (value.dim() != 3) fail(fmt::format("expected 3-D `value`, got {}-D tensor", value.dim()));
  if (query.sizes() != key.sizes() || key.sizes() != value.sizes()) {
    fail("expected `query`/`key`/`value` shapes to match");
  }
  if (qkv_w.dim() != 2) {
    fail(fmt::format("expected 2-D `qkv_weight`, got {}-D tensor", qkv_w.dim()));
  }
  if (qkv_w.sizes()[0] != 3 * embed_dim) fail("expected `qkv_weight` first dim to be 3x embed_dim");
  if (qkv_w.sizes()[1] != embed_dim) fail("expected `qkv_weight` second dim to be embed_Dim");
  if (qkv_b.dim() != 1) fail(fmt::format("expected 2-D `qkv_bias`, got {}-D tensor", qkv_b.dim()));
  if (qkv_b.sizes()[0] != 3 * embed_dim) {
    fail("expected `qkv_bias` first dim and first dim of query to be equal");
  }
  // (PyTorch divides by a zero head count.)
  if (heads == 0 || embed_dim % heads != 0) fail("`embed_dim` must divide evenly by `num_heads`");
  if (heads < 0) {
    fail(fmt::format("Trying to create tensor with negative dimension {}: [3, {}, {}, {}, {}]",
                     heads, query.sizes()[0], heads, query.sizes()[1], embed_dim / heads));
  }
  if (query.numel() == 0) {  // PyTorch returns an empty result and no weights
    s.emplace_back(Tensor::empty(query.sizes(), query.dtype()));
    s.emplace_back();
    return;
  }
  const tensor::DType dtype = query.dtype();
  if (dtype != tensor::DType::kFloat32 && dtype != tensor::DType::kFloat64) {
    run_op("aten::linear", {query, qkv_w, IValue()});  // PyTorch's error is the product's
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::_native_multi_head_attention on {} (float and double only)",
                            tensor::torch_name(dtype)));
  }
  auto [ctx, attn] =
      dtype == tensor::DType::kFloat32
          ? attend<float>(query, key, value, embed_dim, heads, qkv_w, qkv_b, mask, a_mask_type)
          : attend<double>(query, key, value, embed_dim, heads, qkv_w, qkv_b, mask, a_mask_type);
  IValue out = run_op("aten::linear", {ctx, proj_w, proj_b});
  IValue weights;
  if (!need_weights) {
    // PyTorch returns an undefined tensor: None to TorchScript.
  } else if (average) {
    weights = run_op("aten::mean.dim", {attn, ints({1}), false});
  } else {
    weights = attn;
  }
  s.push_back(out);
  s.push_back(weights);
}

}  // namespace

void register_attention_ops(OperatorRegistry& r) {
  r.add({"aten::_native_multi_head_attention",
         13,
         {IValue(), IValue(true), IValue(true), IValue()},
         native_multi_head_attention});
}

}  // namespace symbolite::ops::nn
