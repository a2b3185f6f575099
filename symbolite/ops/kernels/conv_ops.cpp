// Convolutions: aten::conv2d, aten::conv1d (and their padding="same"/"valid" overloads) and
// aten::_convolution (transposed ones run in conv_transpose_ops.cpp), float32 and float64.
// Checks run in PyTorch 1.13's order with its messages (batchify, _convolution,
// check_shape_forward, then the CPU backends' own checks); conv1d runs as a conv2d of height
// 1, as PyTorch's CPU path does.
//
// Compute paths: depthwise (groups == in_channels, one input channel per group) in
// depthwise_conv.cpp, float32 only; grouped ones over at most 72 inputs per output plane by
// plane (grouped_by_plane.h), float32; 1x1 with stride 1 and no padding as one GEMM per
// group, by file weights over images of at most 256 pixels with output channels in the
// AVX-512 lanes (pointwise_channel_lanes.h) where they fill them better than pixels would,
// else over at most 64 pixels on oneDNN's matmul primitive reading the weights in place
// (onednn_matmul.h); other float32 ones over more than 128 inputs per output
// with weights read-only in the model file on oneDNN's direct convolutions (onednn_conv.h:
// 1x1s too over a short image of no multiple of 16 pixels);
// float32 ones over at most 128 inputs per output into at most 32 channels (stems) row by row
// (stem_conv.h); everything else as im2col + GEMM (gemm.h: oneDNN sgemm for float32,
// OpenBLAS dgemm for float64). float64 takes the GEMM paths for depthwise and grouped ones
// too: it is there for correctness, not speed.
#include <algorithm>
#include <cstring>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

#include "symbolite/ops/common/conv_geometry.h"
#include "symbolite/ops/common/nn_common.h"
#include "symbolite/ops/common/tap_range.h"
#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/cpu/depthwise_conv.h"
#include "symbolite/ops/cpu/gemm.h"
#include "symbolite/ops/cpu/grouped_by_plane.h"
#include "symbolite/ops/cpu/onednn_conv.h"
#include "symbolite/ops/cpu/onednn_matmul.h"
#include "symbolite/ops/cpu/pointwise_channel_lanes.h"
#include "symbolite/ops/cpu/stem_conv.h"
#include "symbolite/ops/cpu/strided_copy.h"
#include "symbolite/ops/cpu/vector_math.h"
#include "symbolite/ops/kernels/conv_compute.h"
#include "symbolite/ops/registry/epilogue_kernels.h"
#include "symbolite/ops/registry/op_error.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using tensor::DType;
using tensor::Tensor;
using Ints = std::vector<std::int64_t>;

using Geometry = ConvGeometry;

// Planes and channels are independent: split across threads in pieces of about this many
// elements (support/parallel_for.h). 8192: a 7x7 layer's epilogue (1152 planes of 49 with a
// SiLU) splits across two threads; 32768 kept it on one (EfficientNet-B0 5 % slower at two).
constexpr std::int64_t kElementsPerThread = 8192;

template <typename T>
void fill_bias(T* out, const Geometry& g, const T* bias) {
  const std::int64_t plane = g.oh * g.ow;
  parallel_for(g.n * g.o,
               std::max<std::int64_t>(1, kElementsPerThread / std::max<std::int64_t>(1, plane)),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t index = first; index < last; ++index) {
                   T b = bias == nullptr ? T(0) : bias[index % g.o];
                   std::fill_n(out + index * plane, plane, b);
                 }
               });
}

// Columns of one group's input for output rows [oh0, oh1): row (c, ki, kj), column (oh, ow),
// each row (oh1 - oh0) * ow long.
template <typename T>
void im2col(const T* in, const Geometry& g, std::int64_t oh0, std::int64_t oh1, T* col) {
  const std::int64_t cols = (oh1 - oh0) * g.ow;
  const std::int64_t per_channel = std::max<std::int64_t>(1, g.kh * g.kw * cols);
  parallel_for(g.cg, std::max<std::int64_t>(1, kElementsPerThread / per_channel),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t c = first; c < last; ++c) {
                   const T* plane = in + c * g.h * g.w;
                   for (std::int64_t ki = 0; ki < g.kh; ++ki) {
                     for (std::int64_t kj = 0; kj < g.kw; ++kj) {
                       T* row = col + ((c * g.kh + ki) * g.kw + kj) * cols;
                       std::int64_t off = kj * g.dw - g.pw;
                       const auto [lo, hi] = tap_range(off, g.sw, g.w, g.ow);
                       for (std::int64_t oh = oh0; oh < oh1; ++oh) {
                         T* dst = row + (oh - oh0) * g.ow;
                         std::int64_t ih = oh * g.sh - g.ph + ki * g.dh;
                         if (ih < 0 || ih >= g.h) {
                           std::fill_n(dst, g.ow, T(0));
                           continue;
                         }
                         const T* src = plane + ih * g.w + off;
                         std::fill_n(dst, lo, T(0));
                         if (g.sw == 1) {
                           std::copy(src + lo, src + hi, dst + lo);
                         } else if constexpr (std::is_same_v<T, float>) {
                           strided_copy_f32(src + lo * g.sw, g.sw, dst + lo, hi - lo);
                         } else {
                           for (std::int64_t x = lo; x < hi; ++x) dst[x] = src[x * g.sw];
                         }
                         std::fill(dst + hi, dst + g.ow, T(0));
                       }
                     }
                   }
                 }
               });
}

