// `DebugInfo`: everything known about one debug handle — the node's own source range, the
// node kind (operator name such as "aten::add"), and the inlined call stack that led to it.
#pragma once

#include <cstdint>
#include <string>

#include "symbolite/debuginfo/inlined_call_stack.h"
#include "symbolite/debuginfo/source_range.h"

namespace symbolite::debuginfo {

using DebugHandle = std::int64_t;

// PyTorch's "no handle" sentinel, e.g. for instructions emitted without a node.
inline constexpr DebugHandle kInvalidDebugHandle = -1;

struct DebugInfo {
  SourceRange range;                           // the node itself; may be unknown
  std::int64_t range_tag = kNoSourceRangeTag;  // serialized tag of `range`, for diagnostics
  std::string node_kind;                       // "aten::add", "prim::GetAttr", ...
  InlinedCallStackPtr call_stack;              // null for nodes of the top method itself
};

}  // namespace symbolite::debuginfo
