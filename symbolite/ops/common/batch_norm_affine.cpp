#include "symbolite/ops/common/batch_norm_affine.h"

#include <cmath>

#include "symbolite/ops/common/tensor_loops.h"

namespace symbolite::ops {

std::vector<double> per_channel(const tensor::Tensor* t, std::int64_t n, double fallback) {
  std::vector<double> out(static_cast<std::size_t>(n), fallback);
  if (t == nullptr) return out;
  tensor::Tensor c = t->contiguous();
  dispatch_floating(c.dtype(), "batch_norm", [&](auto tag) {
    const auto* p = c.data<decltype(tag)>();
    for (std::int64_t i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = p[i];
  });
  return out;
}

ChannelAffine batch_norm_affine(const std::vector<double>& weight, const std::vector<double>& bias,
                                const std::vector<double>& mean, const std::vector<double>& var,
                                double eps) {
  ChannelAffine a{std::vector<double>(weight.size()), std::vector<double>(weight.size())};
  for (std::size_t c = 0; c < weight.size(); ++c) {
    a.scale[c] = weight[c] / std::sqrt(var[c] + eps);
    a.shift[c] = bias[c] - mean[c] * a.scale[c];
  }
  return a;
}

}  // namespace symbolite::ops
