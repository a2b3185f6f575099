// Reader for `callstack_debug_map.pkl`: one row per debug handle,
//   (handle, source_range_tag, node_kind, call_stack)
// where call_stack is None (a node of the top method) or
//   ((module_type, instance_name) | None, callsite_tag, callee_call_stack | None, function_name)
// Tags refer to ranges from the `*.debug_pkl` files.
//
// Unlike PyTorch 1.13, a tag that resolves to no range does not fail the read: PyTorch
// itself writes tag -1 for ranges it could not tag (e.g. torchvision's efficientnet_b0) and
// then refuses to load its own file. Such ranges stay unknown (the tag is kept so the
// symbolicator can say why) and every other handle still symbolicates.
// Shared call-stack tuples (memoized in the pickle) become shared InlinedCallStack nodes.
#pragma once

#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/source_range_reader.h"
#include "symbolite/pickle/value.h"

namespace symbolite::debuginfo {

struct CallstackMapStats {
  std::size_t rows = 0;
  std::size_t unresolved_tags = 0;  // row or call-site tags with no range
  // Of those, rows' own tags: PyTorch 1.13's loader refuses a file with any ("Source range
  // tag must exist"); it drops call-site frames with one silently.
  std::size_t unresolved_row_tags = 0;
  std::size_t shared_call_stacks = 0;  // distinct InlinedCallStack nodes built
};

// Throws Error(kModel) naming the row for malformed shapes and for duplicate handles.
DebugTable read_callstack_map(const pickle::Value& root, const SourceRangeTags& tags,
                              CallstackMapStats* stats = nullptr);

}  // namespace symbolite::debuginfo
