// Float32 products by read-only weight bytes of a model file (a linear layer's weight, a matmul
// by a parameter) on CPUs with AVX2 but no AVX-512, where oneDNN 2.6 has no JIT matmul
// (onednn_matmul.h declines) and its sgemm packs the weights again on every call: the weights
// packed once per file into blocks of 24 output columns (kept in weight_plan_cache.h while the
// file is mapped), and each tile of 4 rows by 24 columns summed in registers. A transformer's
// linears run on it (docs/PERFORMANCE.md).
#pragma once

#include <cstdint>

#include "symbolite/support/bytes.h"

namespace symbolite::ops {

// c (m x n, rows ldc apart) = a (m x k, rows lda apart) · B + beta * c [+ bias], where B
// (k x n) is `b`: stored n x k row-major when `b_transposed` (a linear layer's weight), else
// k x n; `bias` (n floats, or null) is added to every row last. Every output is its k
// products added in order by fused multiply-adds from zero, then beta * c added (fused), then
// the bias: the same bits at every thread count. With beta == 0, c is not read. Returns
// false, having written nothing, when it does not take the product: a CPU with AVX-512 or
// without AVX2 and FMA, one row (gemv.h's), a small product, or weights without an owner.
bool packed_weight_product(const float* a, std::int64_t lda, const Bytes& b, bool b_transposed,
                           std::int64_t m, std::int64_t n, std::int64_t k, float beta, float* c,
                           std::int64_t ldc, const float* bias = nullptr);

// Packed weights kept now (one per weight seen): for tests.
std::size_t packed_weight_plans();

}  // namespace symbolite::ops
