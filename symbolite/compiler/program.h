// `Program`: a whole model in the compiler's IR — one graph per exported bytecode function,
// with the function's schema, in the order the bytecode lists them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/compiler/graph.h"
#include "symbolite/mobile/bytecode.h"
#include "symbolite/pickle/pickler.h"

namespace symbolite::compiler {

struct Function {
  std::string qualified_name;  // "__torch__.Net.forward"
  std::unique_ptr<Graph> graph;
  std::vector<mobile::Argument> arguments;  // the schema, as the bytecode states it (self first)
  std::vector<mobile::Argument> returns;

  // "forward" of "__torch__.Net.forward".
  std::string short_name() const;
};

struct Program {
  std::int64_t bytecode_version = 0;  // of the file it was lifted from
  std::string top_type;               // "__torch__.Net"
  std::vector<Function> functions;
  // The top module object as data.pkl holds it (None when unknown): what `self` is in the top
  // type's methods, for passes that fold module attributes.
  pickle::Value root_object;
  // TorchScript types of dicts inside root_object that data.pkl must tag (the compile specs a
  // lowering adds: to_backend's `Dict[str, Any]`), by identity.
  pickle::TypeTags data_type_tags;

  Function* find(std::string_view qualified_name);
  const Function* find(std::string_view qualified_name) const;
};

}  // namespace symbolite::compiler
