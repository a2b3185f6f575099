#include "symbolite/ops/cpu/onednn_conv.h"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <dnnl.hpp>

#include "symbolite/ops/cpu/float_transpose.h"
#include "symbolite/ops/cpu/onednn_context.h"
#include "symbolite/ops/cpu/single_openmp_thread.h"
#include "symbolite/ops/cpu/weight_plan_cache.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using dnnl::memory;
using onednn::engine;
using onednn::reorder;
using onednn::Scratch;
using onednn::stream;
using Dims = memory::dims;

// Multiply-adds a thread takes at least: below, the convolution runs as one primitive.
constexpr std::int64_t kConvMultiplyAddsPerThread = std::int64_t{1} << 20;
// Output channels go to threads in multiples of oneDNN's AVX-512 channel block.
constexpr std::int64_t kChannelBlock = 16;
// A band of output rows writes at most about this much (a quarter of a 2 MiB L2): ResNet's
// and DenseNet's stems, in 13 bands, ran 1-3 % faster than in one.
constexpr std::int64_t kBandBytes = std::int64_t{512} << 10;
// Convolutions over at most this many inputs per output (CG * KH * KW) keep im2col + GEMM:
// a stem's 3 input channels make reordering the input and output cost more than the
// convolution (MobileNet's 3x3 stem: 85 us as im2col + GEMM, 230 us on two threads here).
constexpr std::int64_t kMinDepth = 128;

// A 1x1 convolution is one GEMM as it stands (conv_ops.cpp), except over a short image whose
// pixels are no multiple of 16 (9x9 to 13x13), where sgemm's column tails cost more than the
// primitive's reorders: alone, 1.2-1.56x faster here on 81, 100, 121 and 169 pixels into 256
// or more channels, against 0.85x on 144 and 256 (docs/PERFORMANCE.md). From 196 pixels
// (14x14) on the two came out even.
bool ragged_short_product(const ConvGeometry& g) {
  const std::int64_t plane = g.oh * g.ow;
  return plane > 64 && plane < 192 && plane % 16 != 0 && g.o >= 128;
}

// A block of the output — some of its channels over all rows, or all channels over a band of
// rows — with its own primitive.
struct Slice {
  std::int64_t first = 0, count = 0;  // output channels
  std::int64_t top = 0, rows = 0;     // output rows
  memory::desc src;                   // the input rows it reads, in the primitives' layout,
  std::int64_t src_offset = 0;        // at this many elements into the reordered input
  dnnl::convolution_forward conv;
  memory weights;       // reordered once, owned by oneDNN (shared by bands of rows)
  memory::desc dst;     // the primitive's output layout
  memory::desc output;  // the block's part of the NCHW output
  std::int64_t output_offset = 0;
  bool reorder_out = false;
  bool transpose_out = false;  // NHWC into NCHW: float_transpose.h, not oneDNN's reorder
  dnnl::reorder to_output;
  memory::desc scratchpad;
};

struct ConvPlan {
  memory::desc user_src, src;
  bool reorder_in = false;
  // The input into the primitives' layout in bands of rows, one per thread (one thread would
  // take longer over a large shallow input than the convolution's share): NCHW into NHWC as
  // `transpose_bands` float transposes (float_transpose.h), else oneDNN's reorders `to_src`.
  bool transpose_in = false;
  std::int64_t transpose_bands = 1;
  struct Band {
    memory::desc from, to;
    dnnl::reorder reorder;
  };
  std::vector<Band> to_src;
  std::vector<Slice> slices;
};

// Making plans: functions of a class only to keep them together.
struct PlanBuilder {
  static std::shared_ptr<const ConvPlan> build(const Bytes& weight_bytes, const ConvGeometry& g,
                                               std::int64_t slices) {
    SingleOpenMpThread one;
    // Threads take blocks of output channels when those split evenly; otherwise (DenseNet's
    // 48 channels on two threads) bands of output rows, each reading its own input rows.
    const std::int64_t blocks = (g.o + kChannelBlock - 1) / kChannelBlock;
    // Grouped ones (RegNet, ResNeXt) by rows, else by blocks of whole groups: a block of
    // channels would cut groups.
    const bool by_rows = g.groups > 1 || blocks % slices != 0;
    const std::int64_t bands = row_bands(g, slices);
    if (g.n == 1 && ((slices > 1 && by_rows) || bands > slices) && g.oh >= 2 * bands) {
      try {
        if (auto plan = build_rows(weight_bytes, g, bands)) return plan;
      } catch (const dnnl::error&) {
        // no primitive for a band here: blocks of channels
      }
    }
    if (slices > 1 && g.n == 1 && g.groups > 1) {
      try {
        if (auto plan = build_groups(weight_bytes, g, slices)) return plan;
      } catch (const dnnl::error&) {
        // no primitive for a block of groups here: one primitive
      }
    }
    try {
      return build_channels(weight_bytes, g, g.groups > 1 ? 1 : slices);
    } catch (const dnnl::error&) {
      return nullptr;  // no primitive for this shape here: im2col takes it
    }
  }