// im2col columns are built a block of output rows at a time, so that the GEMM reads them
// back from cache rather than memory. When the GEMM does little work per column (k up to
// kMaxBlockedK: a stem convolution over 3 input channels has k = 27), blocks of about
// kColumnBlockElements stay in the core's L2 (a MobileNet stem's columns are 1.3 MiB: written
// to memory and read back, they cost more than its GEMM). Deeper ones take blocks of
// kDeepColumnBlockElements (4 MiB): smaller ones would repack the weights per call and give
// the threads too little each (ResNet's 3x3s keep one or two blocks), while whole columns
// run to tens of MiB (VGG's 3x3s at 112x112: 2 threads 65 -> 49 ms with blocks, DenseNet's
// 3x3s 9 % faster at one).
constexpr std::int64_t kColumnBlockElements = std::int64_t{1} << 16;
constexpr std::int64_t kMaxBlockedK = 128;
constexpr std::int64_t kDeepColumnBlockElements = std::int64_t{1} << 20;

// Multiply-adds a thread takes at least when a grouped convolution's groups are split across
// threads.
constexpr std::int64_t kMultiplyAddsPerGroupChunk = std::int64_t{1} << 18;

// Grouped convolutions over at most this many inputs per output (a group's channels times
// the kernel's taps) run plane by plane (grouped_by_plane.h); deeper ones on oneDNN or im2col.
// Measured on RegNet and ResNeXt (docs/PERFORMANCE.md): 8 channels a group at 3x3 run 2-7x
// faster plane by plane than im2col; 16 (RegNet-X-400MF) are faster on oneDNN.
constexpr std::int64_t kMaxPlaneTaps = 72;

// What a convolution does to its products before anyone reads them: adds the bias, then
// what fusion gave it (mobile/operator_fusion.h, float32 only: a folded batch norm's scale and
// shift, an activation), a block of output rows at a time while the block is in cache.
template <typename T>
struct ConvEpilogue {
  const T* bias = nullptr;
  const Epilogue* fused = nullptr;
};

// Rows [first, first + rows) of the output viewed as (N * channels, cols), from `c`, rows
// `stride` apart; row i is channel i % channels.
template <typename T>
void finish_rows(T* c, std::int64_t first, std::int64_t rows, std::int64_t cols,
                 std::int64_t stride, std::int64_t channels, const ConvEpilogue<T>& e) {
  const Epilogue* fused = e.fused;
  if (e.bias == nullptr && fused == nullptr) return;
  parallel_for(
      rows, std::max<std::int64_t>(1, kElementsPerThread / std::max<std::int64_t>(1, cols)),
      [&](std::int64_t r0, std::int64_t r1) {
        if constexpr (std::is_same_v<T, float>) {
          if (stride == cols) {
            // Adjacent rows: a block per run of channels (a call per 7x7 plane
            // cost more than its work; vector_math.h).
            const bool affine = fused != nullptr && !fused->scale.empty();
            for (std::int64_t r = r0; r < r1;) {
              const std::int64_t channel = (first + r) % channels;
              const std::int64_t run = std::min(r1 - r, channels - channel);
              const auto at = static_cast<std::size_t>(channel);
              vec::epilogue_planes_f32(
                  c + r * stride, run, cols, e.bias == nullptr ? nullptr : e.bias + channel,
                  affine ? &fused->scale[at] : nullptr, affine ? &fused->shift[at] : nullptr,
                  fused != nullptr && fused->activation ? &*fused->activation : nullptr);
              r += run;
            }
            return;
          }
        }
        for (std::int64_t r = r0; r < r1; ++r) {
          T* row = c + r * stride;
          const auto channel = static_cast<std::size_t>((first + r) % channels);
          const T* b = e.bias == nullptr ? nullptr : e.bias + channel;
          if constexpr (std::is_same_v<T, float>) {
            const bool affine = fused != nullptr && !fused->scale.empty();
            vec::epilogue_f32(
                row, cols, b, affine ? &fused->scale[channel] : nullptr,
                affine ? &fused->shift[channel] : nullptr,
                fused != nullptr && fused->activation ? &*fused->activation : nullptr);
          } else if (b != nullptr) {
            for (std::int64_t i = 0; i < cols; ++i) row[i] += *b;
          }
        }
      });
}

