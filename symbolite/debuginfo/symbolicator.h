// `Symbolicator`: turns debug handles into Symbolications, using a model's DebugTable and
// (optionally) its per-instruction HandleTable.
//
// Output follows PyTorch 1.13's mobile debug table (same module hierarchy grammar, same
// traceback layout) with deliberate improvements, documented in the README:
//   - the top frame and hierarchy name the real method (from the bytecode function that
//     holds the handle) where PyTorch prints `<unknown>`;
//   - frames whose source range was lost are shown and explained, not dropped or fatal;
//   - a missing handle says why: no debug info at all, the -1 sentinel, or simply absent.
#pragma once

#include <string>

#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/debuginfo/symbolication.h"

namespace symbolite::debuginfo {

struct SymbolicatorInputs {
  const DebugTable* table = nullptr;         // required
  const HandleTable* handles = nullptr;      // optional: gives function names and sites
  std::string top_module_type;               // qualified: "__torch__.C"
  bool has_callstack_map = true;             // false: the model carries no call-stack map
};

class Symbolicator {
 public:
  // The inputs' pointees must outlive the Symbolicator.
  explicit Symbolicator(SymbolicatorInputs inputs);

  Symbolication symbolicate(DebugHandle handle) const;

 private:
  void explain_missing(Symbolication& result) const;

  SymbolicatorInputs in_;
  std::string top_type_short_;
};

// "__torch__.torch.nn.modules.linear.Linear" -> "Linear".
std::string short_type_name(std::string_view qualified);

}  // namespace symbolite::debuginfo
