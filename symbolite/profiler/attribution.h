// Attribution: each event's debug handle turned into the module path it ran in
// (`top(ResNet)`, `layer1(Sequential)`, `0(BasicBlock)`) and its operator, through the
// model's debug info. Handles repeat (every run executes the same instructions), so each is
// symbolicated once and cached.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symbolite/debuginfo/symbolicator.h"

namespace symbolite::profiler {

struct Attribution {
  std::vector<std::string> module_path;  // outermost first; starts with "top(Type)"
  // Where each module of the path is called from ("model.py:42"), parallel to module_path
  // (empty for the top module and where the debug info lost it).
  std::vector<std::string> call_sites;
  std::string source;  // the node's own line, "model.py:57", when known
  std::string op;      // node kind from the debug info, "aten::add"
  bool known = false;  // false without debug info for the handle
};

class Attributor {
 public:
  // `symbolicator` may be null (no debug info): every event is then attributed to "top".
  Attributor(const debuginfo::Symbolicator* symbolicator, const std::string& top_type);

  const Attribution& attribute(debuginfo::DebugHandle handle);
  // An event from inside a delegate (OpEvent::delegate_call set): the path through the lowered
  // module, `top(Net)`, `__lowered_0(Net)`, `layer1(Sequential)`, ...; as attribute(handle)
  // when `delegate_call` is invalid.
  const Attribution& attribute(debuginfo::DebugHandle handle, debuginfo::DebugHandle delegate_call);

 private:
  Attribution from(const debuginfo::Symbolication& s) const;

  const debuginfo::Symbolicator* symbolicator_;
  std::string top_label_;
  std::unordered_map<debuginfo::DebugHandle, Attribution> cache_;
  std::map<std::pair<debuginfo::DebugHandle, debuginfo::DebugHandle>, Attribution> delegated_cache_;
};

}  // namespace symbolite::profiler