  // Bands of output rows for `slices` threads: more when the whole output would not stay in
  // L2 until it is transposed into NCHW (ResNet's 64 x 112 x 112 stem, VGG's first layers).
  static std::int64_t row_bands(const ConvGeometry& g, std::int64_t slices) {
    if (g.groups > 1) return slices;
    const std::int64_t bytes = g.o * g.oh * g.ow * std::int64_t{sizeof(float)};
    const std::int64_t per_slice = (bytes / slices + kBandBytes - 1) / kBandBytes;
    return slices * std::max<std::int64_t>(1, per_slice);
  }

  // The weights of output channels [first, first + channels): all of them when grouped
  // (groups, outputs per group, inputs per group, kernel).
  static Dims weight_dims(const ConvGeometry& g, std::int64_t channels) {
    if (g.groups > 1) return {g.groups, g.o / g.groups, g.cg, g.kh, g.kw};
    return {channels, g.c, g.kh, g.kw};
  }

  // The convolution over `groups` of g's groups (all of them: g).
  static ConvGeometry some_groups(const ConvGeometry& g, std::int64_t groups) {
    ConvGeometry part = g;
    part.groups = groups;
    part.c = g.cg * groups;
    part.o = g.o / g.groups * groups;
    return part;
  }

  static dnnl::convolution_forward::primitive_desc describe(const ConvGeometry& g,
                                                            const memory::desc& src,
                                                            std::int64_t channels,
                                                            std::int64_t rows, std::int64_t pad_top,
                                                            std::int64_t pad_bottom) {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const auto f32 = memory::data_type::f32;
    const auto any = memory::format_tag::any;
    dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
        memory::desc(weight_dims(g, channels), f32, any),
        memory::desc({g.n, channels, rows, g.ow}, f32, any), {g.sh, g.sw}, {g.dh - 1, g.dw - 1},
        {pad_top, g.pw}, {pad_bottom, g.pw});
    return {desc, attr, engine()};
  }

  // Completes `s` from its primitive: output reorder, scratchpad; `weights` reordered from
  // the file unless a band before it left them in the same layout. `groups` is the number of
  // groups the slice's primitive takes (all of them but in build_groups).
  static void finish_slice(Slice& s, const dnnl::convolution_forward::primitive_desc& pd,
                           const ConvGeometry& g, const Bytes& weight_bytes, const Slice* before,
                           std::int64_t groups) {
    const auto f32 = memory::data_type::f32;
    s.conv = dnnl::convolution_forward(pd);
    s.dst = pd.dst_desc();
    s.scratchpad = pd.scratchpad_desc();
    s.output = memory::desc({g.n, s.count, s.rows, g.ow}, f32,
                            Dims{g.o * g.oh * g.ow, g.oh * g.ow, g.ow, 1});
    s.output_offset = s.first * g.oh * g.ow + s.top * g.ow;
    s.reorder_out = s.dst != s.output;
    s.transpose_out =
        s.dst == memory::desc({g.n, s.count, s.rows, g.ow}, f32, memory::format_tag::nhwc);
    if (s.reorder_out && !s.transpose_out) s.to_output = reorder(s.dst, s.output);
    if (before != nullptr && before->weights.get_desc() == pd.weights_desc()) {
      s.weights = before->weights;
      return;
    }
    // The file's weights, read once into the primitive's layout.
    const auto* weight = reinterpret_cast<const float*>(weight_bytes.data());
    const auto file_layout = groups > 1 ? memory::format_tag::goihw : memory::format_tag::oihw;
    memory file_weights(
        memory::desc(weight_dims(some_groups(g, groups), s.count), f32, file_layout), engine(),
        const_cast<float*>(weight + s.first * g.cg * g.kh * g.kw));
    s.weights = memory(pd.weights_desc(), engine());
    dnnl::reorder(file_weights, s.weights).execute(stream(), file_weights, s.weights);
  }

  static std::shared_ptr<ConvPlan> start_plan(const ConvGeometry& g) {
    auto plan = std::make_shared<ConvPlan>();
    plan->user_src =
        memory::desc({g.n, g.c, g.h, g.w}, memory::data_type::f32, memory::format_tag::nchw);
    return plan;
  }

  // Blocks of output channels (multiples of 16), each over the whole input.
  static std::shared_ptr<const ConvPlan> build_channels(const Bytes& weight_bytes,
                                                        const ConvGeometry& g,
                                                        std::int64_t slices) {
    auto plan = start_plan(g);
    const std::int64_t per = (g.o + slices - 1) / slices;
    const std::int64_t step = (per + kChannelBlock - 1) / kChannelBlock * kChannelBlock;
    memory::desc src_any({g.n, g.c, g.h, g.w}, memory::data_type::f32, memory::format_tag::any);
    for (std::int64_t first = 0; first < g.o; first += step) {
      Slice s;
      s.first = first;
      s.count = std::min(step, g.o - first);
      s.rows = g.oh;
      // Every block reads the input in the layout the first block's primitive chose.
      auto pd = describe(g, plan->slices.empty() ? src_any : plan->src, s.count, g.oh, g.ph, g.ph);
      if (plan->slices.empty()) plan->src = pd.src_desc();
      if (pd.src_desc() != plan->src || !onednn::is_jit(pd.impl_info_str())) return nullptr;
      s.src = plan->src;
      finish_slice(s, pd, g, weight_bytes, nullptr, g.groups);
      plan->slices.push_back(std::move(s));
    }
    return complete(std::move(plan), weight_bytes, g, slices);
  }

  // Blocks of whole groups (batch 1), each reading its groups' input channels: grouped
  // convolutions whose bands of rows oneDNN has only reference loops for (16 channels a group
  // in NHWC). In oneDNN's 16-channel blocks, a block of groups starting on a multiple of 16
  // channels is a dense tensor of its own.
  static std::shared_ptr<const ConvPlan> build_groups(const Bytes& weight_bytes,
                                                      const ConvGeometry& g, std::int64_t slices) {
    const std::int64_t og = g.o / g.groups;
    auto group_at = [&](std::int64_t b) { return g.groups * b / slices; };
    for (std::int64_t b = 0; b < slices; ++b) {
      if (group_at(b) * g.cg % kChannelBlock != 0 || group_at(b) * og % kChannelBlock != 0)
        return nullptr;
    }
    auto plan = start_plan(g);
    const auto f32 = memory::data_type::f32;
    plan->src = memory::desc({g.n, g.c, g.h, g.w}, f32, memory::format_tag::nChw16c);
    for (std::int64_t b = 0; b < slices; ++b) {
      const ConvGeometry part = some_groups(g, group_at(b + 1) - group_at(b));
      if (part.groups == 0) return nullptr;
      Slice s;
      s.first = group_at(b) * og;
      s.count = part.o;
      s.rows = g.oh;
      s.src = memory::desc({g.n, part.c, g.h, g.w}, f32, memory::format_tag::nChw16c);
      s.src_offset = group_at(b) * g.cg * g.h * g.w;
      auto pd = describe(part, s.src, part.o, g.oh, g.ph, g.ph);
      if (pd.src_desc() != s.src || !onednn::is_jit(pd.impl_info_str())) return nullptr;
      finish_slice(s, pd, g, weight_bytes, nullptr, part.groups);
      plan->slices.push_back(std::move(s));
    }
    return complete(std::move(plan), weight_bytes, g, slices);
  }

  // Bands of output rows over all channels (batch 1), the input in NHWC, where a band of
  // input rows is contiguous.
  static std::shared_ptr<const ConvPlan> build_rows(const Bytes& weight_bytes,
                                                    const ConvGeometry& g, std::int64_t slices) {
    auto plan = start_plan(g);
    const auto f32 = memory::data_type::f32;
    plan->src = memory::desc({g.n, g.c, g.h, g.w}, f32, memory::format_tag::nhwc);
    for (std::int64_t b = 0; b < slices; ++b) {
      Slice s;
      s.count = g.o;
      s.top = g.oh * b / slices;
      s.rows = g.oh * (b + 1) / slices - s.top;
      // Input rows [start, end) make output rows [top, top + rows); those outside the input
      // are the band's padding.
      const std::int64_t start = s.top * g.sh - g.ph;
      const std::int64_t end = (s.top + s.rows - 1) * g.sh - g.ph + (g.kh - 1) * g.dh + 1;
      const std::int64_t in_top = std::max<std::int64_t>(0, start);
      const std::int64_t in_end = std::min(g.h, end);
      if (s.rows <= 0 || in_end <= in_top) return nullptr;
      s.src = memory::desc({g.n, g.c, in_end - in_top, g.w}, f32, memory::format_tag::nhwc);
      s.src_offset = in_top * g.w * g.c;
      auto pd = describe(g, s.src, g.o, s.rows, in_top - start, end - in_end);
      if (pd.src_desc() != s.src || !onednn::is_jit(pd.impl_info_str())) return nullptr;
      finish_slice(s, pd, g, weight_bytes, plan->slices.empty() ? nullptr : plan->slices.data(),
                   g.groups);
      plan->slices.push_back(std::move(s));
    }
    return complete(std::move(plan), weight_bytes, g, slices);
  }

  // The input's reorder, once the primitives have chosen its layout.
  static std::shared_ptr<const ConvPlan> complete(std::shared_ptr<ConvPlan> plan,
                                                  const Bytes& weight_bytes, const ConvGeometry& g,
                                                  std::int64_t slices) {
    stream().wait();
    // The file's copy is not read again: its pages need not count in the process's memory.
    release_mapped_pages(weight_bytes);
    plan->reorder_in = plan->src != plan->user_src;
    if (!plan->reorder_in) return plan;
    // In bands of rows, one per thread; one band when the layout pads the channels (the
    // whole reorder zeroes the padding).
    const bool padded = plan->src.data.padded_dims[1] != g.c;
    const std::int64_t bands = padded ? 1 : std::min(slices, g.h);
    plan->transpose_bands = bands;
    // (A few channels, a stem's 3, interleave faster through oneDNN's reorder than 16 x 16
    // tiles with a few rows each: 70 against 122 us for ResNet's 3 x 224 x 224.)
    plan->transpose_in = g.c >= kChannelBlock &&
                         plan->src == memory::desc({g.n, g.c, g.h, g.w}, memory::data_type::f32,
                                                   memory::format_tag::nhwc);
    if (plan->transpose_in) return plan;
    for (std::int64_t b = 0; b < bands; ++b) {
      const std::int64_t top = g.h * b / bands, rows = g.h * (b + 1) / bands - top;
      const Dims dims{g.n, g.c, rows, g.w}, at{0, 0, top, 0};
      ConvPlan::Band band;
      band.from = bands == 1 ? plan->user_src : plan->user_src.submemory_desc(dims, at);
      band.to = bands == 1 ? plan->src : plan->src.submemory_desc(dims, at);
      band.reorder = reorder(band.from, band.to);
      plan->to_src.push_back(std::move(band));
    }
    return plan;
  }
};

