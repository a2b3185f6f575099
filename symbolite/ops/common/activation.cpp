#include "symbolite/ops/common/activation.h"

#include "symbolite/ops/cpu/vector_math.h"

namespace symbolite::ops {

std::optional<Activation> fusable_activation(std::string_view op_name,
                                             std::span<const IValue> arguments) {
  auto number_is = [](const IValue& v, double x) {
    return (v.is(IValue::Kind::kDouble) || v.is(IValue::Kind::kInt)) && v.to_double() == x;
  };
  if (op_name.ends_with('_')) op_name.remove_suffix(1);  // in place or not, the same values
  if (op_name == "aten::hardtanh" && arguments.size() == 2 && number_is(arguments[0], 0) &&
      number_is(arguments[1], 6)) {
    return Activation::kRelu6;
  }
  if (!arguments.empty()) return std::nullopt;
  if (op_name == "aten::relu6") return Activation::kRelu6;  // F.relu6: hardtanh(x, 0, 6)
  if (op_name == "aten::relu") return Activation::kRelu;
  if (op_name == "aten::hardswish") return Activation::kHardswish;
  if (op_name == "aten::hardsigmoid") return Activation::kHardsigmoid;
  if (op_name == "aten::silu") return Activation::kSilu;
  return std::nullopt;
}

void apply_activation_f32(Activation activation, float* p, std::int64_t n) {
  switch (activation) {
    case Activation::kRelu:
      vec::relu_f32(p, p, n);
      return;
    case Activation::kRelu6:
      vec::relu6_f32(p, p, n);
      return;
    case Activation::kHardswish:
      vec::hardswish_f32(p, p, n);
      return;
    case Activation::kHardsigmoid:
      vec::hardsigmoid_f32(p, p, n);
      return;
    case Activation::kSilu:
      vec::silu_f32(p, p, n);
      return;
  }
}

}  // namespace symbolite::ops
