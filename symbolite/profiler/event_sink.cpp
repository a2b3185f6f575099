#include "symbolite/profiler/event_sink.h"

#include <atomic>

namespace symbolite::profiler {
namespace {

thread_local EventSink* installed = nullptr;

}  // namespace

EventSink* current_sink() { return installed; }

ProfilingScope::ProfilingScope(EventSink& sink) : previous_(installed) { installed = &sink; }

ProfilingScope::~ProfilingScope() { installed = previous_; }

std::uint32_t thread_id() {
  static std::atomic<std::uint32_t> next{0};
  thread_local std::uint32_t id = next.fetch_add(1);
  return id;
}

}  // namespace symbolite::profiler
