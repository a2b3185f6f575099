// `DebugInfoRecorder`: the compile-side API that gives every lowered node a debug handle.
//
// When a module is lowered to a delegate backend, each node it compiles asks the recorder
// for a handle; the recorder remembers `handle -> {source range, op name, call stack}`, and
// `stop_recording()` hands that table over to be serialized beside the model.
//
// Handles are unique across the whole process (PyTorch draws them from one static atomic
// counter too), so tables recorded by different lowerings never collide.
//
// Thread safety: `record()` may be called from any number of threads at once; handles come
// from a lock-free counter and the table is guarded by a mutex. `stop_recording()` must not
// race with `record()` calls that are still expected to land: after it, `record()` throws.
//
// Invariants: a handle is issued at most once per counter; the counter never wraps — when
// it would pass INT64_MAX, `record()` throws Error(kLimit) (PyTorch's counter would wrap).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "symbolite/debuginfo/debug_info.h"

namespace symbolite::debuginfo {

// A source of unique handles. `process()` is the one shared by default; tests make their own
// (e.g. starting near INT64_MAX to check overflow).
class DebugHandleCounter {
 public:
  explicit DebugHandleCounter(DebugHandle first = 0) : next_(first) {}
  static DebugHandleCounter& process();

  // The next unused handle; throws Error(kLimit) once the handle space is exhausted.
  DebugHandle next();

 private:
  std::atomic<DebugHandle> next_;
};

using DebugInfoMap = std::unordered_map<DebugHandle, DebugInfo>;

class DebugInfoRecorder {
 public:
  // `counter` must outlive the recorder.
  explicit DebugInfoRecorder(DebugHandleCounter& counter = DebugHandleCounter::process())
      : counter_(counter) {}

  // Issues a new handle for a node and records its debug info.
  DebugHandle record(DebugInfo info);
  // Records `info` under a handle the caller chose (e.g. a stable, content-derived one) and
  // returns it; Error(kUsage) when this recorder already holds that handle or `handle` is
  // negative.
  DebugHandle record_at(DebugHandle handle, DebugInfo info);
  // Whether this recorder already holds `handle`.
  bool holds(DebugHandle handle) const;

  // Ends recording and hands over the table. Later `record()` calls throw Error(kUsage).
  DebugInfoMap stop_recording();

 private:
  DebugHandleCounter& counter_;
  mutable std::mutex mutex_;
  DebugInfoMap map_;
  bool stopped_ = false;
};

}  // namespace symbolite::debuginfo
