#include "symbolite/debuginfo/debug_table.h"

#include <algorithm>

namespace symbolite::debuginfo {

const DebugInfo* DebugTable::find(DebugHandle handle) const {
  auto it = entries_.find(handle);
  return it == entries_.end() ? nullptr : &it->second;
}

std::vector<DebugHandle> DebugTable::handles() const {
  std::vector<DebugHandle> out;
  out.reserve(entries_.size());
  for (const auto& [handle, info] : entries_) out.push_back(handle);
  std::sort(out.begin(), out.end());
  return out;
}

bool DebugTable::insert(DebugHandle handle, DebugInfo info) {
  return entries_.emplace(handle, std::move(info)).second;
}

}  // namespace symbolite::debuginfo
