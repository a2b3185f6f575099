// One operator execution as the profiler sees it: which operator, which debug handle (and
// so, through the debug info, which module and source line), when, on which thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::profiler {

struct OpEvent {
  std::string_view op;  // "aten::conv2d" (overload included when it has one); the name must
                        // outlive the sink (operator names live in the loaded model)
  debuginfo::DebugHandle handle = debuginfo::kInvalidDebugHandle;
  std::int64_t start_ns = 0;  // steady clock
  std::int64_t end_ns = 0;
  std::uint32_t thread = 0;
  std::uint32_t source = 0;  // 0 = the interpreter; delegate backends use their own ids
};

}  // namespace symbolite::profiler
