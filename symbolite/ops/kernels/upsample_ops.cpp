// Resampling: the upsample_* family F.interpolate calls — nearest and nearest-exact (1-3 d),
// linear / bilinear / trilinear, bicubic, and the antialiased bilinear and bicubic — with
// PyTorch 1.13's index and weight rules (UpSample.h: area_pixel_compute_scale and
// _source_index, nearest_idx, cubic coefficients with A = -0.75, the antialias filters with
// support scaled to the reduction). Every mode runs as one pass per spatial dimension, last
// dimension first, each output element a weighted sum of input elements along that dimension:
// for all but the antialiased modes this is the same sum PyTorch forms in one go.
// F.interpolate's bytecode names every mode, so a model using any needs all to load.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "symbolite/ops/common/integer_range.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

enum class Mode { kNearest, kNearestExact, kLinear, kCubic, kLinearAntialias, kCubicAntialias };

// Along one dimension: output index o reads `index[o][k]` with `weight[o][k]`.
struct Taps {
  std::vector<std::vector<std::int64_t>> index;
  std::vector<std::vector<double>> weight;
};

// compute_scales_value: 1/scale_factor when one was given, else in/out.
double scale_value(std::optional<double> scale, std::int64_t in, std::int64_t out) {
  return scale && *scale > 0 ? 1.0 / *scale : static_cast<double>(in) / static_cast<double>(out);
}

// area_pixel_compute_scale.
double area_scale(std::int64_t in, std::int64_t out, bool align_corners,
                  std::optional<double> scale) {
  if (align_corners)
    return out > 1 ? static_cast<double>(in - 1) / static_cast<double>(out - 1) : 0.0;
  return scale_value(scale, in, out);
}

// area_pixel_compute_source_index.
template <typename T>
T source_index(T scale, std::int64_t dst, bool align_corners, bool cubic) {
  if (align_corners) return scale * static_cast<T>(dst);
  T src = scale * (static_cast<T>(dst) + T(0.5)) - T(0.5);
  return (!cubic && src < 0) ? T(0) : src;
}

double cubic1(double x, double a) { return ((a + 2) * x - (a + 3)) * x * x + 1; }
double cubic2(double x, double a) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; }

