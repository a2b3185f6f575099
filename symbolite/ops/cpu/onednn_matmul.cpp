#include "symbolite/ops/cpu/onednn_matmul.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "symbolite/ops/cpu/onednn_context.h"
#include "symbolite/ops/cpu/single_openmp_thread.h"
#include "symbolite/ops/cpu/weight_plan_cache.h"
#include "symbolite/support/error.h"
#include "symbolite/support/float_control.h"
#include "symbolite/support/mapped_file.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops {
namespace {

using dnnl::memory;
using onednn::engine;
using onednn::stream;
using Dims = memory::dims;

// Products below this many multiply-adds keep sgemm: a primitive call costs microseconds.
constexpr std::int64_t kMinMultiplyAdds = std::int64_t{1} << 18;
// Multiply-adds a block takes at least: below, the product runs as one primitive. The blocks
// are the same at every thread count (fixed_pieces): a block's bits depend on its columns.
constexpr std::int64_t kMatmulMultiplyAddsPerBlock = std::int64_t{1} << 20;
// Columns go to threads in blocks of at least this many (multiples of 16).
constexpr std::int64_t kMinColumnsPerThread = 64;
// The weights' layout is chosen for products of this many rows and kept for all: a copy of
// the weights per row count would multiply memory by the sequence lengths a model sees.
constexpr std::int64_t kLayoutRows = 64;
// Row counts a weight gets a kernel for; more (a decoder's growing sequence) go to sgemm
// rather than compile a kernel per call.
constexpr int kMaxRowCounts = 8;

// The weight reordered once, per block of columns.
struct MatmulWeights {
  std::vector<std::int64_t> first, count;
  std::vector<memory> blocks;
  mutable std::atomic<int> row_counts{0};
};

// The primitives for one product shape over those weights.
struct MatmulPlan {
  std::shared_ptr<const MatmulWeights> weights;
  struct Block {
    dnnl::matmul product;
    memory::desc src, dst, scratchpad;
  };
  std::vector<Block> blocks;
};

memory::desc bias_desc(std::int64_t columns) {
  return memory::desc({1, columns}, memory::data_type::f32, Dims{columns, 1});
}

dnnl::matmul::primitive_desc describe(std::int64_t m, std::int64_t k, std::int64_t columns,
                                      std::int64_t lda, std::int64_t ldc, float beta,
                                      const memory::desc& weights, bool bias = false) {
  const auto f32 = memory::data_type::f32;
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  if (beta != 0.0f) {
    dnnl::post_ops sum;
    sum.append_sum(beta);
    attr.set_post_ops(sum);
  }
  const memory::desc src({m, k}, f32, Dims{lda, 1});
  const memory::desc dst({m, columns}, f32, Dims{ldc, 1});
  if (bias) return {dnnl::matmul::desc(src, weights, bias_desc(columns), dst), attr, engine()};
  return {dnnl::matmul::desc(src, weights, dst), attr, engine()};
}

std::shared_ptr<const MatmulWeights> reorder_weights(const Bytes& b, bool b_transposed,
                                                     std::int64_t n, std::int64_t k,
                                                     std::int64_t slices) {
  SingleOpenMpThread one;
  auto out = std::make_shared<MatmulWeights>();
  const std::int64_t per = (n + slices - 1) / slices;
  const std::int64_t step = (per + 15) / 16 * 16;
  const auto* weight = reinterpret_cast<const float*>(b.data());
  try {
    for (std::int64_t first = 0; first < n; first += step) {
      const std::int64_t count = std::min(step, n - first);
      const memory::desc any({k, count}, memory::data_type::f32, memory::format_tag::any);
      auto pd = describe(kLayoutRows, k, count, k, count, 0.0f, any);
      if (!onednn::is_jit(pd.impl_info_str())) return nullptr;
      // The file's block: columns [first, first + count) of B.
      const memory::desc file_desc({k, count}, memory::data_type::f32,
                                   b_transposed ? Dims{1, k} : Dims{n, 1});
      memory file(file_desc, engine(),
                  const_cast<float*>(weight + (b_transposed ? first * k : first)));
      memory reordered(pd.weights_desc(), engine());
      dnnl::reorder(file, reordered).execute(stream(), file, reordered);
      out->first.push_back(first);
      out->count.push_back(count);
      out->blocks.push_back(reordered);
    }
    stream().wait();
  } catch (const dnnl::error&) {
    return nullptr;
  }
  // The file's copy is not read again: its pages need not count in the process's memory.
  release_mapped_pages(b);
  return out;
}

std::shared_ptr<const MatmulPlan> make_plan(std::shared_ptr<const MatmulWeights> weights,
                                            std::int64_t m, std::int64_t k, std::int64_t lda,
                                            std::int64_t ldc, float beta, bool bias) {
  if (!weights || weights->row_counts.fetch_add(1) >= kMaxRowCounts) return nullptr;
  SingleOpenMpThread one;
  auto plan = std::make_shared<MatmulPlan>();
  try {
    for (std::size_t i = 0; i < weights->blocks.size(); ++i) {
      auto pd =
          describe(m, k, weights->count[i], lda, ldc, beta, weights->blocks[i].get_desc(), bias);
      if (!onednn::is_jit(pd.impl_info_str()) ||
          pd.weights_desc() != weights->blocks[i].get_desc()) {
        return nullptr;
      }
      plan->blocks.push_back(
          {dnnl::matmul(pd), pd.src_desc(), pd.dst_desc(), pd.scratchpad_desc()});
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
  plan->weights = std::move(weights);
  return plan;
}

// The primitives for one product by a file's weight rows: one per block of rows.
struct RowsPlan {
  struct Block {
    std::int64_t first = 0, count = 0;
    dnnl::matmul product;
    memory::desc src, weights, dst, scratchpad;
  };
  std::vector<Block> blocks;
};

std::shared_ptr<const RowsPlan> make_rows_plan(std::int64_t m, std::int64_t n, std::int64_t k,
                                               std::int64_t ldb, std::int64_t ldc,
                                               std::int64_t slices) {
  SingleOpenMpThread one;
  auto plan = std::make_shared<RowsPlan>();
  const std::int64_t per = (m + slices - 1) / slices;
  const std::int64_t step = (per + 15) / 16 * 16;
  const auto f32 = memory::data_type::f32;
  try {
    for (std::int64_t first = 0; first < m; first += step) {
      const std::int64_t count = std::min(step, m - first);
      dnnl::primitive_attr attr;
      attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
      const memory::desc src({count, k}, f32, Dims{k, 1});
      const memory::desc weights({k, n}, f32, Dims{ldb, 1});
      const memory::desc dst({count, n}, f32, Dims{ldc, 1});
      dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), attr, engine());
      if (!onednn::is_jit(pd.impl_info_str())) return nullptr;
      plan->blocks.push_back(
          {first, count, dnnl::matmul(pd), src, weights, dst, pd.scratchpad_desc()});
    }
  } catch (const dnnl::error&) {
    return nullptr;
  }
  return plan;
}

}  // namespace

