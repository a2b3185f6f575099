// `DebugTable`: debug handle -> DebugInfo for one model, as read from
// `callstack_debug_map.pkl` (or recorded at compile time). Lookups return a pointer that is
// null when the handle is absent: a miss is an answer, not an error.
#pragma once

#include <cstddef>
#include <unordered_map>
#include <vector>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::debuginfo {

class DebugTable {
 public:
  DebugTable() = default;
  explicit DebugTable(std::unordered_map<DebugHandle, DebugInfo> entries)
      : entries_(std::move(entries)) {}

  const DebugInfo* find(DebugHandle handle) const;
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // All handles, ascending.
  std::vector<DebugHandle> handles() const;
  // Adds an entry; returns false (and keeps the old one) if the handle is already present.
  bool insert(DebugHandle handle, DebugInfo info);

 private:
  std::unordered_map<DebugHandle, DebugInfo> entries_;
};

}  // namespace symbolite::debuginfo
