#include "symbolite/ops/cpu/onednn_conv.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "symbolite/ops/cpu/single_openmp_thread.h"
#include "symbolite/support/error.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::nn {
namespace {

using dnnl::memory;
using Dims = memory::dims;

// Multiply-adds a thread takes at least: below, the convolution runs as one primitive.
constexpr std::int64_t kMultiplyAddsPerThread = std::int64_t{1} << 20;
// Output channels go to threads in multiples of oneDNN's AVX-512 channel block.
constexpr std::int64_t kChannelBlock = 16;
// Convolutions over at most this many inputs per output (C * KH * KW) keep im2col + GEMM:
// a stem's 3 input channels make reordering the input and output cost more than the
// convolution (MobileNet's 3x3 stem: 85 us as im2col + GEMM, 230 us on two threads here).
constexpr std::int64_t kMinDepth = 128;
// Plans kept before the ones whose weights are gone are dropped (then all, if still over).
constexpr std::size_t kMaxPlans = 4096;

dnnl::engine& engine() {
  static dnnl::engine cpu(dnnl::engine::kind::cpu, 0);
  return cpu;
}

// Streams are used by one thread at a time: one per thread.
dnnl::stream& stream() {
  thread_local dnnl::stream s(engine());
  return s;
}

dnnl::reorder reorder(const memory::desc& from, const memory::desc& to) {
  return dnnl::reorder(dnnl::reorder::primitive_desc(engine(), from, engine(), to));
}

// Per-thread scratch (reordered input, a block's output, oneDNN's own scratchpad), kept
// between calls so a run allocates nothing after the first; 64-byte aligned for oneDNN.
class Scratch {
 public:
  void* get(std::size_t bytes) {
    if (bytes > size_) {
      size_ = (bytes + 63) / 64 * 64;
      data_.reset(static_cast<std::uint8_t*>(std::aligned_alloc(64, size_)));
      if (!data_) throw Error(ErrorKind::kLimit, "out of memory for a convolution's scratch");
    }
    return data_.get();
  }

 private:
  struct Free {
    void operator()(std::uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<std::uint8_t, Free> data_;
  std::size_t size_ = 0;
};

// A block of output channels: its own primitive over the whole input.
struct Slice {
  std::int64_t first = 0, count = 0;
  dnnl::convolution_forward conv;
  memory weights;       // reordered once, owned by oneDNN
  memory::desc dst;     // the primitive's output layout
  memory::desc output;  // the block's channels of the NCHW output
  bool reorder_out = false;
  dnnl::reorder to_output;
  memory::desc scratchpad;
};

struct Plan {
  std::weak_ptr<const void> owner;  // the weight bytes' owner: the plan is stale once it is gone
  memory::desc user_src, src;
  bool reorder_in = false;
  // The input into the primitives' layout in bands of rows, one per thread (one thread would
  // take longer over a large shallow input than the convolution's share).
  struct Band {
    memory::desc from, to;
    dnnl::reorder reorder;
  };
  std::vector<Band> to_src;
  std::vector<Slice> slices;
};

struct Key {
  const void* weight;
  std::int64_t f[17];
  bool operator==(const Key& o) const {
    return weight == o.weight && std::equal(std::begin(f), std::end(f), std::begin(o.f));
  }
};

struct KeyHash {
  std::size_t operator()(const Key& k) const {
    std::size_t h = std::hash<const void*>()(k.weight);
    for (std::int64_t v : k.f) h = h * 1000003u ^ std::hash<std::int64_t>()(v);
    return h;
  }
};

Key key_of(const void* weight, const ConvGeometry& g, std::int64_t slices) {
  return {weight,
          {g.n, g.c, g.h, g.w, g.o, g.cg, g.kh, g.kw, g.oh, g.ow, g.sh, g.sw, g.ph, g.pw, g.dh,
           g.dw, slices}};
}

class PlanCache {
 public:
  // The plan for this weight and shape; null when oneDNN has none (remembered too).
  std::shared_ptr<const Plan> get(const Bytes& weight_bytes, const ConvGeometry& g,
                                  std::int64_t slices) {
    const Key key = key_of(weight_bytes.data(), g, slices);
    std::lock_guard lock(mutex_);
    auto it = plans_.find(key);
    if (it != plans_.end()) {
      if (it->second.owner.lock() == weight_bytes.owner()) return it->second.plan;
      plans_.erase(it);  // the bytes at this address belong to another owner now
    }
    if (plans_.size() >= kMaxPlans) {
      std::erase_if(plans_, [](const auto& entry) { return entry.second.owner.expired(); });
      if (plans_.size() >= kMaxPlans) plans_.clear();
    }
    std::shared_ptr<const Plan> plan = build(weight_bytes, g, slices);
    plans_[key] = {weight_bytes.owner(), plan};
    return plan;
  }

