#include "symbolite/ops/cpu/vector_math.h"

#include <emmintrin.h>

#include <algorithm>
#include <bit>
#include <cmath>

#include <sleef.h>

#include "symbolite/ops/cpu/vector_math_isa.h"
#include "symbolite/support/parallel_for.h"

namespace symbolite::ops::vec {
namespace {

// Applies `f` (4 lanes at a time) over [0, n); the tail goes through a zero-padded lane.
template <typename F>
void map4(const float* in, float* out, std::int64_t n, F f) {
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) _mm_storeu_ps(out + i, f(_mm_loadu_ps(in + i)));
  if (i < n) {
    alignas(16) float lane[4] = {0, 0, 0, 0};
    for (std::int64_t j = i; j < n; ++j) lane[j - i] = in[j];
    _mm_store_ps(lane, f(_mm_load_ps(lane)));
    for (std::int64_t j = i; j < n; ++j) out[j] = lane[j - i];
  }
}

// The activations, one vector at a time. max(0, x) and min(6, x) in this operand order:
// MAXPS / MINPS return the second operand when either is NaN, so a NaN x passes through as
// in the scalar definitions (activation.h).
__m128 relu4(__m128 x) { return _mm_max_ps(_mm_setzero_ps(), x); }
__m128 relu6_4(__m128 x) { return _mm_min_ps(_mm_set1_ps(6.0f), relu4(x)); }
__m128 hardswish4(__m128 x) {
  const __m128 six = _mm_set1_ps(6.0f);
  __m128 clamped = _mm_min_ps(_mm_max_ps(_mm_add_ps(x, _mm_set1_ps(3.0f)), _mm_setzero_ps()), six);
  return _mm_div_ps(_mm_mul_ps(x, clamped), six);
}
__m128 hardsigmoid4(__m128 x) {
  const __m128 six = _mm_set1_ps(6.0f);
  return _mm_div_ps(_mm_min_ps(six, _mm_max_ps(_mm_setzero_ps(), _mm_add_ps(x, _mm_set1_ps(3.0f)))),
                    six);
}
__m128 silu4(__m128 x) {
  __m128 e = Sleef_expf4_u10(_mm_sub_ps(_mm_setzero_ps(), x));
  return _mm_div_ps(x, _mm_add_ps(_mm_set1_ps(1.0f), e));
}

enum class Isa { kSse2, kAvx2, kAvx512 };

// The widest instruction set this CPU runs, checked once.
Isa isa() {
  static const Isa best = [] {
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return Isa::kAvx512;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::kAvx2;
    return Isa::kSse2;
  }();
  return best;
}

void exp_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::exp_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::exp_f32(in, out, n);
  map4(in, out, n, [](__m128 x) { return Sleef_expf4_u10(x); });
}

// A row's maximum (NaN if it holds one) and the sum of exp(x - max) in order, each
// exponential stored to out[k] (softmax's and log_softmax's rows without AVX2); n > 0.
struct MaxAndSum {
  float max;
  float sum;
};
MaxAndSum max_and_exp_sum4(const float* in, float* out, std::int64_t n) {
  float max = in[0];
  for (std::int64_t k = 1; k < n; ++k) max = (in[k] > max || std::isnan(in[k])) ? in[k] : max;
  for (std::int64_t k = 0; k < n; ++k) out[k] = in[k] - max;
  map4(out, out, n, [](__m128 x) { return Sleef_expf4_u10(x); });
  float sum = 0;
  for (std::int64_t k = 0; k < n; ++k) sum += out[k];
  return {max, sum};
}