// out = epilogue(conv(in, weight)).
template <typename T>
void conv_gemm(const T* in, const T* weight, T* out, const Geometry& g, const ConvEpilogue<T>& e) {
  std::int64_t og = g.o / g.groups;
  std::int64_t k = g.cg * g.kh * g.kw;
  std::int64_t out_plane = g.oh * g.ow;
  bool direct = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  const std::int64_t block_elements =
      k > kMaxBlockedK ? kDeepColumnBlockElements : kColumnBlockElements;
  const std::int64_t rows_per_block =
      direct ? g.oh
             : std::clamp<std::int64_t>(block_elements / std::max<std::int64_t>(1, k * g.ow), 1,
                                        std::max<std::int64_t>(1, g.oh));
  // One image's group, output rows [oh0, oh0 + rows_per_block): its columns and product.
  auto run_block = [&](std::int64_t index, std::int64_t oh0) {
    // im2col columns, kept per thread: a fresh buffer this size page-faults on every call.
    // Declared here, where every thread that uses it passes: a thread_local of the enclosing
    // function would be used unconstructed (and never freed) by the pool's workers.
    thread_local std::vector<T> col;
    const std::int64_t n = index / g.groups;
    const std::int64_t grp = index % g.groups;
    const T* src = in + (n * g.c + grp * g.cg) * g.h * g.w;
    T* dst = out + (n * g.o + grp * og) * out_plane;
    const T* w = weight + grp * og * k;
    if (!direct) col.resize(static_cast<std::size_t>(k * rows_per_block * g.ow));
    const std::int64_t oh1 = std::min(g.oh, oh0 + rows_per_block);
    const std::int64_t cols = direct ? out_plane : (oh1 - oh0) * g.ow;
    if (!direct) im2col(src, g, oh0, oh1, col.data());
    const T* b = direct ? src : col.data();
    T* c = dst + oh0 * g.ow;
    gemm(false, false, og, cols, k, T(1), w, k, b, cols, T(0), c, out_plane);
    finish_rows(c, grp * og, og, cols, out_plane, g.o, e);
  };
  auto run_unit = [&](std::int64_t index) {
    for (std::int64_t oh0 = 0; oh0 < g.oh; oh0 += rows_per_block) run_block(index, oh0);
  };
  const std::int64_t units = g.n * g.groups;
  if (g.groups == 1 && !direct && k <= kMaxBlockedK) {
    // Few inputs per output (a stem over 3 channels): blocks of rows go to the threads whole,
    // columns, product and epilogue on one thread. Split inside, every block of a few
    // microseconds' work would hand out three loops (MobileNet's stem ran slower on two
    // threads than on one).
    const std::int64_t blocks = (g.oh + rows_per_block - 1) / rows_per_block;
    const std::int64_t work = std::max<std::int64_t>(1, og * rows_per_block * g.ow * k);
    parallel_for(units * blocks, std::max<std::int64_t>(1, kMultiplyAddsPerGroupChunk / work),
                 [&](std::int64_t first, std::int64_t last) {
                   for (std::int64_t i = first; i < last; ++i) {
                     run_block(i / blocks, i % blocks * rows_per_block);
                   }
                 });
    return;
  }
  if (g.groups == 1) {
    // One product per image, split across threads inside the GEMM.
    for (std::int64_t index = 0; index < units; ++index) run_unit(index);
    return;
  }
  // Grouped (RegNet, ResNeXt): each group's product is too small to split well, so the
  // groups go to the threads whole, each with its own columns (nested loops run inline).
  const std::int64_t work = std::max<std::int64_t>(1, og * out_plane * k);
  parallel_for(units, std::max<std::int64_t>(1, kMultiplyAddsPerGroupChunk / work),
               [&](std::int64_t first, std::int64_t last) {
                 for (std::int64_t index = first; index < last; ++index) run_unit(index);
               });
}

