// vector_math.h on 16 lanes of AVX-512F (see vector_math_isa.h).
#include <immintrin.h>

#include <sleef.h>

#include "symbolite/ops/cpu/vector_math_isa.h"

namespace symbolite::ops::vec::avx512 {
namespace {

// Applies `f` 16 lanes at a time; the tail goes through a zero-padded lane.
template <typename F>
void map16(const float* in, float* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, f(_mm512_loadu_ps(in + i)));
  if (i < n) {
    alignas(64) float lane[16] = {};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm512_store_ps(lane, f(_mm512_load_ps(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

// The same for 8 lanes of double.
template <typename F>
void map8d(const double* in, double* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm512_storeu_pd(out + i, f(_mm512_loadu_pd(in + i)));
  if (i < n) {
    alignas(64) double lane[8] = {};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm512_store_pd(lane, f(_mm512_load_pd(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

__m512 bits(int pattern) { return _mm512_castsi512_ps(_mm512_set1_epi32(pattern)); }
__m512 xor_bits(__m512 a, __m512 b) {
  return _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}
__m512 and_bits(__m512 a, __m512 b) {
  return _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_castps_si512(b)));
}

// Every lane: the zero-masked forms of the intrinsics below, whose unmasked forms GCC 12
// warns about (their undefined pass-through operand).
constexpr __mmask16 kAll = 0xffff;

// avx2::exp_onednn on 16 lanes (the same operations lane by lane).
__m512 exp_onednn(__m512 x) {
  const __mmask16 underflow = _mm512_cmp_ps_mask(x, bits(kExpLnFltMin), _CMP_LT_OS);
  x = _mm512_maskz_max_ps(kAll, _mm512_maskz_min_ps(kAll, x, bits(kExpLnFltMax)),
                          bits(kExpLnFltMin));
  const __m512 n = _mm512_maskz_roundscale_ps(
      kAll, _mm512_add_ps(_mm512_mul_ps(x, bits(kExpLog2e)), _mm512_set1_ps(0.5f)),
      _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  const __m512 r = _mm512_fnmadd_ps(n, bits(kExpLn2), x);
  __m512 scale = _mm512_castsi512_ps(_mm512_maskz_slli_epi32(
      kAll, _mm512_add_epi32(_mm512_maskz_cvtps_epi32(kAll, n), _mm512_set1_epi32(127)), 23));
  scale = _mm512_mask_blend_ps(underflow, scale, _mm512_setzero_ps());
  __m512 p = bits(kExpPoly[4]);
  for (int k = 3; k >= 0; --k) p = _mm512_fmadd_ps(p, r, bits(kExpPoly[k]));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_mul_ps(p, scale);
}

// avx2::gelu_onednn on 16 lanes.
__m512 gelu_onednn(__m512 s) {
  const __m512 sign_mask = bits(kSignMask);
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 x = _mm512_mul_ps(s, bits(kOneOverSqrt2));
  const __m512 minus_e = xor_bits(exp_onednn(xor_bits(_mm512_mul_ps(x, x), sign_mask)), sign_mask);
  const __m512 sign = and_bits(x, sign_mask);
  const __m512 abs = and_bits(x, bits(~kSignMask));
  const __m512 t = _mm512_div_ps(one, _mm512_fmadd_ps(bits(kErfP), abs, one));
  __m512 r = bits(kErfPoly[4]);
  for (int k = 3; k >= 0; --k) r = _mm512_fmadd_ps(r, t, bits(kErfPoly[k]));
  const __m512 erf = xor_bits(_mm512_fmadd_ps(_mm512_mul_ps(minus_e, t), r, one), sign);
  const __m512 half_s = _mm512_mul_ps(s, _mm512_set1_ps(0.5f));
  return _mm512_fmadd_ps(erf, half_s, half_s);
}

// The activations, one vector at a time. max(0, x) and min(6, x) in this operand order:
// VMAXPS / VMINPS return the second operand when either is NaN, so a NaN x passes through as
// in the scalar definitions (activation.h).
__m512 relu16(__m512 x) { return _mm512_maskz_max_ps(kAll, _mm512_setzero_ps(), x); }
__m512 relu6_16(__m512 x) { return _mm512_maskz_min_ps(kAll, _mm512_set1_ps(6.0f), relu16(x)); }
__m512 hardswish16(__m512 x) {
  const __m512 six = _mm512_set1_ps(6.0f);
  __m512 clamped = _mm512_maskz_min_ps(
      kAll, _mm512_maskz_max_ps(kAll, _mm512_add_ps(x, _mm512_set1_ps(3.0f)), _mm512_setzero_ps()),
      six);
  return _mm512_div_ps(_mm512_mul_ps(x, clamped), six);
}
__m512 hardsigmoid16(__m512 x) {
  const __m512 six = _mm512_set1_ps(6.0f);
  __m512 clamped = _mm512_maskz_min_ps(
      kAll, six,
      _mm512_maskz_max_ps(kAll, _mm512_setzero_ps(), _mm512_add_ps(x, _mm512_set1_ps(3.0f))));
  return _mm512_div_ps(clamped, six);
}
// e^-x as vector_math.h's kSiluMinX .. kExpTaylor say, 2^n by VSCALEFPS. VMINPS and VMAXPS
// return their second operand for a NaN, so a NaN x stays NaN.
__m512 exp_negated16(__m512 x) {
  x = _mm512_maskz_max_ps(kAll, _mm512_set1_ps(kSiluMinX),
                          _mm512_maskz_min_ps(kAll, _mm512_set1_ps(kSiluMaxX), x));
  const __m512 n = _mm512_maskz_roundscale_ps(kAll, _mm512_mul_ps(x, _mm512_set1_ps(-kLog2e)),
                                              _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m512 r = _mm512_fnmsub_ps(n, _mm512_set1_ps(kLn2High), x);  // -n ln2_high - x
  r = _mm512_fnmadd_ps(n, _mm512_set1_ps(kLn2Low), r);
  __m512 p = _mm512_set1_ps(kExpTaylor[0]);
  for (int k = 1; k < 8; ++k) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpTaylor[k]));
  return _mm512_maskz_scalef_ps(kAll, p, n);
}
__m512 silu16(__m512 x) {
  return _mm512_div_ps(x, _mm512_add_ps(_mm512_set1_ps(1.0f), exp_negated16(x)));
}

// epilogue_rows_f32 with the activation `f`, 16 lanes at a time; a row's tail in masked
// lanes. The scale and shift are vectors: one channel's broadcast, or 16 interleaved
// channels' own.
template <typename F>
void epilogue16(const Rows& r, const float* bias, bool affine, __m512 s, __m512 t, F f) {
  const __m512 b = _mm512_set1_ps(bias == nullptr ? 0.0f : *bias);
  const std::int64_t n = r.cols;
  for (std::int64_t row = 0; row < r.rows; ++row) {
    const float* in = r.in + row * r.in_pitch;
    float* out = r.out + row * r.out_pitch;
    for (std::int64_t i = 0; i < n; i += 16) {
      const __mmask16 lanes = n - i >= 16 ? kAll : static_cast<__mmask16>((1u << (n - i)) - 1);
      __m512 x = _mm512_maskz_loadu_ps(lanes, in + i);
      if (bias != nullptr) x = _mm512_add_ps(x, b);
      if (affine) x = _mm512_fmadd_ps(x, s, t);
      _mm512_mask_storeu_ps(out + i, lanes, f(x));
    }
  }
}

// epilogue_planes_f32 with the activation `f`, rows of at least 16 floats: each vector of
// the block lies in one row or straddles two, and takes each lane's row's parameters (a
// blend of two broadcasts), so every element is computed as epilogue16 computes it.
template <typename F>
void planes16(float* p, std::int64_t rows, std::int64_t cols, const float* bias, const float* scale,
              const float* shift, F f) {
  const std::int64_t n = rows * cols;
  std::int64_t row = 0;
  std::int64_t row_end = cols;  // where row `row` ends
  for (std::int64_t i = 0; i < n; i += 16) {
    const __mmask16 lanes = n - i >= 16 ? kAll : static_cast<__mmask16>((1u << (n - i)) - 1);
    // Lanes [0, k) in row `row`, the rest in the next.
    const std::int64_t k = row_end - i;
    const std::int64_t next = row + 1 < rows ? row + 1 : row;
    const __mmask16 first =
        k >= 16 ? kAll : static_cast<__mmask16>((1u << static_cast<unsigned>(k)) - 1);
    auto pick = [&](const float* v) {
      return _mm512_mask_blend_ps(first, _mm512_set1_ps(v[next]), _mm512_set1_ps(v[row]));
    };
    __m512 x = _mm512_maskz_loadu_ps(lanes, p + i);
    if (bias != nullptr) x = _mm512_add_ps(x, pick(bias));
    if (scale != nullptr) x = _mm512_fmadd_ps(x, pick(scale), pick(shift));
    _mm512_mask_storeu_ps(p + i, lanes, f(x));
    if (k <= 16) {
      row = next;
      row_end += cols;
    }
  }
}

// run(f) with the vector function of `activation` (the identity for none).
template <typename Run>
void with_activation(const Activation* activation, Run run) {
  if (activation == nullptr) return run([](__m512 x) { return x; });
  switch (*activation) {
    case Activation::kRelu:
      return run(relu16);
    case Activation::kRelu6:
      return run(relu6_16);
    case Activation::kHardswish:
      return run(hardswish16);
    case Activation::kHardsigmoid:
      return run(hardsigmoid16);
    case Activation::kSilu:
      return run(silu16);
  }
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, [](__m512 x) { return Sleef_expf16_u10avx512f(x); });
}

// SLEEF's 16-lane function for `f`.
using Sleef16 = decltype(&Sleef_logf16_u10avx512f);  // SLEEF declares a const vector result
Sleef16 sleef_function(FloatFunction f) {
  switch (f) {
    case FloatFunction::kLog:
      return Sleef_logf16_u10avx512f;
    case FloatFunction::kLog2:
      return Sleef_log2f16_u10avx512f;
    case FloatFunction::kLog10:
      return Sleef_log10f16_u10avx512f;
    case FloatFunction::kLog1p:
      return Sleef_log1pf16_u10avx512f;
    case FloatFunction::kExpm1:
      return Sleef_expm1f16_u10avx512f;
    case FloatFunction::kExp2:
      return Sleef_exp2f16_u10avx512f;
    case FloatFunction::kSin:
      return Sleef_sinf16_u10avx512f;
    case FloatFunction::kCos:
      return Sleef_cosf16_u10avx512f;
    case FloatFunction::kTan:
      return Sleef_tanf16_u10avx512f;
    case FloatFunction::kAsin:
      return Sleef_asinf16_u10avx512f;
    case FloatFunction::kAcos:
      return Sleef_acosf16_u10avx512f;
    case FloatFunction::kAtan:
      return Sleef_atanf16_u10avx512f;
    case FloatFunction::kSinh:
      return Sleef_sinhf16_u10avx512f;
    case FloatFunction::kCosh:
      return Sleef_coshf16_u10avx512f;
    case FloatFunction::kErf:
      return Sleef_erff16_u10avx512f;
    case FloatFunction::kSqrt:
    case FloatFunction::kRsqrt:
    case FloatFunction::kFloor:
    case FloatFunction::kCeil:
    case FloatFunction::kTrunc:
    case FloatFunction::kRound:
    case FloatFunction::kSquare:
      break;  // exact, not SLEEF: float_function_f32
    case FloatFunction::kErfc:
      return Sleef_erfcf16_u15avx512f;
  }
  return nullptr;  // not reached: every enumerator is handled
}

// VRNDSCALEPS to a whole number in `Mode` without the precision exception.
template <int Mode>
__m512 round16(__m512 x) {
  return _mm512_maskz_roundscale_ps(kAll, x, Mode | _MM_FROUND_NO_EXC);
}

void float_function_f32(FloatFunction f, const float* in, float* out, std::int64_t n) {
  switch (f) {
    case FloatFunction::kSqrt:
      return map16(in, out, n, [](__m512 x) { return _mm512_maskz_sqrt_ps(kAll, x); });
    case FloatFunction::kRsqrt:
      return map16(in, out, n, [](__m512 x) {
        return _mm512_div_ps(_mm512_set1_ps(1.0f), _mm512_maskz_sqrt_ps(kAll, x));
      });
    case FloatFunction::kFloor:
      return map16(in, out, n, round16<_MM_FROUND_TO_NEG_INF>);
    case FloatFunction::kCeil:
      return map16(in, out, n, round16<_MM_FROUND_TO_POS_INF>);
    case FloatFunction::kTrunc:
      return map16(in, out, n, round16<_MM_FROUND_TO_ZERO>);
    case FloatFunction::kRound:
      return map16(in, out, n, round16<_MM_FROUND_TO_NEAREST_INT>);
    case FloatFunction::kSquare:
      return map16(in, out, n, [](__m512 x) { return _mm512_mul_ps(x, x); });
    default:
      return map16(in, out, n, sleef_function(f));
  }
}

// MAXPS and MINPS return their second operand for a NaN or two zeros, as std::max(x, lo)
// and std::min(x, hi) return x.
void clamp_f32(const float* in, float* out, std::int64_t n, float lo, float hi) {
  const __m512 l = _mm512_set1_ps(lo), h = _mm512_set1_ps(hi);
  map16(in, out, n,
        [=](__m512 x) { return _mm512_maskz_min_ps(kAll, h, _mm512_maskz_max_ps(kAll, l, x)); });
}

void divide_f32(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16)
    _mm512_storeu_ps(out + i, _mm512_div_ps(_mm512_loadu_ps(a + i), _mm512_loadu_ps(b + i)));
  for (; i < n; ++i) out[i] = a[i] / b[i];
}
void divide_f32(const float* a, float divisor, float* out, std::int64_t n) {
  const __m512 d = _mm512_set1_ps(divisor);
  std::int64_t i = 0;
  for (; i + 16 <= n; i += 16) _mm512_storeu_ps(out + i, _mm512_div_ps(_mm512_loadu_ps(a + i), d));
  for (; i < n; ++i) out[i] = a[i] / divisor;
}

// The parametric activations (vector_math.h), each lane picked as the scalar definition's
// comparison picks it (false for a NaN).
void leaky_relu_f32(const float* in, float* out, std::int64_t n, float slope) {
  const __m512 k = _mm512_set1_ps(slope);
  map16(in, out, n, [k](__m512 x) {
    const __mmask16 positive = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    return _mm512_mask_blend_ps(positive, _mm512_mul_ps(x, k), x);
  });
}
void elu_f32(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
             float negiptcoef) {
  const __m512 neg = _mm512_set1_ps(negcoef), pos = _mm512_set1_ps(poscoef),
               ipt = _mm512_set1_ps(negiptcoef);
  map16(in, out, n, [=](__m512 x) {
    const __mmask16 positive = _mm512_cmp_ps_mask(x, _mm512_setzero_ps(), _CMP_GT_OQ);
    const __m512 negative = _mm512_mul_ps(
        _mm512_sub_ps(Sleef_expf16_u10avx512f(_mm512_mul_ps(x, ipt)), _mm512_set1_ps(1.0f)), neg);
    return _mm512_mask_blend_ps(positive, negative, _mm512_mul_ps(x, pos));
  });
}
void pow_f32(const float* in, float* out, std::int64_t n, float exponent) {
  const __m512 e = _mm512_set1_ps(exponent);
  map16(in, out, n, [e](__m512 x) { return Sleef_powf16_u10avx512f(x, e); });
}
void softplus_f32(const float* in, float* out, std::int64_t n, float beta, float threshold) {
  const __m512 b = _mm512_set1_ps(beta), t = _mm512_set1_ps(threshold);
  map16(in, out, n, [=](__m512 x) {
    const __m512 scaled = _mm512_mul_ps(x, b);
    const __mmask16 linear = _mm512_cmp_ps_mask(scaled, t, _CMP_GT_OQ);
    const __m512 soft =
        _mm512_div_ps(Sleef_log1pf16_u10avx512f(Sleef_expf16_u10avx512f(scaled)), b);
    return _mm512_mask_blend_ps(linear, soft, x);
  });
}
void log_sigmoid_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, [](__m512 x) {
    const __m512 magnitude = _mm512_abs_ps(x);
    const __m512 below = _mm512_maskz_min_ps(kAll, x, _mm512_setzero_ps());
    return _mm512_sub_ps(below, Sleef_log1pf16_u10avx512f(Sleef_expf16_u10avx512f(
                                    _mm512_sub_ps(_mm512_setzero_ps(), magnitude))));
  });
}
void mish_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, [](__m512 x) {
    return _mm512_mul_ps(
        x, Sleef_tanhf16_u10avx512f(Sleef_log1pf16_u10avx512f(Sleef_expf16_u10avx512f(x))));
  });
}

void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  const __m512 one = _mm512_set1_ps(1.0f);
  map16(in, out, n, [one](__m512 x) {
    __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(_mm512_setzero_ps(), x));
    return _mm512_div_ps(one, _mm512_add_ps(one, e));
  });
}

void silu_f32(const float* in, float* out, std::int64_t n) { map16(in, out, n, silu16); }

void tanh_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, [](__m512 x) { return Sleef_tanhf16_u10avx512f(x); });
}