// SLEEF's 4-lane function for `f` (SLEEF declares them returning a const vector).
using Sleef4 = decltype(&Sleef_logf4_u10);
Sleef4 sleef_function4(FloatFunction f) {
  switch (f) {
    case FloatFunction::kLog:
      return Sleef_logf4_u10;
    case FloatFunction::kLog2:
      return Sleef_log2f4_u10;
    case FloatFunction::kLog10:
      return Sleef_log10f4_u10;
    case FloatFunction::kLog1p:
      return Sleef_log1pf4_u10;
    case FloatFunction::kExpm1:
      return Sleef_expm1f4_u10;
    case FloatFunction::kExp2:
      return Sleef_exp2f4_u10;
    case FloatFunction::kSin:
      return Sleef_sinf4_u10;
    case FloatFunction::kCos:
      return Sleef_cosf4_u10;
    case FloatFunction::kTan:
      return Sleef_tanf4_u10;
    case FloatFunction::kAsin:
      return Sleef_asinf4_u10;
    case FloatFunction::kAcos:
      return Sleef_acosf4_u10;
    case FloatFunction::kAtan:
      return Sleef_atanf4_u10;
    case FloatFunction::kSinh:
      return Sleef_sinhf4_u10;
    case FloatFunction::kCosh:
      return Sleef_coshf4_u10;
    case FloatFunction::kErf:
      return Sleef_erff4_u10;
    case FloatFunction::kSqrt:
    case FloatFunction::kRsqrt:
    case FloatFunction::kFloor:
    case FloatFunction::kCeil:
    case FloatFunction::kTrunc:
    case FloatFunction::kRound:
    case FloatFunction::kSquare:
      break;  // exact, not SLEEF: float_function_f32
    case FloatFunction::kErfc:
      return Sleef_erfcf4_u15;
  }
  return nullptr;  // not reached: every enumerator is handled
}

// The parametric activations on 4 lanes (SSE2 has no blend: and / andnot / or).
__m128 select4(__m128 mask, __m128 yes, __m128 no) {
  return _mm_or_ps(_mm_and_ps(mask, yes), _mm_andnot_ps(mask, no));
}
void leaky_relu_serial(const float* in, float* out, std::int64_t n, float slope) {
  if (isa() == Isa::kAvx512) return avx512::leaky_relu_f32(in, out, n, slope);
  if (isa() == Isa::kAvx2) return avx2::leaky_relu_f32(in, out, n, slope);
  const __m128 k = _mm_set1_ps(slope);
  map4(in, out, n,
       [k](__m128 x) { return select4(_mm_cmpgt_ps(x, _mm_setzero_ps()), x, _mm_mul_ps(x, k)); });
}
void elu_serial(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
                float negiptcoef) {
  if (isa() == Isa::kAvx512) return avx512::elu_f32(in, out, n, negcoef, poscoef, negiptcoef);
  if (isa() == Isa::kAvx2) return avx2::elu_f32(in, out, n, negcoef, poscoef, negiptcoef);
  const __m128 neg = _mm_set1_ps(negcoef), pos = _mm_set1_ps(poscoef),
               ipt = _mm_set1_ps(negiptcoef);
  map4(in, out, n, [=](__m128 x) {
    return select4(
        _mm_cmpgt_ps(x, _mm_setzero_ps()), _mm_mul_ps(x, pos),
        _mm_mul_ps(_mm_sub_ps(Sleef_expf4_u10(_mm_mul_ps(x, ipt)), _mm_set1_ps(1.0f)), neg));
  });
}
void pow_serial(const float* in, float* out, std::int64_t n, float exponent) {
  if (isa() == Isa::kAvx512) return avx512::pow_f32(in, out, n, exponent);
  if (isa() == Isa::kAvx2) return avx2::pow_f32(in, out, n, exponent);
  const __m128 e = _mm_set1_ps(exponent);
  map4(in, out, n, [e](__m128 x) { return Sleef_powf4_u10(x, e); });
}
void softplus_serial(const float* in, float* out, std::int64_t n, float beta, float threshold) {
  if (isa() == Isa::kAvx512) return avx512::softplus_f32(in, out, n, beta, threshold);
  if (isa() == Isa::kAvx2) return avx2::softplus_f32(in, out, n, beta, threshold);
  const __m128 b = _mm_set1_ps(beta), t = _mm_set1_ps(threshold);
  map4(in, out, n, [=](__m128 x) {
    const __m128 scaled = _mm_mul_ps(x, b);
    return select4(_mm_cmpgt_ps(scaled, t), x,
                   _mm_div_ps(Sleef_log1pf4_u10(Sleef_expf4_u10(scaled)), b));
  });
}
void log_sigmoid_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::log_sigmoid_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::log_sigmoid_f32(in, out, n);
  const __m128 sign_mask = _mm_set1_ps(-0.0f);
  map4(in, out, n, [sign_mask](__m128 x) {
    return _mm_sub_ps(_mm_min_ps(x, _mm_setzero_ps()),
                      Sleef_log1pf4_u10(Sleef_expf4_u10(_mm_or_ps(sign_mask, x))));
  });
}
void mish_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::mish_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::mish_f32(in, out, n);
  map4(in, out, n, [](__m128 x) {
    return _mm_mul_ps(x, Sleef_tanhf4_u10(Sleef_log1pf4_u10(Sleef_expf4_u10(x))));
  });
}

