// A fixture model lifted to the IR, emitted again with stable handles, written and loaded
// back: what `symbolite export` makes of it, in memory. For tests that an instruction or an
// operator survives the compiler and runs the same afterwards.
#pragma once

#include <string>

#include "symbolite/mobile/bytecode.h"
#include "symbolite/mobile/loaded_model.h"

namespace symbolite::testing {

struct Reemitted {
  mobile::Bytecode bytecode;  // as emitted
  mobile::LoadedModel model;  // loaded from the written file
};

// `fixture` is relative to tests/fixtures ("models/is_cuda.ptl").
Reemitted lift_emit_and_load(const std::string& fixture);

}  // namespace symbolite::testing
