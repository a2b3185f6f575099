#include "symbolite/mobile/operator_upgraders.h"

#include <array>
#include <vector>

#include "symbolite/ops/common/type_promotion.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {
namespace {

using ops::IValue;
using ops::Stack;

// The kernel of an operator the upgrader calls (checked present at load: `calls`).
ops::Kernel kernel_of(std::string_view name) {
  const ops::OperatorDef* def = ops::default_registry().find(name);
  if (def == nullptr) {
    throw Error(ErrorKind::kInternal, std::string("operator upgrader needs ") + std::string(name));
  }
  return def->kernel;
}

bool floating(const IValue& v) { return ops::is_floating(v.to_tensor().dtype()); }

// Each kernel does what PyTorch 1.13's upgrader of that name does
// (torch/csrc/jit/operator_upgraders/upgraders_entry.cpp).

// div_*_0_3: true division when an operand is floating, else truncating division. `True` and
// `Rounded` are the operators' names; a Scalar divisor counts as floating when it is a float.
template <const char* True, const char* Rounded, bool kScalarDivisor>
void div_0_3(Stack& s) {
  static const ops::Kernel true_div = kernel_of(True);
  static const ops::Kernel rounded = kernel_of(Rounded);
  const IValue* args = ops::last(s, 2);
  const bool floating_divisor =
      kScalarDivisor ? args[1].is(IValue::Kind::kDouble) : floating(args[1]);
  if (floating(args[0]) || floating_divisor) {
    true_div(s);
    return;
  }
  s.push_back(IValue::string("trunc"));
  rounded(s);
}
constexpr char kDivTensorOp[] = "aten::div.Tensor";
constexpr char kDivTensorModeOp[] = "aten::div.Tensor_mode";
constexpr char kDivScalarOp[] = "aten::div.Scalar";
constexpr char kDivScalarModeOp[] = "aten::div.Scalar_mode";
constexpr char kDivInPlaceTensorOp[] = "aten::div_.Tensor";
constexpr char kDivInPlaceTensorModeOp[] = "aten::div_.Tensor_mode";
constexpr char kDivInPlaceScalarOp[] = "aten::div_.Scalar";
constexpr char kDivInPlaceScalarModeOp[] = "aten::div_.Scalar_mode";
const auto div_tensor_0_3 = div_0_3<kDivTensorOp, kDivTensorModeOp, false>;
const auto div_scalar_0_3 = div_0_3<kDivScalarOp, kDivScalarModeOp, true>;
const auto div__tensor_0_3 = div_0_3<kDivInPlaceTensorOp, kDivInPlaceTensorModeOp, false>;
const auto div__scalar_0_3 = div_0_3<kDivInPlaceScalarOp, kDivInPlaceScalarModeOp, true>;

void div_out_0_3(Stack& s) {
  static const ops::Kernel true_div = kernel_of("aten::div.out");
  static const ops::Kernel rounded = kernel_of("aten::div.out_mode");
  const IValue* args = ops::last(s, 3);
  if (floating(args[0]) || floating(args[1]) || floating(args[2])) {
    true_div(s);
    return;
  }
  IValue out = ops::pop(s);
  s.push_back(IValue::string("trunc"));
  s.push_back(std::move(out));
  rounded(s);
}
// div_*_mode_0_3: the same call (rounding_mode was always explicit).
void div_tensor_mode_0_3(Stack& s) { kernel_of("aten::div.Tensor_mode")(s); }
void div_scalar_mode_0_3(Stack& s) { kernel_of("aten::div.Scalar_mode")(s); }
void div__tensor_mode_0_3(Stack& s) { kernel_of("aten::div_.Tensor_mode")(s); }
void div__scalar_mode_0_3(Stack& s) { kernel_of("aten::div_.Scalar_mode")(s); }
void div_out_mode_0_3(Stack& s) { kernel_of("aten::div.out_mode")(s); }

// gelu_0_9 / gelu_out_0_9: gelu before `approximate` existed, i.e. approximate="none".
void gelu_0_9(Stack& s) {
  static const ops::Kernel gelu = kernel_of("aten::gelu");
  s.push_back(IValue::string("none"));
  gelu(s);
}
void gelu_out_0_9(Stack& s) {
  static const ops::Kernel gelu_out = kernel_of("aten::gelu.out");
  IValue out = ops::pop(s);
  s.push_back(IValue::string("none"));
  s.push_back(std::move(out));
  gelu_out(s);
}

// linspace/logspace before `steps` became required: None meant 100 steps. `steps` is the
// third of `num_args` arguments.
void default_steps(Stack& s, std::size_t num_args) {
  IValue& steps = ops::last(s, num_args)[2];
  if (steps.is_none()) steps = IValue(std::int64_t{100});
}
void linspace_0_7(Stack& s) {
  default_steps(s, 7);
  kernel_of("aten::linspace")(s);
}
void linspace_out_0_7(Stack& s) {
  default_steps(s, 4);
  kernel_of("aten::linspace.out")(s);
}
void logspace_0_8(Stack& s) {
  default_steps(s, 8);
  kernel_of("aten::logspace")(s);
}
void logspace_out_0_8(Stack& s) {
  default_steps(s, 5);
  kernel_of("aten::logspace.out")(s);
}

using Names = std::array<std::string_view, 2>;
constexpr Names kDivTensor{"aten::div.Tensor", "aten::div.Tensor_mode"};
constexpr Names kDivScalar{"aten::div.Scalar", "aten::div.Scalar_mode"};
constexpr Names kDivTensorInPlace{"aten::div_.Tensor", "aten::div_.Tensor_mode"};
constexpr Names kDivScalarInPlace{"aten::div_.Scalar", "aten::div_.Scalar_mode"};
constexpr Names kDivOut{"aten::div.out", "aten::div.out_mode"};
constexpr std::array<std::string_view, 1> kDivTensorMode{"aten::div.Tensor_mode"};
constexpr std::array<std::string_view, 1> kDivScalarMode{"aten::div.Scalar_mode"};
constexpr std::array<std::string_view, 1> kDivTensorModeInPlace{"aten::div_.Tensor_mode"};
constexpr std::array<std::string_view, 1> kDivScalarModeInPlace{"aten::div_.Scalar_mode"};
constexpr std::array<std::string_view, 1> kDivOutMode{"aten::div.out_mode"};
constexpr std::array<std::string_view, 1> kGelu{"aten::gelu"};
constexpr std::array<std::string_view, 1> kGeluOut{"aten::gelu.out"};
constexpr std::array<std::string_view, 1> kLinspace{"aten::linspace"};
constexpr std::array<std::string_view, 1> kLinspaceOut{"aten::linspace.out"};
constexpr std::array<std::string_view, 1> kLogspace{"aten::logspace"};
constexpr std::array<std::string_view, 1> kLogspaceOut{"aten::logspace.out"};

const std::vector<OperatorUpgrader>& table() {
  static const std::vector<OperatorUpgrader> upgraders = {
      {"aten::div.Scalar", 0, 3, {"div_Scalar_0_3", 2, {}, div_scalar_0_3}, kDivScalar},
      {"aten::div.Scalar_mode",
       0,
       3,
       {"div_Scalar_mode_0_3", 3, {}, div_scalar_mode_0_3},
       kDivScalarMode},
      {"aten::div.Tensor", 0, 3, {"div_Tensor_0_3", 2, {}, div_tensor_0_3}, kDivTensor},
      {"aten::div.Tensor_mode",
       0,
       3,
       {"div_Tensor_mode_0_3", 3, {}, div_tensor_mode_0_3},
       kDivTensorMode},
      {"aten::div.out", 0, 3, {"div_out_0_3", 3, {}, div_out_0_3}, kDivOut},
      {"aten::div.out_mode", 0, 3, {"div_out_mode_0_3", 4, {}, div_out_mode_0_3}, kDivOutMode},
      {"aten::div_.Scalar", 0, 3, {"div__Scalar_0_3", 2, {}, div__scalar_0_3}, kDivScalarInPlace},
      {"aten::div_.Scalar_mode",
       0,
       3,
       {"div__Scalar_mode_0_3", 3, {}, div__scalar_mode_0_3},
       kDivScalarModeInPlace},
      {"aten::div_.Tensor", 0, 3, {"div__Tensor_0_3", 2, {}, div__tensor_0_3}, kDivTensorInPlace},
      {"aten::div_.Tensor_mode",
       0,
       3,
       {"div__Tensor_mode_0_3", 3, {}, div__tensor_mode_0_3},
       kDivTensorModeInPlace},
      {"aten::gelu", 0, 9, {"gelu_0_9", 1, {}, gelu_0_9}, kGelu},
      {"aten::gelu.out", 0, 9, {"gelu_out_0_9", 2, {}, gelu_out_0_9}, kGeluOut},
      {"aten::linspace", 0, 7, {"linspace_0_7", 7, {}, linspace_0_7}, kLinspace},
      {"aten::linspace.out", 0, 7, {"linspace_out_0_7", 4, {}, linspace_out_0_7}, kLinspaceOut},
      {"aten::logspace", 0, 8, {"logspace_0_8", 8, {}, logspace_0_8}, kLogspace},
      {"aten::logspace.out", 0, 8, {"logspace_out_0_8", 5, {}, logspace_out_0_8}, kLogspaceOut},
  };
  return upgraders;
}

}  // namespace

std::span<const OperatorUpgrader> operator_upgraders() { return table(); }

const OperatorUpgrader* find_upgrader(std::string_view operator_name,
                                      std::uint64_t operator_version) {
  if (operator_version >= kProducedOperatorVersion) return nullptr;
  for (const auto& u : table()) {
    if (u.operator_name == operator_name && operator_version >= u.min_version &&
        operator_version <= u.max_version) {
      return &u;
    }
  }
  return nullptr;
}

}  // namespace symbolite::mobile
