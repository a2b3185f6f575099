// Every run fixture again, on the model as `symbolite export --passes all --stable-handles`
// writes it: symbolite's runtime gives PyTorch's outputs, and every failing call PyTorch's
// class, message, module hierarchy and traceback — the debug info survives lifting, the
// passes, emission with new handles, and writing.
#include <map>

#include <gtest/gtest.h>

#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/model_export.h"
#include "symbolite/mobile/model_writer.h"
#include "tests/test_support/fixtures.h"
#include "tests/test_support/run_manifest.h"

namespace symbolite::compiler {
namespace {

const mobile::LoadedModel& exported(const std::string& name) {
  static std::map<std::string, mobile::LoadedModel> models;
  auto it = models.find(name);
  if (it == models.end()) {
    auto model = mobile::ModelInfo::load(testing::fixture_path("models/" + name));
    Program program = lift(model);
    run_passes(program, {"all"}, true);
    debuginfo::DebugHandleCounter counter;
    debuginfo::DebugInfoRecorder recorder(counter);
    EmittedProgram emitted = emit_program(program, HandleScheme::kStable, recorder);
    auto bytes = mobile::write_model_bytes(model.archive, emitted.bytecode, &emitted.debug);
    auto owner = std::make_shared<std::vector<std::uint8_t>>(std::move(bytes));
    it = models
             .emplace(name, mobile::LoadedModel::load_bytes(
                                Bytes(owner, owner->data(), owner->size()), "exported " + name))
             .first;
  }
  return it->second;
}

class ExportedRun : public ::testing::TestWithParam<int> {};

TEST_P(ExportedRun, MatchesPyTorchOnTheOriginal) {
  const auto& entry = testing::run_manifest()[static_cast<std::size_t>(GetParam())];
  testing::check_run_entry(entry, exported(entry["model"].get<std::string>()));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ExportedRun,
                         ::testing::Range(0, static_cast<int>(testing::run_manifest().size())),
                         [](const auto& info) { return testing::run_case_name(info.param); });

}  // namespace
}  // namespace symbolite::compiler
