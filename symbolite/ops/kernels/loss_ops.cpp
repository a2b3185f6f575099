// Loss functions the torch.nn loss modules call (aten::mse_loss, l1_loss, smooth_l1_loss,
// huber_loss, soft_margin_loss, binary_cross_entropy(_with_logits), kl_div, poisson_nll_loss,
// margin_ranking_loss, hinge_embedding_loss, cosine_embedding_loss, triplet_margin_loss) and the
// distances (cosine_similarity, pairwise_distance), each written as PyTorch 1.13 writes it, from
// symbolite's own kernels, so dtypes, broadcasting and NaN behave as theirs. `reduction` is
// PyTorch's enum: 0 none, 1 mean, 2 sum.
#include <cmath>

#include <numbers>

#include <fmt/format.h>

#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;

IValue apply_reduction(const IValue& loss, std::int64_t reduction) {
  if (reduction == 1) return run_op("aten::mean", {loss});
  if (reduction == 2) return run_op("aten::sum", {loss});
  return loss;
}

IValue sub(const IValue& a, const IValue& b) { return run_op("aten::sub.Tensor", {a, b}); }
IValue mul(const IValue& a, const IValue& b) { return run_op("aten::mul.Tensor", {a, b}); }
IValue scale(const IValue& a, double k) { return run_op("aten::mul.Scalar", {a, k}); }

// mse_loss(Tensor self, Tensor target, int reduction=Mean)
void mse_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue target = pop(s), self = pop(s);
  s.push_back(
      apply_reduction(run_op("aten::pow.Tensor_Scalar", {sub(self, target), 2}), reduction));
}

// l1_loss(Tensor self, Tensor target, int reduction=Mean)
void l1_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue target = pop(s), self = pop(s);
  s.push_back(apply_reduction(run_op("aten::abs", {sub(self, target)}), reduction));
}

// smooth_l1_loss(Tensor self, Tensor target, int reduction=Mean, float beta=1.0):
// |d| < beta ? 0.5 d^2 / beta : |d| - 0.5 beta; the L1 loss for beta 0.
void smooth_l1_loss(Stack& s) {
  const double beta = pop(s).to_double();
  const std::int64_t reduction = pop(s).to_int();
  IValue target = pop(s), self = pop(s);
  if (beta < 0) fail("smooth_l1_loss does not support negative values for beta.");
  IValue z = run_op("aten::abs", {sub(self, target)});
  if (beta == 0) {
    s.push_back(apply_reduction(z, reduction));
    return;
  }
  IValue quadratic = scale(mul(z, z), 0.5 / beta);
  IValue linear = run_op("aten::sub.Scalar", {z, 0.5 * beta});
  s.push_back(apply_reduction(
      run_op("aten::where.self", {run_op("aten::lt.Scalar", {z, beta}), quadratic, linear}),
      reduction));
}

// huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0):
// |d| < delta ? 0.5 d^2 : delta (|d| - 0.5 delta).
void huber_loss(Stack& s) {
  const double delta = pop(s).to_double();
  const std::int64_t reduction = pop(s).to_int();
  IValue target = pop(s), self = pop(s);
  if (delta <= 0) fail("huber_loss does not support non-positive values for delta.");
  IValue z = run_op("aten::abs", {sub(self, target)});
  IValue quadratic = scale(mul(z, z), 0.5);
  IValue linear = scale(run_op("aten::sub.Scalar", {z, 0.5 * delta}), delta);
  s.push_back(apply_reduction(
      run_op("aten::where.self", {run_op("aten::lt.Scalar", {z, delta}), quadratic, linear}),
      reduction));
}

// soft_margin_loss(Tensor self, Tensor target, int reduction=Mean): log(1 + exp(-y x)).
void soft_margin_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue target = pop(s), self = pop(s);
  IValue loss =
      run_op("aten::log1p", {run_op("aten::exp", {run_op("aten::neg", {mul(self, target)})})});
  s.push_back(apply_reduction(loss, reduction));
}

// binary_cross_entropy(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean):
// (t - 1) max(log(1 - x), -100) - t max(log(x), -100), times the weight.
void binary_cross_entropy(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue weight = pop(s), target = pop(s), self = pop(s);
  IValue log_x = run_op("aten::clamp_min", {run_op("aten::log", {self}), -100.0});
  IValue log_1mx = run_op("aten::clamp_min",
                          {run_op("aten::log", {run_op("aten::rsub.Scalar", {self, 1})}), -100.0});
  IValue loss = sub(mul(run_op("aten::sub.Scalar", {target, 1}), log_1mx), mul(target, log_x));
  if (!weight.is_none()) loss = mul(loss, weight);
  s.push_back(apply_reduction(loss, reduction));
}

// binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None,
// Tensor? pos_weight=None, int reduction=Mean), PyTorch's stable form with
// m = max(-x, 0): (1 - t) x + w_p (log(exp(-m) + exp(-x - m)) + m), w_p = (p - 1) t + 1.
void binary_cross_entropy_with_logits(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  IValue pos_weight = pop(s), weight = pop(s), target = pop(s), self = pop(s);
  IValue m = run_op("aten::clamp_min", {run_op("aten::neg", {self}), 0.0});
  IValue neg_m = run_op("aten::neg", {m});
  IValue log_term = run_op(
      "aten::add.Tensor",
      {run_op("aten::log", {run_op("aten::add.Tensor",
                                   {run_op("aten::exp", {neg_m}),
                                    run_op("aten::exp", {sub(run_op("aten::neg", {self}), m)})})}),
       m});
  IValue one_minus_t = run_op("aten::rsub.Scalar", {target, 1});
  IValue loss;
  if (pos_weight.is_none()) {
    loss = run_op("aten::add.Tensor", {mul(one_minus_t, self), log_term});
  } else {
    IValue log_weight =
        run_op("aten::add.Scalar", {mul(run_op("aten::sub.Scalar", {pos_weight, 1}), target), 1});
    loss = run_op("aten::add.Tensor", {mul(one_minus_t, self), mul(log_weight, log_term)});
  }
  if (!weight.is_none()) loss = mul(loss, weight);
  s.push_back(apply_reduction(loss, reduction));
}

// kl_div(Tensor self, Tensor target, int reduction=Mean, *, bool log_target=False):
// exp(t) (t - x) for log targets, else xlogy(t, t) - t x (0 where t is 0).
void kl_div(Stack& s) {
  const bool log_target = pop(s).to_bool();
  const std::int64_t reduction = pop(s).to_int();
  IValue target = pop(s), self = pop(s);
  IValue loss;
  if (log_target) {
    loss = mul(run_op("aten::exp", {target}), sub(target, self));
  } else {
    IValue t_log_t = mul(target, run_op("aten::log", {target}));
    IValue xlogy = run_op("aten::where.self",
                          {run_op("aten::eq.Scalar", {target, 0}), scale(target, 0.0), t_log_t});
    loss = sub(xlogy, mul(target, self));
  }
  s.push_back(apply_reduction(loss, reduction));
}

// The 2-norm of x along `dim`, kept.
IValue norm2(const IValue& x, std::int64_t dim) {
  return run_op("aten::pow.Tensor_Scalar",
                {run_op("aten::sum.dim_IntList", {mul(x, x), ints({dim}), true}), 0.5});
}

// cosine_similarity(Tensor x1, Tensor x2, int dim=1, float eps=1e-08): each input divided by
// its norm (at least eps), then the products summed along dim.
void cosine_similarity(Stack& s) {
  const double eps = pop(s).to_double();
  const std::int64_t dim = pop(s).to_int();
  IValue x2 = pop(s), x1 = pop(s);
  auto expanded = run_op_multi("aten::broadcast_tensors", {IValue::list({x1, x2})});
  const IValueList both =
      expanded.size() == 1 ? expanded[0].to_list() : IValueList(expanded.begin(), expanded.end());
  const IValue& a = both[0];
  const IValue& b = both[1];
  IValue na = run_op("aten::clamp_min", {norm2(a, dim), eps});
  IValue nb = run_op("aten::clamp_min", {norm2(b, dim), eps});
  IValue product = mul(run_op("aten::div.Tensor", {a, na}), run_op("aten::div.Tensor", {b, nb}));
  s.push_back(run_op("aten::sum.dim_IntList", {product, ints({dim}), false}));
}

// pairwise_distance(Tensor x1, Tensor x2, float p=2, float eps=1e-06, bool keepdim=False):
// the p-norm (vector_norm, norm_ops.cpp) of x1 - x2 + eps along the last dimension.
void pairwise_distance(Stack& s) {
  const bool keepdim = pop(s).to_bool();
  const double eps = pop(s).to_double();
  const double p = pop(s).to_double();
  IValue x2 = pop(s), x1 = pop(s);
  s.push_back(vector_norm(run_op("aten::add.Scalar", {sub(x1, x2), eps}), p, ints({-1}), keepdim));
}