void hardswish_f32(const float* in, float* out, std::int64_t n) { map16(in, out, n, hardswish16); }
void relu_f32(const float* in, float* out, std::int64_t n) { map16(in, out, n, relu16); }
void relu6_f32(const float* in, float* out, std::int64_t n) { map16(in, out, n, relu6_16); }
void hardsigmoid_f32(const float* in, float* out, std::int64_t n) {
  map16(in, out, n, hardsigmoid16);
}

void epilogue_rows_f32(const Rows& rows, const float* bias, const float* scale, const float* shift,
                       const Activation* activation) {
  const __m512 s = _mm512_set1_ps(scale == nullptr ? 1.0f : *scale);
  const __m512 t = _mm512_set1_ps(shift == nullptr ? 0.0f : *shift);
  with_activation(activation, [&](auto f) { epilogue16(rows, bias, scale != nullptr, s, t, f); });
}

// Rows shorter than this as one block (planes16); longer ones a row at a time,
// whose vectors need no per-lane parameters: 128K floats of 80-float rows take 16 us either
// way, of 196 (14x14) 21 us as a block and 11 row by row.
constexpr std::int64_t kMinColsRowByRow = 80;

void epilogue_planes_f32(float* p, std::int64_t rows, std::int64_t cols, const float* bias,
                         const float* scale, const float* shift, const Activation* activation) {
  with_activation(activation, [&](auto f) {
    if (cols < kMinColsRowByRow) return planes16(p, rows, cols, bias, scale, shift, f);
    for (std::int64_t r = 0; r < rows; ++r) {
      float* row = p + r * cols;
      epilogue16({row, cols, row, cols, 1, cols}, bias == nullptr ? nullptr : bias + r,
                 scale != nullptr, _mm512_set1_ps(scale == nullptr ? 1.0f : scale[r]),
                 _mm512_set1_ps(shift == nullptr ? 0.0f : shift[r]), f);
    }
  });
}

