#include "symbolite/profiler/attribution.h"

namespace symbolite::profiler {

Attributor::Attributor(const debuginfo::Symbolicator* symbolicator, std::string top_type)
    : symbolicator_(symbolicator),
      top_label_("top(" + debuginfo::short_type_name(top_type) + ")") {}

const Attribution& Attributor::attribute(debuginfo::DebugHandle handle) {
  auto it = cache_.find(handle);
  if (it != cache_.end()) return it->second;
  Attribution a;
  a.module_path.push_back(top_label_);
  if (symbolicator_ != nullptr) {
    auto s = symbolicator_->resolve(handle);
    if (s.status != debuginfo::SymbolicationStatus::kNotFound) {
      a.known = true;
      a.op = s.op;
      for (const auto& frame : s.frames) {
        if (frame.callee.empty()) continue;
        // "level1(Level1)::forward" -> "level1(Level1)"; calls to methods of the same
        // module (SELF) and to free functions stay in the current module.
        std::string label = frame.callee.substr(0, frame.callee.rfind("::"));
        if (label.starts_with("SELF(") || label.starts_with("UNKNOWN_INSTANCE(")) continue;
        a.module_path.push_back(std::move(label));
      }
    }
  }
  return cache_.emplace(handle, std::move(a)).first->second;
}

}  // namespace symbolite::profiler