// `value - x` as ATen's `Scalar - Tensor` computes it: x's dtype filled with value, minus x (so
// an integer x stays integral, unlike rsub).
IValue scalar_minus(double value, const IValue& x) {
  return sub(scalar_tensor(IValue(value), x.to_tensor().dtype()), x);
}

// poisson_nll_loss(Tensor input, Tensor target, bool log_input, bool full, float eps, int reduction):
// exp(x) - t x for log inputs, else x - t log(x + eps); `full` adds Stirling's approximation
// t log t - t + log(2 pi t) / 2 where t > 1.
void poisson_nll_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  const double eps = pop(s).to_double();
  const bool full = pop(s).to_bool();
  const bool log_input = pop(s).to_bool();
  IValue target = pop(s), input = pop(s);
  IValue loss =
      log_input ? sub(run_op("aten::exp", {input}), mul(target, input))
                : sub(input,
                      mul(target, run_op("aten::log", {run_op("aten::add.Scalar", {input, eps})})));
  if (full) {
    IValue stirling =
        run_op("aten::add.Tensor",
               {sub(mul(target, run_op("aten::log", {target})), target),
                scale(run_op("aten::log", {scale(target, 2 * std::numbers::pi)}), 0.5)});
    loss = run_op("aten::add.Tensor",
                  {loss, run_op("aten::masked_fill.Scalar",
                                {stirling, run_op("aten::le.Scalar", {target, 1}), 0})});
  }
  s.push_back(apply_reduction(loss, reduction));
}

// margin_ranking_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=Mean):
// max(0, -y (x1 - x2) + margin).
void margin_ranking_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  const double margin = pop(s).to_double();
  IValue target = pop(s), input2 = pop(s), input1 = pop(s);
  IValue unclamped =
      run_op("aten::add.Scalar", {mul(run_op("aten::neg", {target}), sub(input1, input2)), margin});
  s.push_back(apply_reduction(run_op("aten::clamp_min", {unclamped, 0}), reduction));
}

// hinge_embedding_loss(Tensor self, Tensor target, float margin=1., int reduction=Mean):
// x where y is 1, max(0, margin - x) where y is -1 (their sum for other y).
void hinge_embedding_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  const double margin = pop(s).to_double();
  IValue target = pop(s), self = pop(s);
  IValue zeros = run_op("aten::zeros_like", {self});
  IValue margin_clamp = run_op("aten::clamp_min", {scalar_minus(margin, self), 0});
  IValue output_margin =
      run_op("aten::where.self", {run_op("aten::ne.Scalar", {target, 1}), margin_clamp, zeros});
  IValue output_self =
      run_op("aten::where.self", {run_op("aten::ne.Scalar", {target, -1}), self, zeros});
  s.push_back(apply_reduction(run_op("aten::add.Tensor", {output_margin, output_self}), reduction));
}

// cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., int reduction=Mean):
// 1 - cos where y is 1, max(0, cos - margin) where y is -1, cos over the last dimension with
// 1e-12 added to each squared norm.
void cosine_embedding_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  const double margin = pop(s).to_double();
  IValue target = pop(s), input2 = pop(s), input1 = pop(s);
  const std::int64_t targ_dim = target.to_tensor().dim();
  if (targ_dim != 1 && targ_dim != 0)
    fail("0D or 1D target tensor expected, multi-target not supported");
  const std::int64_t want = targ_dim == 1 ? 2 : 1;
  if (input1.to_tensor().dim() != want) {
    fail(fmt::format(
        "{}D target tensor expects {}D input tensors, but found inputs with sizes {} and {}.",
        targ_dim, want, format_ints(input1.to_tensor().sizes()),
        format_ints(input2.to_tensor().sizes())));
  }
  constexpr double kEpsilon = static_cast<float>(1e-12);  // PyTorch's float EPSILON
  auto sum_last = [&](const IValue& x) {
    return run_op("aten::sum.dim_IntList", {x, ints({targ_dim}), false});
  };
  IValue prod_sum = sum_last(mul(input1, input2));
  IValue mag_square1 = run_op("aten::add.Scalar", {sum_last(mul(input1, input1)), kEpsilon});
  IValue mag_square2 = run_op("aten::add.Scalar", {sum_last(mul(input2, input2)), kEpsilon});
  IValue cos =
      run_op("aten::div.Tensor", {prod_sum, run_op("aten::sqrt", {mul(mag_square1, mag_square2)})});
  IValue zeros = run_op("aten::zeros_like", {cos});
  IValue pos = scalar_minus(1.0, cos);
  IValue neg = run_op("aten::clamp_min", {run_op("aten::sub.Scalar", {cos, margin}), 0});
  IValue output_pos =
      run_op("aten::where.self", {run_op("aten::eq.Scalar", {target, 1}), pos, zeros});
  IValue output_neg =
      run_op("aten::where.self", {run_op("aten::eq.Scalar", {target, -1}), neg, zeros});
  s.push_back(apply_reduction(run_op("aten::add.Tensor", {output_pos, output_neg}), reduction));
}

