#include "symbolite/backends/xnnpack/concat_node.h"

#include <cstring>

#include "symbolite/backends/xnnpack/channels_last.h"
#include "symbolite/backends/xnnpack/node_support.h"

namespace symbolite::backends {
namespace {

using ops::IValue;
using tensor::Tensor;

class ConcatChannelsNode final : public XnnNode {
 public:
  using XnnNode::XnnNode;

  bool run(ops::Stack& stack) override {
    IValue* a = args(stack);
    if (!a[0].is(IValue::Kind::kList) || a[0].to_list().empty()) return false;
    std::vector<Tensor> inputs;
    std::int64_t channels = 0;
    for (const auto& item : a[0].to_list()) {
      if (!is_float_tensor(item)) return false;
      const Tensor& t = item.to_tensor();
      const Tensor& first = inputs.empty() ? t : inputs.front();
      if (t.dim() != 4 || t.sizes()[0] != first.sizes()[0] || t.sizes()[2] != first.sizes()[2] ||
          t.sizes()[3] != first.sizes()[3]) {
        return false;
      }
      // Only worth it when the inputs come channels-last (from XNNPACK nodes).
      if (!is_channels_last(t)) return false;
      inputs.push_back(t);
      channels += t.sizes()[1];
    }
    const auto& s = inputs.front().sizes();
    Tensor out = empty_channels_last({s[0], channels, s[2], s[3]});
    const std::int64_t pixels = s[0] * s[2] * s[3];
    float* o = out.mutable_data<float>();
    for (std::int64_t p = 0; p < pixels; ++p) {
      for (const auto& t : inputs) {
        const std::int64_t c = t.sizes()[1];
        std::memcpy(o, t.data<float>() + p * c, static_cast<std::size_t>(c) * sizeof(float));
        o += c;
      }
    }
    return finish(stack, std::move(out));
  }
};

}  // namespace

std::unique_ptr<runtime::StepAccelerator> make_concat_node(const runtime::CompiledProgram& p,
                                                           std::size_t step) {
  auto dim = static_arg(p, step, 1);
  if (!dim || !dim->is(IValue::Kind::kInt) || (dim->to_int() != 1 && dim->to_int() != -3))
    return nullptr;
  return std::make_unique<ConcatChannelsNode>(p.operators[step].def->num_args);
}

}  // namespace symbolite::backends
