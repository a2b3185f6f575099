#include "symbolite/backends/xnnpack/xnnpack_nodes.h"

#include "symbolite/backends/xnnpack/concat_node.h"
#include "symbolite/backends/xnnpack/conv_linear_nodes.h"
#include "symbolite/backends/xnnpack/elementwise_nodes.h"
#include "symbolite/backends/xnnpack/pooling_nodes.h"

namespace symbolite::backends {

std::unique_ptr<runtime::StepAccelerator> make_xnnpack_node(const runtime::CompiledProgram& program,
                                                            std::size_t step) {
  const std::string& op = program.program.steps[step].op;
  if (op == "aten::conv2d") return make_conv2d_node(program, step);
  if (op == "aten::linear") return make_linear_node(program, step);
  if (op == "aten::cat") return make_concat_node(program, step);
  if (auto node = make_elementwise_node(op, program, step)) return node;
  return make_pooling_node(op, program, step);
}

}  // namespace symbolite::backends
