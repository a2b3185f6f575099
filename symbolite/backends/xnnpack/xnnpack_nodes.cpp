#include "symbolite/backends/xnnpack/xnnpack_nodes.h"

#include "symbolite/backends/xnnpack/concat_node.h"
#include "symbolite/backends/xnnpack/conv_linear_nodes.h"
#include "symbolite/backends/xnnpack/elementwise_nodes.h"
#include "symbolite/backends/xnnpack/pooling_nodes.h"

namespace symbolite::backends {

namespace {

// A node XNNPACK does not compute runs the reference kernel, which is fastest on contiguous
// tensors: channels-last inputs (from XNNPACK nodes) are handed to it in PyTorch's layout.
// Not for in-place operators, whose input must stay the very tensor they write.
class ContiguousInputs final : public runtime::StepAccelerator {
 public:
  explicit ContiguousInputs(std::size_t num_args) : num_args_(num_args) {}
  bool run(ops::Stack& stack) override {
    for (ops::IValue* a = ops::last(stack, num_args_); a != stack.data() + stack.size(); ++a) {
      if (a->is(ops::IValue::Kind::kTensor) && !a->to_tensor().is_contiguous()) {
        *a = ops::IValue(a->to_tensor().contiguous());
      }
    }
    return false;
  }

 private:
  std::size_t num_args_;
};

bool in_place(const std::string& op) {
  auto dot = op.find('.', op.find("::") + 2);
  std::string name = op.substr(0, dot);
  return name.ends_with("_");
}

}  // namespace

std::unique_ptr<runtime::StepAccelerator> make_xnnpack_node(const runtime::CompiledProgram& program,
                                                            std::size_t step) {
  const std::string& op = program.program.steps[step].op;
  std::unique_ptr<runtime::StepAccelerator> node;
  if (op == "aten::conv2d") {
    node = make_conv2d_node(program, step);
  } else if (op == "aten::linear") {
    node = make_linear_node(program, step);
  } else if (op == "aten::cat") {
    node = make_concat_node(program, step);
  } else if (!(node = make_elementwise_node(op, program, step))) {
    node = make_pooling_node(op, program, step);
  }
  if (!node && !in_place(op))
    node = std::make_unique<ContiguousInputs>(program.operators[step].def->num_args);
  return node;
}

}  // namespace symbolite::backends