// out = epilogue(conv(in, wt)), for contiguous input `in` and weight wt of type T.
template <typename T>
void run_conv(const T* in, const Tensor& wt, T* out, const Geometry& g, const ConvEpilogue<T>& e) {
  const std::int64_t plane = g.oh * g.ow;
  if (g.c == 0) {  // no input channels: the bias alone
    fill_bias(out, g, e.bias);
    finish_rows<T>(out, 0, g.n * g.o, plane, plane, g.o, {nullptr, e.fused});
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (g.groups == g.c && g.cg == 1) {
      depthwise_conv2d(in, wt.data<float>(), e.bias, out, g, e.fused);
      return;
    }
    // Groups of a few channels (RegNet's 8, ResNeXt's 4): each output plane a sum of shifted
    // input planes, rather than a tiny GEMM per group.
    if (g.groups > 1 && g.cg * g.kh * g.kw <= kMaxPlaneTaps) {
      grouped_conv2d_by_plane(in, wt.data<float>(), e.bias, out, g, e.fused);
      return;
    }
    // A 1x1 convolution over a small image (7x7, 14x14) by weights read-only in the model
    // file: output channels in the vector lanes (pointwise_channel_lanes.h), else oneDNN's
    // matmul, which reads the weights where they are where sgemm packs them again every call.
    if (g.groups == 1 && g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 &&
        g.pw == 0 && plane <= std::max(kShortRows, kChannelLanesMaxRows) &&
        wt.storage().is_view()) {
      const Bytes weight_bytes(wt.storage().bytes().owner(), wt.raw_data(), wt.nbytes());
      bool taken = true;
      for (std::int64_t n = 0; n < g.n && taken; ++n) {
        float* image = out + n * g.o * plane;
        auto finish = [&](std::int64_t first, std::int64_t count) {
          finish_rows(image + first * plane, first, count, plane, plane, g.o, e);
        };
        // The first image declines or none does: the same shape, the same choice.
        const float* x = in + n * g.c * plane;
        taken = pointwise_channel_lanes(weight_bytes, x, plane, g.o, plane, g.c, image, plane,
                                        finish) ||
                onednn_matmul_by_file_rows(weight_bytes, x, plane, g.o, plane, g.c, image, plane,
                                           finish);
      }
      if (taken) return;
    }
    // The direct paths' blocks finished (bias, fused epilogue) as they are written.
    auto done = [&](std::int64_t n, std::int64_t first, std::int64_t count, std::int64_t top,
                    std::int64_t rows) {
      finish_rows(out + (n * g.o + first) * plane + top * g.ow, first, count, rows * g.ow, plane,
                  g.o, e);
    };
    // Few inputs per output (a stem over 3 colour channels): row by row (stem_conv.h), not a
    // GEMM with k = 27.
    if (stem_conv2d_shape(g)) {
      stem_conv2d(in, wt.data<float>(), out, g, done);
      return;
    }
    // Weights read-only in the model file: oneDNN's direct convolution, its reordered copy
    // of the weights made once (onednn_conv.h).
    if (wt.storage().is_view() && onednn_conv2d_shape(g)) {
      const Bytes weight_bytes(wt.storage().bytes().owner(), wt.raw_data(), wt.nbytes());
      if (onednn_conv2d(in, weight_bytes, out, g, done)) return;
    }
  }
  conv_gemm(in, wt.data<T>(), out, g, e);
}

// The CPU backend's own checks (slow_conv2d / slow_conv_dilated2d), on the 2-d view.
void check_backend(const Ints& kernel, const Ints& dilation) {
  bool bad_kernel = kernel[0] <= 0 || kernel[1] <= 0;
  if (dilation[0] <= 0 || dilation[1] <= 0) {
    if (bad_kernel) {
      fail(fmt::format("kernel size should be greater than zero, but got {}", format_ints(kernel)));
    }
    fail(fmt::format("dilation should be greater than zero, but got {}", format_ints(dilation)));
  }
  if (bad_kernel) {
    fail(
        fmt::format("kernel size should be greater than zero, but got kernel_height: {} "
                    "kernel_width: {}",
                    kernel[0], kernel[1]));
  }
}

Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor* bias,
                   const Ints& stride_arg, const Ints& padding_arg, const Ints& dilation_arg,
                   bool transposed, const Ints& output_padding_arg, std::int64_t groups,
                   const Epilogue* fused = nullptr, bool* fused_applied = nullptr,
                   const OutputAllocator* allocate = nullptr);

// A 3-d convolution (checked by `convolution`) as a sum of 2-d ones over the kernel's time
// taps: output frame t is the sum over kt of conv2d(input frame t*st - pt + kt*dt, weight[:, :,
// kt]), frames outside the input being zero padding. The 2-d convolutions are symbolite's
// fast ones; video models (r3d, mc3, r2plus1d) spend their time there.
template <typename T>
void add_frame(const Tensor& y, Tensor& out, std::int64_t t) {
  const auto& os = out.sizes();  // N, O, OT, OH, OW
  const std::int64_t plane = os[3] * os[4];
  const T* src = y.data<T>();
  T* dst = out.mutable_data<T>();
  for (std::int64_t no = 0; no < os[0] * os[1]; ++no) {
    T* d = dst + (no * os[2] + t) * plane;
    const T* sp = src + no * plane;
    for (std::int64_t i = 0; i < plane; ++i) d[i] += sp[i];
  }
}