void epilogue_interleaved_f32(float* p, std::int64_t n, const float* scale, const float* shift,
                              const Activation* activation) {
  const __m512 s = scale == nullptr ? _mm512_set1_ps(1.0f) : _mm512_loadu_ps(scale);
  const __m512 t = shift == nullptr ? _mm512_setzero_ps() : _mm512_loadu_ps(shift);
  with_activation(activation, [&](auto f) {
    epilogue16({p, n, p, n, 1, n}, nullptr, scale != nullptr, s, t, f);
  });
}

void scale_rows_f32(const float* in, const float* scales, float* out, std::int64_t rows,
                    std::int64_t cols) {
  // A row's tail in masked lanes: rows of 49 (7x7) would spend half their time in map16's
  // padded lane.
  const __mmask16 tail = static_cast<__mmask16>((1u << (cols % 16)) - 1);
  for (std::int64_t r = 0; r < rows; ++r) {
    const __m512 s = _mm512_set1_ps(scales[r]);
    const float* x = in + r * cols;
    float* y = out + r * cols;
    std::int64_t i = 0;
    for (; i + 16 <= cols; i += 16)
      _mm512_storeu_ps(y + i, _mm512_mul_ps(_mm512_loadu_ps(x + i), s));
    if (i < cols) {
      _mm512_mask_storeu_ps(y + i, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, x + i), s));
    }
  }
}

