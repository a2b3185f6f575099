// A DebugInfoSource over tables already in memory (a model archive's call-stack map and
// per-instruction handle table).
#pragma once

#include "symbolite/debuginfo/debug_info_source.h"
#include "symbolite/debuginfo/debug_table.h"
#include "symbolite/debuginfo/handle_table_reader.h"

namespace symbolite::debuginfo {

class TableDebugInfoSource : public DebugInfoSource {
 public:
  // `table` and `handles` (may be null) must outlive this object.
  TableDebugInfoSource(const DebugTable& table, const HandleTable* handles,
                       std::string top_module_type, bool has_call_stacks);

  std::optional<DebugInfo> find(DebugHandle handle) const override;
  std::optional<InstructionSite> site_of(DebugHandle handle) const override;
  const std::string& top_module_type() const override { return top_module_type_; }
  bool has_call_stacks() const override { return has_call_stacks_; }
  HandleStats handle_stats() const override { return stats_; }

 private:
  const DebugTable& table_;
  const HandleTable* handles_;
  std::string top_module_type_;
  bool has_call_stacks_;
  HandleStats stats_;
};

}  // namespace symbolite::debuginfo