Tensor convolution_3d(const Tensor& input, const Tensor& weight, const Tensor* bias,
                      const Ints& stride, const Ints& padding, const Ints& dilation,
                      std::int64_t groups) {
  const Tensor x = input.contiguous();
  const Tensor w = weight.contiguous();
  const Ints& is = x.sizes();  // N, C, T, H, W
  const Ints& ws = w.sizes();  // O, C/g, KT, KH, KW
  if (x.numel() == 0) {
    fail(
        fmt::format("Only zero batch or zero channel inputs are supported, but got input shape: {}",
                    format_ints(is)));
  }
  const std::int64_t ot = (is[2] + 2 * padding[0] - dilation[0] * (ws[2] - 1) - 1) / stride[0] + 1;
  auto frame = [&](const Tensor& t, std::int64_t index, std::int64_t rows) {
    // t[:, :, index] as a contiguous 4-d tensor (rows = N*C or O*C/g).
    const Ints& ts = t.sizes();
    Tensor f = Tensor::uninitialized({ts[0], ts[1], ts[3], ts[4]}, t.dtype());
    const std::size_t bytes = static_cast<std::size_t>(ts[3] * ts[4]) * t.element_size();
    for (std::int64_t r = 0; r < rows; ++r) {
      std::memcpy(f.storage().mutable_data() + static_cast<std::size_t>(r) * bytes,
                  t.raw_data() + static_cast<std::size_t>(r * ts[2] + index) * bytes, bytes);
    }
    return f;
  };
  std::vector<Tensor> taps, frames;
  for (std::int64_t kt = 0; kt < ws[2]; ++kt) taps.push_back(frame(w, kt, ws[0] * ws[1]));
  for (std::int64_t ti = 0; ti < is[2]; ++ti) frames.push_back(frame(x, ti, is[0] * is[1]));
  const Ints s2 = {stride[1], stride[2]}, p2 = {padding[1], padding[2]},
             d2 = {dilation[1], dilation[2]};
  // The frame geometry, from one 2-d convolution.
  Tensor first =
      convolution(frames.front(), taps.front(), nullptr, s2, p2, d2, false, {0, 0}, groups);
  Tensor out = Tensor::empty({is[0], ws[0], ot, first.sizes()[2], first.sizes()[3]}, x.dtype());
  for (std::int64_t t = 0; t < ot; ++t) {
    for (std::int64_t kt = 0; kt < ws[2]; ++kt) {
      const std::int64_t ti = t * stride[0] - padding[0] + kt * dilation[0];
      if (ti < 0 || ti >= is[2]) continue;
      Tensor y =
          convolution(frames[static_cast<std::size_t>(ti)], taps[static_cast<std::size_t>(kt)],
                      nullptr, s2, p2, d2, false, {0, 0}, groups);
      if (x.dtype() == DType::kFloat64)
        add_frame<double>(y, out, t);
      else
        add_frame<float>(y, out, t);
    }
  }
  if (bias != nullptr) {
    Tensor b = to_dtype(*bias, x.dtype());
    const std::int64_t volume = ot * out.sizes()[3] * out.sizes()[4];
    auto add_bias = [&](auto* dst, const auto* bv) {
      for (std::int64_t n = 0; n < is[0]; ++n) {
        for (std::int64_t o = 0; o < ws[0]; ++o) {
          auto* d = dst + (n * ws[0] + o) * volume;
          for (std::int64_t i = 0; i < volume; ++i) d[i] += bv[o];
        }
      }
    };
    if (x.dtype() == DType::kFloat64)
      add_bias(out.mutable_data<double>(), b.data<double>());
    else
      add_bias(out.mutable_data<float>(), b.data<float>());
  }
  return out;
}

