// Registers the delegate backends of this layer with the runtime (runtime/delegate/
// delegate_backend.h): "xnnpack" (delegate programs whose nodes run on XNNPACK operators,
// xnnpack/xnnpack_nodes.h, the rest on symbolite's kernels), "eager_debug" (symbolite's kernels,
// each node checked against its schema: debugging/schema_checks.h) and the test-only error-injecting
// backends (testing/error_injecting_backends.h). The runtime's own "symbolite" and "eager" are
// always there. Call once at start-up, before loading models; idempotent.
#pragma once

namespace symbolite::backends {

void register_delegate_backends();

}  // namespace symbolite::backends
