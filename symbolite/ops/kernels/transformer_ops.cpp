// aten::_transformer_encoder_layer_fwd: the fused encoder layer nn.TransformerEncoderLayer
// takes on its fast path (eval, no grad, batched 3-D input; PyTorch 1.13's
// transformer_encoder_layer_forward): self-attention through _native_multi_head_attention
// plus the residual, layer norm, a two-layer feed-forward block (ReLU or GELU) plus the
// residual, layer norm — the norms before each block instead with norm_first. Built from
// symbolite's own kernels, in PyTorch's order of operations.
#include <cstdint>
#include <vector>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

IValue layer_norm(const IValue& x, std::int64_t embed_dim, const IValue& weight, const IValue& bias,
                  double eps) {
  return run_op("aten::layer_norm", {x, IValue::list({embed_dim}), weight, bias, eps, true});
}

// [N, L] bool, true past each sequence's length: the keys a nested batch does not have.
Tensor padding_mask(const Tensor& src, const std::vector<std::int64_t>& lengths) {
  const std::int64_t n = src.sizes()[0], l = src.sizes()[1];
  Tensor mask = Tensor::uninitialized({n, l}, tensor::DType::kBool);
  bool* p = mask.mutable_data<bool>();
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::int64_t j = 0; j < l; ++j) p[i * l + j] = j >= lengths[static_cast<std::size_t>(i)];
  }
  return mask;
}

// _transformer_encoder_layer_fwd(Tensor src, int embed_dim, int num_heads, Tensor qkv_weight,
// Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias, bool use_gelu, bool norm_first,
// float eps, Tensor norm_weight_1, Tensor norm_bias_1, Tensor norm_weight_2,
// Tensor norm_bias_2, Tensor ffn_weight_1, Tensor ffn_bias_1, Tensor ffn_weight_2,
// Tensor ffn_bias_2, Tensor? mask=None, int? mask_type=None) -> Tensor
void transformer_encoder_layer_fwd(Stack& s) {
  IValue* a = last(s, 20);
  const IValue src = a[0];
  const std::int64_t embed_dim = a[1].to_int();
  const IValue heads = a[2], qkv_w = a[3], qkv_b = a[4], proj_w = a[5], proj_b = a[6];
  const bool use_gelu = a[7].to_bool(), norm_first = a[8].to_bool();
  const double eps = a[9].to_double();
  const IValue norm_w1 = a[10], norm_b1 = a[11], norm_w2 = a[12], norm_b2 = a[13];
  const IValue ffn_w1 = a[14], ffn_b1 = a[15], ffn_w2 = a[16], ffn_b2 = a[17], mask = a[18],
               mask_type = a[19];
  drop(s, 20);
  if (src.to_tensor().numel() == 0) {
    s.push_back(run_op("aten::clone", {src, IValue()}));
    return;
  }
  // A nested src (nested_tensor_ops.cpp) is padded: its keys past each sequence's length are
  // masked, so every sequence's rows are what PyTorch computes on the sequence alone.
  const auto& lengths = src.to_tensor().nested_lengths();
  IValue attention_mask = mask, attention_mask_type = mask_type;
  if (lengths != nullptr) {
    if (!mask.is_none()) {
      throw Error(ErrorKind::kUnsupported,
                  "aten::_transformer_encoder_layer_fwd: a nested src with a mask");
    }
    attention_mask = padding_mask(src.to_tensor(), *lengths);
    attention_mask_type = IValue(std::int64_t{1});
  }
  IValue x = src;
  if (norm_first) x = layer_norm(x, embed_dim, norm_w1, norm_b1, eps);
  auto attention = run_op_multi("aten::_native_multi_head_attention",
                                {x, x, x, embed_dim, heads, qkv_w, qkv_b, proj_w, proj_b,
                                 attention_mask, false, true, attention_mask_type});
  x = run_op("aten::add.Tensor", {attention[0], src});
  if (!norm_first) x = layer_norm(x, embed_dim, norm_w1, norm_b1, eps);
  const IValue pre_ffn = x;
  if (norm_first) x = layer_norm(x, embed_dim, norm_w2, norm_b2, eps);
  x = run_op("aten::linear", {x, ffn_w1, ffn_b1});
  x = use_gelu ? run_op("aten::gelu", {x, IValue::string("none")}) : run_op("aten::relu", {x});
  x = run_op("aten::linear", {x, ffn_w2, ffn_b2});
  x = run_op("aten::add.Tensor", {x, pre_ffn});
  if (!norm_first) x = layer_norm(x, embed_dim, norm_w2, norm_b2, eps);
  if (lengths != nullptr) x = IValue(x.to_tensor().as_nested(*lengths));
  s.push_back(x);
}

}  // namespace

void register_transformer_ops(OperatorRegistry& r) {
  r.add({"aten::_transformer_encoder_layer_fwd",
         20,
         {IValue(), IValue()},
         transformer_encoder_layer_fwd});
}

}  // namespace symbolite::ops::nn
