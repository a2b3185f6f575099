// The module hierarchy of a model, read from `data.pkl`: the root object and, recursively,
// every attribute that is itself a module. A TorchScript object counts as a module when its
// state has a "training" attribute (every nn.Module has one; plain TorchScript classes do
// not), and so do the two module types PyTorch's to_backend generates
// (torch.jit.LoweredWrapper / LoweredModule.<backend>.<original>, pickle::is_lowered_class).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/pickle/value.h"

namespace symbolite::mobile {

// What a to_backend LoweredModule holds: its state is the tuple its __getstate__ returns,
// (method_compile_spec: Dict[str, Any], processed: Any, True).
struct LoweredModuleInfo {
  std::string backend;  // "symbolite" of "torch.jit.LoweredModule.symbolite.…"
  std::vector<std::string> compile_spec_methods;  // keys of __method_compile_spec, in file order
  // Size in bytes of the processed payload: the sum of its string values when it is a string
  // or a dict of strings (what most backends, symbolite's included, return); 0 otherwise.
  std::uint64_t processed_bytes = 0;
  std::string processed_kind;  // "dict", "str", ...: the pickled kind of `processed`
};

struct ModuleNode {
  std::string name;                   // attribute name in the parent; empty for the root
  std::string type;                   // qualified: "__torch__.torch.nn.modules.linear.Linear"
  std::size_t tensors = 0;            // tensor attributes (parameters and buffers)
  std::uint64_t tensor_elements = 0;  // their element count
  std::vector<ModuleNode> children;
  std::optional<LoweredModuleInfo> lowered;  // set for a to_backend LoweredModule
};

// Throws Error(kModel) if the root is not a TorchScript object or nesting is absurd.
ModuleNode read_module_tree(const pickle::Value& root);

}  // namespace symbolite::mobile
