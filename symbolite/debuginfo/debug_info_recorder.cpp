#include "symbolite/debuginfo/debug_info_recorder.h"

#include <limits>
#include <string>

#include "symbolite/support/error.h"

namespace symbolite::debuginfo {

DebugHandleCounter& DebugHandleCounter::process() {
  static DebugHandleCounter counter;
  return counter;
}

DebugHandle DebugHandleCounter::next() {
  DebugHandle current = next_.load(std::memory_order_relaxed);
  do {
    // INT64_MAX itself is never issued: issuing it would leave the counter nowhere to go.
    if (current == std::numeric_limits<DebugHandle>::max()) {
      throw Error(ErrorKind::kLimit,
                  "debug handle space exhausted: the process has issued every handle up "
                  "to INT64_MAX; refusing to wrap around and reuse handles");
    }
  } while (!next_.compare_exchange_weak(current, current + 1, std::memory_order_relaxed));
  return current;
}

DebugHandle DebugInfoRecorder::record(DebugInfo info) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) {
    throw Error(ErrorKind::kUsage, "DebugInfoRecorder::record called after stop_recording");
  }
  DebugHandle handle = counter_.next();
  map_.emplace(handle, std::move(info));
  return handle;
}

DebugHandle DebugInfoRecorder::record_at(DebugHandle handle, DebugInfo info) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (stopped_) {
    throw Error(ErrorKind::kUsage, "DebugInfoRecorder::record_at called after stop_recording");
  }
  if (handle < 0) throw Error(ErrorKind::kUsage, "debug handles are not negative");
  if (!map_.emplace(handle, std::move(info)).second) {
    throw Error(ErrorKind::kUsage,
                "debug handle " + std::to_string(handle) + " is already recorded");
  }
  return handle;
}

bool DebugInfoRecorder::holds(DebugHandle handle) const {
  std::lock_guard<std::mutex> lock(mutex_);
  return map_.contains(handle);
}

DebugInfoMap DebugInfoRecorder::stop_recording() {
  std::lock_guard<std::mutex> lock(mutex_);
  stopped_ = true;
  return std::move(map_);
}

}  // namespace symbolite::debuginfo