  std::size_t live() {
    std::lock_guard lock(mutex_);
    std::erase_if(plans_, [](const auto& entry) { return entry.second.owner.expired(); });
    return static_cast<std::size_t>(std::count_if(
        plans_.begin(), plans_.end(), [](const auto& entry) { return entry.second.plan; }));
  }

 private:
  struct Entry {
    std::weak_ptr<const void> owner;
    std::shared_ptr<const Plan> plan;
  };

  static std::shared_ptr<const Plan> build(const Bytes& weight_bytes, const ConvGeometry& g,
                                           std::int64_t slices) {
    SingleOpenMpThread one;
    auto plan = std::make_shared<Plan>();
    plan->owner = weight_bytes.owner();
    const auto f32 = memory::data_type::f32;
    const auto any = memory::format_tag::any;
    const Dims strides{g.sh, g.sw}, padding{g.ph, g.pw}, dilation{g.dh - 1, g.dw - 1};
    plan->user_src = memory::desc({g.n, g.c, g.h, g.w}, f32, memory::format_tag::nchw);
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const std::int64_t per = (g.o + slices - 1) / slices;
    const std::int64_t step = (per + kChannelBlock - 1) / kChannelBlock * kChannelBlock;
    memory::desc src_any({g.n, g.c, g.h, g.w}, f32, any);
    try {
      for (std::int64_t first = 0; first < g.o; first += step) {
        Slice s;
        s.first = first;
        s.count = std::min(step, g.o - first);
        const Dims weight_dims{s.count, g.c, g.kh, g.kw}, dst_dims{g.n, s.count, g.oh, g.ow};
        // Every block reads the input in the layout the first block's primitive chose.
        const memory::desc src = plan->slices.empty() ? src_any : plan->src;
        dnnl::convolution_forward::desc desc(
            dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src,
            memory::desc(weight_dims, f32, any), memory::desc(dst_dims, f32, any), strides,
            dilation, padding, padding);
        dnnl::convolution_forward::primitive_desc pd(desc, attr, engine());
        if (plan->slices.empty()) plan->src = pd.src_desc();
        if (pd.src_desc() != plan->src) return nullptr;
        s.conv = dnnl::convolution_forward(pd);
        s.dst = pd.dst_desc();
        s.scratchpad = pd.scratchpad_desc();
        s.output = memory::desc(dst_dims, f32, Dims{g.o * g.oh * g.ow, g.oh * g.ow, g.ow, 1});
        s.reorder_out = s.dst != s.output;
        if (s.reorder_out) s.to_output = reorder(s.dst, s.output);
        // The file's weights, read once into the primitive's layout.
        const auto* weight = reinterpret_cast<const float*>(weight_bytes.data());
        memory file_weights(memory::desc(weight_dims, f32, memory::format_tag::oihw), engine(),
                            const_cast<float*>(weight + first * g.c * g.kh * g.kw));
        s.weights = memory(pd.weights_desc(), engine());
        dnnl::reorder(file_weights, s.weights).execute(stream(), file_weights, s.weights);
        plan->slices.push_back(std::move(s));
      }
      stream().wait();
      // The file's copy is not read again: its pages need not count in the process's memory.
      release_mapped_pages(weight_bytes);
      plan->reorder_in = plan->src != plan->user_src;
      if (plan->reorder_in) {
        // One band when the layout pads the channels: the whole reorder zeroes the padding.
        const bool padded = plan->src.data.padded_dims[1] != g.c;
        const std::int64_t bands = padded ? 1 : std::min(slices, g.h);
        for (std::int64_t b = 0; b < bands; ++b) {
          const std::int64_t top = g.h * b / bands, rows = g.h * (b + 1) / bands - top;
          const Dims dims{g.n, g.c, rows, g.w}, at{0, 0, top, 0};
          Plan::Band band;
          band.from = bands == 1 ? plan->user_src : plan->user_src.submemory_desc(dims, at);
          band.to = bands == 1 ? plan->src : plan->src.submemory_desc(dims, at);
          band.reorder = reorder(band.from, band.to);
          plan->to_src.push_back(std::move(band));
        }
      }
    } catch (const dnnl::error&) {
      return nullptr;  // no primitive for this shape here: im2col takes it
    }
    return plan;
  }