void divide_serial(const float* a, const float* b, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::divide_f32(a, b, out, n);
  if (isa() == Isa::kAvx2) return avx2::divide_f32(a, b, out, n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] / b[i];
}
void divide_serial(const float* a, float divisor, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::divide_f32(a, divisor, out, n);
  if (isa() == Isa::kAvx2) return avx2::divide_f32(a, divisor, out, n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = a[i] / divisor;
}
void float_function_serial(FloatFunction f, const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::float_function_f32(f, in, out, n);
  if (isa() == Isa::kAvx2) return avx2::float_function_f32(f, in, out, n);
  // SSE2 has no rounding instruction: the C library's, an element at a time.
  const auto each = [&](auto g) {
    for (std::int64_t i = 0; i < n; ++i) out[i] = g(in[i]);
  };
  switch (f) {
    case FloatFunction::kSqrt:
      return map4(in, out, n, [](__m128 x) { return _mm_sqrt_ps(x); });
    case FloatFunction::kRsqrt:
      return map4(in, out, n,
                  [](__m128 x) { return _mm_div_ps(_mm_set1_ps(1.0f), _mm_sqrt_ps(x)); });
    case FloatFunction::kFloor:
      return each([](float v) { return std::floor(v); });
    case FloatFunction::kCeil:
      return each([](float v) { return std::ceil(v); });
    case FloatFunction::kTrunc:
      return each([](float v) { return std::trunc(v); });
    case FloatFunction::kRound:
      return each([](float v) { return std::nearbyint(v); });
    case FloatFunction::kSquare:
      return map4(in, out, n, [](__m128 x) { return _mm_mul_ps(x, x); });
    default:
      return map4(in, out, n, sleef_function4(f));
  }
}
void clamp_serial(const float* in, float* out, std::int64_t n, float lo, float hi) {
  if (isa() == Isa::kAvx512) return avx512::clamp_f32(in, out, n, lo, hi);
  if (isa() == Isa::kAvx2) return avx2::clamp_f32(in, out, n, lo, hi);
  const __m128 l = _mm_set1_ps(lo), h = _mm_set1_ps(hi);
  map4(in, out, n, [=](__m128 x) { return _mm_min_ps(h, _mm_max_ps(l, x)); });
}

void sigmoid_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::sigmoid_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::sigmoid_f32(in, out, n);
  const __m128 one = _mm_set1_ps(1.0f);
  map4(in, out, n, [one](__m128 x) {
    __m128 e = Sleef_expf4_u10(_mm_sub_ps(_mm_setzero_ps(), x));
    return _mm_div_ps(one, _mm_add_ps(one, e));
  });
}

void silu_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::silu_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::silu_f32(in, out, n);
  map4(in, out, n, silu4);
}

void tanh_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::tanh_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::tanh_f32(in, out, n);
  map4(in, out, n, [](__m128 x) { return Sleef_tanhf4_u10(x); });
}

void hardswish_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::hardswish_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::hardswish_f32(in, out, n);
  map4(in, out, n, hardswish4);
}

void relu_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::relu_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::relu_f32(in, out, n);
  map4(in, out, n, relu4);
}

