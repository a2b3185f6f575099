// Sampling an image at given points: grid_sampler (F.grid_sample on 4-D inputs, bilinear or
// nearest, with zeros, border or reflection padding) and affine_grid_generator (F.affine_grid,
// 2-D and 3-D), as spatial transformers and optical-flow warps call them. Coordinates follow
// PyTorch's GridSampler.h: grid values in [-1, 1] unnormalized with or without aligned corners,
// then clipped or reflected, corner weights and taps in its order.
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_families.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

enum GridInterpolation : std::int64_t { kBilinear = 0, kNearest = 1, kBicubic = 2 };
enum Padding : std::int64_t { kZeros = 0, kBorder = 1, kReflection = 2 };

template <typename T>
T unnormalize(T coord, std::int64_t size, bool align_corners) {
  return align_corners ? ((coord + 1) / 2) * static_cast<T>(size - 1)
                       : ((coord + 1) * static_cast<T>(size) - 1) / 2;
}

// NaN clips to 0, as in PyTorch's vectorized 4-D kernel (its clamp's operands are ordered so).
template <typename T>
T clip(T coord, std::int64_t size) {
  return std::min(static_cast<T>(size - 1), coord > T(0) ? coord : T(0));
}

// Reflects coord into [twice_low / 2, twice_high / 2]; NaN for NaN and the infinities, which
// clip to 0 as PyTorch's do. The parity of the flips is taken in T: a hostile grid's coordinate
// can be beyond int64, where converting it would be undefined.
template <typename T>
T reflect(T coord, std::int64_t twice_low, std::int64_t twice_high) {
  if (twice_low == twice_high) return T(0);
  const T low = static_cast<T>(twice_low) / 2;
  const T span = static_cast<T>(twice_high - twice_low) / 2;
  coord = std::fabs(coord - low);
  const T extra = std::fmod(coord, span);
  const T flips = std::floor(coord / span);
  return std::fmod(flips, T(2)) == 0 ? extra + low : span - extra + low;
}

template <typename T>
T source_index(T coord, std::int64_t size, std::int64_t padding, bool align_corners) {
  coord = unnormalize(coord, size, align_corners);
  if (padding == kBorder) {
    coord = clip(coord, size);
  } else if (padding == kReflection) {
    coord = align_corners ? reflect(coord, 0, 2 * (size - 1)) : reflect(coord, -1, 2 * size - 1);
    coord = clip(coord, size);
  }
  return coord;
}

void check_sampler(const Tensor& input, const Tensor& grid, std::int64_t mode) {
  if (input.dtype() != grid.dtype()) {
    fail(fmt::format("expected scalar type {} but found {}",
                     tensor::scalar_type_name(input.dtype()),
                     tensor::scalar_type_name(grid.dtype())));
  }
  if (input.dim() != grid.dim() || (input.dim() != 4 && input.dim() != 5)) {
    fail(
        fmt::format("grid_sampler(): expected 4D or 5D input and grid with same number of "
                    "dimensions, but got input with sizes {} and grid with sizes {}",
                    tensor::format_sizes(input.sizes()), tensor::format_sizes(grid.sizes())));
  }
  if (input.sizes()[0] != grid.sizes()[0]) {
    fail(
        fmt::format("grid_sampler(): expected grid and input to have same batch size, but got "
                    "input with sizes {} and grid with sizes {}",
                    tensor::format_sizes(input.sizes()), tensor::format_sizes(grid.sizes())));
  }
  if (grid.sizes().back() != input.dim() - 2) {
    fail(
        fmt::format("grid_sampler(): expected grid to have size {} in last dimension, but got "
                    "grid with sizes {}",
                    input.dim() - 2, tensor::format_sizes(grid.sizes())));
  }
  if (input.dim() == 5 || mode == kBicubic) {
    throw OpError("NotImplementedError",
                  "grid_sampler: symbolite samples 4-D inputs, bilinear or nearest");
  }
}

// grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners) on 4-D inputs.
void grid_sampler(Stack& s) {
  const bool align_corners = pop(s).to_bool();
  const std::int64_t padding = pop(s).to_int();
  const std::int64_t mode = pop(s).to_int();
  const Tensor grid = pop(s).to_tensor().contiguous();
  const Tensor input = pop(s).to_tensor().contiguous();
  check_sampler(input, grid, mode);
  const std::int64_t n = input.sizes()[0], c = input.sizes()[1], h = input.sizes()[2],
                     w = input.sizes()[3];
  const std::int64_t oh = grid.sizes()[1], ow = grid.sizes()[2];
  Tensor out = Tensor::uninitialized({n, c, oh, ow}, input.dtype());
  const std::int64_t points = oh * ow;
  dispatch_floating(input.dtype(), "grid_sampler_2d_cpu", [&](auto tag) {
    using T = decltype(tag);
    const T* in = input.template data<T>();
    const T* g = grid.template data<T>();
    T* dst = out.template mutable_data<T>();
    // Each point's taps once for all channels: the four corners' offsets in a plane (-1
    // outside it, where the value is 0) and weights, nearest's one corner; then each channel's
    // plane sampled point after point into its output plane, channels across threads.
    const int corners = mode == kNearest ? 1 : 4;
    std::vector<std::int64_t> offsets(static_cast<std::size_t>(points * corners));
    std::vector<T> weights(static_cast<std::size_t>(points * corners));
    auto offset = [&](std::int64_t y, std::int64_t x) -> std::int64_t {
      return (y >= 0 && y < h && x >= 0 && x < w) ? y * w + x : -1;
    };
    // A whole coordinate (floored or rounded) as an index: one beyond [-1, size] (huge, infinite
    // or NaN, from a hostile grid) is -2, outside the plane with its neighbour + 1, without
    // converting a value int64 cannot hold.
    auto whole = [](T v, std::int64_t size) -> std::int64_t {
      return v >= T(-1) && v <= static_cast<T>(size) ? static_cast<std::int64_t>(v) : -2;
    };
    for (std::int64_t b = 0; b < n; ++b) {
      parallel_for(points, 4096, [&](std::int64_t first, std::int64_t last) {
        for (std::int64_t p = first; p < last; ++p) {
          const T ix = source_index(g[(b * points + p) * 2], w, padding, align_corners);
          const T iy = source_index(g[(b * points + p) * 2 + 1], h, padding, align_corners);
          std::int64_t* off = offsets.data() + p * corners;
          T* wt = weights.data() + p * corners;
          if (mode == kNearest) {
            off[0] = offset(whole(std::nearbyint(iy), h), whole(std::nearbyint(ix), w));
            continue;
          }
          const T x0 = std::floor(ix), y0 = std::floor(iy);
          const T x1 = x0 + 1, y1 = y0 + 1;
          wt[0] = (x1 - ix) * (y1 - iy);  // nw
          wt[1] = (ix - x0) * (y1 - iy);  // ne
          wt[2] = (x1 - ix) * (iy - y0);  // sw
          wt[3] = (ix - x0) * (iy - y0);  // se
          const std::int64_t xi = whole(x0, w), yi = whole(y0, h);
          off[0] = offset(yi, xi);
          off[1] = offset(yi, xi + 1);
          off[2] = offset(yi + 1, xi);
          off[3] = offset(yi + 1, xi + 1);
        }
      });
      parallel_for(c, std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(points, 1)),
                   [&](std::int64_t first, std::int64_t last) {
                     for (std::int64_t ch = first; ch < last; ++ch) {
                       const T* plane = in + (b * c + ch) * h * w;
                       T* o = dst + (b * c + ch) * points;
                       auto value = [plane](std::int64_t at) { return at < 0 ? T(0) : plane[at]; };
                       const std::int64_t* off = offsets.data();
                       const T* wt = weights.data();
                       for (std::int64_t p = 0; p < points; ++p, off += corners, wt += corners) {
                         o[p] = mode == kNearest
                                    ? value(off[0])
                                    : value(off[0]) * wt[0] + value(off[1]) * wt[1] +
                                          value(off[2]) * wt[2] + value(off[3]) * wt[3];
                       }
                     }
                   });
    }
  });
  s.emplace_back(std::move(out));
}