// at::_convolution on a batched input; transposed ones go to transposed_convolution. A 2-d
// float32 convolution applies `fused` too, and says so in `fused_applied`; a 2-d one gets its
// output from `allocate` when given.
Tensor convolution(const Tensor& input, const Tensor& weight, const Tensor* bias,
                   const Ints& stride_arg, const Ints& padding_arg, const Ints& dilation_arg,
                   bool transposed, const Ints& output_padding_arg, std::int64_t groups,
                   const Epilogue* fused, bool* fused_applied, const OutputAllocator* allocate) {
  std::int64_t k = weight.dim();
  std::int64_t dim = k - 2;
  if (dim <= 0) fail("weight should have at least three dimensions");
  if (groups <= 0) fail("non-positive groups is not supported");
  Ints stride = expand_conv_param(stride_arg, "stride", dim);
  Ints padding = expand_conv_param(padding_arg, "padding", dim);
  Ints dilation = expand_conv_param(dilation_arg, "dilation", dim);
  Ints output_padding = expand_conv_param(output_padding_arg, "output_padding", dim);

  // check_shape_forward
  const Ints& ws = weight.sizes();
  const Ints& is = input.sizes();
  check_conv_params(padding, output_padding, stride);
  if (input.dim() != k) {
    fail(
        fmt::format("Expected {0}-dimensional input for {0}-dimensional weight {1}, but got "
                    "{2}-dimensional input of size {3} instead",
                    k, format_ints(ws), input.dim(), format_ints(is)));
  }
  check_weight_groups(ws, groups);
  if (transposed) {
    if (dim > 3) {
      throw Error(
          ErrorKind::kUnsupported,
          fmt::format("aten::_convolution: {}-d transposed convolution is not supported", dim));
    }
    return transposed_convolution(input, weight, bias, stride, padding, output_padding, dilation,
                                  groups, "aten::_convolution");
  }
  if (is[1] != ws[1] * groups) {
    fail(
        fmt::format("Given groups={}, weight of size {}, expected input{} to have {} channels, "
                    "but got {} channels instead",
                    groups, format_ints(ws), format_ints(is), ws[1] * groups, is[1]));
  }
  if (bias != nullptr && !(bias->dim() == 1 && bias->sizes()[0] == ws[0])) {
    fail(
        fmt::format("Given weight of size {}, expected bias to be 1-dimensional with {} "
                    "elements, but got bias of size {} instead",
                    format_ints(ws), ws[0], format_ints(bias->sizes())));
  }
  Ints padded;
  Ints kernel;
  bool kernel_fits = true;
  for (std::int64_t i = 2; i < k; ++i) {
    auto j = static_cast<std::size_t>(i);
    padded.push_back(is[j] + 2 * padding[j - 2]);
    kernel.push_back(dilation[j - 2] * (ws[j] - 1) + 1);
    kernel_fits = kernel_fits && padded.back() >= kernel.back();
  }
  if (!kernel_fits) {
    fail(
        fmt::format("Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel "
                    "size can't be greater than actual input size",
                    fmt::join(padded, " x "), fmt::join(kernel, " x ")));
  }
  if (dim > 3) {
    throw Error(ErrorKind::kUnsupported,
                fmt::format("aten::_convolution: {}-d convolution is not supported", dim));
  }
  if (dim == 3) return convolution_3d(input, weight, bias, stride, padding, dilation, groups);

  // The 1-d case runs as 2-d with height 1.
  Tensor x = input.contiguous();
  Tensor wt = weight.contiguous();
  if (dim == 1) {
    x = view_as(x, {is[0], is[1], 1, is[2]});
    wt = view_as(wt, {ws[0], ws[1], 1, ws[2]});
    stride.insert(stride.begin(), 1);
    padding.insert(padding.begin(), 0);
    dilation.insert(dilation.begin(), 1);
  }
  const Ints& xs = x.sizes();
  const Ints& wts = wt.sizes();
  Geometry g{xs[0],      xs[1],      xs[2],       xs[3],       wts[0],    wts[1],
             wts[2],     wts[3],     0,           0,           stride[0], stride[1],
             padding[0], padding[1], dilation[0], dilation[1], groups};
  if (x.numel() == 0 && g.n != 0 && g.c != 0) {
    fail(
        fmt::format("Only zero batch or zero channel inputs are supported, but got input shape: {}",
                    format_ints(xs)));
  }
  if (g.n != 0 && g.c != 0) check_backend({g.kh, g.kw}, {g.dh, g.dw});
  if (weight.dtype() != input.dtype()) {
    fail(fmt::format("expected scalar type {} but found {}",
                     tensor::scalar_type_name(input.dtype()),
                     tensor::scalar_type_name(weight.dtype())));
  }
  DType dtype = input.dtype();
  if (dtype != DType::kFloat32 && dtype != DType::kFloat64) {
    unsupported_float_dtype("aten::_convolution", dtype);
  }
  // conv1d/conv2d refuse a bias of another dtype before this. aten::_convolution called
  // directly takes one on float64, which PyTorch always runs with slow_conv2d (it copies the
  // bias into the output, converting it); on float32 PyTorch may pick oneDNN instead, which
  // refuses it, so symbolite does not guess.
  if (bias != nullptr && bias->dtype() != dtype && dtype != DType::kFloat64) {
    unsupported_dtype("aten::_convolution", bias->dtype());
  }
  set_output_size(g);
  Ints out_sizes = {g.n, g.o, g.oh, g.ow};
  Tensor out = allocate != nullptr && dim == 2 ? (*allocate)(out_sizes, dtype)
                                               : Tensor::uninitialized(out_sizes, dtype);
  if (out.numel() != 0) {
    Tensor b = bias == nullptr ? Tensor() : to_dtype(*bias, dtype);
    if (dtype == DType::kFloat64) {
      run_conv<double>(x.data<double>(), wt, out.mutable_data<double>(), g,
                       {bias == nullptr ? nullptr : b.data<double>(), nullptr});
    } else {
      run_conv<float>(x.data<float>(), wt, out.mutable_data<float>(), g,
                      {bias == nullptr ? nullptr : b.data<float>(), fused});
      if (fused_applied != nullptr) *fused_applied = true;
    }
  }
  if (dim == 1) out = view_as(out, {g.n, g.o, g.ow});
  return out;
}

struct ConvCall {
  IValue input;
  IValue weight;
  IValue bias;
  IValue stride;
  IValue padding;
  IValue dilation;
  std::int64_t groups;
};

