// Random sampling. symbolite's generator is not PyTorch's: the same seed gives different
// numbers, so models that sample at inference time (rare: dropout and stochastic depth only
// sample in training mode) will not reproduce PyTorch's outputs bit for bit.
#include <random>

#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

std::mt19937_64& generator() {
  thread_local std::mt19937_64 engine(0x5eed);
  return engine;
}

// aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None)
void bernoulli_float_(Stack& s) {
  pop(s);  // generator: always the default one
  double p = pop(s).to_double();
  IValue self = pop(s);
  const auto& t = self.to_tensor();
  if (!(p >= 0 && p <= 1))
    fail("bernoulli_ expects p to be in [0, 1], but got p=" + std::to_string(p));
  if (t.dtype() != tensor::DType::kFloat32 || !t.is_contiguous()) {
    throw OpError("NotImplementedError",
                  "bernoulli_ is implemented for contiguous float32 tensors");
  }
  std::bernoulli_distribution coin(p);
  float* data = t.mutable_data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) data[i] = coin(generator()) ? 1.0f : 0.0f;
  s.push_back(std::move(self));
}

}  // namespace

void register_random_ops(OperatorRegistry& r) {
  r.add({"aten::bernoulli_.float", 3, {IValue(0.5), IValue()}, bernoulli_float_});
}

}  // namespace symbolite::ops