void relu6_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::relu6_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::relu6_f32(in, out, n);
  map4(in, out, n, relu6_4);
}

void hardsigmoid_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::hardsigmoid_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::hardsigmoid_f32(in, out, n);
  map4(in, out, n, hardsigmoid4);
}

// epilogue_rows_f32 with the activation `f`, 4 lanes at a time. The scale and shift are
// vectors: one channel's broadcast, or 4 interleaved channels' own.
template <typename F>
void epilogue4(const Rows& r, const float* bias, bool affine, __m128 s, __m128 t, F f) {
  const __m128 b = _mm_set1_ps(bias == nullptr ? 0.0f : *bias);
  for (std::int64_t row = 0; row < r.rows; ++row) {
    map4(r.in + row * r.in_pitch, r.out + row * r.out_pitch, r.cols, [&](__m128 x) {
      if (bias != nullptr) x = _mm_add_ps(x, b);
      if (affine) x = _mm_add_ps(_mm_mul_ps(x, s), t);
      return f(x);
    });
  }
}

// run(f) with the vector function of `activation` (the identity for none).
template <typename Run>
void with_activation(const Activation* activation, Run run) {
  if (activation == nullptr) return run([](__m128 x) { return x; });
  switch (*activation) {
    case Activation::kRelu:
      return run(relu4);
    case Activation::kRelu6:
      return run(relu6_4);
    case Activation::kHardswish:
      return run(hardswish4);
    case Activation::kHardsigmoid:
      return run(hardsigmoid4);
    case Activation::kSilu:
      return run(silu4);
  }
}

// Without AVX2 the same operations one element at a time (std::fma for the fused ones).
float from_bits(int pattern) { return std::bit_cast<float>(pattern); }

float exp_onednn(float x) {
  const bool underflow = x < from_bits(kExpLnFltMin);
  // Clamped as the vector builds' minps and maxps do: NaN takes the upper bound, where
  // std::min would keep it for the int conversion below (undefined for NaN).
  x = x < from_bits(kExpLnFltMax) ? x : from_bits(kExpLnFltMax);
  x = x > from_bits(kExpLnFltMin) ? x : from_bits(kExpLnFltMin);
  const float n = std::floor(x * from_bits(kExpLog2e) + 0.5f);
  const float r = std::fma(-n, from_bits(kExpLn2), x);
  const float scale = underflow ? 0.0f : std::ldexp(1.0f, static_cast<int>(n));
  float p = from_bits(kExpPoly[4]);
  for (int k = 3; k >= 0; --k) p = std::fma(p, r, from_bits(kExpPoly[k]));
  return std::fma(p, r, 1.0f) * scale;
}

float gelu_onednn(float s) {
  const float x = s * from_bits(kOneOverSqrt2);
  const float minus_e = -exp_onednn(-(x * x));
  const float t = 1.0f / std::fma(from_bits(kErfP), std::fabs(x), 1.0f);
  float r = from_bits(kErfPoly[4]);
  for (int k = 3; k >= 0; --k) r = std::fma(r, t, from_bits(kErfPoly[k]));
  const float erf = std::copysign(std::fma(minus_e * t, r, 1.0f), x);
  const float half_s = s * 0.5f;
  return std::fma(erf, half_s, half_s);
}

void gelu_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::gelu_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::gelu_f32(in, out, n);
  for (std::int64_t i = 0; i < n; ++i) out[i] = gelu_onednn(in[i]);
}

void gelu_tanh_f32_serial(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::gelu_tanh_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::gelu_tanh_f32(in, out, n);
  const auto beta = static_cast<float>(kGeluBeta);
  const auto kappa = static_cast<float>(kGeluKappa);
  for (std::int64_t i = 0; i < n; ++i) {
    const float x = in[i];
    const float inner = beta * std::fma(kappa, x * x * x, x);
    out[i] = 0.5f * x * (1.0f + Sleef_tanhf_u10(inner));
  }
}

