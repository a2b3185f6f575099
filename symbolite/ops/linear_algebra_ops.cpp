// Matrix products.
#include "symbolite/ops/kernel_families.h"

namespace symbolite::ops {

void register_linear_algebra_ops(OperatorRegistry&) {}

}  // namespace symbolite::ops