// A slice's NHWC result into its NCHW output 16 channels at a time, each block finished
// (`done`) while it is in cache.
void transpose_out(const Slice& s, const float* dst, float* out, const ConvGeometry& g,
                   const ChannelsDone& done) {
  const std::int64_t plane = g.oh * g.ow, pixels = s.rows * g.ow;
  for (std::int64_t n = 0; n < g.n; ++n) {
    const float* image = dst + n * pixels * s.count;
    float* output = out + s.output_offset + n * g.o * plane;
    for (std::int64_t c = 0; c < s.count; c += kChannelBlock) {
      const std::int64_t count = std::min(kChannelBlock, s.count - c);
      transpose_f32(image + c, s.count, output + c * plane, plane, pixels, count);
      done(n, s.first + c, count, s.top, s.rows);
    }
  }
}

void execute(const ConvPlan& plan, const float* in, float* out, const ConvGeometry& g,
             const ChannelsDone& done) {
  SingleOpenMpThread one;
  thread_local Scratch src_scratch;
  memory user_src(plan.user_src, engine(), const_cast<float*>(in));
  memory src = user_src;
  if (plan.reorder_in) {
    void* blocked = src_scratch.get(plan.src.get_size());
    src = memory(plan.src, engine(), blocked);
    if (plan.transpose_in) {
      parallel_for(plan.transpose_bands, 1, [&](std::int64_t begin, std::int64_t end) {
        const std::int64_t top = g.h * begin / plan.transpose_bands;
        const std::int64_t rows = g.h * end / plan.transpose_bands - top;
        for (std::int64_t n = 0; n < g.n; ++n) {
          transpose_f32(in + (n * g.c * g.h + top) * g.w, g.h * g.w,
                        static_cast<float*>(blocked) + (n * g.h + top) * g.w * g.c, g.c, g.c,
                        rows * g.w);
        }
      });
    } else {
      parallel_for(static_cast<std::int64_t>(plan.to_src.size()), 1,
                   [&](std::int64_t begin, std::int64_t end) {
                     SingleOpenMpThread worker;
                     for (std::int64_t b = begin; b < end; ++b) {
                       const ConvPlan::Band& band = plan.to_src[static_cast<std::size_t>(b)];
                       memory from(band.from, engine(), const_cast<float*>(in));
                       memory to(band.to, engine(), blocked);
                       band.reorder.execute(stream(), from, to);
                     }
                     stream().wait();
                   });
    }
  }
  const float* src_base = plan.reorder_in ? static_cast<const float*>(src.get_data_handle()) : in;
  parallel_for(
      static_cast<std::int64_t>(plan.slices.size()), 1, [&](std::int64_t begin, std::int64_t end) {
        SingleOpenMpThread worker;
        thread_local Scratch dst_scratch;
        thread_local Scratch pad_scratch;
        for (std::int64_t i = begin; i < end; ++i) {
          const Slice& s = plan.slices[static_cast<std::size_t>(i)];
          memory slice_src(s.src, engine(), const_cast<float*>(src_base + s.src_offset));
          memory output(s.output, engine(), out + s.output_offset);
          memory dst =
              s.reorder_out ? memory(s.dst, engine(), dst_scratch.get(s.dst.get_size())) : output;
          memory pad(s.scratchpad, engine(), pad_scratch.get(s.scratchpad.get_size()));
          s.conv.execute(stream(), {{DNNL_ARG_SRC, slice_src},
                                    {DNNL_ARG_WEIGHTS, s.weights},
                                    {DNNL_ARG_DST, dst},
                                    {DNNL_ARG_SCRATCHPAD, pad}});
          if (s.transpose_out) {
            stream().wait();
            transpose_out(s, static_cast<const float*>(dst.get_data_handle()), out, g, done);
            continue;
          }
          if (s.reorder_out) s.to_output.execute(stream(), dst, output);
          stream().wait();
          for (std::int64_t n = 0; n < g.n; ++n) done(n, s.first, s.count, s.top, s.rows);
        }
      });
}

}  // namespace

