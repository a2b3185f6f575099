#include "tests/test_support/reemit.h"

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "symbolite/compiler/lifter.h"
#include "symbolite/compiler/model_export.h"
#include "symbolite/mobile/model_info.h"
#include "symbolite/mobile/model_writer.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::testing {

Reemitted lift_emit_and_load(const std::string& fixture) {
  auto info = mobile::ModelInfo::load(fixture_path(fixture));
  compiler::Program program = compiler::lift(info);
  debuginfo::DebugHandleCounter counter;
  debuginfo::DebugInfoRecorder recorder(counter);
  auto emitted = compiler::emit_program(program, compiler::HandleScheme::kStable, recorder);
  auto bytes = std::make_shared<std::vector<std::uint8_t>>(
      mobile::write_model_bytes(info.archive, emitted.bytecode, &emitted.debug));
  auto model = mobile::LoadedModel::load_bytes(Bytes(bytes, bytes->data(), bytes->size()),
                                               "exported " + fixture);
  return Reemitted{std::move(emitted.bytecode), std::move(model)};
}

}  // namespace symbolite::testing
