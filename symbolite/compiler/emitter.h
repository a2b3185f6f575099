// The emitter: IR → lite-interpreter bytecode (version 8) that PyTorch 1.13 loads.
//
// It follows the rules of PyTorch's own emitter (docs/IR.md lists them), so that lifting a
// PyTorch-made function and emitting it again gives the same instructions, operators,
// constants, types and register count:
//   - registers are allocated in emission order, one per stored value, from 1;
//   - a value used once by the next node is emitted inline (left on the stack), else stored;
//     the last use of a stored value MOVEs it, earlier uses LOAD it;
//   - unused values and values last used inside an if/loop are dropped (DROP/DROPR);
//   - an operator call loads only the arguments PyTorch's rule says are needed
//     (`num_specified_args`, the maximum over the function's call sites).
// Every instruction records the node it was emitted for; the caller turns those into debug
// handles (export.h).
#pragma once

#include <vector>

#include "symbolite/compiler/program.h"
#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/mobile/bytecode.h"

namespace symbolite::compiler {

// The bytecode version the emitter writes.
inline constexpr std::int64_t kEmittedBytecodeVersion = 8;

struct EmittedFunction {
  mobile::BytecodeFunction code;
  // Per instruction: the node it came from (source range, call stack, node kind). The range
  // tag is left at kNoSourceRangeTag: the writer numbers ranges.
  std::vector<debuginfo::DebugInfo> instruction_debug;
};

// Throws Error(kUnsupported) naming the function and node for IR the bytecode cannot express
// (e.g. an operator with no schema and no argument count).
EmittedFunction emit_function(const Function& function);

}  // namespace symbolite::compiler