bool onednn_matmul_by_file_rows(const Bytes& a, const float* b, std::int64_t ldb, std::int64_t m,
                                std::int64_t n, std::int64_t k, float* c, std::int64_t ldc,
                                const std::function<void(std::int64_t, std::int64_t)>& done) {
  if (n > kShortRows || !onednn_matmul_size(m, n, k) || a.owner() == nullptr) return false;
  const std::int64_t slices = std::clamp<std::int64_t>(
      fixed_pieces(m * n * k, kMatmulMultiplyAddsPerBlock), 1, std::max<std::int64_t>(1, m / 16));
  auto plan = weight_plans<RowsPlan>().get(
      a, {m, n, k, ldb, ldc, slices}, [&] { return make_rows_plan(m, n, k, ldb, ldc, slices); });
  if (!plan) return false;
  const auto* weight = reinterpret_cast<const float*>(a.data());
  try {
    parallel_for(static_cast<std::int64_t>(plan->blocks.size()), 1,
                 [&](std::int64_t begin, std::int64_t end) {
                   SingleOpenMpThread one;
                   thread_local onednn::Scratch scratch;
                   for (std::int64_t i = begin; i < end; ++i) {
                     const RowsPlan::Block& block = plan->blocks[static_cast<std::size_t>(i)];
                     memory src(block.src, engine(), const_cast<float*>(weight + block.first * k));
                     memory wei(block.weights, engine(), const_cast<float*>(b));
                     memory dst(block.dst, engine(), c + block.first * ldc);
                     memory pad(block.scratchpad, engine(),
                                scratch.get(block.scratchpad.get_size()));
                     {
                       // As every float32 product (gemm.h); `done` (an epilogue) keeps the
                       // caller's control, as it has unfused.
                       SubnormalOperandsAsZero subnormals;
                       block.product.execute(stream(), {{DNNL_ARG_SRC, src},
                                                        {DNNL_ARG_WEIGHTS, wei},
                                                        {DNNL_ARG_DST, dst},
                                                        {DNNL_ARG_SCRATCHPAD, pad}});
                       stream().wait();
                     }
                     done(block.first, block.count);
                   }
                 });
  } catch (const dnnl::error& e) {
    throw Error(ErrorKind::kInternal, std::string("oneDNN matmul failed: ") + e.what());
  }
  return true;
}

