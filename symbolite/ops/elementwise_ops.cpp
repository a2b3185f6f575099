// Elementwise tensor arithmetic and activations.
#include "symbolite/ops/kernel_families.h"

namespace symbolite::ops {

void register_elementwise_ops(OperatorRegistry&) {}

}  // namespace symbolite::ops
