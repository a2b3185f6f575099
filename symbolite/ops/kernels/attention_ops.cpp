// aten::_native_multi_head_attention: the fused self-attention nn.MultiheadAttention takes
// when it may (batch_first, eval, even head count, no grad — vision transformers' encoder
// blocks, and nn.TransformerEncoder's layers under a key padding mask): q, k and v projected
// by the three thirds of qkv_weight, q scaled by 1/sqrt(head_dim) after its bias,
// softmax(q k^T) v per head (masked keys left out), then the output projection; the attention
// weights averaged over heads (or per head) when asked, else an empty tensor. Built from
// symbolite's own linear, matmul and softmax kernels.
#include <cmath>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

// Rows [part*d, (part+1)*d) of a [3d, ...] weight or [3d] bias.
IValue third(const Tensor& t, std::int64_t part, std::int64_t d) {
  return run_op("aten::slice.Tensor",
                {t, std::int64_t{0}, part * d, (part + 1) * d, std::int64_t{1}});
}

// [B, T, D] -> [B, heads, T, D/heads]
Tensor split_heads(const IValue& x, std::int64_t heads) {
  const Tensor& t = x.to_tensor();
  const std::int64_t b = t.sizes()[0], n = t.sizes()[1], d = t.sizes()[2];
  IValue v = run_op("aten::reshape", {t, ints({b, n, heads, d / heads})});
  return run_op("aten::permute", {v, ints({0, 2, 1, 3})}).to_tensor();
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
  if (query.dim() != 3) fail(fmt::format("expected 3-D `query`, got {}-D tensor", query.dim()));
  if (query.sizes() != key.sizes() || key.sizes() != value.sizes()) {
    fail("expected `query`/`key`/`value` shapes to match");
  }
  if (query.sizes()[2] != embed_dim) {
    fail(fmt::format("The size of the last dimension of `query` ({}) does not match embed_dim ({})",
                     query.sizes()[2], embed_dim));
  }
  if (heads <= 0 || embed_dim % heads != 0) fail("embed_dim must be divisible by num_heads");
  const Tensor q = split_heads(
      run_op("aten::linear", {query, third(qkv_w, 0, embed_dim), third(qkv_b, 0, embed_dim)}),
      heads);
  const Tensor k = split_heads(
      run_op("aten::linear", {key, third(qkv_w, 1, embed_dim), third(qkv_b, 1, embed_dim)}), heads);
  const Tensor v = split_heads(
      run_op("aten::linear", {value, third(qkv_w, 2, embed_dim), third(qkv_b, 2, embed_dim)}),
      heads);
  // The head dimension is an integer division, as in PyTorch.
  const double scale =
      std::sqrt(static_cast<double>(embed_dim / heads));  // NOLINT(bugprone-integer-division)
  IValue scaled = run_op("aten::div.Scalar", {q, scale});
  IValue kt = run_op("aten::transpose.int", {k, std::int64_t{-1}, std::int64_t{-2}});
  IValue scores = run_op("aten::matmul", {scaled, kt});  // [B, heads, T, T]
  IValue attn = mask.is_none() ? run_op("aten::softmax.int", {scores, std::int64_t{-1}})
                               : masked_softmax(scores, mask.to_tensor(), a_mask_type);
  IValue ctx = run_op("aten::matmul", {attn, v});  // [B, heads, T, head_dim]
  const std::int64_t b = query.sizes()[0], n = query.sizes()[1];
  ctx = run_op("aten::reshape",
               {run_op("aten::permute", {ctx, ints({0, 2, 1, 3})}), ints({b, n, embed_dim})});
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
