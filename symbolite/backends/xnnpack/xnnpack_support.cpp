#include "symbolite/backends/xnnpack/xnnpack_support.h"

#include <set>

#include <fmt/format.h>

#include "symbolite/ops/registry/operator_registry.h"

namespace symbolite::backends {
namespace {

// PyTorch operator (name.overload) -> the XNNPACK subgraph node it maps to.
const std::set<std::string, std::less<>>& supported() {
  static const std::set<std::string, std::less<>> ops = {
      "aten::conv2d",
      "aten::linear",
      "aten::add.Tensor",
      "aten::add_.Tensor",
      "aten::sub.Tensor",
      "aten::mul.Tensor",
      "aten::mul_.Tensor",
      "aten::div.Tensor",
      "aten::relu",
      "aten::relu_",
      "aten::relu6",
      "aten::hardtanh",
      "aten::hardtanh_",
      "aten::hardswish",
      "aten::hardswish_",
      "aten::sigmoid",
      "aten::sigmoid_",
      "aten::leaky_relu",
      "aten::elu",
      "aten::max_pool2d",
      "aten::avg_pool2d",
      "aten::adaptive_avg_pool2d",
      "aten::softmax.int",
      "aten::cat",
      "aten::flatten.using_ints",
      "aten::reshape",
      "aten::view",
      "aten::abs",
      "aten::neg",
      "aten::floor",
      "aten::ceil",
      "aten::sqrt",
      "aten::clamp",
      "aten::maximum",
      "aten::minimum",
      "aten::prelu",
      "aten::constant_pad_nd",
      "aten::batch_norm",
      "aten::dropout",
  };
  return ops;
}

}  // namespace

const std::string& XnnpackSupport::name() const {
  static const std::string kName = "xnnpack";
  return kName;
}

std::optional<std::string> XnnpackSupport::why_unsupported(const compiler::Node& node) const {
  const std::string& kind = node.kind();
  if (kind == "prim::If" || kind == "prim::Loop") {
    return fmt::format("{}: control flow stays with the interpreter", kind);
  }
  if (kind == "prim::RaiseException" || kind == "aten::warn" || kind == "prim::SetAttr") {
    return fmt::format("{}: an effect only the interpreter has", kind);
  }
  if (kind.rfind("aten::", 0) != 0) {
    return fmt::format(
        "{}: not an operator (lists, tuples, attributes and calls stay with the interpreter)",
        kind);
  }
  std::string full = node.qualified_kind();
  if (!supported().contains(full)) return fmt::format("{} has no XNNPACK equivalent", full);
  // Nodes XNNPACK cannot take at run time (a dtype, a mode) run symbolite's kernel instead.
  if (ops::default_registry().find(full) == nullptr) {
    return fmt::format("{}: symbolite has no kernel to fall back on", full);
  }
  return std::nullopt;
}

}  // namespace symbolite::backends
