// The `aot_eager` debugging backend: the whole lowering path — partition, preprocess,
// serialize, reload, execute — with symbolite's own kernels at the end, and every step of
// the way back checked. At load, each payload must survive a second trip through the
// serializer unchanged (parse, print again, compare with what the lowering wrote) and carry
// exactly the weights its program uses; only then does the re-read program run, on the
// interpreter's kernels. Outputs equal the unlowered run's unless serialization loses
// something, which this backend names at the first line that differs (TorchDynamo's
// `aot_eager`: the whole compile path, eager kernels).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "symbolite/runtime/delegate/delegate_backend.h"

namespace symbolite::backends {

// Where `text` (a delegate program as written) and its reprint differ: "line 4: 'op 3 ...' was
// printed back as '...'", or nullopt when they are the same. Throws what the parser throws.
std::optional<std::string> round_trip_difference(std::string_view text);

std::unique_ptr<runtime::DelegateBackend> make_round_trip_backend();

}  // namespace symbolite::backends
