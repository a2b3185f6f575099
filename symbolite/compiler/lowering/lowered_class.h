// The class a lowering adds to a model, in the shape PyTorch's to_backend gives it
// (backend_detail.cpp): `torch.jit.LoweredModule.<backend>.<top type>`, whose instances hold
// `__processed_module` (slot 0: method -> (program, weights)), `__method_compile_spec` (1),
// `__backend` (2: the backend object), `__handles` (3: what `compile` returned) and
// `__backend_debug_info` (4); `__getstate__` returns (spec, processed, True) and
// `__setstate__` creates the backend and compiles the payload, at load. Only those two
// functions are exported (like PyTorch, the lowered `forward` is inlined into its caller);
// their code and the inlined call are given source ranges in a template source, shown in
// tracebacks as PyTorch shows its own template.
#pragma once

#include <string>

#include "symbolite/compiler/program.h"
#include "symbolite/debuginfo/source_range.h"

namespace symbolite::compiler {

namespace lowered_slots {
inline constexpr std::int64_t kProcessed = 0;
inline constexpr std::int64_t kCompileSpec = 1;
inline constexpr std::int64_t kBackend = 2;
inline constexpr std::int64_t kHandles = 3;
inline constexpr std::int64_t kDebugInfo = 4;
}  // namespace lowered_slots

struct LoweredClass {
  std::string type;             // "torch.jit.LoweredModule.xnnpack.__torch__.Net"
  std::string backend_type;     // "__torch__.torch.classes.__backends__.xnnpack"
  debuginfo::SourcePtr source;  // the template the class's ranges point into

  // The range of `snippet` in the template (the first occurrence); unknown if absent.
  debuginfo::SourceRange range_of(std::string_view snippet) const;
};

LoweredClass make_lowered_class(const std::string& backend, const std::string& top_type);

// `__setstate__` and `__getstate__` of the class, to append to the program.
Function lowered_setstate(const LoweredClass& cls);
Function lowered_getstate(const LoweredClass& cls);

}  // namespace symbolite::compiler