void gelu_f32(const float* in, float* out, std::int64_t n) { map16(in, out, n, gelu_onednn); }

namespace {

// Lanes 0-7 and 8-15 (AVX512F has no 256-bit float extract: as doubles, zero-masked for GCC
// 12, which reports the unmasked forms' and the cast's undefined pass-through operand).
__m256 half_of(__m512 v, int which) {
  const __m512d d = _mm512_castps_pd(v);
  return _mm256_castpd_ps(which == 0 ? _mm512_maskz_extractf64x4_pd(0xF, d, 0)
                                     : _mm512_maskz_extractf64x4_pd(0xF, d, 1));
}

struct MaxAndSum {
  float max;
  float sum;
};

// The maximum of a row (NaN if it holds one) and the sum of exp(x - max), each exponential
// stored to out[i] on the way (`in` == `out` allowed), as ATen's vectorized softmax
// computes them; n > 0.
MaxAndSum max_and_exp_sum(const float* in, float* out, std::int64_t n) {
  // The tail is read padded with -inf: its lanes neither raise the maximum nor, as
  // exp(-inf - max) = 0, change the sum.
  const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff());
  const std::int64_t full = n - n % 16;
  const auto tail = static_cast<__mmask16>((1u << (n - full)) - 1u);
  __m512 top = minus_inf;
  __mmask16 nan = 0;  // MAXPS drops a NaN: they are tracked apart
  for (std::int64_t i = 0; i <= n - 1; i += 16) {
    const __m512 x =
        i < full ? _mm512_loadu_ps(in + i) : _mm512_mask_loadu_ps(minus_inf, tail, in + i);
    nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
    top = _mm512_maskz_max_ps(kAll, top, x);
  }
  alignas(64) float lane[16];
  _mm512_store_ps(lane, top);
  float max = lane[0];
  for (float v : lane) max = v > max ? v : max;
  if (nan != 0) max = __builtin_nanf("");
  const __m512 m = _mm512_set1_ps(max);
  // The sum in eight lanes, each 16-lane block's low half then its high half: the order of
  // ATen's AVX2 kernel, which Debian's PyTorch runs even where the CPU has AVX-512 ("CPU
  // capability usage: AVX2"), so the same bits as the AVX2 build here.
  __m256 sum = _mm256_setzero_ps();
  for (std::int64_t i = 0; i <= n - 1; i += 16) {
    const bool whole = i < full;
    const __m512 x =
        whole ? _mm512_loadu_ps(in + i) : _mm512_mask_loadu_ps(minus_inf, tail, in + i);
    const __m512 e = Sleef_expf16_u10avx512f(_mm512_sub_ps(x, m));
    if (whole) {
      _mm512_storeu_ps(out + i, e);
    } else {
      _mm512_mask_storeu_ps(out + i, tail, e);
    }
    sum = _mm256_add_ps(sum, half_of(e, 0));
    sum = _mm256_add_ps(sum, half_of(e, 1));
  }
  float total = 0;
  if (n < 8) {
    // ATen adds a short out's lanes in order.
    alignas(32) float eight[8];
    _mm256_store_ps(eight, sum);
    total = eight[0];
    for (std::int64_t j = 1; j < n; ++j) total += eight[j];
  } else {
    // ATen's pairwise fold: halves, pairs, neighbours.
    sum = _mm256_add_ps(sum, _mm256_permute2f128_ps(sum, sum, 0x1));
    sum = _mm256_add_ps(sum, _mm256_shuffle_ps(sum, sum, 0x4E));
    sum = _mm256_add_ps(sum, _mm256_shuffle_ps(sum, sum, 0xB1));
    total = _mm256_cvtss_f32(sum);
  }
  return {max, total};
}

}  // namespace