bool onednn_matmul_size(std::int64_t m, std::int64_t n, std::int64_t k) {
  return m >= 2 && n >= 1 && k >= 1 && m * n * k >= kMinMultiplyAdds;
}

bool onednn_matmul(const float* a, std::int64_t lda, const Bytes& b, bool b_transposed,
                   std::int64_t m, std::int64_t n, std::int64_t k, float beta, float* c,
                   std::int64_t ldc, const float* bias) {
  if (!onednn_matmul_size(m, n, k) || b.owner() == nullptr) return false;
  // Blocks of columns decided by the weight alone (a product of kLayoutRows rows by it), so a
  // weight has one layout and one set of kernels whatever the row count and thread count.
  const std::int64_t slices =
      std::clamp<std::int64_t>(fixed_pieces(kLayoutRows * n * k, kMatmulMultiplyAddsPerBlock), 1,
                               std::max<std::int64_t>(1, n / kMinColumnsPerThread));
  auto weights = weight_plans<MatmulWeights>().get(b, {b_transposed, n, k, slices}, [&] {
    return reorder_weights(b, b_transposed, n, k, slices);
  });
  if (!weights) return false;
  auto plan = weight_plans<MatmulPlan>().get(
      b,
      {b_transposed, n, k, slices, m, lda, ldc, std::bit_cast<std::int32_t>(beta), bias != nullptr},
      [&] { return make_plan(weights, m, k, lda, ldc, beta, bias != nullptr); });
  if (!plan) return false;
  try {
    parallel_for(
        static_cast<std::int64_t>(plan->blocks.size()), 1,
        [&](std::int64_t begin, std::int64_t end) {
          SingleOpenMpThread one;
          SubnormalOperandsAsZero subnormals;  // as every float32 product (gemm.h)
          thread_local onednn::Scratch scratch;
          for (std::int64_t i = begin; i < end; ++i) {
            const auto at = static_cast<std::size_t>(i);
            const MatmulPlan::Block& block = plan->blocks[at];
            memory src(block.src, engine(), const_cast<float*>(a));
            memory dst(block.dst, engine(), c + plan->weights->first[at]);
            memory pad(block.scratchpad, engine(), scratch.get(block.scratchpad.get_size()));
            std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src},
                                                    {DNNL_ARG_WEIGHTS, plan->weights->blocks[at]},
                                                    {DNNL_ARG_DST, dst},
                                                    {DNNL_ARG_SCRATCHPAD, pad}};
            if (bias != nullptr) {
              args.emplace(DNNL_ARG_BIAS,
                           memory(bias_desc(plan->weights->count[at]), engine(),
                                  const_cast<float*>(bias + plan->weights->first[at])));
            }
            block.product.execute(stream(), args);
          }
          stream().wait();
        });
  } catch (const dnnl::error& e) {
    throw Error(ErrorKind::kInternal, std::string("oneDNN matmul failed: ") + e.what());
  }
  return true;
}

std::size_t onednn_matmul_plans() {
  return weight_plans<MatmulPlan>().size() + weight_plans<RowsPlan>().size();
}

}  // namespace symbolite::ops
