#include "symbolite/debuginfo/table_debug_info_source.h"

namespace symbolite::debuginfo {

TableDebugInfoSource::TableDebugInfoSource(const DebugTable& table, const HandleTable* handles,
                                           std::string top_module_type, bool has_call_stacks)
    : table_(table),
      handles_(handles),
      top_module_type_(std::move(top_module_type)),
      has_call_stacks_(has_call_stacks) {
  auto all = table_.handles();
  if (!all.empty()) stats_ = HandleStats{all.size(), all.front(), all.back()};
}

std::optional<DebugInfo> TableDebugInfoSource::find(DebugHandle handle) const {
  const DebugInfo* info = table_.find(handle);
  if (info == nullptr) return std::nullopt;
  return *info;
}

std::optional<InstructionSite> TableDebugInfoSource::site_of(DebugHandle handle) const {
  return handles_ ? handles_->site_of(handle) : std::nullopt;
}

}  // namespace symbolite::debuginfo
