// Where operator events go. Nothing is installed by default, and then the runtime pays one
// thread-local load and a branch per operator — nothing else (measured in
// docs/PERFORMANCE.md). `ProfilingScope` installs a sink for the current thread for as long
// as it lives:
//
//   profiler::RecordingSink events;
//   {
//     profiler::ProfilingScope scope(events);
//     interpreter.run_method("forward", inputs);
//   }
//
// Delegate backends report their own events (with their own handles and a `source` id)
// through the same sink.
#pragma once

#include <chrono>
#include <cstdint>

#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

class EventSink {
 public:
  // `details`: what to measure besides time, a mask of EventDetail bits.
  explicit EventSink(std::uint32_t details = 0) : details_(details) {}
  virtual ~EventSink() = default;
  virtual void on_op(const OpEvent& event) = 0;

  // Read by the runtime once per operator (a plain load, no virtual call).
  std::uint32_t details() const { return details_; }

 private:
  std::uint32_t details_;
};

// The sink installed on this thread, or null.
EventSink* current_sink();

// Installs `sink` on this thread until destroyed (then restores the previous one). `sink`
// must outlive the scope.
class ProfilingScope {
 public:
  explicit ProfilingScope(EventSink& sink);
  ~ProfilingScope();
  ProfilingScope(const ProfilingScope&) = delete;
  ProfilingScope& operator=(const ProfilingScope&) = delete;

 private:
  EventSink* previous_;
};

inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A small id for the current thread (0, 1, 2, ... in order of first use).
std::uint32_t thread_id();

}  // namespace symbolite::profiler