// The weights of one dimension, computed in T (float for float32, as PyTorch's opmath).
template <typename T>
Taps taps_for(Mode mode, std::int64_t in, std::int64_t out, bool align_corners,
              std::optional<double> scale) {
  Taps taps;
  taps.index.resize(static_cast<std::size_t>(out));
  taps.weight.resize(static_cast<std::size_t>(out));
  for (std::int64_t o = 0; o < out; ++o) {
    auto& idx = taps.index[static_cast<std::size_t>(o)];
    auto& w = taps.weight[static_cast<std::size_t>(o)];
    switch (mode) {
      case Mode::kNearest: {
        std::int64_t i = 0;
        if (out == in)
          i = o;
        else if (out == 2 * in)
          i = o >> 1;
        else
          i = std::min(
              static_cast<std::int64_t>(std::floor(
                  static_cast<float>(o) * static_cast<float>(scale_value(scale, in, out)))),
              in - 1);
        idx = {i};
        w = {1.0};
        break;
      }
      case Mode::kNearestExact: {
        const float s = static_cast<float>(scale_value(scale, in, out));
        idx = {std::min(static_cast<std::int64_t>(std::floor((static_cast<float>(o) + 0.5f) * s)),
                        in - 1)};
        w = {1.0};
        break;
      }
      case Mode::kLinear: {
        const T s = static_cast<T>(area_scale(in, out, align_corners, scale));
        const T real = source_index<T>(s, o, align_corners, false);
        const std::int64_t i0 = std::min(static_cast<std::int64_t>(std::floor(real)), in - 1);
        const T l1 = std::min(std::max(real - static_cast<T>(i0), T(0)), T(1));
        const std::int64_t i1 = i0 + (i0 < in - 1 ? 1 : 0);
        idx = {i0, i1};
        w = {static_cast<double>(T(1) - l1), static_cast<double>(l1)};
        break;
      }
      case Mode::kCubic: {
        const T s = static_cast<T>(area_scale(in, out, align_corners, scale));
        const T real = source_index<T>(s, o, align_corners, true);
        const auto i = static_cast<std::int64_t>(std::floor(real));
        const double t = static_cast<double>(real - static_cast<T>(i));
        constexpr double a = -0.75;
        for (std::int64_t k = -1; k <= 2; ++k)
          idx.push_back(std::clamp<std::int64_t>(i + k, 0, in - 1));
        w = {cubic2(t + 1.0, a), cubic1(t, a), cubic1(1.0 - t, a), cubic2(2.0 - t, a)};
        break;
      }
      case Mode::kLinearAntialias:
      case Mode::kCubicAntialias: {
        // _compute_indices_weights_aa: a filter of support interp_size/2 widened by the
        // reduction, normalized to sum 1.
        const bool cubic = mode == Mode::kCubicAntialias;
        const double s = area_scale(in, out, align_corners, scale);
        const double support = (cubic ? 2.0 : 1.0) * (s >= 1.0 ? s : 1.0);
        const double invscale = s >= 1.0 ? 1.0 / s : 1.0;
        const double center = s * (static_cast<double>(o) + 0.5);
        // PyTorch's own bounds: x + 0.5 truncated, not rounded (the same pixels as PyTorch).
        // NOLINTBEGIN(bugprone-incorrect-roundings)
        const std::int64_t xmin =
            std::max<std::int64_t>(static_cast<std::int64_t>(center - support + 0.5), 0);
        const std::int64_t xsize =
            std::min<std::int64_t>(static_cast<std::int64_t>(center + support + 0.5), in) - xmin;
        // NOLINTEND(bugprone-incorrect-roundings)
        double total = 0;
        for (std::int64_t j = 0; j < xsize; ++j) {
          double x = std::abs((static_cast<double>(j + xmin) - center + 0.5) * invscale);
          double f = 0;
          if (cubic) {
            constexpr double a = -0.5;
            f = x < 1.0 ? cubic1(x, a) : x < 2.0 ? (((x - 5) * x + 8) * x - 4) * a : 0.0;
          } else {
            f = x < 1.0 ? 1.0 - x : 0.0;
          }
          idx.push_back(xmin + j);
          w.push_back(f);
          total += f;
        }
        if (total != 0.0) {
          for (auto& v : w) v /= total;
        }
        break;
      }
    }
  }
  return taps;
}

// One pass: dimension `d` of contiguous `x` resampled to `taps.index.size()`.
template <typename T>
Tensor resample_dim(const Tensor& x, std::size_t d, const Taps& taps) {
  Ints sizes = x.sizes();
  const std::int64_t in = sizes[d];
  const auto out = static_cast<std::int64_t>(taps.index.size());
  sizes[d] = out;
  Tensor y = Tensor::uninitialized(sizes, x.dtype());  // every element written below
  std::int64_t outer = 1, inner = 1;
  for (std::size_t i = 0; i < d; ++i) outer *= sizes[i];
  for (std::size_t i = d + 1; i < sizes.size(); ++i) inner *= sizes[i];
  const T* src = x.data<T>();
  T* dst = y.mutable_data<T>();
  for (std::int64_t p = 0; p < outer; ++p) {
    const T* plane = src + p * in * inner;
    T* to = dst + p * out * inner;
    for (std::int64_t o = 0; o < out; ++o) {
      const auto& idx = taps.index[static_cast<std::size_t>(o)];
      const auto& w = taps.weight[static_cast<std::size_t>(o)];
      for (std::int64_t e = 0; e < inner; ++e) {
        T sum = 0;
        for (std::size_t k = 0; k < idx.size(); ++k)
          sum += plane[idx[k] * inner + e] * static_cast<T>(w[k]);
        to[o * inner + e] = sum;
      }
    }
  }
  return y;
}

