#include "symbolite/ops/common/elementwise_loops.h"

namespace symbolite::ops {

void push_in_place(Stack& s, const IValue& self, const tensor::Tensor& result) {
  const tensor::Tensor& t = self.to_tensor();
  if (result.storage().data() == t.storage().data() &&
      result.storage_offset() == t.storage_offset() && result.sizes() == t.sizes() &&
      result.strides() == t.strides() && result.dtype() == t.dtype() && !t.storage().is_view()) {
    s.push_back(self);  // computed into self (binary_kernel's `in_place`)
    return;
  }
  tensor::Tensor out = assign_in_place(t, result);
  if (out.storage().data() == t.storage().data() && out.storage_offset() == t.storage_offset() &&
      out.sizes() == t.sizes() && out.strides() == t.strides() && !t.storage().is_view()) {
    s.push_back(self);  // the same tensor, written into
  } else {
    s.emplace_back(std::move(out));
  }
}

}  // namespace symbolite::ops
