#include "symbolite/profiler/attribution.h"

#include "symbolite/support/printable_text.h"

namespace symbolite::profiler {

Attributor::Attributor(const debuginfo::Symbolicator* symbolicator, const std::string& top_type)
    : symbolicator_(symbolicator),
      top_label_("top(" + single_line(debuginfo::short_type_name(top_type)) + ")") {}

namespace {

std::string line_of(const debuginfo::SourceRange& range) {
  auto at = range.file_line_col();
  return at ? at->filename + ":" + std::to_string(at->line) : std::string();
}

}  // namespace

Attribution Attributor::from(const debuginfo::Symbolication& s) const {
  Attribution a;
  a.module_path.push_back(top_label_);
  a.call_sites.emplace_back();
  if (s.status == debuginfo::SymbolicationStatus::kNotFound) return a;
  a.known = true;
  a.op = s.op;
  if (!s.frames.empty()) a.source = line_of(s.frames.back().range);
  for (const auto& frame : s.frames) {
    if (frame.callee.empty()) continue;
    // "level1(Level1)::forward" -> "level1(Level1)"; calls to methods of the same module
    // (SELF) and to free functions stay in the current module.
    std::string label = frame.callee.substr(0, frame.callee.rfind("::"));
    if (label.starts_with("SELF(") || label.starts_with("UNKNOWN_INSTANCE(")) continue;
    a.module_path.push_back(std::move(label));
    a.call_sites.push_back(line_of(frame.range));
  }
  return a;
}

const Attribution& Attributor::attribute(debuginfo::DebugHandle handle) {
  auto it = cache_.find(handle);
  if (it != cache_.end()) return it->second;
  Attribution a;
  if (symbolicator_ != nullptr) {
    a = from(symbolicator_->resolve(handle));
  } else {
    a.module_path.push_back(top_label_);
    a.call_sites.emplace_back();
  }
  return cache_.emplace(handle, std::move(a)).first->second;
}

const Attribution& Attributor::attribute(debuginfo::DebugHandle handle,
                                         debuginfo::DebugHandle delegate_call) {
  if (delegate_call == debuginfo::kInvalidDebugHandle || symbolicator_ == nullptr)
    return attribute(handle);
  auto key = std::make_pair(delegate_call, handle);
  auto it = delegated_cache_.find(key);
  if (it != delegated_cache_.end()) return it->second;
  Attribution a = from(symbolicator_->symbolicate_delegated(delegate_call, handle));
  // A pair the debug info cannot compose (a handle of another file): the node alone.
  if (!a.known) a = attribute(handle);
  return delegated_cache_.emplace(key, std::move(a)).first->second;
}

}  // namespace symbolite::profiler