// Nearest and bilinear 2-d resampling of contiguous (N, C, H, W) `x` to (oh, ow), `th` and
// `tw` the taps of each dimension: the two passes of resample_dim, the same sums in the same
// order (nearest a copy of the element its one tap reads), plane by plane across threads
// (FPN's, YOLO's and UNet's upsampling).
template <typename T>
Tensor resample_2d(const Tensor& x, const Taps& th, const Taps& tw, bool nearest) {
  const std::int64_t planes = x.sizes()[0] * x.sizes()[1];
  const std::int64_t h = x.sizes()[2], w = x.sizes()[3];
  const auto oh = static_cast<std::int64_t>(th.index.size());
  const auto ow = static_cast<std::int64_t>(tw.index.size());
  Tensor y = Tensor::uninitialized({x.sizes()[0], x.sizes()[1], oh, ow}, x.dtype());
  const T* src = x.data<T>();
  T* dst = y.mutable_data<T>();
  // Each dimension's taps as flat arrays: the first tap, and for bilinear the second and
  // both weights.
  auto flat = [](const Taps& t, std::size_t k) {
    std::vector<std::int64_t> idx;
    std::vector<T> weight;
    for (std::size_t o = 0; o < t.index.size(); ++o) {
      const std::size_t at = std::min(k, t.index[o].size() - 1);
      idx.push_back(t.index[o][at]);
      weight.push_back(static_cast<T>(t.weight[o][at]));
    }
    return std::pair{idx, weight};
  };
  const auto th0 = flat(th, 0), th1 = flat(th, 1), tw0 = flat(tw, 0), tw1 = flat(tw, 1);
  const std::vector<std::int64_t>& h0 = th0.first;
  const std::vector<std::int64_t>& h1 = th1.first;
  const std::vector<std::int64_t>& w0 = tw0.first;
  const std::vector<std::int64_t>& w1 = tw1.first;
  const std::vector<T>& hl0 = th0.second;
  const std::vector<T>& hl1 = th1.second;
  const std::vector<T>& wl0 = tw0.second;
  const std::vector<T>& wl1 = tw1.second;
  // Nearest with every input column repeated `repeat` times in order (an integer scale
  // factor: 2 in FPN's and YOLO's upsampling) copies runs instead of gathering.
  std::int64_t repeat = ow % w == 0 ? ow / w : 0;
  for (std::int64_t c = 0; repeat > 0 && c < ow; ++c) {
    if (w0[static_cast<std::size_t>(c)] != c / repeat) repeat = 0;
  }
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max<std::int64_t>(1, oh * ow));
  parallel_for(planes, grain, [&](std::int64_t first, std::int64_t last) {
    thread_local std::vector<T> rows;  // a plane's rows resampled along W (bilinear)
    if (!nearest) rows.resize(static_cast<std::size_t>(h * ow));
    for (std::int64_t p = first; p < last; ++p) {
      const T* in = src + p * h * w;
      T* out = dst + p * oh * ow;
      if (nearest) {
        for (std::int64_t r = 0; r < oh; ++r) {
          T* to = out + r * ow;
          if (r > 0 && h0[static_cast<std::size_t>(r)] == h0[static_cast<std::size_t>(r - 1)]) {
            std::copy_n(to - ow, ow, to);  // the row above read the same input row
            continue;
          }
          const T* from = in + h0[static_cast<std::size_t>(r)] * w;
          if (repeat == 2) {
            for (std::int64_t c = 0; c < w; ++c) to[2 * c] = to[2 * c + 1] = from[c];
          } else if (repeat > 0) {
            for (std::int64_t c = 0; c < w; ++c) std::fill_n(to + c * repeat, repeat, from[c]);
          } else {
            for (std::int64_t c = 0; c < ow; ++c) to[c] = from[w0[static_cast<std::size_t>(c)]];
          }
        }
        continue;
      }
      for (std::int64_t r = 0; r < h; ++r) {
        const T* from = in + r * w;
        T* to = rows.data() + r * ow;
        for (std::int64_t c = 0; c < ow; ++c) {
          const auto k = static_cast<std::size_t>(c);
          T sum = 0;
          sum += from[w0[k]] * wl0[k];
          sum += from[w1[k]] * wl1[k];
          to[c] = sum;
        }
      }
      for (std::int64_t r = 0; r < oh; ++r) {
        const auto k = static_cast<std::size_t>(r);
        const T* a = rows.data() + h0[k] * ow;
        const T* b = rows.data() + h1[k] * ow;
        const T la = hl0[k], lb = hl1[k];
        T* to = out + r * ow;
        for (std::int64_t c = 0; c < ow; ++c) {
          T sum = 0;
          sum += a[c] * la;
          sum += b[c] * lb;
          to[c] = sum;
        }
      }
    }
  });
  return y;
}

