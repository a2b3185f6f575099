// Chrome trace JSON (the Trace Event Format that Perfetto and chrome://tracing open):
// operator slices nested under module-hierarchy slices, so the timeline reads as the model
// — `run 1` > `top(ResNet)` > `layer1(Sequential)` > `0(BasicBlock)` > `aten::conv2d`. Each
// operator slice carries its debug handle and what the events recorded in `args`.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "symbolite/profiler/attribution.h"
#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

struct TraceOptions {
  std::string process_name = "symbolite";  // shown by the viewer for the process
  // Index of the first event of each run, in order (a run with no event has its index
  // repeated). Each run gets a slice of its own that its module slices never cross; empty:
  // the events are one run.
  std::vector<std::size_t> run_starts;
};

// Events must be in execution order (as a RecordingSink holds them). The trace starts with
// process and thread names (metadata events); then slices sorted by start time, a parent
// before its children (run > modules outer to inner > operator).
nlohmann::json chrome_trace(const std::vector<OpEvent>& events, Attributor& attributor,
                            const TraceOptions& options = {});

}  // namespace symbolite::profiler
