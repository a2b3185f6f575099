#include "symbolite/compiler/model_export.h"

#include <fmt/format.h>

#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/stable_handles.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/mobile/model_writer.h"

namespace symbolite::compiler {

EmittedProgram emit_program(const Program& program, HandleScheme scheme,
                            debuginfo::DebugInfoRecorder& recorder) {
  EmittedProgram out;
  out.bytecode.version = kEmittedBytecodeVersion;
  for (const auto& function : program.functions) {
    EmittedFunction emitted = emit_function(function);
    std::vector<debuginfo::DebugHandle> handles;
    handles.reserve(emitted.instruction_debug.size());
    for (std::size_t i = 0; i < emitted.instruction_debug.size(); ++i) {
      debuginfo::DebugInfo info = emitted.instruction_debug[i];
      if (scheme == HandleScheme::kCounter) {
        handles.push_back(recorder.record(std::move(info)));
      } else {
        debuginfo::DebugHandle handle = stable_handle(function.qualified_name, i, info);
        while (recorder.holds(handle)) handle = (handle + 1) & ((std::int64_t{1} << 62) - 1);
        handles.push_back(recorder.record_at(handle, std::move(info)));
      }
    }
    out.debug.function_handles.emplace_back(function.qualified_name, std::move(handles));
    out.bytecode.functions.push_back(std::move(emitted.code));
  }
  for (auto& [handle, info] : recorder.stop_recording())
    out.debug.infos.emplace(handle, std::move(info));
  return out;
}

ExportReport export_model(const std::string& input, const std::string& output,
                          const ExportOptions& options) {
  mobile::ModelInfo model = mobile::ModelInfo::load(input);
  Program program = lift(model);
  ExportReport report;
  report.passes = run_passes(program, options.passes);
  debuginfo::DebugInfoRecorder recorder;
  EmittedProgram emitted = emit_program(program, options.handles, recorder);
  report.functions = emitted.bytecode.functions.size();
  for (const auto& fn : emitted.bytecode.functions) report.instructions += fn.instructions.size();
  report.handles = emitted.debug.infos.size();
  // A model saved without debug info gets none invented: its handles would point nowhere.
  bool has_debug = model.debug.has_callstack_map;
  report.handles = has_debug ? report.handles : 0;
  mobile::write_model(model.archive, emitted.bytecode, has_debug ? &emitted.debug : nullptr,
                      output);
  return report;
}

}  // namespace symbolite::compiler
