#include "symbolite/profiler/chrome_trace.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace symbolite::profiler {
namespace {

// One process per trace; a fixed id keeps traces of the same run comparable.
constexpr int kPid = 1;

// A time in the trace: microseconds (the Trace Event Format's unit) since the first event, in
// steps of 1/1024 µs (0.98 ns). Viewers add `ts + dur` in doubles: binary fractions add
// exactly, so a slice that ends with its parent ends at the very same value. Decimal
// microseconds of a steady clock near 10^10 µs made children outlive their parents by 10^-6
// in speedscope, which then broke the nesting (tests/report/check_trace_in_viewer.py).
// Rounding is monotonic, so the order and nesting of the events are kept.
double trace_time(std::int64_t ns_since_origin) {
  return std::round(static_cast<double>(ns_since_origin) * 1.024) / 1024.0;
}

nlohmann::json slice(const std::string& name, const char* category, std::int64_t start_ns,
                     std::int64_t end_ns, std::int64_t origin_ns, std::uint32_t thread) {
  const double ts = trace_time(start_ns - origin_ns);
  return {{"name", name},
          {"cat", category},
          {"ph", "X"},
          {"pid", kPid},
          {"tid", thread},
          {"ts", ts},
          {"dur", trace_time(end_ns - origin_ns) - ts}};
}

// The operator slice's args: its handle, and whatever else the event was recorded with
// (PyTorch's trace names input shapes and types "Input Dims" and "Input type").
nlohmann::json event_args(const OpEvent& e) {
  nlohmann::json args = {{"debug_handle", e.handle}};
  // Inside a delegate: the handle is the delegate node's; the call's composes the pair
  // (`symbolite symbolicate MODEL CALL:HANDLE`).
  if (e.delegate_call != debuginfo::kInvalidDebugHandle)
    args["delegate_call_handle"] = e.delegate_call;
  if (!e.inputs.empty() || !e.outputs.empty()) {
    nlohmann::json dims = nlohmann::json::array(), types = nlohmann::json::array(),
                   out_dims = nlohmann::json::array(), out_types = nlohmann::json::array();
    for (const auto& v : e.inputs) {
      dims.push_back(v.sizes);
      types.push_back(v.type);
    }
    for (const auto& v : e.outputs) {
      out_dims.push_back(v.sizes);
      out_types.push_back(v.type);
    }
    args["Input Dims"] = std::move(dims);
    args["Input type"] = std::move(types);
    args["Output Dims"] = std::move(out_dims);
    args["Output type"] = std::move(out_types);
  }
  if (e.flops >= 0) args["flops"] = e.flops;
  if (e.bytes_allocated != 0 || e.bytes_freed != 0) {
    args["bytes_allocated"] = e.bytes_allocated;
    args["bytes_freed"] = e.bytes_freed;
  }
  return args;
}

}  // namespace

nlohmann::json chrome_trace(const std::vector<OpEvent>& events, Attributor& attributor,
                            const TraceOptions& options) {
  // Slices are collected with their nesting rank, then sorted: by start, longer first, and
  // for equal spans by rank (run 0, modules 1.., operators last), so every parent precedes
  // its children as viewers and trace processors expect.
  struct Slice {
    nlohmann::json json;
    std::int64_t start_ns, end_ns;
    std::size_t rank;
  };
  std::vector<Slice> slices;
  slices.reserve(events.size() * 2);
  std::int64_t origin = events.empty() ? 0 : events.front().start_ns;
  for (const OpEvent& e : events) origin = std::min(origin, e.start_ns);
  auto add = [&](nlohmann::json j, std::int64_t start, std::int64_t end, std::size_t rank) {
    slices.push_back({std::move(j), start, end, rank});
  };

  // Module slices still open: label, start; they close when an event leaves them, and at the
  // end of each run.
  struct Open {
    std::string label;
    std::int64_t start_ns;
  };
  std::vector<Open> open;
  std::int64_t last_end = 0;
  std::uint32_t thread = events.empty() ? 0 : events.front().thread;
  std::vector<std::uint32_t> threads;
  auto close_to = [&](std::size_t keep) {
    while (open.size() > keep) {
      add(slice(open.back().label, "module", open.back().start_ns, last_end, origin, thread),
          open.back().start_ns, last_end, open.size());
      open.pop_back();
    }
  };
  std::vector<std::size_t> run_starts = options.run_starts;
  if (run_starts.empty()) run_starts.push_back(0);
  for (std::size_t run = 0; run < run_starts.size(); ++run) {
    const std::size_t begin = std::min(run_starts[run], events.size());
    const std::size_t end =
        run + 1 < run_starts.size() ? std::min(run_starts[run + 1], events.size()) : events.size();
    if (begin >= end) continue;
    for (std::size_t i = begin; i < end; ++i) {
      const OpEvent& e = events[i];
      if (e.thread != thread) close_to(0);  // another thread: its own stack of modules
      const auto& a = attributor.attribute(e.handle, e.delegate_call);
      std::size_t common = 0;
      while (common < open.size() && common < a.module_path.size() &&
             open[common].label == a.module_path[common]) {
        ++common;
      }
      close_to(common);
      thread = e.thread;
      for (std::size_t k = common; k < a.module_path.size(); ++k)
        open.push_back({a.module_path[k], e.start_ns});
      auto op = slice(std::string(e.op), "operator", e.start_ns, e.end_ns, origin, e.thread);
      op["args"] = event_args(e);
      add(std::move(op), e.start_ns, e.end_ns, a.module_path.size() + 1);
      last_end = std::max(last_end, e.end_ns);
      if (std::find(threads.begin(), threads.end(), e.thread) == threads.end())
        threads.push_back(e.thread);
    }
    close_to(0);
    const std::int64_t run_start = events[begin].start_ns;
    auto marker = slice(fmt::format("run {}", run + 1), "run", run_start, last_end, origin,
                        events[begin].thread);
    marker["args"] = {{"run", run + 1}, {"operators", end - begin}};
    add(std::move(marker), run_start, last_end, 0);
  }
  std::stable_sort(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
    if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
    if (a.end_ns != b.end_ns) return a.end_ns > b.end_ns;
    return a.rank < b.rank;
  });

  nlohmann::json trace = nlohmann::json::array();
  trace.push_back({{"name", "process_name"},
                   {"ph", "M"},
                   {"pid", kPid},
                   {"tid", 0},
                   {"args", {{"name", options.process_name}}}});
  for (std::uint32_t t : threads) {
    trace.push_back({{"name", "thread_name"},
                     {"ph", "M"},
                     {"pid", kPid},
                     {"tid", t},
                     {"args", {{"name", fmt::format("symbolite thread {}", t)}}}});
  }
  for (auto& s : slices) trace.push_back(std::move(s.json));
  return {{"traceEvents", std::move(trace)}, {"displayTimeUnit", "ns"}};
}

}  // namespace symbolite::profiler
