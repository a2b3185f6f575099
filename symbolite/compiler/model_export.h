// Export: lift a model, run passes, emit bytecode v8 with fresh debug handles, and write a
// `.ptl` that PyTorch 1.13 loads — `symbolite export`.
//
// Handles come from a `DebugInfoRecorder`, one per emitted instruction, in function order:
//   - kCounter: PyTorch's scheme, a process-wide counter (first export in a process starts
//     at 0, like PyTorch's; overflow is an error, not a wrap);
//   - kStable: derived from each instruction's content (stable_handles.h), so exports are
//     byte-identical across processes.
#pragma once

#include <string>
#include <vector>

#include "symbolite/compiler/emitter.h"
#include "symbolite/compiler/passes/pass_registry.h"
#include "symbolite/compiler/program.h"
#include "symbolite/debuginfo/debug_info_recorder.h"
#include "symbolite/debuginfo/debug_records_writer.h"

namespace symbolite::compiler {

enum class HandleScheme { kCounter, kStable };

struct EmittedProgram {
  mobile::Bytecode bytecode;
  debuginfo::DebugRecords debug;
};

// Emits every function and gives each instruction a handle from `recorder` by `scheme`.
EmittedProgram emit_program(const Program& program, HandleScheme scheme,
                            debuginfo::DebugInfoRecorder& recorder);

struct ExportOptions {
  HandleScheme handles = HandleScheme::kCounter;
  std::vector<std::string> passes;  // names for run_passes; empty: none
};

struct ExportReport {
  std::vector<PassResult> passes;
  std::size_t functions = 0;
  std::size_t instructions = 0;
  std::size_t handles = 0;
};

// Reads `input`, exports to `output`. Errors name the file and what failed. A model without a
// call-stack map (saved without debug info, or stripped) is written without debug records.
ExportReport export_model(const std::string& input, const std::string& output,
                          const ExportOptions& options);

}  // namespace symbolite::compiler
