#include "symbolite/ops/kernels/conv_max_pool.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <optional>
#include <vector>

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/common/pooling_shape.h"
#include "symbolite/ops/common/tensor_args.h"
#include "symbolite/ops/cpu/max_pool_plane.h"
#include "symbolite/ops/kernels/conv_compute.h"
#include "symbolite/ops/registry/epilogue_kernels.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;

// A band's convolution output, in bytes: with its im2col columns and input rows, well within
// a core's L2 (1 MiB on the machines measured).
constexpr std::int64_t kPoolBandBytes = std::int64_t{384} << 10;
// Smaller convolution outputs (per image) stay in cache until the pool reads them: nothing to
// gain.
constexpr std::int64_t kMinOutputBytes = std::int64_t{2} << 20;

// A conv2d argument of two ints: an int, or a list or tuple of one or two.
std::optional<std::array<std::int64_t, 2>> int_pair(const IValue& v) {
  const std::optional<std::vector<std::int64_t>> ints = int_list_if(v);
  if (!ints || ints->empty() || ints->size() > 2) return std::nullopt;
  return std::array<std::int64_t, 2>{ints->front(), ints->back()};
}

// The pool over one whole output plane of the convolution.
PoolPlane whole_plane(const MaxPoolChain& c) {
  return {c.conv.oh, c.conv.ow, c.pooled_h, c.pooled_w, c.pool.kh,
          c.pool.kw, c.pool.sh, c.pool.sw,  c.pool.ph,  c.pool.pw};
}

}  // namespace

std::optional<MaxPoolChain> max_pool_chain(const Stack& s, const MaxPoolStage& stage) {
  if (s.size() < 7) return std::nullopt;
  const IValue* a = s.data() + s.size() - 7;
  if (!a[0].is(IValue::Kind::kTensor) || !a[1].is(IValue::Kind::kTensor) ||
      !a[6].is(IValue::Kind::kInt) || a[6].to_int() != 1) {
    return std::nullopt;
  }
  const Tensor& x = a[0].to_tensor();
  const Tensor& w = a[1].to_tensor();
  if (x.dtype() != DType::kFloat32 || w.dtype() != DType::kFloat32 || x.dim() != 4 ||
      w.dim() != 4) {
    return std::nullopt;
  }
  if (!a[2].is_none()) {
    if (!a[2].is(IValue::Kind::kTensor)) return std::nullopt;
    const Tensor& b = a[2].to_tensor();
    if (b.dtype() != DType::kFloat32 || b.dim() != 1 || b.sizes()[0] != w.sizes()[0]) {
      return std::nullopt;
    }
  }
  const auto stride = int_pair(a[3]), padding = int_pair(a[4]), dilation = int_pair(a[5]);
  if (!stride || !padding || !dilation) return std::nullopt;
  const auto& xs = x.sizes();
  const auto& ws = w.sizes();
  ConvGeometry g{xs[0],
                 xs[1],
                 xs[2],
                 xs[3],
                 ws[0],
                 ws[1],
                 ws[2],
                 ws[3],
                 0,
                 0,
                 (*stride)[0],
                 (*stride)[1],
                 (*padding)[0],
                 (*padding)[1],
                 (*dilation)[0],
                 (*dilation)[1],
                 1};
  if (g.n < 1 || g.c < 1 || g.h < 1 || g.w < 1 || g.o < 1 || g.cg != g.c || g.kh < 1 || g.kw < 1 ||
      g.sh < 1 || g.sw < 1 || g.ph < 0 || g.pw < 0 || g.dh < 1 || g.dw < 1 ||
      g.h + 2 * g.ph < g.dh * (g.kh - 1) + 1 || g.w + 2 * g.pw < g.dw * (g.kw - 1) + 1) {
    return std::nullopt;
  }
  set_output_size(g);
  if (!conv2d_f32_by_rows(g) ||
      g.o * g.oh * g.ow * static_cast<std::int64_t>(sizeof(float)) < kMinOutputBytes) {
    return std::nullopt;
  }
  const MaxPoolStage& m = stage;
  if (m.kh < 1 || m.kw < 1 || m.sh < 1 || m.sw < 1 || m.ph < 0 || m.pw < 0 || m.dh != 1 ||
      m.dw != 1 || m.kh / 2 < m.ph || m.kw / 2 < m.pw) {
    return std::nullopt;
  }
  MaxPoolChain chain{g, m, pooling_output_length(g.oh, m.kh, m.ph, m.sh, 1, m.ceil_mode),
                     pooling_output_length(g.ow, m.kw, m.pw, m.sw, 1, m.ceil_mode)};
  if (chain.pooled_h < 1 || chain.pooled_w < 1 || !max_pool_plane_takes(whole_plane(chain))) {
    return std::nullopt;
  }
  return chain;
}

