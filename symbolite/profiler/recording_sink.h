// A sink that keeps every event, in order, for the exporters.
//
// Thread safety: one thread at a time (install one RecordingSink per thread).
#pragma once

#include <vector>

#include "symbolite/profiler/event_sink.h"

namespace symbolite::profiler {

class RecordingSink : public EventSink {
 public:
  explicit RecordingSink(std::uint32_t details = 0) : EventSink(details) {}
  void on_op(const OpEvent& event) override { events_.push_back(event); }
  const std::vector<OpEvent>& events() const { return events_; }
  void clear() { events_.clear(); }

 private:
  std::vector<OpEvent> events_;
};

}  // namespace symbolite::profiler
