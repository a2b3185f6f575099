#include "symbolite/mobile/attach_sidecar.h"

#include <fmt/format.h>

#include "symbolite/debuginfo/sidecar_reader.h"
#include "symbolite/support/error.h"

namespace symbolite::mobile {

void attach_sidecar(LoadedModel& model, const std::string& sidecar) {
  auto reader = debuginfo::SidecarReader::open(sidecar);
  if (reader->model_id() != model.model_id()) {
    throw Error(ErrorKind::kModel,
                fmt::format("sidecar {} belongs to model {}, but the model loaded is model {}: its "
                            "handles would be symbolicated against the wrong source",
                            sidecar, to_hex(reader->model_id()), to_hex(model.model_id())));
  }
  model.debug = std::move(reader);
}

}  // namespace symbolite::mobile
