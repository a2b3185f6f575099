// Gives a stripped model its debug info back from the sidecar `symbolite split` wrote, so its
// failures and profiles carry module hierarchies and tracebacks as the full model's do.
#pragma once

#include <string>

#include "symbolite/mobile/loaded_model.h"

namespace symbolite::mobile {

// Throws Error(kModel) when the sidecar was split from another model (its handles would point
// at the wrong source), Error naming the file when it cannot be read.
void attach_sidecar(LoadedModel& model, const std::string& sidecar);

}  // namespace symbolite::mobile
