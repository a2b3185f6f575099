// Runs a golden call's inputs (fresh tensors from its JSON) through a model's forward, as the
// fused interpreter runs it or, `profiled`, as the file's code (a profiled run executes every
// operator on its own: no batch norm folded into a convolution's epilogue) — for tests that
// compare the two.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "symbolite/mobile/loaded_model.h"
#include "symbolite/profiler/recording_sink.h"
#include "symbolite/runtime/interpreter.h"
#include "tests/test_support/json_tensor.h"

namespace symbolite::testing {

inline ops::IValue run_forward_call(const mobile::LoadedModel& model, const nlohmann::json& call,
                                    bool profiled = false) {
  runtime::Interpreter interpreter(model);
  std::vector<ops::IValue> inputs;
  for (const auto& input : call["inputs"]) inputs.emplace_back(tensor_from_json(input));
  std::optional<profiler::RecordingSink> sink;
  std::optional<profiler::ProfilingScope> scope;
  if (profiled) {
    sink.emplace();
    scope.emplace(*sink);
  }
  return interpreter.run_method("forward", std::move(inputs));
}

}  // namespace symbolite::testing