void softmax_row_f32(const float* in, float* out, std::int64_t n) {
  if (n <= 0) return;
  const MaxAndSum row = max_and_exp_sum(in, out, n);
  const __m512 inv = _mm512_set1_ps(1.0f / row.sum);
  map16(out, out, n, [inv](__m512 x) { return _mm512_mul_ps(x, inv); });
}

void log_softmax_row_f32(const float* in, float* out, std::int64_t n) {
  if (n <= 0) return;
  const MaxAndSum row = max_and_exp_sum(in, out, n);
  const __m512 max = _mm512_set1_ps(row.max), log_sum = _mm512_set1_ps(Sleef_logf_u10(row.sum));
  map16(in, out, n, [=](__m512 x) { return _mm512_sub_ps(_mm512_sub_ps(x, max), log_sum); });
}

void gelu_tanh_f32(const float* in, float* out, std::int64_t n) {
  const __m512 beta = _mm512_set1_ps(static_cast<float>(kGeluBeta));
  const __m512 kappa = _mm512_set1_ps(static_cast<float>(kGeluKappa));
  const __m512 half = _mm512_set1_ps(0.5f);
  const __m512 one = _mm512_set1_ps(1.0f);
  map16(in, out, n, [=](__m512 x) {
    const __m512 cube = _mm512_mul_ps(_mm512_mul_ps(x, x), x);
    const __m512 inner = _mm512_mul_ps(beta, _mm512_fmadd_ps(kappa, cube, x));
    return _mm512_mul_ps(_mm512_mul_ps(half, x),
                         _mm512_add_ps(one, Sleef_tanhf16_u10avx512f(inner)));
  });
}

