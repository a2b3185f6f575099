// Helpers shared by the bytecode reader's and writer's tests.
#pragma once

#include <string>
#include <vector>

#include <fmt/format.h>

#include "symbolite/mobile/bytecode.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::mobile::test {

inline std::string describe_args(const std::vector<Argument>& args) {
  std::string out;
  for (const auto& a : args) {
    out += fmt::format("({} {} {}) ", a.name, a.type, a.default_value.debug_string(1u << 20));
  }
  return out;
}

// Every field of a Bytecode, so that two equal renderings mean two equal Bytecodes.
inline std::string describe(const Bytecode& b) {
  std::string out = fmt::format("version {}\n", b.version);
  for (const auto& fn : b.functions) {
    out += fmt::format("function {} registers {}\n", fn.qualified_name, fn.register_size);
    for (const auto& i : fn.instructions)
      out += fmt::format("  {} {} {}\n", opcode_name(i.op), i.x, i.n);
    for (const auto& op : fn.operators) {
      out += fmt::format("  op {} {} {}\n", op.name, op.overload,
                         op.num_specified_args ? std::to_string(*op.num_specified_args) : "-");
    }
    for (const auto& c : fn.constants) out += "  const " + c.debug_string(1u << 20) + "\n";
    for (const auto& t : fn.types) out += "  type " + t + "\n";
    out +=
        "  args " + describe_args(fn.arguments) + "\n  returns " + describe_args(fn.returns) + "\n";
  }
  return out;
}

// The committed models that hold bytecode.pkl, as paths under tests/fixtures/.
inline std::vector<std::string> models_with_bytecode() {
  std::vector<std::string> out;
  for (const char* dir : {"models", "archive"}) {
    for (const auto& name : symbolite::testing::fixture_files(dir, ".ptl")) {
      out.push_back(std::string(dir) + "/" + name);
    }
  }
  return out;
}

}  // namespace symbolite::mobile::test