  std::mutex mutex_;
  std::unordered_map<Key, Entry, KeyHash> plans_;
};

PlanCache& cache() {
  static PlanCache plans;
  return plans;
}

void execute(const Plan& plan, const float* in, float* out, const ConvGeometry& g,
             const ChannelsDone& done) {
  SingleOpenMpThread one;
  thread_local Scratch src_scratch;
  memory user_src(plan.user_src, engine(), const_cast<float*>(in));
  memory src = user_src;
  if (plan.reorder_in) {
    void* blocked = src_scratch.get(plan.src.get_size());
    src = memory(plan.src, engine(), blocked);
    parallel_for(static_cast<std::int64_t>(plan.to_src.size()), 1,
                 [&](std::int64_t begin, std::int64_t end) {
                   SingleOpenMpThread worker;
                   for (std::int64_t b = begin; b < end; ++b) {
                     const Plan::Band& band = plan.to_src[static_cast<std::size_t>(b)];
                     memory from(band.from, engine(), const_cast<float*>(in));
                     memory to(band.to, engine(), blocked);
                     band.reorder.execute(stream(), from, to);
                   }
                   stream().wait();
                 });
  }
  const std::int64_t plane = g.oh * g.ow;
  parallel_for(
      static_cast<std::int64_t>(plan.slices.size()), 1, [&](std::int64_t begin, std::int64_t end) {
        SingleOpenMpThread worker;
        thread_local Scratch dst_scratch;
        thread_local Scratch pad_scratch;
        for (std::int64_t i = begin; i < end; ++i) {
          const Slice& s = plan.slices[static_cast<std::size_t>(i)];
          memory output(s.output, engine(), out + s.first * plane);
          memory dst =
              s.reorder_out ? memory(s.dst, engine(), dst_scratch.get(s.dst.get_size())) : output;
          memory pad(s.scratchpad, engine(), pad_scratch.get(s.scratchpad.get_size()));
          s.conv.execute(stream(), {{DNNL_ARG_SRC, src},
                                    {DNNL_ARG_WEIGHTS, s.weights},
                                    {DNNL_ARG_DST, dst},
                                    {DNNL_ARG_SCRATCHPAD, pad}});
          if (s.reorder_out) s.to_output.execute(stream(), dst, output);
          stream().wait();
          for (std::int64_t n = 0; n < g.n; ++n) done(n, s.first, s.count);
        }
      });
}

}  // namespace

bool onednn_conv2d_shape(const ConvGeometry& g) {
  const bool one_by_one =
      g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
  return g.groups == 1 && !one_by_one && g.c * g.kh * g.kw > kMinDepth && g.n > 0 && g.c > 0 &&
         g.o > 0 && g.oh > 0 && g.ow > 0;
}

bool onednn_conv2d(const float* in, const Bytes& weight_bytes, float* out, const ConvGeometry& g,
                   const ChannelsDone& done) {
  if (!onednn_conv2d_shape(g) || weight_bytes.owner() == nullptr) return false;
  const std::int64_t work = g.n * g.o * g.oh * g.ow * g.c * g.kh * g.kw;
  const std::int64_t threads = threads_for(work, kMultiplyAddsPerThread);
  const std::int64_t slices =
      std::clamp<std::int64_t>(threads, 1, (g.o + kChannelBlock - 1) / kChannelBlock);
  std::shared_ptr<const Plan> plan = cache().get(weight_bytes, g, slices);
  if (!plan) return false;
  try {
    execute(*plan, in, out, g, done);
  } catch (const dnnl::error& e) {
    throw Error(ErrorKind::kInternal, std::string("oneDNN convolution failed: ") + e.what());
  }
  return true;
}

std::size_t onednn_conv2d_plans() { return cache().live(); }

}  // namespace symbolite::ops::nn