// The common head of conv1d/conv2d: pops the 7 arguments, checks the bias type.
ConvCall pop_conv_args(Stack& s) {
  ConvCall c;
  c.groups = pop(s).to_int();
  c.dilation = pop(s);
  c.padding = pop(s);
  c.stride = pop(s);
  c.bias = pop(s);
  c.weight = pop(s);
  c.input = pop(s);
  const Tensor& x = c.input.to_tensor();
  const Tensor* bias = optional_tensor(c.bias);
  if (bias != nullptr && bias->dtype() != x.dtype()) {
    fail(fmt::format("Input type ({}) and bias type ({}) should be the same",
                     tensor::type_meta_name(x.dtype()), tensor::type_meta_name(bias->dtype())));
  }
  return c;
}

// batchify: the input with a batch dimension, and whether it had one.
std::pair<Tensor, bool> batchify(const Tensor& input, std::int64_t spatial, const char* name) {
  std::int64_t unbatched = spatial + 1;
  bool batched = input.dim() == unbatched + 1;
  if (input.dim() != unbatched && !batched) {
    fail(
        fmt::format("Expected {}D (unbatched) or {}D (batched) input to {}, but got input of "
                    "size: {}",
                    unbatched, unbatched + 1, name, format_ints(input.sizes())));
  }
  if (batched) return {input, true};
  Tensor x = input.contiguous();
  Ints sizes = x.sizes();
  sizes.insert(sizes.begin(), 1);
  return {view_as(x, std::move(sizes)), false};
}

Tensor unbatch(const Tensor& out, bool batched) {
  if (batched) return out;
  Ints sizes(out.sizes().begin() + 1, out.sizes().end());
  return view_as(out, std::move(sizes));
}

// With `fused`, returns whether it applied it (convolution).
template <int Spatial>
bool conv_nd_with(Stack& s, const Epilogue* fused, const OutputAllocator* allocate = nullptr) {
  const char* name = Spatial == 1 ? "conv1d" : Spatial == 2 ? "conv2d" : "conv3d";
  ConvCall c = pop_conv_args(s);
  auto [x, batched] = batchify(c.input.to_tensor(), Spatial, name);
  bool applied = false;
  Tensor out = convolution(x, c.weight.to_tensor(), optional_tensor(c.bias), int_list_arg(c.stride),
                           int_list_arg(c.padding), int_list_arg(c.dilation), false, {0}, c.groups,
                           fused, &applied, batched ? allocate : nullptr);
  s.emplace_back(unbatch(out, batched));
  return applied;
}

template <int Spatial>
void conv_nd(Stack& s) {
  conv_nd_with<Spatial>(s, nullptr);
}

// Zero-pads the end of each spatial dimension of a batched input by `extra`.
template <typename T>
Tensor pad_end_typed(const Tensor& x, const Ints& extra) {
  Ints sizes = x.sizes();
  for (std::size_t i = 0; i < extra.size(); ++i) sizes[i + 2] += extra[i];
  Tensor out = Tensor::empty(sizes, x.dtype());
  if (x.numel() == 0) return out;
  std::int64_t rows = 1;
  for (std::size_t i = 0; i + 1 < sizes.size(); ++i) rows *= x.sizes()[i];
  std::int64_t in_w = x.sizes().back();
  std::int64_t out_w = sizes.back();
  const T* src = x.data<T>();
  T* dst = out.mutable_data<T>();
  if (sizes.size() == 3) {
    for (std::int64_t r = 0; r < rows; ++r) std::copy_n(src + r * in_w, in_w, dst + r * out_w);
  } else {
    std::int64_t in_h = x.sizes()[2];
    std::int64_t out_h = sizes[2];
    for (std::int64_t r = 0; r < rows; ++r) {
      std::int64_t plane = r / in_h;
      std::int64_t row = r % in_h;
      std::copy_n(src + r * in_w, in_w, dst + (plane * out_h + row) * out_w);
    }
  }
  return out;
}

Tensor pad_end(const Tensor& input, const Ints& extra) {
  Tensor x = input.contiguous();
  switch (x.dtype()) {
    case DType::kFloat32:
      return pad_end_typed<float>(x, extra);
    case DType::kFloat64:
      return pad_end_typed<double>(x, extra);
    default:
      unsupported_float_dtype("aten::conv (padding='same')", x.dtype());
  }
}

