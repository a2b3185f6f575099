// The run fixtures (tests/fixtures/run/manifest.json, made by make_run_fixtures.py with
// PyTorch 1.13): valid calls with PyTorch's outputs, failing calls with PyTorch's exception
// class, message, module hierarchy and traceback. Shared by the runtime's tests and the
// compiler's (an exported model must behave as the original).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "symbolite/mobile/loaded_model.h"

namespace symbolite::testing {

// The parsed manifest (read once).
const nlohmann::json& run_manifest();

// A gtest-friendly name for entry `index`: "nested_valid_0", "nested_broadcast_three_deep".
std::string run_case_name(int index);

// Runs `entry` on `model` with symbolite's interpreter and checks it against what PyTorch did:
// floating outputs as numpy.allclose(rtol=1e-4, atol=1e-5), others exactly; a failing call
// raises PyTorch's class and message with its module hierarchy and traceback.
//
// `lowered`: `model` is the fixture after `symbolite lower`; a failure inside a delegate then
// has the lowered module's segment in its hierarchy (`...__lowered_0(Net)::forward....`),
// which is removed before comparing, and a traceback that goes through the lowered module
// and ends with PyTorch's innermost frame.
void check_run_entry(const nlohmann::json& entry, const mobile::LoadedModel& model,
                     bool lowered = false);

}  // namespace symbolite::testing
