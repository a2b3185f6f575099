// Stable debug handles: derived from what an instruction is — its function, its position,
// the node it was emitted for (kind, source range, call stack) — instead of from a process-wide
// counter, so the same model exported twice, in any process, gets the same handles and the
// same bytes. Handles are positive 62-bit integers; a collision within one export takes the
// next free value (docs/IR.md).
#pragma once

#include <cstddef>
#include <string_view>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::compiler {

debuginfo::DebugHandle stable_handle(std::string_view function, std::size_t instruction,
                                     const debuginfo::DebugInfo& info);

}  // namespace symbolite::compiler
