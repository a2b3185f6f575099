// The module hierarchy of a model, read from `data.pkl`: the root object and, recursively,
// every attribute that is itself a module. A TorchScript object counts as a module when its
// state has a "training" attribute (every nn.Module has one; plain TorchScript classes do
// not).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "symbolite/pickle/value.h"

namespace symbolite::mobile {

struct ModuleNode {
  std::string name;  // attribute name in the parent; empty for the root
  std::string type;  // qualified: "__torch__.torch.nn.modules.linear.Linear"
  std::size_t tensors = 0;            // tensor attributes (parameters and buffers)
  std::uint64_t tensor_elements = 0;  // their element count
  std::vector<ModuleNode> children;
};

// Throws Error(kModel) if the root is not a TorchScript object or nesting is absurd.
ModuleNode read_module_tree(const pickle::Value& root);

}  // namespace symbolite::mobile
