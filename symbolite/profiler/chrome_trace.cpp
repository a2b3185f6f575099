#include "symbolite/profiler/chrome_trace.h"

#include <string>

namespace symbolite::profiler {
namespace {

nlohmann::json slice(const std::string& name, const char* category, std::int64_t start_ns,
                     std::int64_t end_ns, std::uint32_t thread) {
  // Trace Event Format times are microseconds; keep nanosecond precision as fractions.
  return {{"name", name}, {"cat", category}, {"ph", "X"}, {"pid", 0}, {"tid", thread},
          {"ts", static_cast<double>(start_ns) / 1e3},
          {"dur", static_cast<double>(end_ns - start_ns) / 1e3}};
}

// The operator slice's args: its handle, and whatever else the event was recorded with
// (PyTorch's trace names input shapes and types "Input Dims" and "Input type").
nlohmann::json event_args(const OpEvent& e) {
  nlohmann::json args = {{"debug_handle", e.handle}};
  // Inside a delegate: the handle is the delegate node's; the call's composes the pair
  // (`symbolite symbolicate MODEL CALL:HANDLE`).
  if (e.delegate_call != debuginfo::kInvalidDebugHandle) args["delegate_call_handle"] = e.delegate_call;
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

nlohmann::json chrome_trace(const std::vector<OpEvent>& events, Attributor& attributor) {
  nlohmann::json trace = nlohmann::json::array();
  // Module slices still open: label, start; they close when an event leaves them.
  struct Open {
    std::string label;
    std::int64_t start_ns;
  };
  std::vector<Open> open;
  std::int64_t last_end = 0;
  std::uint32_t thread = events.empty() ? 0 : events.front().thread;
  auto close_to = [&](std::size_t keep) {
    while (open.size() > keep) {
      trace.push_back(slice(open.back().label, "module", open.back().start_ns, last_end, thread));
      open.pop_back();
    }
  };
  for (const auto& e : events) {
    const auto& a = attributor.attribute(e.handle, e.delegate_call);
    std::size_t common = 0;
    while (common < open.size() && common < a.module_path.size() &&
           open[common].label == a.module_path[common]) {
      ++common;
    }
    close_to(common);
    for (std::size_t i = common; i < a.module_path.size(); ++i) {
      open.push_back({a.module_path[i], e.start_ns});
    }
    auto op = slice(std::string(e.op), "operator", e.start_ns, e.end_ns, e.thread);
    op["args"] = event_args(e);
    trace.push_back(std::move(op));
    last_end = e.end_ns;
    thread = e.thread;
  }
  close_to(0);
  return {{"traceEvents", trace}, {"displayTimeUnit", "ns"}};
}

}  // namespace symbolite::profiler