// -1 to 1 in `steps` (scaled by (steps - 1) / steps without aligned corners); 0 for one step.
template <typename T>
std::vector<T> steps_from_minus_one(std::int64_t steps, bool align_corners) {
  std::vector<T> v(static_cast<std::size_t>(std::max<std::int64_t>(steps, 1)), T(0));
  if (steps <= 1) return v;
  for (std::int64_t i = 0; i < steps; ++i) {
    T x = static_cast<T>(-1.0 + 2.0 * static_cast<double>(i) / static_cast<double>(steps - 1));
    if (!align_corners) x = x * static_cast<T>(steps - 1) / static_cast<T>(steps);
    v[static_cast<std::size_t>(i)] = x;
  }
  return v;
}

// affine_grid_generator(theta, size, align_corners): the sampling grid of theta applied to
// the normalized coordinates of an output of `size` ([N, C, H, W] or [N, C, D, H, W]).
void affine_grid_generator(Stack& s) {
  const bool align_corners = pop(s).to_bool();
  const Ints size = int_list_arg(pop(s));
  const Tensor theta = pop(s).to_tensor().contiguous();
  if (!is_floating(theta.dtype())) {
    fail(fmt::format("Expected theta to have floating point type, but got {}",
                     tensor::scalar_type_name(theta.dtype())));
  }
  const bool two_d = size.size() == 4;
  if (!two_d && size.size() != 5) {
    throw OpError("NotImplementedError",
                  "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                  "respectively. Got size " +
                      tensor::format_sizes(size) + ".");
  }
  const std::int64_t k = two_d ? 2 : 3;
  const std::int64_t points = size[0] * (two_d ? 1 : size[2]) * size[size.size() - 2] * size.back();
  if (theta.dim() == 3 && theta.sizes()[0] == size[0] && theta.sizes()[2] == k + 1 &&
      theta.sizes()[1] != k) {
    // PyTorch multiplies first and fails reshaping the product.
    Ints shape =
        two_d ? Ints{size[0], size[2], size[3], 2} : Ints{size[0], size[2], size[3], size[4], 3};
    fail(fmt::format("shape '{}' is invalid for input of size {}", tensor::format_sizes(shape),
                     points * theta.sizes()[1]));
  }
  if (theta.dim() != 3 || theta.sizes()[1] != k || theta.sizes()[2] != k + 1 ||
      theta.sizes()[0] != size[0]) {
    fail(
        fmt::format("Expected a batch of {}D affine matrices of shape Nx{}x{} for size {}. Got {}.",
                    k, k, k + 1, tensor::format_sizes(size), tensor::format_sizes(theta.sizes())));
  }
  const std::int64_t n = size[0], d = two_d ? 1 : size[2], h = size[size.size() - 2],
                     w = size.back();
  Ints out_sizes = two_d ? Ints{n, h, w, 2} : Ints{n, d, h, w, 3};
  Tensor out = Tensor::uninitialized(out_sizes, theta.dtype());
  dispatch_floating(theta.dtype(), "affine_grid_generator", [&](auto tag) {
    using T = decltype(tag);
    const std::vector<T> xs = steps_from_minus_one<T>(w, align_corners);
    const std::vector<T> ys = steps_from_minus_one<T>(h, align_corners);
    const std::vector<T> zs = steps_from_minus_one<T>(d, align_corners);
    const T* th = theta.template data<T>();
    T* o = out.template mutable_data<T>();
    for (std::int64_t b = 0; b < n; ++b) {
      const T* m = th + b * k * (k + 1);
      for (std::int64_t z = 0; z < d; ++z) {
        for (std::int64_t y = 0; y < h; ++y) {
          for (std::int64_t x = 0; x < w; ++x) {
            // The base point (x, y[, z], 1) times theta's rows.
            T base[4] = {xs[static_cast<std::size_t>(x)], ys[static_cast<std::size_t>(y)],
                         two_d ? T(1) : zs[static_cast<std::size_t>(z)], T(1)};
            for (std::int64_t r = 0; r < k; ++r) {
              T acc = 0;
              for (std::int64_t j = 0; j <= k; ++j) acc += base[j] * m[r * (k + 1) + j];
              *o++ = acc;
            }
          }
        }
      }
    }
  });
  s.emplace_back(std::move(out));
}

}  // namespace

void register_grid_sample_ops(OperatorRegistry& r) {
  r.add({"aten::grid_sampler", 5, {}, grid_sampler});
  r.add({"aten::grid_sampler_2d", 5, {}, grid_sampler});
  r.add({"aten::affine_grid_generator", 3, {}, affine_grid_generator});
}

}  // namespace symbolite::ops
