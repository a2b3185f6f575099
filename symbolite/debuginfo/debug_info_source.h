// `DebugInfoSource`: where a Symbolicator gets its facts. Two implementations: the tables
// read from a full model archive (TableDebugInfoSource) and a sidecar file decoded on demand
// (SidecarReader). The Symbolicator does not care which.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "symbolite/debuginfo/debug_info.h"
#include "symbolite/debuginfo/handle_table_reader.h"

namespace symbolite::debuginfo {

struct HandleStats {
  std::size_t count = 0;
  DebugHandle min = 0;
  DebugHandle max = 0;
};

// Thread safety: implementations are safe for concurrent const calls.
class DebugInfoSource {
 public:
  virtual ~DebugInfoSource() = default;

  // Debug info of `handle`, if present.
  virtual std::optional<DebugInfo> find(DebugHandle handle) const = 0;
  // Where `handle` sits in the bytecode, if known.
  virtual std::optional<InstructionSite> site_of(DebugHandle handle) const = 0;
  // Qualified type of the root module: "__torch__.Top".
  virtual const std::string& top_module_type() const = 0;
  // False when the model carries no call-stack map at all (saved without debug info or
  // stripped): every lookup then misses, and the answer should say so.
  virtual bool has_call_stacks() const = 0;
  virtual HandleStats handle_stats() const = 0;
};

}  // namespace symbolite::debuginfo