// conv1d.padding / conv2d.padding: padding is "valid" or "same".
template <int Spatial>
void conv_nd_padding_mode(Stack& s) {
  const char* name = Spatial == 1 ? "conv1d" : Spatial == 2 ? "conv2d" : "conv3d";
  ConvCall c = pop_conv_args(s);
  auto [x, batched] = batchify(c.input.to_tensor(), Spatial, name);
  const Tensor& weight = c.weight.to_tensor();
  const Tensor* bias = optional_tensor(c.bias);
  Ints stride = int_list_arg(c.stride);
  Ints dilation = int_list_arg(c.dilation);
  const std::string& mode = c.padding.to_string();
  Tensor out;
  if (mode == "valid") {
    out = convolution(x, weight, bias, stride, {0}, dilation, false, {0}, c.groups);
  } else if (mode == "same") {
    std::int64_t k = weight.dim();
    if (k <= 2) fail("weight should have at least three dimensions");
    auto dim = static_cast<std::size_t>(k - 2);
    if (k != x.dim()) {
      fail(
          fmt::format("Expected {0}-dimensional input for {0}-dimensional weight{1}, but got "
                      "{2}-dimensional input of size {3} instead",
                      k, format_ints(weight.sizes()), x.dim(), format_ints(x.sizes())));
    }
    if (stride.size() != dim && stride.size() != 1) {
      fail(fmt::format("stride cannot broadcast to {} dimensions", dim));
    }
    if (dilation.size() != dim && dilation.size() != 1) {
      fail(fmt::format("dilation cannot broadcast to {} dimensions", dim));
    }
    for (auto st : stride) {
      if (st != 1) fail("padding='same' is not supported for strided convolutions");
    }
    Ints left;
    Ints extra;
    for (std::size_t i = 0; i < dim; ++i) {
      std::int64_t d = dilation.size() == 1 ? dilation[0] : dilation[i];
      std::int64_t pad = d * (weight.sizes()[i + 2] - 1);
      left.push_back(pad / 2);
      extra.push_back(pad - pad / 2 - pad / 2);
    }
    bool symmetric = std::all_of(extra.begin(), extra.end(), [](std::int64_t e) { return e == 0; });
    Tensor padded = symmetric ? x : pad_end(x, extra);
    out = convolution(padded, weight, bias, stride, left, dilation, false, {0}, c.groups);
  } else {
    fail(fmt::format("Invalid padding string: '{}'", mode));
  }
  s.emplace_back(unbatch(out, batched));
}

// aten::_convolution(input, weight, bias, stride, padding, dilation, transposed,
// output_padding, groups, benchmark, deterministic, cudnn_enabled[, allow_tf32])
template <int NumArgs>
void underscore_convolution(Stack& s) {
  IValue* a = last(s, NumArgs);
  Tensor out = convolution(a[0].to_tensor(), a[1].to_tensor(), optional_tensor(a[2]),
                           int_list_arg(a[3]), int_list_arg(a[4]), int_list_arg(a[5]),
                           a[6].to_bool(), int_list_arg(a[7]), a[8].to_int());
  drop(s, NumArgs);
  s.emplace_back(std::move(out));
}

}  // namespace

bool conv2d_f32_by_rows(const ConvGeometry& g) {
  const bool one_by_one =
      g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  // One input channel is a depthwise convolution to run_conv.
  return g.groups == 1 && g.c > 1 && g.cg * g.kh * g.kw <= kMaxBlockedK && !one_by_one;
}

void conv2d_f32(const float* in, const Tensor& weight, const float* bias, const Epilogue* fused,
                float* out, const ConvGeometry& g) {
  run_conv<float>(in, weight, out, g, {bias, fused});
}

bool conv2d_with_epilogue(Stack& s, const Epilogue& epilogue) {
  return conv_nd_with<2>(s, &epilogue);
}

bool conv2d_with_epilogue_into(Stack& s, const Epilogue& epilogue,
                               const OutputAllocator& allocate) {
  return conv_nd_with<2>(s, &epilogue, &allocate);
}

void register_conv_ops(OperatorRegistry& r) {
  r.add({"aten::conv2d",
         7,
         {IValue(), ints({1, 1}), ints({0, 0}), ints({1, 1}), IValue(1)},
         conv_nd<2>});
  r.add({"aten::conv1d", 7, {IValue(), ints({1}), ints({0}), ints({1}), IValue(1)}, conv_nd<1>});
  r.add({"aten::conv3d",
         7,
         {IValue(), ints({1, 1, 1}), ints({0, 0, 0}), ints({1, 1, 1}), IValue(1)},
         conv_nd<3>});
  r.add({"aten::conv2d.padding",
         7,
         {IValue(), ints({1, 1}), IValue::string("valid"), ints({1, 1}), IValue(1)},
         conv_nd_padding_mode<2>});
  r.add({"aten::conv1d.padding",
         7,
         {IValue(), ints({1}), IValue::string("valid"), ints({1}), IValue(1)},
         conv_nd_padding_mode<1>});
  r.add({"aten::_convolution", 13, {}, underscore_convolution<13>});
  // convolution (traced models record it): _convolution without the backend flags.
  r.add({"aten::convolution", 9, {}, underscore_convolution<9>});
  r.add({"aten::_convolution.deprecated", 12, {}, underscore_convolution<12>});
}

}  // namespace symbolite::ops::nn
