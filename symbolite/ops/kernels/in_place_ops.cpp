// In-place forms of out-of-place operators (`x.lt_(y)`, `x.exp_()`, `x.lerp_(end, w)`, ...):
// the base operator's kernel computes the result, which is then written into self with
// PyTorch's checks (push_in_place: the broadcast shape may not grow self, the result type must
// cast to self's dtype). The view operators' in-place forms (t_, transpose_, swapaxes_,
// swapdims_) change self's shape instead, for every holder of self (IValue::set_tensor).
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "symbolite/ops/common/elementwise_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/ops/registry/resolved_kernel.h"
#include "symbolite/tensor/dtype.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

// kBase's result written into self.
template <OpName kBase>
void written_into_self(Stack& s) {
  IValue self = last(s, ResolvedKernel<kBase>::num_args())[0];
  ResolvedKernel<kBase>::call(s);
  const IValue result = pop(s);
  push_in_place(s, self, result.to_tensor());
}

// kBase's result (a view of self) becomes self.
template <OpName kBase>
void viewed_into_self(Stack& s) {
  IValue self = last(s, ResolvedKernel<kBase>::num_args())[0];
  ResolvedKernel<kBase>::call(s);
  const IValue result = pop(s);
  self.set_tensor(result.to_tensor());
  s.push_back(std::move(self));
}

// "aten::ge.Scalar" -> "aten::ge_.Scalar", "aten::exp" -> "aten::exp_".
std::string in_place_name(std::string_view base) {
  const std::size_t dot = base.find('.');
  if (dot == std::string_view::npos) return std::string(base) + "_";
  return fmt::format("{}_{}", base.substr(0, dot), base.substr(dot));
}

// Registers `name` (kBase's in-place name unless given) as kernel `kernel` with kBase's
// arguments and defaults.
template <OpName kBase>
void add_form(OperatorRegistry& r, Kernel kernel, std::string_view name = {}) {
  const std::string op = name.empty() ? in_place_name(kBase.view()) : std::string(name);
  const OperatorDef& def = ResolvedKernel<kBase>::resolve(r, op);
  r.add({op, def.num_args, def.defaults, kernel});
}
template <OpName kBase>
void add_in_place(OperatorRegistry& r, std::string_view name = {}) {
  add_form<kBase>(r, written_into_self<kBase>, name);
}

// t_(self): t's check names t_.
void t_(Stack& s) {
  const Tensor& t = s.back().to_tensor();
  if (t.dim() > 2) {
    fail(fmt::format("t_() expects a tensor with <= 2 dimensions, but self is {}D", t.dim()));
  }
  viewed_into_self<"aten::t">(s);
}

// square_(self): pow_(self, 2), which refuses bool before computing.
void square_(Stack& s) {
  if (s.back().to_tensor().dtype() == DType::kBool) fail("Found dtype Bool but expected Long");
  written_into_self<"aten::square">(s);
}

// float_power_: the result is float64, so self must be.
template <OpName kBase>
void float_power_(Stack& s) {
  const DType dtype = last(s, 2)[0].to_tensor().dtype();
  if (dtype != DType::kFloat64) {
    fail(fmt::format(
        "the base given to float_power_ has dtype {} but the operation's result requires dtype "
        "Double",
        tensor::scalar_type_name(dtype)));
  }
  written_into_self<kBase>(s);
}

// addmm_(self, mat1, mat2, beta, alpha): self must already have the product's shape.
void addmm_(Stack& s) {
  IValue self = last(s, 5)[0];
  ResolvedKernel<"aten::addmm">::call(s);
  const IValue result = pop(s);
  const Tensor& t = self.to_tensor();
  const Tensor& out = result.to_tensor();
  if (out.sizes() != t.sizes()) {
    fail(fmt::format(
        "Bad in-place call: input tensor size {} and output tensor size {} should match",
        tensor::format_sizes(t.sizes()), tensor::format_sizes(out.sizes())));
  }
  push_in_place(s, self, out);
}

}  // namespace

