#include "symbolite/compiler/operator_call.h"

#include <vector>

#include "symbolite/ops/schema/necessary_args.h"
#include "symbolite/ops/schema/schema_table.h"

namespace symbolite::compiler {

std::optional<OperatorCall> operator_call(const Node& node) {
  const ops::FunctionSchema* schema = ops::find_schema(node.qualified_kind());
  if (schema == nullptr) return std::nullopt;
  OperatorCall call;
  call.vararg = schema->is_vararg;
  if (call.vararg || node.inputs().size() < schema->arguments.size()) {
    call.needed = node.inputs().size();
    return call;
  }
  std::vector<ops::CallInput> inputs;
  inputs.reserve(node.inputs().size());
  for (const Value* input : node.inputs()) {
    const Node* producer = input->node();
    if (producer->kind() == "prim::Constant") {
      inputs.push_back(ops::CallInput::of(producer->attr("value")));
    } else if (producer->kind() == "prim::ListConstruct") {
      inputs.push_back(ops::CallInput::list_construct());
    } else {
      inputs.push_back(ops::CallInput::non_constant());
    }
  }
  ops::NecessaryArgs needed = ops::calculate_necessary_args(*schema, inputs);
  call.needed = needed.args + needed.out_args;
  call.out = needed.out_args;
  return call;
}

}  // namespace symbolite::compiler
