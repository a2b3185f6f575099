#include "profile_result.h"

#include <fmt/format.h>

#include "symbolite/profiler/chrome_trace.h"
#include "symbolite/profiler/module_table.h"
#include "symbolite/profiler/op_table.h"
#include "symbolite/runtime/interpreter.h"
#include "symbolite/support/error.h"
#include "symbolite/support/json_text.h"

namespace symbolite::python {

ProfileResult::ProfileResult(std::shared_ptr<const mobile::LoadedModel> model,
                             const std::vector<ops::IValue>& inputs, const ProfileOptions& options)
    : model_(std::move(model)), options_(options), events_(options.details) {
  if (options.runs < 1)
    throw Error(ErrorKind::kUsage, fmt::format("runs must be at least 1, not {}", options.runs));
  if (options.warmup < 0) {
    throw Error(ErrorKind::kUsage,
                fmt::format("warmup must be at least 0, not {}", options.warmup));
  }
  runtime::Interpreter interpreter(*model_);
  for (int i = 0; i < options.warmup; ++i) interpreter.run_method(options.method, inputs);
  {
    profiler::ProfilingScope scope(events_);
    for (int i = 0; i < options.runs; ++i) {
      trace_options_.run_starts.push_back(events_.events().size());
      interpreter.run_method(options.method, inputs);
    }
  }
  trace_options_.process_name = fmt::format("symbolite {} {}", model_->path, options.method);
  if (model_->debug) symbolicator_.emplace(model_->debug);
  attributor_.emplace(symbolicator_ ? &*symbolicator_ : nullptr, model_->top_type);
}

std::string ProfileResult::operators_json(const std::string& sort, bool by_input_shapes,
                                          bool by_name) {
  auto key = profiler::op_sort_from_name(sort);
  if (!key) {
    throw Error(
        ErrorKind::kUsage,
        fmt::format("unknown sort key '{}' (total, self, count, name, flops, memory)", sort));
  }
  auto table = profiler::op_table(events_.events(), {*key, by_input_shapes, by_name});
  return json_text(profiler::op_table_json(table, options_.details), -1);
}

std::string ProfileResult::module_tree_json() {
  auto root = profiler::module_tree(events_.events(), *attributor_);
  return json_text(profiler::module_tree_json(*root, options_.details), -1);
}

std::string ProfileResult::chrome_trace_json() {
  return json_text(profiler::chrome_trace(events_.events(), *attributor_, trace_options_), -1);
}

std::string ProfileResult::folded_stacks() {
  return profiler::folded_stacks(events_.events(), *attributor_);
}

}  // namespace symbolite::python