void register_in_place_ops(OperatorRegistry& r) {
  add_in_place<"aten::abs">(r);
  add_in_place<"aten::atan2">(r);
  add_in_place<"aten::eq.Scalar">(r);
  add_in_place<"aten::eq.Tensor">(r);
  add_in_place<"aten::ne.Scalar">(r);
  add_in_place<"aten::ne.Tensor">(r);
  add_in_place<"aten::lt.Scalar">(r);
  add_in_place<"aten::lt.Tensor">(r);
  add_in_place<"aten::le.Scalar">(r);
  add_in_place<"aten::le.Tensor">(r);
  add_in_place<"aten::gt.Scalar">(r);
  add_in_place<"aten::gt.Tensor">(r);
  add_in_place<"aten::ge.Scalar">(r);
  add_in_place<"aten::ge.Tensor">(r);
  add_in_place<"aten::neg">(r);
  add_in_place<"aten::exp">(r);
  add_in_place<"aten::frac">(r);
  add_in_place<"aten::logical_not">(r);
  add_in_place<"aten::sgn">(r);
  add_in_place<"aten::nan_to_num">(r);
  add_in_place<"aten::lerp.Scalar">(r);
  add_in_place<"aten::lerp.Tensor">(r);
  add_in_place<"aten::hypot">(r);
  add_in_place<"aten::copysign.Scalar">(r);
  add_in_place<"aten::copysign.Tensor">(r);
  add_in_place<"aten::xlogy.Tensor">(r);
  add_in_place<"aten::xlogy.Scalar_Other">(r);
  add_in_place<"aten::fmod.Scalar">(r);
  add_in_place<"aten::fmod.Tensor">(r);
  add_in_place<"aten::remainder.Scalar">(r);
  add_in_place<"aten::remainder.Tensor">(r);
  add_in_place<"aten::floor_divide.Scalar">(r);
  add_in_place<"aten::floor_divide">(r, "aten::floor_divide_.Tensor");
  add_in_place<"aten::gcd">(r);
  add_in_place<"aten::lcm">(r);
  add_in_place<"aten::ldexp.Tensor">(r, "aten::ldexp_");
  add_in_place<"aten::nextafter">(r);
  add_in_place<"aten::igamma">(r);
  add_in_place<"aten::igammac">(r);
  add_in_place<"aten::logit">(r);
  add_in_place<"aten::addcdiv">(r);
  add_in_place<"aten::addcmul">(r);
  add_in_place<"aten::addmv">(r);
  add_in_place<"aten::addr">(r);
  add_in_place<"aten::addbmm">(r);
  add_in_place<"aten::baddbmm">(r);
  add_in_place<"aten::heaviside">(r);
  add_in_place<"aten::clamp_min.Tensor">(r);
  add_in_place<"aten::clamp_max.Tensor">(r);
  add_in_place<"aten::round.decimals">(r);
  add_in_place<"aten::bitwise_and.Scalar">(r);
  add_in_place<"aten::bitwise_or.Scalar">(r);
  add_in_place<"aten::bitwise_xor.Scalar">(r);
  add_in_place<"aten::bitwise_left_shift.Tensor">(r);
  add_in_place<"aten::bitwise_left_shift.Tensor_Scalar">(r);
  add_in_place<"aten::bitwise_right_shift.Tensor">(r);
  add_in_place<"aten::bitwise_right_shift.Tensor_Scalar">(r);
  add_form<"aten::square">(r, square_);
  add_form<"aten::float_power.Tensor_Scalar">(r, float_power_<"aten::float_power.Tensor_Scalar">,
                                              "aten::float_power_.Scalar");
  add_form<"aten::float_power.Tensor_Tensor">(r, float_power_<"aten::float_power.Tensor_Tensor">,
                                              "aten::float_power_.Tensor");
  add_form<"aten::addmm">(r, addmm_);
  add_form<"aten::t">(r, t_);
  add_form<"aten::transpose.int">(r, viewed_into_self<"aten::transpose.int">, "aten::transpose_");
  add_form<"aten::swapaxes">(r, viewed_into_self<"aten::swapaxes">);
  add_form<"aten::swapdims">(r, viewed_into_self<"aten::swapdims">);
  // detach_: symbolite records no gradients, so self is already detached.
  r.add({"aten::detach_", 1, {}, [](Stack&) {}});
}

}  // namespace symbolite::ops
