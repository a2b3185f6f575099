// vector_math.h on 8 lanes of AVX2 + FMA (see vector_math_isa.h).
#include <immintrin.h>

#include <sleef.h>

#include "symbolite/ops/cpu/vector_math_isa.h"

namespace symbolite::ops::vec::avx2 {
namespace {

// Applies `f` 8 lanes at a time; the tail goes through a zero-padded lane.
template <typename F>
void map8(const float* in, float* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, f(_mm256_loadu_ps(in + i)));
  if (i < n) {
    alignas(32) float lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm256_store_ps(lane, f(_mm256_load_ps(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

// The same for 4 lanes of double.
template <typename F>
void map4d(const double* in, double* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm256_storeu_pd(out + i, f(_mm256_loadu_pd(in + i)));
  if (i < n) {
    alignas(32) double lane[4] = {0, 0, 0, 0};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm256_store_pd(lane, f(_mm256_load_pd(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

__m256 bits(int pattern) { return _mm256_castsi256_ps(_mm256_set1_epi32(pattern)); }

// oneDNN's exp (jit_uni_eltwise_injector's exp_compute_vector_fwd): x clamped to the float
// range, 2^n * p(r) with n = floor(x log2(e) + 1/2), r = x - n ln(2) (one fma) and p of degree
// 5 by fmas; 0 below ln(FLT_MIN).
__m256 exp_onednn(__m256 x) {
  const __m256 underflow = _mm256_cmp_ps(x, bits(kExpLnFltMin), _CMP_LT_OS);
  x = _mm256_max_ps(_mm256_min_ps(x, bits(kExpLnFltMax)), bits(kExpLnFltMin));
  const __m256 n =
      _mm256_floor_ps(_mm256_add_ps(_mm256_mul_ps(x, bits(kExpLog2e)), _mm256_set1_ps(0.5f)));
  const __m256 r = _mm256_fnmadd_ps(n, bits(kExpLn2), x);
  __m256 scale = _mm256_castsi256_ps(
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23));
  scale = _mm256_blendv_ps(scale, _mm256_setzero_ps(), underflow);
  __m256 p = bits(kExpPoly[4]);
  for (int k = 3; k >= 0; --k) p = _mm256_fmadd_ps(p, r, bits(kExpPoly[k]));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  return _mm256_mul_ps(p, scale);
}

// oneDNN's gelu_erf (gelu_erf_compute_vector_fwd): x = s / sqrt(2); erf(x) by Abramowitz and
// Stegun 7.1.26 on exp_onednn; S = s / 2; S + S * erf(x) as one fma.
__m256 gelu_onednn(__m256 s) {
  const __m256 sign_mask = bits(kSignMask);
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 x = _mm256_mul_ps(s, bits(kOneOverSqrt2));
  const __m256 minus_e =
      _mm256_xor_ps(exp_onednn(_mm256_xor_ps(_mm256_mul_ps(x, x), sign_mask)), sign_mask);
  const __m256 sign = _mm256_and_ps(x, sign_mask);
  const __m256 abs = _mm256_andnot_ps(sign_mask, x);
  const __m256 t = _mm256_div_ps(one, _mm256_fmadd_ps(bits(kErfP), abs, one));
  __m256 r = bits(kErfPoly[4]);
  for (int k = 3; k >= 0; --k) r = _mm256_fmadd_ps(r, t, bits(kErfPoly[k]));
  const __m256 erf = _mm256_xor_ps(_mm256_fmadd_ps(_mm256_mul_ps(minus_e, t), r, one), sign);
  const __m256 half_s = _mm256_mul_ps(s, _mm256_set1_ps(0.5f));
  return _mm256_fmadd_ps(erf, half_s, half_s);
}

// The activations, one vector at a time. max(0, x) and min(6, x) in this operand order:
// VMAXPS / VMINPS return the second operand when either is NaN, so a NaN x passes through as
// in the scalar definitions (activation.h).
__m256 relu8(__m256 x) { return _mm256_max_ps(_mm256_setzero_ps(), x); }
__m256 relu6_8(__m256 x) { return _mm256_min_ps(_mm256_set1_ps(6.0f), relu8(x)); }
__m256 hardswish8(__m256 x) {
  const __m256 six = _mm256_set1_ps(6.0f);
  __m256 clamped = _mm256_min_ps(
      _mm256_max_ps(_mm256_add_ps(x, _mm256_set1_ps(3.0f)), _mm256_setzero_ps()), six);
  return _mm256_div_ps(_mm256_mul_ps(x, clamped), six);
}
__m256 hardsigmoid8(__m256 x) {
  const __m256 six = _mm256_set1_ps(6.0f);
  return _mm256_div_ps(_mm256_min_ps(six, _mm256_max_ps(_mm256_setzero_ps(),
                                                        _mm256_add_ps(x, _mm256_set1_ps(3.0f)))),
                       six);
}
// e^-x as vector_math.h's kSiluMinX .. kExpTaylor say, 2^n applied as 2p * 2^(n - 1), that
// power built in the exponent bits: exact, so the same bits as the AVX-512 build's VSCALEFPS.
// VMINPS and VMAXPS return their second operand for a NaN, so a NaN x stays NaN.
__m256 exp_negated8(__m256 x) {
  x = _mm256_max_ps(_mm256_set1_ps(kSiluMinX), _mm256_min_ps(_mm256_set1_ps(kSiluMaxX), x));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(-kLog2e)),
                                   _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  __m256 r = _mm256_fnmsub_ps(n, _mm256_set1_ps(kLn2High), x);  // -n ln2_high - x
  r = _mm256_fnmadd_ps(n, _mm256_set1_ps(kLn2Low), r);
  __m256 p = _mm256_set1_ps(kExpTaylor[0]);
  for (int k = 1; k < 8; ++k) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpTaylor[k]));
  const __m256i exponent =
      _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(126)), 23);
  return _mm256_mul_ps(_mm256_add_ps(p, p), _mm256_castsi256_ps(exponent));
}
__m256 silu8(__m256 x) {
  return _mm256_div_ps(x, _mm256_add_ps(_mm256_set1_ps(1.0f), exp_negated8(x)));
}

// epilogue_rows_f32 with the activation `f`, 8 lanes at a time. The scale and shift are
// vectors: one channel's broadcast, or 8 interleaved channels' own.
template <typename F>
void epilogue8(const Rows& r, const float* bias, bool affine, __m256 s, __m256 t, F f) {
  const __m256 b = _mm256_set1_ps(bias == nullptr ? 0.0f : *bias);
  for (std::int64_t row = 0; row < r.rows; ++row) {
    map8(r.in + row * r.in_pitch, r.out + row * r.out_pitch, r.cols, [&](__m256 x) {
      if (bias != nullptr) x = _mm256_add_ps(x, b);
      if (affine) x = _mm256_fmadd_ps(x, s, t);
      return f(x);
    });
  }
}

// run(f) with the vector function of `activation` (the identity for none). Each a lambda of
// its own type, so that run's loop is instantiated per activation with it inlined: passed as
// function pointers, all shared one instantiation calling through the pointer per vector
// (epilogue8 and hardswish8 were 8 % of MobileNetV3-Small's run on a Zen 3 EPYC).
template <typename Run>
void with_activation(const Activation* activation, Run run) {
  if (activation == nullptr) return run([](__m256 x) { return x; });
  switch (*activation) {
    case Activation::kRelu:
      return run([](__m256 x) { return relu8(x); });
    case Activation::kRelu6:
      return run([](__m256 x) { return relu6_8(x); });
    case Activation::kHardswish:
      return run([](__m256 x) { return hardswish8(x); });
    case Activation::kHardsigmoid:
      return run([](__m256 x) { return hardsigmoid8(x); });
    case Activation::kSilu:
      return run([](__m256 x) { return silu8(x); });
  }
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) {
  map8(in, out, n, [](__m256 x) { return Sleef_expf8_u10avx2(x); });
}

// SLEEF's 8-lane function for `f`.
using Sleef8 = decltype(&Sleef_logf8_u10avx2);  // SLEEF declares a const vector result
Sleef8 sleef_function(FloatFunction f) {
  switch (f) {
    case FloatFunction::kLog:
      return Sleef_logf8_u10avx2;
    case FloatFunction::kLog2:
      return Sleef_log2f8_u10avx2;
    case FloatFunction::kLog10:
      return Sleef_log10f8_u10avx2;
    case FloatFunction::kLog1p:
      return Sleef_log1pf8_u10avx2;
    case FloatFunction::kExpm1:
      return Sleef_expm1f8_u10avx2;
    case FloatFunction::kExp2:
      return Sleef_exp2f8_u10avx2;
    case FloatFunction::kSin:
      return Sleef_sinf8_u10avx2;
    case FloatFunction::kCos:
      return Sleef_cosf8_u10avx2;
    case FloatFunction::kTan:
      return Sleef_tanf8_u10avx2;
    case FloatFunction::kAsin:
      return Sleef_asinf8_u10avx2;
    case FloatFunction::kAcos:
      return Sleef_acosf8_u10avx2;
    case FloatFunction::kAtan:
      return Sleef_atanf8_u10avx2;
    case FloatFunction::kSinh:
      return Sleef_sinhf8_u10avx2;
    case FloatFunction::kCosh:
      return Sleef_coshf8_u10avx2;
    case FloatFunction::kErf:
      return Sleef_erff8_u10avx2;
    case FloatFunction::kSqrt:
    case FloatFunction::kRsqrt:
    case FloatFunction::kFloor:
    case FloatFunction::kCeil:
    case FloatFunction::kTrunc:
    case FloatFunction::kRound:
    case FloatFunction::kSquare:
      break;  // exact, not SLEEF: float_function_f32
    case FloatFunction::kErfc:
      return Sleef_erfcf8_u15avx2;
  }
  return nullptr;  // not reached: every enumerator is handled
}

// VROUNDPS to a whole number in `Mode` without the precision exception.
template <int Mode>
__m256 round8(__m256 x) {
  return _mm256_round_ps(x, Mode | _MM_FROUND_NO_EXC);
}

void float_function_f32(FloatFunction f, const float* in, float* out, std::int64_t n) {
  switch (f) {
    case FloatFunction::kSqrt:
      return map8(in, out, n, [](__m256 x) { return _mm256_sqrt_ps(x); });
    case FloatFunction::kRsqrt:
      return map8(in, out, n,
                  [](__m256 x) { return _mm256_div_ps(_mm256_set1_ps(1.0f), _mm256_sqrt_ps(x)); });
    case FloatFunction::kFloor:
      return map8(in, out, n, round8<_MM_FROUND_TO_NEG_INF>);
    case FloatFunction::kCeil:
      return map8(in, out, n, round8<_MM_FROUND_TO_POS_INF>);
    case FloatFunction::kTrunc:
      return map8(in, out, n, round8<_MM_FROUND_TO_ZERO>);
    case FloatFunction::kRound:
      return map8(in, out, n, round8<_MM_FROUND_TO_NEAREST_INT>);
    case FloatFunction::kSquare:
      return map8(in, out, n, [](__m256 x) { return _mm256_mul_ps(x, x); });
    default:
      return map8(in, out, n, sleef_function(f));
  }
}

// MAXPS and MINPS return their second operand for a NaN or two zeros, as std::max(x, lo)
// and std::min(x, hi) return x.
void clamp_f32(const float* in, float* out, std::int64_t n, float lo, float hi) {
  const __m256 l = _mm256_set1_ps(lo), h = _mm256_set1_ps(hi);
  map8(in, out, n, [=](__m256 x) { return _mm256_min_ps(h, _mm256_max_ps(l, x)); });
}

void divide_f32(const float* a, const float* b, float* out, std::int64_t n) {
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    _mm256_storeu_ps(out + i, _mm256_div_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(b + i)));
  for (; i < n; ++i) out[i] = a[i] / b[i];
}
void divide_f32(const float* a, float divisor, float* out, std::int64_t n) {
  const __m256 d = _mm256_set1_ps(divisor);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_div_ps(_mm256_loadu_ps(a + i), d));
  for (; i < n; ++i) out[i] = a[i] / divisor;
}

// The parametric activations (vector_math.h), each lane picked as the scalar definition's
// comparison picks it (false for a NaN).
void leaky_relu_f32(const float* in, float* out, std::int64_t n, float slope) {
  const __m256 k = _mm256_set1_ps(slope);
  map8(in, out, n, [k](__m256 x) {
    const __m256 positive = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ);
    return _mm256_blendv_ps(_mm256_mul_ps(x, k), x, positive);
  });
}
void elu_f32(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
             float negiptcoef) {
  const __m256 neg = _mm256_set1_ps(negcoef), pos = _mm256_set1_ps(poscoef),
               ipt = _mm256_set1_ps(negiptcoef);
  map8(in, out, n, [=](__m256 x) {
    const __m256 positive = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_GT_OQ);
    const __m256 negative = _mm256_mul_ps(
        _mm256_sub_ps(Sleef_expf8_u10avx2(_mm256_mul_ps(x, ipt)), _mm256_set1_ps(1.0f)), neg);
    return _mm256_blendv_ps(negative, _mm256_mul_ps(x, pos), positive);
  });
}
void pow_f32(const float* in, float* out, std::int64_t n, float exponent) {
  const __m256 e = _mm256_set1_ps(exponent);
  map8(in, out, n, [e](__m256 x) { return Sleef_powf8_u10avx2(x, e); });
}
void softplus_f32(const float* in, float* out, std::int64_t n, float beta, float threshold) {
  const __m256 b = _mm256_set1_ps(beta), t = _mm256_set1_ps(threshold);
  map8(in, out, n, [=](__m256 x) {
    const __m256 scaled = _mm256_mul_ps(x, b);
    const __m256 linear = _mm256_cmp_ps(scaled, t, _CMP_GT_OQ);
    const __m256 soft = _mm256_div_ps(Sleef_log1pf8_u10avx2(Sleef_expf8_u10avx2(scaled)), b);
    return _mm256_blendv_ps(soft, x, linear);
  });
}
void log_sigmoid_f32(const float* in, float* out, std::int64_t n) {
  const __m256 sign_mask = _mm256_set1_ps(-0.0f);
  map8(in, out, n, [sign_mask](__m256 x) {
    const __m256 negative_magnitude = _mm256_or_ps(sign_mask, x);
    const __m256 below = _mm256_min_ps(x, _mm256_setzero_ps());
    return _mm256_sub_ps(below, Sleef_log1pf8_u10avx2(Sleef_expf8_u10avx2(negative_magnitude)));
  });
}
void mish_f32(const float* in, float* out, std::int64_t n) {
  map8(in, out, n, [](__m256 x) {
    return _mm256_mul_ps(x, Sleef_tanhf8_u10avx2(Sleef_log1pf8_u10avx2(Sleef_expf8_u10avx2(x))));
  });
}

void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  const __m256 one = _mm256_set1_ps(1.0f);
  map8(in, out, n, [one](__m256 x) {
    __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(_mm256_setzero_ps(), x));
    return _mm256_div_ps(one, _mm256_add_ps(one, e));
  });
}

