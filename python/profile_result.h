// A profiled run of a model from Python (`Model.profile`): the events of every profiled run
// and what attributes them to modules, kept so each view (operator table, module tree, Chrome
// trace, folded stacks) is made when asked for. Views come back as JSON text for
// symbolite/_profile.py to turn into Python objects.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "symbolite/debuginfo/symbolicator.h"
#include "symbolite/mobile/loaded_model.h"
#include "symbolite/ops/registry/ivalue.h"
#include "symbolite/profiler/attribution.h"
#include "symbolite/profiler/chrome_trace.h"
#include "symbolite/profiler/recording_sink.h"

namespace symbolite::python {

struct ProfileOptions {
  std::string method = "forward";
  int runs = 1;
  int warmup = 1;
  std::uint32_t details = 0;  // profiler::EventDetail bits
};

class ProfileResult {
 public:
  // Runs `options.warmup` unprofiled runs then `options.runs` profiled ones. The caller
  // releases the GIL around it (it touches no Python object).
  ProfileResult(std::shared_ptr<const mobile::LoadedModel> model,
                const std::vector<ops::IValue>& inputs, const ProfileOptions& options);
  // The attributor points into this object.
  ProfileResult(const ProfileResult&) = delete;
  ProfileResult& operator=(const ProfileResult&) = delete;

  const ProfileOptions& options() const { return options_; }
  std::size_t events() const { return events_.events().size(); }
  bool has_call_stacks() const { return model_->debug != nullptr; }

  // `sort`: total, self, count, name, flops, memory (Error(kUsage) otherwise); `by_name`: a
  // row per operator name without overload.
  std::string operators_json(const std::string& sort, bool by_input_shapes, bool by_name);
  std::string module_tree_json();
  std::string chrome_trace_json();
  std::string folded_stacks();

 private:
  std::shared_ptr<const mobile::LoadedModel> model_;
  ProfileOptions options_;
  profiler::RecordingSink events_;
  profiler::TraceOptions trace_options_;  // where each run starts, the process's name
  std::optional<debuginfo::Symbolicator> symbolicator_;
  std::optional<profiler::Attributor> attributor_;
};

}  // namespace symbolite::python
