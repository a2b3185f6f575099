// Float32 products whose right-hand matrix is read-only weight bytes of a model file — a
// linear layer's weight, a matmul by a parameter — on oneDNN's matmul primitive with the
// weights reordered once into its blocked layout (kept in weight_plan_cache.h while the file
// is mapped) rather than oneDNN's sgemm, which packs B again on every call. Transformer
// shapes (M = 49-784 rows) run 1.15-1.6x faster this way (docs/PERFORMANCE.md). Products by
// other matrices keep gemm.h's sgemm.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "symbolite/support/bytes.h"

namespace symbolite::ops {

// c (m x n, rows ldc apart) = a (m x k, rows lda apart) · B + beta * c [+ bias], where B
// (k x n) is `b`: stored n x k row-major when `b_transposed` (a linear layer's weight), else
// k x n; `bias` (n floats, or null) is added to every row after the product, as addmm adds
// its input. With beta == 0, c is not read. Returns false, having written nothing, when it
// does not take the product: one row (gemv.h's), small ones, no JIT kernel, or more shapes for
// this weight than are worth a kernel each.
bool onednn_matmul(const float* a, std::int64_t lda, const Bytes& b, bool b_transposed,
                   std::int64_t m, std::int64_t n, std::int64_t k, float beta, float* c,
                   std::int64_t ldc, const float* bias = nullptr);

// Whether a product of this size is one onednn_matmul may take (it still declines where
// oneDNN has no JIT kernel): callers ask before allocating for it.
bool onednn_matmul_size(std::int64_t m, std::int64_t n, std::int64_t k);

// c (m x n, rows ldc apart) = A · b, where A (m x k, row-major) is `a`, read-only weight
// bytes of a model file read where they are (a 1x1 convolution's weight, the left side of
// its product), and b (k x n, rows ldb apart) the activations. For short rows (n up to
// kShortRows: a 7x7 image) oneDNN's matmul primitive reads the weights in place where sgemm
// packs them again on every call: 5-18 % faster on MobileNet's, EfficientNet's and ResNet's
// last-stage 1x1s (docs/PERFORMANCE.md). Rows of c go to the threads in blocks of 16;
// `done(first, count)` runs on the thread that wrote rows [first, first + count), right after
// (a convolution's epilogue, while they are in cache). Returns false, having written
// nothing, when it does not take the product (longer rows, small products, no JIT kernel).
constexpr std::int64_t kShortRows = 64;
bool onednn_matmul_by_file_rows(const Bytes& a, const float* b, std::int64_t ldb, std::int64_t m,
                                std::int64_t n, std::int64_t k, float* c, std::int64_t ldc,
                                const std::function<void(std::int64_t, std::int64_t)>& done);

// Primitives kept now (one per product shape seen with a mapped weight): for tests.
std::size_t onednn_matmul_plans();

}  // namespace symbolite::ops