void gelu_f64_serial(const double* in, double* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::gelu_f64(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::gelu_f64(in, out, n);
  for (std::int64_t i = 0; i < n; ++i) {
    out[i] = in[i] * 0.5 * (1.0 + Sleef_erf_u10(in[i] * kSqrtHalf));
  }
}

void gelu_tanh_f64_serial(const double* in, double* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::gelu_tanh_f64(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::gelu_tanh_f64(in, out, n);
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = in[i];
    const double inner = kGeluBeta * std::fma(kGeluKappa, x * x * x, x);
    out[i] = 0.5 * x * (1.0 + Sleef_tanh_u10(inner));
  }
}

// Elements are independent, so the array is split across threads with the same result at
// any thread count. 8192: a SiLU of EfficientNet's 14x14 and 7x7 layers (exp per element)
// splits; with 32768 the model ran 5 % slower at two threads.
constexpr std::int64_t kElementsPerThread = 8192;

// f(begin, count) over ranges of [0, n), split across threads.
template <typename F>
void split_range(std::int64_t n, F f) {
  parallel_for(n, kElementsPerThread,
               [&](std::int64_t begin, std::int64_t end) { f(begin, end - begin); });
}

template <typename T>
void split(const T* in, T* out, std::int64_t n, void (*serial)(const T*, T*, std::int64_t)) {
  split_range(n, [&](std::int64_t at, std::int64_t count) { serial(in + at, out + at, count); });
}

}  // namespace

