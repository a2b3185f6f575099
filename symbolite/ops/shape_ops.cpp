// Shape, indexing and factory operators.
#include "symbolite/ops/kernel_families.h"

namespace symbolite::ops {

void register_shape_ops(OperatorRegistry&) {}

}  // namespace symbolite::ops
