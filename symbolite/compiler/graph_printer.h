// Printing the IR: PyTorch's graph text style, each node followed by where it came from —
//   %4 : Tensor = aten::relu(%3)  # model.py:12:15  top(Net)::forward.block1(Block)::forward.aten::relu
// and the same content as JSON (docs/CLI.md, `symbolite graph --json`).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "symbolite/compiler/graph.h"
#include "symbolite/compiler/program.h"

namespace symbolite::compiler {

// What to say about each node besides its operation.
struct PrintOptions {
  bool source = true;            // "# file:line:col"
  bool module_hierarchy = true;  // needs `top_type` and `method`
  std::string top_type;          // "__torch__.Net"
  std::string method;            // "forward"
};

std::string print_graph(const Graph& graph, const PrintOptions& options = {});

// A function's graph, headed by its qualified name.
std::string print_function(const Function& function, const std::string& top_type);

// {"name", "inputs", "nodes": [{kind, overload, inputs, outputs, attributes, source,
// module_hierarchy, blocks}], "outputs"} for one function.
nlohmann::json function_to_json(const Function& function, const std::string& top_type);

// "model.py:12:15", or empty when the range is unknown.
std::string source_location(const debuginfo::SourceRange& range);

}  // namespace symbolite::compiler