void silu_f32(const float* in, float* out, std::int64_t n) { map8(in, out, n, silu8); }

void tanh_f32(const float* in, float* out, std::int64_t n) {
  map8(in, out, n, [](__m256 x) { return Sleef_tanhf8_u10avx2(x); });
}

void hardswish_f32(const float* in, float* out, std::int64_t n) { map8(in, out, n, hardswish8); }
void relu_f32(const float* in, float* out, std::int64_t n) { map8(in, out, n, relu8); }
void relu6_f32(const float* in, float* out, std::int64_t n) { map8(in, out, n, relu6_8); }
void hardsigmoid_f32(const float* in, float* out, std::int64_t n) {
  map8(in, out, n, hardsigmoid8);
}

void epilogue_rows_f32(const Rows& rows, const float* bias, const float* scale, const float* shift,
                       const Activation* activation) {
  const __m256 s = _mm256_set1_ps(scale == nullptr ? 1.0f : *scale);
  const __m256 t = _mm256_set1_ps(shift == nullptr ? 0.0f : *shift);
  with_activation(activation, [&](auto f) { epilogue8(rows, bias, scale != nullptr, s, t, f); });
}

void epilogue_interleaved_f32(float* p, std::int64_t n, const float* scale, const float* shift,
                              const Activation* activation) {
  const __m256 s = scale == nullptr ? _mm256_set1_ps(1.0f) : _mm256_loadu_ps(scale);
  const __m256 t = shift == nullptr ? _mm256_setzero_ps() : _mm256_loadu_ps(shift);
  with_activation(activation, [&](auto f) {
    epilogue8({p, n, p, n, 1, n}, nullptr, scale != nullptr, s, t, f);
  });
}

