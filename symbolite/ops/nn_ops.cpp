// Neural-network layers.
#include "symbolite/ops/kernel_families.h"

namespace symbolite::ops {

void register_nn_ops(OperatorRegistry&) {}

}  // namespace symbolite::ops