// triplet_margin_loss(Tensor anchor, Tensor positive, Tensor negative, float margin=1., float p=2.,
// float eps=1e-06, bool swap=False, int reduction=Mean): max(0, margin + d(a, p) - d(a, n)),
// d the pairwise distance; `swap` takes the smaller of d(a, n) and d(p, n).
void triplet_margin_loss(Stack& s) {
  const std::int64_t reduction = pop(s).to_int();
  const bool swap = pop(s).to_bool();
  const double eps = pop(s).to_double();
  const double p = pop(s).to_double();
  const double margin = pop(s).to_double();
  IValue negative = pop(s), positive = pop(s), anchor = pop(s);
  const std::int64_t a_dim = anchor.to_tensor().dim(), p_dim = positive.to_tensor().dim(),
                     n_dim = negative.to_tensor().dim();
  if (a_dim != p_dim || p_dim != n_dim) {
    fail(fmt::format("All inputs should have same dimension but got {}D, {}D and {}D inputs.",
                     a_dim, p_dim, n_dim));
  }
  auto distance = [&](const IValue& a, const IValue& b) {
    return run_op("aten::pairwise_distance", {a, b, p, eps, false});
  };
  IValue dist_pos = distance(anchor, positive);
  IValue dist_neg = distance(anchor, negative);
  if (swap) {
    IValue dist_swap = distance(positive, negative);
    dist_neg = run_op("aten::where.self",
                      {run_op("aten::lt.Tensor", {dist_swap, dist_neg}), dist_swap, dist_neg});
  }
  IValue output =
      run_op("aten::clamp_min", {sub(run_op("aten::add.Scalar", {dist_pos, margin}), dist_neg), 0});
  s.push_back(apply_reduction(output, reduction));
}

}  // namespace

void register_loss_ops(OperatorRegistry& r) {
  const IValue mean(std::int64_t{1}), none;
  r.add({"aten::mse_loss", 3, {mean}, mse_loss});
  r.add({"aten::l1_loss", 3, {mean}, l1_loss});
  r.add({"aten::smooth_l1_loss", 4, {mean, IValue(1.0)}, smooth_l1_loss});
  r.add({"aten::huber_loss", 4, {mean, IValue(1.0)}, huber_loss});
  r.add({"aten::soft_margin_loss", 3, {mean}, soft_margin_loss});
  r.add({"aten::binary_cross_entropy", 4, {none, mean}, binary_cross_entropy});
  r.add({"aten::binary_cross_entropy_with_logits",
         5,
         {none, none, mean},
         binary_cross_entropy_with_logits});
  r.add({"aten::kl_div", 4, {mean, IValue(false)}, kl_div});
  r.add({"aten::cosine_similarity", 4, {IValue(std::int64_t{1}), IValue(1e-8)}, cosine_similarity});
  r.add({"aten::pairwise_distance",
         5,
         {IValue(2.0), IValue(1e-6), IValue(false)},
         pairwise_distance});
  r.add({"aten::poisson_nll_loss", 6, {}, poisson_nll_loss});
  r.add({"aten::margin_ranking_loss", 5, {IValue(0.0), mean}, margin_ranking_loss});
  r.add({"aten::hinge_embedding_loss", 4, {IValue(1.0), mean}, hinge_embedding_loss});
  r.add({"aten::cosine_embedding_loss", 5, {IValue(0.0), mean}, cosine_embedding_loss});
  r.add({"aten::triplet_margin_loss",
         8,
         {IValue(1.0), IValue(2.0), IValue(1e-6), IValue(false), mean},
         triplet_margin_loss});
}

}  // namespace symbolite::ops::nn
