// Chrome trace JSON (the Trace Event Format that Perfetto and chrome://tracing open):
// operator slices nested under module-hierarchy slices, so the timeline reads as the model
// — `top(ResNet)` > `layer1(Sequential)` > `0(BasicBlock)` > `aten::conv2d`. Each operator
// slice carries its debug handle and source location in `args`.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "symbolite/profiler/attribution.h"
#include "symbolite/profiler/op_event.h"

namespace symbolite::profiler {

// Events must be in execution order (as a RecordingSink holds them).
nlohmann::json chrome_trace(const std::vector<OpEvent>& events, Attributor& attributor);

}  // namespace symbolite::profiler
