// Reader for `mobile_debug_handles.pkl`: the debug handle of every bytecode instruction,
//   (bytecode_version, (function_name, (("function_debug_handles", (List[int],)),)), ...)
// Instruction i of a function has handle `handles[i]`; -1 marks an instruction without one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/pickle/value.h"

namespace symbolite::debuginfo {

// The record's name in a model archive.
inline constexpr std::string_view kHandleTableRecord = "mobile_debug_handles.pkl";

struct FunctionHandles {
  std::string function;  // qualified: "__torch__.Top.forward"
  std::vector<DebugHandle> handles;
};

// Where a handle sits in the bytecode.
struct InstructionSite {
  std::string function;
  std::size_t instruction = 0;
};

class HandleTable {
 public:
  HandleTable() = default;
  HandleTable(std::int64_t bytecode_version, std::vector<FunctionHandles> functions);

  std::int64_t bytecode_version() const { return bytecode_version_; }
  const std::vector<FunctionHandles>& functions() const { return functions_; }
  // The handles of `function` ("__torch__.Top.forward"), or null; a later entry for the same
  // function replaces an earlier one.
  const FunctionHandles* find(std::string_view function) const;
  // The first instruction carrying `handle`, if any.
  std::optional<InstructionSite> site_of(DebugHandle handle) const;
  std::size_t instruction_count() const;

 private:
  struct Site {
    DebugHandle handle;
    std::size_t function;  // index into functions_
    std::size_t instruction;
  };

  std::int64_t bytecode_version_ = 0;
  std::vector<FunctionHandles> functions_;
  // Every valid handle's site, ordered by handle, the first site of a handle first: one
  // allocation where a hash map made one per instruction (a tenth of loading a model).
  std::vector<Site> index_;
};

// Throws Error(kModel) naming the function on malformed shapes.
HandleTable read_handle_table(const pickle::Value& root);

}  // namespace symbolite::debuginfo