void scale_rows_f32(const float* in, const float* scales, float* out, std::int64_t rows,
                    std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const __m256 s = _mm256_set1_ps(scales[r]);
    map8(in + r * cols, out + r * cols, cols, [&](__m256 x) { return _mm256_mul_ps(x, s); });
  }
}

void gelu_f32(const float* in, float* out, std::int64_t n) { map8(in, out, n, gelu_onednn); }

namespace {

struct MaxAndSum {
  float max;
  float sum;
};

// The maximum of a row (NaN if it holds one) and the sum of exp(x - max), each exponential
// stored to out[i] on the way (`in` == `out` allowed), as ATen's vectorized softmax
// computes them; n > 0.
MaxAndSum max_and_exp_sum(const float* in, float* out, std::int64_t n) {
  // The tail goes through a lane padded with -inf: it neither raises the maximum nor, as
  // exp(-inf - max) = 0, changes the sum.
  const std::int64_t full = n - n % 8;
  alignas(32) float lane[8];
  for (float& v : lane) v = -__builtin_inff();
  for (std::int64_t j = full; j < n; ++j) lane[j - full] = in[j];
  const auto load = [&](std::int64_t i) {
    return i < full ? _mm256_loadu_ps(in + i) : _mm256_load_ps(lane);
  };
  __m256 top = _mm256_set1_ps(-__builtin_inff());
  __m256 nan = _mm256_setzero_ps();  // MAXPS drops a NaN: they are tracked apart
  for (std::int64_t i = 0; i <= n - 1; i += 8) {
    const __m256 x = load(i);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    top = _mm256_max_ps(top, x);
  }
  alignas(32) float tops[8];
  _mm256_store_ps(tops, top);
  float max = tops[0];
  for (float v : tops) max = v > max ? v : max;
  if (_mm256_movemask_ps(nan) != 0) max = __builtin_nanf("");
  const __m256 m = _mm256_set1_ps(max);
  __m256 sum = _mm256_setzero_ps();
  for (std::int64_t i = 0; i <= n - 1; i += 8) {
    const __m256 e = Sleef_expf8_u10avx2(_mm256_sub_ps(load(i), m));
    if (i < full) {
      _mm256_storeu_ps(out + i, e);
    } else {
      _mm256_store_ps(lane, e);
      for (std::int64_t j = full; j < n; ++j) out[j] = lane[j - full];
    }
    sum = _mm256_add_ps(sum, e);
  }
  float total = 0;
  if (n < 8) {
    // ATen adds a short out's lanes in order.
    _mm256_store_ps(lane, sum);
    total = lane[0];
    for (std::int64_t j = 1; j < n; ++j) total += lane[j];
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
  const __m256 inv = _mm256_set1_ps(1.0f / row.sum);
  map8(out, out, n, [inv](__m256 x) { return _mm256_mul_ps(x, inv); });
}

void log_softmax_row_f32(const float* in, float* out, std::int64_t n) {
  if (n <= 0) return;
  const MaxAndSum row = max_and_exp_sum(in, out, n);
  const __m256 max = _mm256_set1_ps(row.max), log_sum = _mm256_set1_ps(Sleef_logf_u10(row.sum));
  map8(in, out, n, [=](__m256 x) { return _mm256_sub_ps(_mm256_sub_ps(x, max), log_sum); });
}

void gelu_tanh_f32(const float* in, float* out, std::int64_t n) {
  const __m256 beta = _mm256_set1_ps(static_cast<float>(kGeluBeta));
  const __m256 kappa = _mm256_set1_ps(static_cast<float>(kGeluKappa));
  const __m256 half = _mm256_set1_ps(0.5f);
  const __m256 one = _mm256_set1_ps(1.0f);
  map8(in, out, n, [=](__m256 x) {
    const __m256 cube = _mm256_mul_ps(_mm256_mul_ps(x, x), x);
    const __m256 inner = _mm256_mul_ps(beta, _mm256_fmadd_ps(kappa, cube, x));
    return _mm256_mul_ps(_mm256_mul_ps(half, x), _mm256_add_ps(one, Sleef_tanhf8_u10avx2(inner)));
  });
}

void gelu_f64(const double* in, double* out, std::int64_t n) {
  const __m256d alpha = _mm256_set1_pd(kSqrtHalf);
  const __m256d half = _mm256_set1_pd(0.5);
  const __m256d one = _mm256_set1_pd(1.0);
  map4d(in, out, n, [=](__m256d x) {
    return _mm256_mul_pd(_mm256_mul_pd(x, half),
                         _mm256_add_pd(one, Sleef_erfd4_u10avx2(_mm256_mul_pd(x, alpha))));
  });
}

void gelu_tanh_f64(const double* in, double* out, std::int64_t n) {
  const __m256d beta = _mm256_set1_pd(kGeluBeta);
  const __m256d kappa = _mm256_set1_pd(kGeluKappa);
  const __m256d half = _mm256_set1_pd(0.5);
  const __m256d one = _mm256_set1_pd(1.0);
  map4d(in, out, n, [=](__m256d x) {
    const __m256d cube = _mm256_mul_pd(_mm256_mul_pd(x, x), x);
    const __m256d inner = _mm256_mul_pd(beta, _mm256_fmadd_pd(kappa, cube, x));
    return _mm256_mul_pd(_mm256_mul_pd(half, x), _mm256_add_pd(one, Sleef_tanhd4_u10avx2(inner)));
  });
}

}  // namespace symbolite::ops::vec::avx2
