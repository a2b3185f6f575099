// The `eager_noexcept` debugging backend: partitions run on symbolite's own kernels, as with
// `eager`, but whatever goes wrong inside one — a node's error, or any C++ exception a kernel
// lets out — is reported as that partition's failure: the traceback stops at the lowered
// call in the user's source (the partition), and the message names the node's delegate handle
// and its error. The run stops cleanly either way. It tells a user whether a partition as a
// whole misbehaves before looking at its nodes (TorchDynamo's `eager_noexcept`).
#pragma once

#include <memory>

#include "symbolite/runtime/delegate/delegate_backend.h"

namespace symbolite::backends {

std::unique_ptr<runtime::DelegateBackend> make_noexcept_backend();

}  // namespace symbolite::backends