bool onednn_conv2d_shape(const ConvGeometry& g) {
  const bool one_by_one =
      g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  const bool depthwise = g.cg == 1 && g.groups > 1;
  return !depthwise && (!one_by_one || ragged_short_product(g)) && g.cg * g.kh * g.kw > kMinDepth &&
         g.n > 0 && g.c > 0 && g.o > 0 && g.oh > 0 && g.ow > 0;
}

bool onednn_conv2d(const float* in, const Bytes& weight_bytes, float* out, const ConvGeometry& g,
                   const ChannelsDone& done) {
  if (!onednn_conv2d_shape(g) || weight_bytes.owner() == nullptr) return false;
  const std::int64_t work = g.n * g.o * g.oh * g.ow * g.c * g.kh * g.kw;
  const std::int64_t threads = threads_for(work, kConvMultiplyAddsPerThread);
  const std::int64_t slices =
      std::clamp<std::int64_t>(threads, 1, (g.o + kChannelBlock - 1) / kChannelBlock);
  std::shared_ptr<const ConvPlan> plan =
      weight_plans<ConvPlan>().get(weight_bytes,
                                   {g.n, g.c, g.h, g.w, g.o, g.cg, g.kh, g.kw, g.oh, g.ow, g.sh,
                                    g.sw, g.ph, g.pw, g.dh, g.dw, slices},
                                   [&] { return PlanBuilder::build(weight_bytes, g, slices); });
  if (!plan) return false;
  try {
    execute(*plan, in, out, g, done);
  } catch (const dnnl::error& e) {
    throw Error(ErrorKind::kInternal, std::string("oneDNN convolution failed: ") + e.what());
  }
  return true;
}

std::size_t onednn_conv2d_plans() { return weight_plans<ConvPlan>().size(); }

}  // namespace symbolite::ops::nn
