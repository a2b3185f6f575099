// Lifting: the bytecode users ship (versions 5–8) back to the IR.
//
// Each function's instructions are executed symbolically over a stack of IR values:
// registers become SSA values, `JF`/`JMP` pairs become `prim::If` with two blocks, `LOOP`
// becomes `prim::Loop`, constants become `prim::Constant` nodes, and every node takes the
// source range and inlined call stack of the instruction that produced it from the file's
// debug info. The rules (and why lift → emit reproduces PyTorch's instructions) are in
// docs/IR.md.
#pragma once

#include <string>

#include "symbolite/compiler/class_table.h"
#include "symbolite/compiler/program.h"
#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/mobile/model_info.h"

namespace symbolite::compiler {

// Lifts every bytecode function of `model`. Throws Error(kModel) naming the function and
// instruction for bytecode that is not structured as PyTorch emits it (a jump that does not
// close an if or a loop, a stack underflow, a register read before it is written), and
// Error(kUnsupported) for instructions no lite-interpreter model can hold (CALL, ENTER, EXIT).
Program lift(const mobile::ModelInfo& model);

// The same from decoded parts: `debug` and `handles` may be null (no debug info).
Program lift_bytecode(const mobile::Bytecode& bytecode, const ClassTable& classes,
                      const debuginfo::DebugTable* debug, const debuginfo::HandleTable* handles,
                      std::string top_type);

}  // namespace symbolite::compiler
