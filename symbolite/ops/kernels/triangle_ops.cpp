// aten::triu and aten::tril: the upper or lower triangle of the last two dimensions (every
// matrix of a batch), the rest zero; `diagonal` moves the border (k > 0 above the main
// diagonal, k < 0 below), as causal attention masks use them. Any dtype.
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;

// Keeps element (i, j) of each matrix when keep(j - i) holds.
template <typename Keep>
Tensor triangle(const Tensor& self, const char* name, Keep keep) {
  wrap_dim(-2, self.dim());  // PyTorch's IndexError for fewer than 2 dimensions
  const Tensor x = self.contiguous();
  Tensor out = Tensor::uninitialized(x.sizes(), x.dtype());
  const std::int64_t rows = x.sizes()[x.dim() - 2], cols = x.sizes().back();
  const std::int64_t matrices = rows * cols == 0 ? 0 : x.numel() / (rows * cols);
  dispatch_all(x.dtype(), name, [&](auto tag) {
    using T = decltype(tag);
    const T* src = x.template data<T>();
    T* dst = out.template mutable_data<T>();
    for (std::int64_t m = 0; m < matrices; ++m) {
      for (std::int64_t i = 0; i < rows; ++i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::int64_t at = (m * rows + i) * cols + j;
          dst[at] = keep(j - i) ? src[at] : T(0);
        }
      }
    }
  });
  return out;
}

// triu(Tensor self, int diagonal=0) -> Tensor
void triu(Stack& s) {
  const std::int64_t k = pop(s).to_int();
  const Tensor self = pop(s).to_tensor();
  s.emplace_back(triangle(self, "triu", [k](std::int64_t d) { return d >= k; }));
}

// tril(Tensor self, int diagonal=0) -> Tensor
void tril(Stack& s) {
  const std::int64_t k = pop(s).to_int();
  const Tensor self = pop(s).to_tensor();
  s.emplace_back(triangle(self, "tril", [k](std::int64_t d) { return d <= k; }));
}

}  // namespace

void register_triangle_ops(OperatorRegistry& r) {
  r.add({"aten::triu", 2, {IValue(std::int64_t{0})}, triu});
  r.add({"aten::tril", 2, {IValue(std::int64_t{0})}, tril});
}

}  // namespace symbolite::ops