// The operator's name, for errors.
std::string op_name(Mode mode, int spatial) {
  switch (mode) {
    case Mode::kNearest:
      return fmt::format("aten::upsample_nearest{}d.vec", spatial);
    case Mode::kNearestExact:
      return fmt::format("aten::_upsample_nearest_exact{}d.vec", spatial);
    case Mode::kLinear: {
      constexpr const char* kPrefixes[] = {"", "bi", "tri"};
      return fmt::format("aten::upsample_{}linear{}d.vec", kPrefixes[spatial - 1], spatial);
    }
    case Mode::kCubic:
      return "aten::upsample_bicubic2d.vec";
    case Mode::kLinearAntialias:
      return "aten::_upsample_bilinear2d_aa.vec";
    case Mode::kCubicAntialias:
      return "aten::_upsample_bicubic2d_aa.vec";
  }
  return "aten::upsample";
}

// upsample_*.vec(Tensor input, int[]? output_size, [bool align_corners,] float[]? scale_factors)
template <Mode mode, int Spatial, bool HasAlign>
void upsample(Stack& s) {
  IValue scales_v = pop(s);
  bool align_corners = false;
  if constexpr (HasAlign) align_corners = pop(s).to_bool();
  IValue size_v = pop(s);
  IValue input_v = pop(s);
  const Tensor& input = input_v.to_tensor();
  if (size_v.is_none() == scales_v.is_none())
    fail("Must specify exactly one of output_size and scale_factors");
  if (input.dim() != Spatial + 2) {
    fail(fmt::format("Expected {}D input (got {}D input)", Spatial + 2, input.dim()));
  }
  std::vector<std::optional<double>> scales(Spatial);
  Ints out_sizes(Spatial);
  if (!size_v.is_none()) {
    out_sizes = int_list_arg(size_v);
    if (static_cast<int>(out_sizes.size()) != Spatial) {
      fail(fmt::format("It is expected output_size equals to {}, but got size {}", Spatial,
                       out_sizes.size()));
    }
  } else {
    const auto& list = scales_v.to_list();
    if (static_cast<int>(list.size()) != Spatial) {
      fail(fmt::format("It is expected scale_factors equals to {}, but got size {}", Spatial,
                       list.size()));
    }
    for (int i = 0; i < Spatial; ++i) {
      const double scale = list[static_cast<std::size_t>(i)].to_double();
      const std::int64_t in = input.sizes()[static_cast<std::size_t>(i) + 2];
      const double size = static_cast<double>(in) * scale;
      // PyTorch 1.13 casts unchecked: a NaN, infinite or huge scale (a model's constant) is
      // undefined there.
      if (!fits_integer<std::int64_t>(size)) {
        fail(fmt::format("{}: input size {} times scale factor {} is {}, not an output size",
                         op_name(mode, Spatial), in, scale, size));
      }
      scales[static_cast<std::size_t>(i)] = scale;
      out_sizes[static_cast<std::size_t>(i)] = static_cast<std::int64_t>(size);
    }
  }
  bool positive = true;
  std::string in_text, out_text;  // "H: 4, W: 5", as PyTorch names the dimensions
  for (int i = 0; i < Spatial; ++i) {
    const std::int64_t in = input.sizes()[static_cast<std::size_t>(i) + 2];
    const std::int64_t out = out_sizes[static_cast<std::size_t>(i)];
    positive = positive && in > 0 && out > 0;
    const char name = "DHW"[3 - Spatial + i];
    in_text += fmt::format("{}{}: {}", i ? ", " : "", name, in);
    out_text += fmt::format("{}{}: {}", i ? ", " : "", name, out);
  }
  if (!positive) {
    fail(fmt::format(
        "Input and output sizes should be greater than 0, but got input ({}) output ({})", in_text,
        out_text));
  }
  require_floating("aten::upsample", "upsample", input.dtype());
  if (input.numel() == 0) {
    // N or C is 0: no element and no taps, whose indices a spatial size near 2^63 (allowed
    // with no elements) could take past int64.
    Ints sizes{input.sizes()[0], input.sizes()[1]};
    sizes.insert(sizes.end(), out_sizes.begin(), out_sizes.end());
    s.emplace_back(Tensor::empty(std::move(sizes), input.dtype()));
    return;
  }
  // The output must fit before the taps are built: they grow with it too.
  Ints result_sizes{input.sizes()[0], input.sizes()[1]};
  result_sizes.insert(result_sizes.end(), out_sizes.begin(), out_sizes.end());
  tensor::checked_nbytes(result_sizes, input.dtype());
  Tensor x = input.contiguous();
  dispatch_floating(x.dtype(), "upsample", [&](auto tag) {
    using T = decltype(tag);
    constexpr bool kNearestMode = mode == Mode::kNearest || mode == Mode::kNearestExact;
    if constexpr (Spatial == 2 && (kNearestMode || mode == Mode::kLinear)) {
      const std::int64_t oh = out_sizes[0], ow = out_sizes[1];
      x = resample_2d<T>(x, taps_for<T>(mode, x.sizes()[2], oh, align_corners, scales[0]),
                         taps_for<T>(mode, x.sizes()[3], ow, align_corners, scales[1]),
                         kNearestMode);
      return;
    }
    for (int i = Spatial - 1; i >= 0; --i) {
      const auto d = static_cast<std::size_t>(i) + 2;
      const std::int64_t in = x.sizes()[d];
      const std::int64_t out = out_sizes[static_cast<std::size_t>(i)];
      const bool antialias = mode == Mode::kLinearAntialias || mode == Mode::kCubicAntialias;
      if (antialias && in == out) continue;  // PyTorch resamples only the dimensions that change
      x = resample_dim<T>(
          x, d, taps_for<T>(mode, in, out, align_corners, scales[static_cast<std::size_t>(i)]));
    }
  });
  s.emplace_back(x.storage().data() == input.storage().data() ? x.copy() : x);
}

}  // namespace