void gelu_f64(const double* in, double* out, std::int64_t n) {
  const __m512d alpha = _mm512_set1_pd(kSqrtHalf);
  const __m512d half = _mm512_set1_pd(0.5);
  const __m512d one = _mm512_set1_pd(1.0);
  map8d(in, out, n, [=](__m512d x) {
    return _mm512_mul_pd(_mm512_mul_pd(x, half),
                         _mm512_add_pd(one, Sleef_erfd8_u10avx512f(_mm512_mul_pd(x, alpha))));
  });
}

void gelu_tanh_f64(const double* in, double* out, std::int64_t n) {
  const __m512d beta = _mm512_set1_pd(kGeluBeta);
  const __m512d kappa = _mm512_set1_pd(kGeluKappa);
  const __m512d half = _mm512_set1_pd(0.5);
  const __m512d one = _mm512_set1_pd(1.0);
  map8d(in, out, n, [=](__m512d x) {
    const __m512d cube = _mm512_mul_pd(_mm512_mul_pd(x, x), x);
    const __m512d inner = _mm512_mul_pd(beta, _mm512_fmadd_pd(kappa, cube, x));
    return _mm512_mul_pd(_mm512_mul_pd(half, x),
                         _mm512_add_pd(one, Sleef_tanhd8_u10avx512f(inner)));
  });
}

}  // namespace symbolite::ops::vec::avx512
