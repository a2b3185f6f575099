#include "symbolite/compiler/program.h"

namespace symbolite::compiler {

std::string Function::short_name() const {
  auto dot = qualified_name.rfind('.');
  return dot == std::string::npos ? qualified_name : qualified_name.substr(dot + 1);
}

Function* Program::find(std::string_view qualified_name) {
  for (auto& fn : functions) {
    if (fn.qualified_name == qualified_name) return &fn;
  }
  return nullptr;
}

const Function* Program::find(std::string_view qualified_name) const {
  return const_cast<Program*>(this)->find(qualified_name);
}

}  // namespace symbolite::compiler