void register_upsample_ops(OperatorRegistry& r) {
  r.add({"aten::upsample_nearest1d.vec", 3, {}, upsample<Mode::kNearest, 1, false>});
  r.add({"aten::upsample_nearest2d.vec", 3, {}, upsample<Mode::kNearest, 2, false>});
  r.add({"aten::upsample_nearest3d.vec", 3, {}, upsample<Mode::kNearest, 3, false>});
  r.add({"aten::_upsample_nearest_exact1d.vec", 3, {}, upsample<Mode::kNearestExact, 1, false>});
  r.add({"aten::_upsample_nearest_exact2d.vec", 3, {}, upsample<Mode::kNearestExact, 2, false>});
  r.add({"aten::_upsample_nearest_exact3d.vec", 3, {}, upsample<Mode::kNearestExact, 3, false>});
  r.add({"aten::upsample_linear1d.vec", 4, {}, upsample<Mode::kLinear, 1, true>});
  r.add({"aten::upsample_bilinear2d.vec", 4, {}, upsample<Mode::kLinear, 2, true>});
  r.add({"aten::upsample_trilinear3d.vec", 4, {}, upsample<Mode::kLinear, 3, true>});
  r.add({"aten::upsample_bicubic2d.vec", 4, {}, upsample<Mode::kCubic, 2, true>});
  r.add({"aten::_upsample_bilinear2d_aa.vec", 4, {}, upsample<Mode::kLinearAntialias, 2, true>});
  r.add({"aten::_upsample_bicubic2d_aa.vec", 4, {}, upsample<Mode::kCubicAntialias, 2, true>});
}

}  // namespace symbolite::ops::nn