void exp_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, exp_f32_serial); }
void leaky_relu_f32(const float* in, float* out, std::int64_t n, float slope) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    leaky_relu_serial(in + at, out + at, count, slope);
  });
}
void elu_f32(const float* in, float* out, std::int64_t n, float negcoef, float poscoef,
             float negiptcoef) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    elu_serial(in + at, out + at, count, negcoef, poscoef, negiptcoef);
  });
}
void pow_f32(const float* in, float* out, std::int64_t n, float exponent) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    pow_serial(in + at, out + at, count, exponent);
  });
}
void softplus_f32(const float* in, float* out, std::int64_t n, float beta, float threshold) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    softplus_serial(in + at, out + at, count, beta, threshold);
  });
}
void mish_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, mish_serial); }
void log_sigmoid_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, log_sigmoid_serial);
}
void divide_f32(const float* a, const float* b, float* out, std::int64_t n) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    divide_serial(a + at, b + at, out + at, count);
  });
}
void divide_f32(const float* a, float divisor, float* out, std::int64_t n) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    divide_serial(a + at, divisor, out + at, count);
  });
}
void float_function_f32(FloatFunction f, const float* in, float* out, std::int64_t n) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    float_function_serial(f, in + at, out + at, count);
  });
}
void clamp_f32(const float* in, float* out, std::int64_t n, float lo, float hi) {
  split_range(n, [&](std::int64_t at, std::int64_t count) {
    clamp_serial(in + at, out + at, count, lo, hi);
  });
}
void sigmoid_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, sigmoid_f32_serial);
}
void silu_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, silu_f32_serial); }
void tanh_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, tanh_f32_serial); }
void hardswish_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, hardswish_f32_serial);
}
void epilogue_rows_f32(const Rows& rows, const float* bias, const float* scale, const float* shift,
                       const Activation* activation) {
  if (isa() == Isa::kAvx512) return avx512::epilogue_rows_f32(rows, bias, scale, shift, activation);
  if (isa() == Isa::kAvx2) return avx2::epilogue_rows_f32(rows, bias, scale, shift, activation);
  const __m128 s = _mm_set1_ps(scale == nullptr ? 1.0f : *scale);
  const __m128 t = _mm_set1_ps(shift == nullptr ? 0.0f : *shift);
  with_activation(activation, [&](auto f) { epilogue4(rows, bias, scale != nullptr, s, t, f); });
}
void epilogue_f32(float* p, std::int64_t n, const float* bias, const float* scale,
                  const float* shift, const Activation* activation) {
  epilogue_rows_f32({p, n, p, n, 1, n}, bias, scale, shift, activation);
}
void epilogue_planes_f32(float* p, std::int64_t rows, std::int64_t cols, const float* bias,
                         const float* scale, const float* shift, const Activation* activation) {
  if (isa() == Isa::kAvx512 && cols >= 16) {
    return avx512::epilogue_planes_f32(p, rows, cols, bias, scale, shift, activation);
  }
  for (std::int64_t r = 0; r < rows; ++r) {
    epilogue_f32(p + r * cols, cols, bias == nullptr ? nullptr : bias + r,
                 scale == nullptr ? nullptr : scale + r, shift == nullptr ? nullptr : shift + r,
                 activation);
  }
}
void scale_rows_f32(const float* in, const float* scales, float* out, std::int64_t rows,
                    std::int64_t cols) {
  // Whole rows to a thread, as many as make kElementsPerThread.
  const std::int64_t grain =
      std::max<std::int64_t>(1, kElementsPerThread / std::max<std::int64_t>(1, cols));
  parallel_for(rows, grain, [&](std::int64_t begin, std::int64_t end) {
    const float* x = in + begin * cols;
    float* y = out + begin * cols;
    if (isa() == Isa::kAvx512)
      return avx512::scale_rows_f32(x, scales + begin, y, end - begin, cols);
    if (isa() == Isa::kAvx2) return avx2::scale_rows_f32(x, scales + begin, y, end - begin, cols);
    for (std::int64_t r = 0; r < end - begin; ++r) {
      const __m128 s = _mm_set1_ps(scales[begin + r]);
      map4(x + r * cols, y + r * cols, cols, [&](__m128 v) { return _mm_mul_ps(v, s); });
    }
  });
}
std::int64_t lanes_f32() { return isa() == Isa::kAvx512 ? 16 : isa() == Isa::kAvx2 ? 8 : 4; }
void epilogue_interleaved_f32(float* p, std::int64_t n, const float* scale, const float* shift,
                              const Activation* activation) {
  if (isa() == Isa::kAvx512) {
    return avx512::epilogue_interleaved_f32(p, n, scale, shift, activation);
  }
  if (isa() == Isa::kAvx2) return avx2::epilogue_interleaved_f32(p, n, scale, shift, activation);
  const __m128 s = scale == nullptr ? _mm_set1_ps(1.0f) : _mm_loadu_ps(scale);
  const __m128 t = shift == nullptr ? _mm_setzero_ps() : _mm_loadu_ps(shift);
  with_activation(activation, [&](auto f) {
    epilogue4({p, n, p, n, 1, n}, nullptr, scale != nullptr, s, t, f);
  });
}
void relu_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, relu_f32_serial); }
void relu6_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, relu6_f32_serial); }
void hardsigmoid_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, hardsigmoid_f32_serial);
}
void gelu_f32(const float* in, float* out, std::int64_t n) { split(in, out, n, gelu_f32_serial); }
void softmax_row_f32(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::softmax_row_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::softmax_row_f32(in, out, n);
  if (n <= 0) return;
  const MaxAndSum row = max_and_exp_sum4(in, out, n);
  const float inv = 1.0f / row.sum;
  for (std::int64_t k = 0; k < n; ++k) out[k] *= inv;
}
void log_softmax_row_f32(const float* in, float* out, std::int64_t n) {
  if (isa() == Isa::kAvx512) return avx512::log_softmax_row_f32(in, out, n);
  if (isa() == Isa::kAvx2) return avx2::log_softmax_row_f32(in, out, n);
  if (n <= 0) return;
  const MaxAndSum row = max_and_exp_sum4(in, out, n);
  const float log_sum = Sleef_logf_u10(row.sum);
  for (std::int64_t k = 0; k < n; ++k) out[k] = in[k] - row.max - log_sum;
}
void gelu_tanh_f32(const float* in, float* out, std::int64_t n) {
  split(in, out, n, gelu_tanh_f32_serial);
}
void gelu_f64(const double* in, double* out, std::int64_t n) { split(in, out, n, gelu_f64_serial); }
void gelu_tanh_f64(const double* in, double* out, std::int64_t n) {
  split(in, out, n, gelu_tanh_f64_serial);
}

}  // namespace symbolite::ops::vec
