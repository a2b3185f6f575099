// Vectorized float32 math over contiguous arrays, using SLEEF (Debian's libsleef, the
// library PyTorch's own CPU kernels vectorize with) with its 1.0-ULP functions, so results
// agree with PyTorch's vectorized kernels to rounding (SiLU's exp is inline, below, as
// accurate but not always the same bits): 16 lanes of AVX-512 or 8 of AVX2
// where the CPU has them (vector_math_isa.h), else 4 of SSE2, the x86-64 baseline.
// Remainders are computed with the same functions on a padded lane.
#pragma once

#include <cstdint>

#include "symbolite/ops/common/activation_kind.h"

namespace symbolite::ops::vec {

// GELU's constants as PyTorch 1.13 spells them: M_SQRT1_2; M_SQRT2 * M_2_SQRTPI * 0.5, which
// is sqrt(2 / pi); 0.044715. Float kernels round them to float.
constexpr double kSqrtHalf = 0.707106781186547524401;
constexpr double kGeluBeta = 1.41421356237309504880 * 1.12837916709551257390 * 0.5;
constexpr double kGeluKappa = 0.044715;

// oneDNN's constants for its exp and gelu_erf (jit_uni_eltwise_injector.cpp), as float bits.
constexpr int kSignMask = static_cast<int>(0x80000000u);
constexpr int kExpLog2e = 0x3fb8aa3b;                        // 1.44269502f
constexpr int kExpLn2 = 0x3f317218;                          // 0.693147182f
constexpr int kExpLnFltMax = 0x42b17218;                     // logf(FLT_MAX)
constexpr int kExpLnFltMin = static_cast<int>(0xc2aeac50u);  // logf(FLT_MIN)
// p1 .. p5 of exp's polynomial (p0 = 1).
constexpr int kExpPoly[5] = {0x3f7ffffb, 0x3efffee3, 0x3e2aad40, 0x3d2b9d0d, 0x3c07cfce};
constexpr int kOneOverSqrt2 = 0x3f3504f3;  // 0.707106769f
constexpr int kErfP = 0x3ea7ba05;          // 0.3275911f
// a1 .. a5 of Abramowitz and Stegun 7.1.26.
constexpr int kErfPoly[5] = {0x3e827906, static_cast<int>(0xbe91a98eu), 0x3fb5f0e3,
                             static_cast<int>(0xbfba00e3u), 0x3f87dc22};

// SiLU's exp(-x), inline in the AVX2 and AVX-512 builds rather than SLEEF's out-of-line
// call, which took a third of EfficientNet-B0's convolution epilogues: e^-x = 2^n e^r with
// n = round(-x log2 e) and r = -x - n ln 2 (ln 2 in two parts, the first exact in 16 bits),
// e^r by its Taylor polynomial of degree 7 (|r| <= ln 2 / 2), and 2^n applied exactly. x is
// clamped to [kSiluMinX, kSiluMaxX] first, which keeps n in [-125, 128]: 2^(n - 1) is a
// normal float, e^-x overflows to infinity where expf's does (x below -88.72, so
// silu(-inf) is NaN as PyTorch's), and above 86.6 e^-x is below 3e-38, nothing next to 1.
// x / (1 + exp(-x)) is within 2 ulp of its exact value, as with SLEEF's exp (every 97th float
// bit pattern checked, docs/PERFORMANCE.md), the same bits on both builds; 0.3 % of results
// differ from PyTorch's by 1-2 ulp (README: where symbolite differs).
constexpr float kSiluMinX = -89.0f;
constexpr float kSiluMaxX = 86.6f;
constexpr float kLog2e = 1.44269504088896341f;
constexpr float kLn2High = 0.693145751953125f;  // 0x3f317200
constexpr float kLn2Low = 1.428606765330187e-06f;
// 1 / k! for k = 7 down to 0: Horner's order.
constexpr float kExpTaylor[8] = {1.0f / 5040, 1.0f / 720, 1.0f / 120, 1.0f / 24,
                                 1.0f / 6,    0.5f,       1.0f,       1.0f};

void exp_f32(const float* in, float* out, std::int64_t n);
void sigmoid_f32(const float* in, float* out, std::int64_t n);  // 1 / (1 + exp(-x))
void silu_f32(const float* in, float* out, std::int64_t n);     // x / (1 + exp(-x)), above
void tanh_f32(const float* in, float* out, std::int64_t n);
// x * min(max(x + 3, 0), 6) / 6, as PyTorch's vectorized kernel computes it (no SLEEF).
void hardswish_f32(const float* in, float* out, std::int64_t n);
// x < 0 ? 0 : x (NaN and -0.0 pass through, as PyTorch's clamp_min keeps them).
void relu_f32(const float* in, float* out, std::int64_t n);
// min(max(x, 0), 6): ReLU6, hardtanh(x, 0, 6) (a NaN passes through).
void relu6_f32(const float* in, float* out, std::int64_t n);
// min(max(x + 3, 0), 6) / 6 with std::max and std::min's NaN handling (a NaN passes through).
void hardsigmoid_f32(const float* in, float* out, std::int64_t n);
// out[i] = a[i] / b[i], and out[i] = a[i] / divisor: IEEE division, the bits of the scalar
// loop (`out` may be `a` or `b`), split across threads.
void divide_f32(const float* a, const float* b, float* out, std::int64_t n);
void divide_f32(const float* a, float divisor, float* out, std::int64_t n);
// The unary float functions PyTorch 1.13's vectorized kernels take from SLEEF (Vectorized<float>:
// log, log2, ..., erfc), in float32 with the same functions (1 ulp; erfc 1.5), and sqrt and
// 1 / sqrt in IEEE arithmetic (the bits of the scalar std::sqrt), the roundings to whole
// numbers and the square exactly, split across threads.
enum class FloatFunction {
  kLog,
  kLog2,
  kLog10,
  kLog1p,
  kExpm1,
  kExp2,
  kSin,
  kCos,
  kTan,
  kAsin,
  kAcos,
  kAtan,
  kSinh,
  kCosh,
  kErf,
  kErfc,
  kSqrt,
  kRsqrt,
  kFloor,
  kCeil,
  kTrunc,
  kRound,  // halves to even, as std::nearbyint in the default rounding mode
  kSquare  // x * x: pow(x, 2)
};
void float_function_f32(FloatFunction f, const float* in, float* out, std::int64_t n);
// Activations with parameters, as PyTorch 1.13's vectorized kernels compute them in float32
// (the parameters as floats; SLEEF's functions of 1 ulp), split across threads:
// leaky_relu: x > 0 ? x : x * slope (prelu the same, a slope a channel).
void leaky_relu_f32(const float* in, float* out, std::int64_t n, float slope);
// elu / celu / selu: x > 0 ? x * poscoef : (exp(x * negiptcoef) - 1) * negcoef (PyTorch 1.13's
// bits: not expm1, which its later versions take).
void elu_f32(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
             float negiptcoef);
// pow: x ** exponent on SLEEF's powf (1 ulp), as PyTorch's vectorized kernel for exponents
// other than its special ones (2, 3, 0.5, -0.5, -1, -2, which it computes by products,
// square roots and divisions).
void pow_f32(const float* in, float* out, std::int64_t n, float exponent);
// softplus: x * beta > threshold ? x : log1p(exp(x * beta)) / beta.
void softplus_f32(const float* in, float* out, std::int64_t n, float beta, float threshold);
// mish: x * tanh(log1p(exp(x))).
void mish_f32(const float* in, float* out, std::int64_t n);
// log_sigmoid: min(x, 0) - log1p(exp(-|x|)).
void log_sigmoid_f32(const float* in, float* out, std::int64_t n);
// clamp: min(max(x, lo), hi) with std::max's and std::min's NaN and signed-zero results (a NaN
// passes through; -inf / +inf for a missing bound).
void clamp_f32(const float* in, float* out, std::int64_t n, float lo, float hi);
// A convolution's epilogue on one row of its output, on the calling thread: p[i] += *bias;
// then p[i] = p[i] * *scale + *shift (as batch norm computes it, scale_shift.h: one FMA with
// AVX2 or AVX-512, a multiply then an add without); then the activation, as the functions
// above compute it. Each step only when given (adding 0 would turn -0.0 into 0.0).
void epilogue_f32(float* p, std::int64_t n, const float* bias, const float* scale,
                  const float* shift, const Activation* activation);
// `rows` rows of `cols` floats, `in_pitch` floats apart from `in` and `out_pitch` apart from
// `out` (`in` == `out` with equal pitches for in place).
struct Rows {
  const float* in;
  std::int64_t in_pitch;
  float* out;
  std::int64_t out_pitch;
  std::int64_t rows;
  std::int64_t cols;
};
// epilogue_f32 from rows.in to rows.out in one pass: a plane computed with a wider row pitch
// than its tensor's, moved into place and finished (ops/cpu/grouped_by_plane.h).
void epilogue_rows_f32(const Rows& rows, const float* bias, const float* scale, const float* shift,
                       const Activation* activation);
// epilogue_f32 on `rows` consecutive rows of `cols` floats from `p` (row r at p + r * cols),
// row r with its own bias[r], scale[r], shift[r] (each array null for none; scale and shift
// both or neither): the same bits as a call per row. With AVX-512 and rows of 16 to 79
// floats, one pass over the block whose vectors may straddle two rows (a call per 7x7 plane
// cost three times the work itself).
void epilogue_planes_f32(float* p, std::int64_t rows, std::int64_t cols, const float* bias,
                         const float* scale, const float* shift, const Activation* activation);
// Row r of `rows` rows of `cols` floats, back to back from `in`, times scales[r], into the
// same place from `out` (`in` == `out` for in place): an SE block's x * scale[N, C, 1, 1]. One
// multiply an element, so the bits of the elementwise loop.
void scale_rows_f32(const float* in, const float* scales, float* out, std::int64_t rows,
                    std::int64_t cols);
// The float32 lanes of this CPU's vectors here: 16 (AVX-512), 8 (AVX2) or 4.
std::int64_t lanes_f32();
// epilogue_f32 without a bias on channels interleaved into vector lanes (ops/cpu/
// depthwise_interleaved.h): element i is channel i % lanes_f32(), with scale and shift
// (lanes_f32() values each, or null for none) at that index. The same bits as epilogue_f32
// on the channels' planes; n is a multiple of lanes_f32().
void epilogue_interleaved_f32(float* p, std::int64_t n, const float* scale, const float* shift,
                              const Activation* activation);
// GELU as PyTorch 1.13 computes it on a contiguous tensor (see elementwise_ops.cpp for the
// elements it leaves to a scalar loop). gelu_f32: oneDNN's eltwise gelu_erf, which PyTorch
// calls for float32 (Abramowitz and Stegun's erf of s / sqrt(2) on oneDNN's own exp, then
// S + S * erf with S = s / 2 as one fma). gelu_f64: ATen's vectorized kernel,
// x * 0.5 * (1 + erf(x * M_SQRT1_2)) with SLEEF's erf. The tanh forms: ATen's,
// 0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) on SLEEF's tanh.
void gelu_f32(const float* in, float* out, std::int64_t n);
// Softmax of one contiguous row (`in` == `out` for in place), on the calling thread, as PyTorch
// 1.13's vectorized last-dimension softmax computes it: the maximum (a NaN propagates),
// exp(x - max), their sum in vector lanes added pairwise at the end (ATen's reduce_all), each
// times 1 / sum.
void softmax_row_f32(const float* in, float* out, std::int64_t n);
// log_softmax of one contiguous row, `in` != `out`: the maximum and sum of exponentials
// computed as softmax_row_f32 computes them, then x - max - log(sum).
void log_softmax_row_f32(const float* in, float* out, std::int64_t n);
void gelu_tanh_f32(const float* in, float* out, std::int64_t n);
void gelu_f64(const double* in, double* out, std::int64_t n);
void gelu_tanh_f64(const double* in, double* out, std::int64_t n);

}  // namespace symbolite::ops::vec
