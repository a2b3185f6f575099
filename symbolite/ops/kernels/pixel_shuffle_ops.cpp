// Channel rearrangements: pixel_shuffle and pixel_unshuffle (sub-pixel convolution's depth to
// space and back) and channel_shuffle (ShuffleNet), each a reshape, a permute and a copy,
// with PyTorch 1.13's checks and messages.
#include <string>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "symbolite/ops/registry/op_error.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Sizes = std::vector<std::int64_t>;

// x viewed as `view`, permuted by `perm`, copied contiguous and reshaped to `out`.
IValue rearranged(const IValue& x, const Sizes& view, const Sizes& perm, const Sizes& out) {
  IValue v = run_op("aten::reshape", {x, int_list_value(view)});
  IValue p = run_op("aten::permute", {v, int_list_value(perm)});
  IValue c = IValue(p.to_tensor().contiguous());
  return run_op("aten::reshape", {c, int_list_value(out)});
}

// pixel_shuffle(self, r): (*, C * r * r, H, W) to (*, C, H * r, W * r).
void pixel_shuffle(Stack& s) {
  std::int64_t r = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  if (x.dim() < 3) {
    fail(
        fmt::format("pixel_shuffle expects input to have at least 3 dimensions, but got input "
                    "with {} dimension(s)",
                    x.dim()));
  }
  if (r <= 0) fail(fmt::format("pixel_shuffle expects a positive upscale_factor, but got {}", r));
  const Sizes& sz = x.sizes();
  std::size_t nd = sz.size();
  std::int64_t c = sz[nd - 3], h = sz[nd - 2], w = sz[nd - 1];
  // r * r in 128 bits: past 3037000499 it overflows int64, where PyTorch's check divides by
  // the wrapped square (0 for 2^32: the process dies of SIGFPE).
  const auto square = static_cast<unsigned __int128>(r) * static_cast<unsigned __int128>(r);
  if (static_cast<unsigned __int128>(c) % square != 0) {
    fail(fmt::format(
        "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
        "of upscale_factor, but input.size(-3)={} is not divisible by {}",
        c, square));
  }
  const std::int64_t oc = c == 0 ? 0 : c / (r * r);  // r * r <= c here, when c > 0
  std::int64_t oh = 0, ow = 0;
  if (__builtin_mul_overflow(h, r, &oh) || __builtin_mul_overflow(w, r, &ow)) {
    fail(fmt::format("pixel_shuffle: the output size {} x {} times upscale_factor {} overflows", h,
                     w, r));
  }
  Sizes batch(sz.begin(), sz.end() - 3);
  Sizes view = batch, perm, out = batch;
  view.insert(view.end(), {oc, r, r, h, w});
  auto b = static_cast<std::int64_t>(batch.size());
  for (std::int64_t i = 0; i < b; ++i) perm.push_back(i);
  perm.insert(perm.end(), {b, b + 3, b + 1, b + 4, b + 2});
  out.insert(out.end(), {oc, oh, ow});
  s.push_back(rearranged(self, view, perm, out));
}

// pixel_unshuffle(self, r): (*, C, H * r, W * r) to (*, C * r * r, H, W).
void pixel_unshuffle(Stack& s) {
  std::int64_t r = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  if (x.dim() < 3) {
    fail(
        fmt::format("pixel_unshuffle expects input to have at least 3 dimensions, but got "
                    "input with {} dimension(s)",
                    x.dim()));
  }
  if (r <= 0) {
    fail(fmt::format("pixel_unshuffle expects a positive downscale_factor, but got {}", r));
  }
  const Sizes& sz = x.sizes();
  std::size_t nd = sz.size();
  std::int64_t c = sz[nd - 3], h = sz[nd - 2], w = sz[nd - 1];
  if (h % r != 0) {
    fail(
        fmt::format("pixel_unshuffle expects height to be divisible by downscale_factor, but "
                    "input.size(-2)={} is not divisible by {}",
                    h, r));
  }
  if (w % r != 0) {
    fail(
        fmt::format("pixel_unshuffle expects width to be divisible by downscale_factor, but "
                    "input.size(-1)={} is not divisible by {}",
                    w, r));
  }
  Sizes batch(sz.begin(), sz.end() - 3);
  Sizes view = batch, perm, out = batch;
  view.insert(view.end(), {c, h / r, r, w / r, r});
  auto b = static_cast<std::int64_t>(batch.size());
  for (std::int64_t i = 0; i < b; ++i) perm.push_back(i);
  perm.insert(perm.end(), {b, b + 2, b + 4, b + 1, b + 3});
  std::int64_t oc = 0;  // r divides h and w, so it is at most both unless they are 0
  if (__builtin_mul_overflow(c, r, &oc) || __builtin_mul_overflow(oc, r, &oc)) {
    fail(fmt::format("pixel_unshuffle: {} channels times downscale_factor {} squared overflows", c,
                     r));
  }
  out.insert(out.end(), {oc, h / r, w / r});
  s.push_back(rearranged(self, view, perm, out));
}

// channel_shuffle(self, groups): (N, C, *) viewed as (N, g, C / g, *), the two group
// dimensions swapped.
void channel_shuffle(Stack& s) {
  std::int64_t groups = pop(s).to_int();
  IValue self = pop(s);
  const Tensor& x = self.to_tensor();
  if (x.dim() <= 2) {
    fail(
        fmt::format("channel_shuffle expects input to have at least 3 dimensions, but got input "
                    "with {} dimension(s)",
                    x.dim()));
  }
  if (groups <= 0) {
    fail(
        fmt::format("Number of groups to divide channels in must be positive. Value of "
                    "groups:{}",
                    groups));
  }
  std::int64_t c = x.sizes()[1];
  if (c % groups != 0) {
    fail(
        fmt::format("Number of channels must be divisible by groups. Got {} channels and {} "
                    "groups.",
                    c, groups));
  }
  const Sizes& sz = x.sizes();
  Sizes view{sz[0], groups, c / groups}, perm{0, 2, 1};
  for (std::size_t d = 2; d < sz.size(); ++d) {
    view.push_back(sz[d]);
    perm.push_back(static_cast<std::int64_t>(d) + 1);
  }
  s.push_back(rearranged(self, view, perm, sz));
}

}  // namespace

void register_pixel_shuffle_ops(OperatorRegistry& r) {
  r.add({"aten::pixel_shuffle", 2, {}, pixel_shuffle});
  r.add({"aten::pixel_unshuffle", 2, {}, pixel_unshuffle});
  r.add({"aten::channel_shuffle", 2, {}, channel_shuffle});
}

}  // namespace symbolite::ops