void conv2d_then_max_pool(Stack& s, const Epilogue& epilogue, const MaxPoolChain& chain) {
  const ConvGeometry& g = chain.conv;
  const PoolPlane pool = whole_plane(chain);
  const IValue* a = s.data() + s.size() - 7;
  const Tensor x = a[0].to_tensor().contiguous();
  const Tensor w = a[1].to_tensor().contiguous();
  const Tensor bias = a[2].is_none() ? Tensor() : a[2].to_tensor().contiguous();
  const float* b = a[2].is_none() ? nullptr : bias.data<float>();
  Tensor out = Tensor::uninitialized({g.n, g.o, pool.oh, pool.ow}, DType::kFloat32);
  const float* in = x.data<float>();
  float* pooled = out.mutable_data<float>();

  // Pooled rows a band: as many as read about kPoolBandBytes of convolution output.
  const std::int64_t row_bytes = g.o * g.ow * static_cast<std::int64_t>(sizeof(float));
  const std::int64_t conv_rows = std::max(pool.kh, kPoolBandBytes / row_bytes);
  const std::int64_t per_band = std::max<std::int64_t>(1, (conv_rows - pool.kh) / pool.sh + 1);
  const std::int64_t bands = (pool.oh + per_band - 1) / per_band;
  parallel_for(g.n * bands, 1, [&](std::int64_t first, std::int64_t last) {
    // Kept per thread: fresh buffers this size page-fault on every call.
    thread_local std::vector<float> rows_in, rows_out, scratch;
    for (std::int64_t unit = first; unit < last; ++unit) {
      const std::int64_t n = unit / bands;
      const std::int64_t p0 = unit % bands * per_band;
      const std::int64_t p1 = std::min(pool.oh, p0 + per_band);
      // The convolution's output rows [r0, r1) the pooled rows [p0, p1) read, and the input
      // rows [y0, y1) those read.
      const std::int64_t r0 = std::max<std::int64_t>(0, p0 * pool.sh - pool.ph);
      const std::int64_t r1 = std::min(g.oh, (p1 - 1) * pool.sh - pool.ph + pool.kh);
      const std::int64_t y0 = std::max<std::int64_t>(0, r0 * g.sh - g.ph);
      const std::int64_t y1 = std::min(g.h, (r1 - 1) * g.sh - g.ph + (g.kh - 1) * g.dh + 1);
      ConvGeometry part = g;
      part.n = 1;
      part.h = y1 - y0;
      part.ph = g.ph + y0 - r0 * g.sh;  // the padding above input row y0, as row r0 reads it
      part.oh = r1 - r0;
      rows_in.resize(static_cast<std::size_t>(g.c * part.h * g.w));
      for (std::int64_t c = 0; c < g.c; ++c) {
        std::memcpy(rows_in.data() + c * part.h * g.w, in + ((n * g.c + c) * g.h + y0) * g.w,
                    static_cast<std::size_t>(part.h * g.w) * sizeof(float));
      }
      rows_out.resize(static_cast<std::size_t>(g.o * part.oh * g.ow));
      conv2d_f32(rows_in.data(), w, b, &epilogue, rows_out.data(), part);
      PoolPlane band = pool;
      band.h = part.oh;
      band.oh = p1 - p0;
      band.ph = pool.ph + r0 - p0 * pool.sh;  // the padding above row r0, as row p0 reads it
      for (std::int64_t o = 0; o < g.o; ++o) {
        max_pool_plane_f32(rows_out.data() + o * part.oh * g.ow,
                           pooled + ((n * g.o + o) * pool.oh + p0) * pool.ow, band, scratch);
      }
    }
  });
  drop(s, 7);
  s.emplace_back(std::move(out));
}

}  // namespace symbolite::ops::nn
