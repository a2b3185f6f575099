// `Symbolication`: the answer for one debug handle — the model-level story of an
// instruction: which operator, which module instance path, which lines of model source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/debuginfo/handle_table_reader.h"
#include "symbolite/debuginfo/source_range.h"

namespace symbolite::debuginfo {

// One traceback frame, outermost first: the function that was executing and the range in it.
struct Frame {
  std::string function;
  SourceRange range;            // unknown when the debug info lost it
  std::int64_t range_tag = -1;  // the serialized tag, to explain unknown ranges
  std::string callee;           // for a call site: what it calls, "level1(Level1)::forward";
                                // empty for the innermost frame (the node itself)
};

enum class SymbolicationStatus {
  kOk,        // every frame has its source
  kPartial,   // the handle is known but some frames' sources are not
  kNotFound,  // the handle is in no debug table
};

std::string_view to_string(SymbolicationStatus status);

struct Symbolication {
  DebugHandle handle = kInvalidDebugHandle;
  SymbolicationStatus status = SymbolicationStatus::kNotFound;
  std::string op;                       // node kind: "aten::add"
  std::optional<InstructionSite> site;  // where the handle sits in the bytecode, if known
  std::string module_hierarchy;         // "top(C)::forward.A0(A)::forward.aten::add"
  std::vector<Frame> frames;
  std::string traceback;           // "Traceback of TorchScript (most recent call last):\n..."
  std::vector<std::string> notes;  // why something is unknown or missing
};

}  // namespace symbolite::debuginfo
