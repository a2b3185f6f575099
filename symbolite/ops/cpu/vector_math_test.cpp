// The instruction-set builds of vector_math.h (vector_math_isa.h), each on its own: the
// dispatcher picks only the widest one this CPU has, so the model and nn reference cases
// reach that one alone. The softmax row is held to PyTorch 1.13's outputs for the
// softmax_rows_* cases of tests/fixtures/ops/nn_cases.json (make_nn_refs.py): long rows with a
// tail, rows shorter than a vector, and rows with NaN and infinities. The convolution
// epilogue's interleaved and row-moving forms are held to the plane epilogue's bits (which the
// fused models' tests hold to PyTorch's outputs), and its scale and shift to batch norm's.
#include "symbolite/ops/cpu/vector_math.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "symbolite/ops/cpu/scale_shift.h"
#include "symbolite/ops/cpu/vector_math_isa.h"
#include "symbolite/tensor/npy.h"
#include "tests/test_support/fixtures.h"

namespace symbolite::ops::vec {
namespace {

using RowKernel = void (*)(const float*, float*, std::int64_t);

std::vector<float> floats(const std::string& file) {
  tensor::Tensor t = tensor::read_npy_file(testing::fixture_path("ops/nn/" + file)).contiguous();
  const float* p = t.data<float>();
  return {p, p + t.numel()};
}

// Runs `kernel` on every row of the case's input (rows of its last dimension), into a new
// array, and compares
// with PyTorch's output: NaN where PyTorch has NaN, else within 1e-6 relative.
void expect_rows_of(const std::string& name, std::int64_t len, RowKernel kernel) {
  SCOPED_TRACE(name);
  const std::vector<float> in = floats(name + "_0.npy");
  const std::vector<float> want = floats(name + "_out.npy");
  ASSERT_EQ(in.size(), want.size());
  ASSERT_EQ(in.size() % static_cast<std::size_t>(len), 0u);
  std::vector<float> x(in.size());
  for (std::size_t row = 0; row < x.size(); row += static_cast<std::size_t>(len)) {
    kernel(in.data() + row, x.data() + row, len);
  }
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(x[i])) << "element " << i;
    } else {
      EXPECT_NEAR(x[i], want[i], 1e-6f * std::abs(want[i]) + 1e-9f) << "element " << i;
    }
  }
}

void expect_pytorch_softmax(RowKernel kernel) {
  expect_rows_of("softmax_rows_long", 197, kernel);
  expect_rows_of("softmax_rows_short", 7, kernel);
  expect_rows_of("softmax_rows_special", 37, kernel);
}

TEST(VectorMath, SoftmaxRowIsPyTorchsOnEveryInstructionSet) {
  expect_pytorch_softmax(&softmax_row_f32);  // the dispatcher (the baseline without AVX2)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    expect_pytorch_softmax(&avx2::softmax_row_f32);
  }
  if (__builtin_cpu_supports("avx512f")) expect_pytorch_softmax(&avx512::softmax_row_f32);
}

// log_softmax of every row of the softmax cases' inputs against its definition summed in
// double, x - max - log(sum(exp(x - max))): NaN and infinities where it has them, else within
// 2e-6 of it (the float sum and log round; |x - max| reaches 40 in the long rows).
void expect_log_softmax_definition(RowKernel kernel) {
  for (const auto& [name, len] : {std::pair<std::string, std::int64_t>{"softmax_rows_long", 197},
                                  {"softmax_rows_short", 7},
                                  {"softmax_rows_special", 37}}) {
    SCOPED_TRACE(name);
    const std::vector<float> in = floats(name + "_0.npy");
    std::vector<float> got(in.size());
    for (std::size_t row = 0; row < in.size(); row += static_cast<std::size_t>(len)) {
      const float* x = in.data() + row;
      kernel(x, got.data() + row, len);
      double max = -std::numeric_limits<double>::infinity();
      for (std::int64_t k = 0; k < len; ++k) {
        if (x[k] > max || std::isnan(x[k])) max = x[k];
      }
      double sum = 0;
      for (std::int64_t k = 0; k < len; ++k) sum += std::exp(x[k] - max);
      for (std::int64_t k = 0; k < len; ++k) {
        const double want = x[k] - max - std::log(sum);
        const float have = got[row + static_cast<std::size_t>(k)];
        if (std::isnan(want) || std::isinf(want)) {
          EXPECT_EQ(std::isnan(have), std::isnan(want)) << "row " << row << " element " << k;
          if (std::isinf(want)) {
            EXPECT_EQ(have, want) << "row " << row << " element " << k;
          }
        } else {
          EXPECT_NEAR(have, want, 2e-6 * (1.0 + std::abs(want)))
              << "row " << row << " element " << k;
        }
      }
    }
  }
}

TEST(VectorMath, LogSoftmaxRowIsItsDefinitionOnEveryInstructionSet) {
  expect_log_softmax_definition(&log_softmax_row_f32);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    expect_log_softmax_definition(&avx2::log_softmax_row_f32);
  }
  if (__builtin_cpu_supports("avx512f")) {
    expect_log_softmax_definition(&avx512::log_softmax_row_f32);
  }
}

// Special and ordinary floats, for the element-by-element functions below: zeros of both
// signs, NaN, infinities, the clamp bounds themselves, and a run past a vector's tail.
std::vector<float> specials() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f, -0.0f, std::nanf(""), kInf, -kInf, -2.0f, 2.0f, 1e-30f, -1e-30f};
  for (int i = 0; i < 61; ++i) v.push_back(static_cast<float>(i - 30) * 0.37f);
  return v;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// IEEE operations in vectors give the scalar loop's bits on every instruction set: division,
// sqrt and 1 / sqrt, clamp (NaN and -0.0 kept as std::max and std::min keep them), and
// leaky_relu (one multiply).
TEST(VectorMath, ExactFunctionsAreTheScalarLoopsBitsOnEveryInstructionSet) {
  struct Isa {
    const char* name;
    void (*divide)(const float*, float, float*, std::int64_t);
    void (*function)(FloatFunction, const float*, float*, std::int64_t);
    void (*clamp)(const float*, float*, std::int64_t, float, float);
    void (*leaky)(const float*, float*, std::int64_t, float);
  };
  std::vector<Isa> isas = {
      {"dispatcher", &divide_f32, &float_function_f32, &clamp_f32, &leaky_relu_f32}};
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    isas.push_back({"avx2", &avx2::divide_f32, &avx2::float_function_f32, &avx2::clamp_f32,
                    &avx2::leaky_relu_f32});
  }
  if (__builtin_cpu_supports("avx512f")) {
    isas.push_back({"avx512", &avx512::divide_f32, &avx512::float_function_f32, &avx512::clamp_f32,
                    &avx512::leaky_relu_f32});
  }
  const std::vector<float> x = specials();
  const auto n = static_cast<std::int64_t>(x.size());
  for (const Isa& isa : isas) {
    SCOPED_TRACE(isa.name);
    std::vector<float> out(x.size());
    isa.divide(x.data(), 3.0f, out.data(), n);
    for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(same_bits(out[i], x[i] / 3.0f)) << i;
    isa.function(FloatFunction::kSqrt, x.data(), out.data(), n);
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(same_bits(out[i], std::sqrt(x[i]))) << i;
    }
    isa.function(FloatFunction::kRsqrt, x.data(), out.data(), n);
    for (std::size_t i = 0; i < x.size(); ++i) {
      EXPECT_TRUE(same_bits(out[i], 1.0f / std::sqrt(x[i]))) << i;
    }
    for (const auto& [lo, hi] : {std::pair{0.0f, 6.0f}, std::pair{-2.0f, 2.0f},
                                 std::pair{-0.0f, 0.0f}, std::pair{3.0f, -3.0f}}) {
      isa.clamp(x.data(), out.data(), n, lo, hi);
      for (std::size_t i = 0; i < x.size(); ++i) {
        const float want = std::isnan(x[i]) ? x[i] : std::min(std::max(x[i], lo), hi);
        EXPECT_TRUE(same_bits(out[i], want)) << i << " in [" << lo << ", " << hi << "]";
      }
    }
    isa.leaky(x.data(), out.data(), n, 0.01f);
    for (std::size_t i = 0; i < x.size(); ++i) {
      const float want = x[i] > 0 ? x[i] : x[i] * 0.01f;
      EXPECT_TRUE(same_bits(out[i], want) || (std::isnan(out[i]) && std::isnan(want))) << i;
    }
  }
}

// The distance in ulps between two finite floats of any sign.
std::int64_t ulps(float a, float b) {
  auto ordered = [](float f) {
    std::int32_t i = 0;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? -static_cast<std::int64_t>(i & 0x7fffffff) : static_cast<std::int64_t>(i);
  };
  return std::llabs(ordered(a) - ordered(b));
}

// SiLU's inline exp (vector_math.h, kSiluMinX): on a million floats spread over every
// exponent, within 2 ulp of x / (1 + e^-x) in double (as SLEEF's exp is) wherever the
// result is a normal float, and the same bits on the AVX2 and AVX-512 builds; at the edges,
// PyTorch's values: silu(-inf) and silu(NaN) are NaN, e^-x overflows below -88.72 (a
// result of -0.0) and vanishes next to 1 for large x.
TEST(VectorMath, SiluIsWithinTwoUlpsAndTheSameOnEveryInstructionSet) {
  __builtin_cpu_init();
  std::vector<RowKernel> builds;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    builds.push_back(&avx2::silu_f32);
  }
  if (__builtin_cpu_supports("avx512f")) builds.push_back(&avx512::silu_f32);
  if (builds.empty()) GTEST_SKIP() << "no AVX2 or AVX-512: SiLU is SLEEF's";
  std::vector<float> x;
  for (std::uint64_t pattern = 0; pattern <= 0xffffffffu; pattern += 4099) {
    const auto bits32 = static_cast<std::uint32_t>(pattern);
    float f = 0;
    std::memcpy(&f, &bits32, sizeof f);
    if (!std::isnan(f)) x.push_back(f);
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (float f : {inf, -inf, std::numeric_limits<float>::quiet_NaN(), -0.0f, -88.8f, -88.7f, -89.0f,
                  -100.0f, 86.6f, 87.0f, 100.0f, 1e-30f}) {
    x.push_back(f);
  }
  std::vector<float> first(x.size());
  builds[0](x.data(), first.data(), static_cast<std::int64_t>(x.size()));
  for (RowKernel build : builds) {
    std::vector<float> got(x.size());
    build(x.data(), got.data(), static_cast<std::int64_t>(x.size()));
    ASSERT_EQ(std::memcmp(got.data(), first.data(), got.size() * sizeof(float)), 0);
  }
  int checked = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = x[i];
    const auto exact = static_cast<float>(v / (1.0 + std::exp(-v)));
    if (!std::isfinite(v) || v < -88.72 || std::fabs(exact) < std::numeric_limits<float>::min()) {
      continue;
    }
    ASSERT_LE(ulps(first[i], exact), 2) << "silu(" << x[i] << ") = " << first[i];
    ++checked;
  }
  EXPECT_GT(checked, 500000);
  auto silu = [&](float v) {
    float out = 0;
    builds[0](&v, &out, 1);
    return out;
  };
  EXPECT_EQ(silu(inf), inf);
  EXPECT_TRUE(std::isnan(silu(-inf)));
  EXPECT_TRUE(std::isnan(silu(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(std::signbit(silu(-0.0f)) && silu(-0.0f) == 0.0f);
  EXPECT_TRUE(std::signbit(silu(-88.8f)) && silu(-88.8f) == 0.0f);
  EXPECT_EQ(silu(100.0f), 100.0f);
}

// One instruction set's epilogue entry points.
struct EpilogueKernels {
  std::int64_t lanes;
  void (*rows)(const Rows&, const float*, const float*, const float*, const Activation*);
  void (*interleaved)(float*, std::int64_t, const float*, const float*, const Activation*);
};

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// Every activation, with and without a scale and shift, on `lanes` channels of 13 pixels
// spanning the activations' kinks, with NaN, infinities and -0.0: the interleaved form and the
// row-moving form give the plane epilogue's bits.
void expect_epilogue_forms_agree(const EpilogueKernels& k) {
  SCOPED_TRACE(k.lanes);
  constexpr std::int64_t kPixels = 13;
  const auto lanes = static_cast<std::size_t>(k.lanes);
  std::vector<float> planes(lanes * kPixels);
  for (std::size_t i = 0; i < planes.size(); ++i) {
    planes[i] = static_cast<float>(static_cast<int>(i * 7 % 29) - 14) * 0.37f;
  }
  planes[3] = std::numeric_limits<float>::quiet_NaN();
  planes[kPixels + 2] = std::numeric_limits<float>::infinity();
  planes[2 * kPixels + 5] = -std::numeric_limits<float>::infinity();
  planes[3 * kPixels + 1] = -0.0f;
  std::vector<float> scale(lanes), shift(lanes);
  for (std::size_t c = 0; c < lanes; ++c) {
    scale[c] = 0.5f + 0.13f * static_cast<float>(c);
    shift[c] = -1.1f + 0.29f * static_cast<float>(c);
  }
  const std::optional<Activation> activations[] = {
      std::nullopt,           Activation::kRelu,        Activation::kRelu6,
      Activation::kHardswish, Activation::kHardsigmoid, Activation::kSilu};
  for (const auto& activation : activations) {
    for (const bool affine : {false, true}) {
      SCOPED_TRACE(activation ? static_cast<int>(*activation) : -1);
      SCOPED_TRACE(affine);
      const Activation* act = activation ? &*activation : nullptr;
      // The reference: each channel's plane in place.
      std::vector<float> want = planes;
      for (std::size_t c = 0; c < lanes; ++c) {
        float* p = want.data() + c * kPixels;
        k.rows({p, kPixels, p, kPixels, 1, kPixels}, nullptr, affine ? &scale[c] : nullptr,
               affine ? &shift[c] : nullptr, act);
      }
      // Interleaved: pixel-major, one lane a channel.
      std::vector<float> lanes_of(planes.size());
      for (std::size_t c = 0; c < lanes; ++c) {
        for (std::size_t x = 0; x < kPixels; ++x) lanes_of[x * lanes + c] = planes[c * kPixels + x];
      }
      k.interleaved(lanes_of.data(), static_cast<std::int64_t>(lanes_of.size()),
                    affine ? scale.data() : nullptr, affine ? shift.data() : nullptr, act);
      std::vector<float> got(planes.size());
      for (std::size_t c = 0; c < lanes; ++c) {
        for (std::size_t x = 0; x < kPixels; ++x) got[c * kPixels + x] = lanes_of[x * lanes + c];
      }
      EXPECT_TRUE(same_bits(got, want));
      // Moved: each plane as 13 rows of one pixel at a pitch of 3 (two slack floats a row)
      // into rows of one.
      std::vector<float> moved(planes.size());
      for (std::size_t c = 0; c < lanes; ++c) {
        std::vector<float> wide(3 * kPixels, 99.0f);
        for (std::size_t x = 0; x < kPixels; ++x) wide[3 * x] = planes[c * kPixels + x];
        k.rows({wide.data(), 3, moved.data() + c * kPixels, 1, kPixels, 1}, nullptr,
               affine ? &scale[c] : nullptr, affine ? &shift[c] : nullptr, act);
      }
      EXPECT_TRUE(same_bits(moved, want));
    }
  }
}

TEST(VectorMath, EpilogueFormsGiveThePlaneEpiloguesBitsOnEveryInstructionSet) {
  expect_epilogue_forms_agree({lanes_f32(), &epilogue_rows_f32, &epilogue_interleaved_f32});
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    expect_epilogue_forms_agree({8, &avx2::epilogue_rows_f32, &avx2::epilogue_interleaved_f32});
  }
  if (__builtin_cpu_supports("avx512f")) {
    expect_epilogue_forms_agree(
        {16, &avx512::epilogue_rows_f32, &avx512::epilogue_interleaved_f32});
  }
}

// The block form (a vector may straddle two rows, each lane with its own row's bias, scale
// and shift) against a call per row, bit for bit: rows of 16 to 196 floats (whole vectors,
// a lane over, 7x7 and 14x14 planes, either side of the block form's limit), every
// activation, with NaN, infinities and -0.0.
void expect_planes_agree(void (*planes_kernel)(float*, std::int64_t, std::int64_t, const float*,
                                               const float*, const float*, const Activation*),
                         void (*rows_kernel)(const Rows&, const float*, const float*, const float*,
                                             const Activation*)) {
  const std::optional<Activation> activations[] = {
      std::nullopt,           Activation::kRelu,        Activation::kRelu6,
      Activation::kHardswish, Activation::kHardsigmoid, Activation::kSilu};
  for (const std::int64_t cols : {16, 17, 31, 32, 49, 50, 79, 80, 81, 196}) {
    for (const std::int64_t rows : {1, 3, 7}) {
      const auto n = static_cast<std::size_t>(rows * cols);
      std::vector<float> block(n);
      for (std::size_t i = 0; i < n; ++i) {
        block[i] = static_cast<float>(static_cast<int>(i * 7 % 29) - 14) * 0.37f;
      }
      block[3] = std::numeric_limits<float>::quiet_NaN();
      block[n - 1] = std::numeric_limits<float>::infinity();
      block[n / 2] = -0.0f;
      std::vector<float> bias(static_cast<std::size_t>(rows)), scale(bias.size()),
          shift(bias.size());
      for (std::size_t r = 0; r < bias.size(); ++r) {
        bias[r] = 0.3f - 0.2f * static_cast<float>(r);
        scale[r] = 0.5f + 0.13f * static_cast<float>(r);
        shift[r] = -1.1f + 0.29f * static_cast<float>(r);
      }
      for (const auto& activation : activations) {
        for (const bool with_bias : {false, true}) {
          for (const bool affine : {false, true}) {
            SCOPED_TRACE(::testing::Message() << cols << "x" << rows << " activation "
                                              << (activation ? static_cast<int>(*activation) : -1)
                                              << " bias " << with_bias << " affine " << affine);
            const Activation* act = activation ? &*activation : nullptr;
            std::vector<float> want = block;
            for (std::int64_t r = 0; r < rows; ++r) {
              float* p = want.data() + r * cols;
              const auto i = static_cast<std::size_t>(r);
              rows_kernel({p, cols, p, cols, 1, cols}, with_bias ? &bias[i] : nullptr,
                          affine ? &scale[i] : nullptr, affine ? &shift[i] : nullptr, act);
            }
            std::vector<float> got = block;
            planes_kernel(got.data(), rows, cols, with_bias ? bias.data() : nullptr,
                          affine ? scale.data() : nullptr, affine ? shift.data() : nullptr, act);
            EXPECT_TRUE(same_bits(got, want));
          }
        }
      }
    }
  }
}

TEST(VectorMath, EpiloguePlanesGiveTheRowEpiloguesBits) {
  expect_planes_agree(&epilogue_planes_f32, &epilogue_rows_f32);
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) {
    expect_planes_agree(&avx512::epilogue_planes_f32, &avx512::epilogue_rows_f32);
  }
}

// A convolution's fused batch norm (the epilogue's scale and shift) and batch norm run on its
// own (scale_shift.h) round x * scale + shift alike on this CPU: once (an FMA) with AVX2 or
// AVX-512, twice without. scripts/isa_paths.sh runs this on the narrower CPUs, where the two
// once differed. Runs of 1 to 40 floats: whole vectors and every tail.
TEST(VectorMath, EpilogueScalesAndShiftsAsBatchNormDoes) {
  const float scale = 0.7310586f;
  const float shift = -0.1234567f;
  for (std::int64_t n = 1; n <= 40; ++n) {
    SCOPED_TRACE(n);
    std::vector<float> x(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = 3.0f * std::sin(0.37f * static_cast<float>(i));
    }
    std::vector<float> fused = x;
    epilogue_f32(fused.data(), n, nullptr, &scale, &shift, nullptr);
    std::vector<float> unfused(x.size());
    scale_shift_f32(x.data(), unfused.data(), n, scale, shift);
    EXPECT_TRUE(same_bits(fused, unfused));
  }
}

// GELU of NaN, the infinities and far-out values as PyTorch 1.13 gives them (oneDNN's: gelu(-inf)
// is NaN), on the path this CPU takes; scripts/isa_paths.sh runs the baseline one, whose clamp
// once kept a NaN for its exponent's int conversion (undefined).
TEST(VectorMath, GeluOfNanAndInfinitiesIsPyTorchs) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> x = {nan, inf, -inf, 1e30F, -1e30F, 100.0F, -100.0F};
  const std::vector<float> want = {nan, inf, nan, 1e30F, 0.0F, 100.0F, 0.0F};
  std::vector<float> in, got(x.size() * 3);
  for (int copy = 0; copy < 3; ++copy) in.insert(in.end(), x.begin(), x.end());  // lanes, tail
  gelu_f32(in.data(), got.data(), static_cast<std::int64_t>(in.size()));
  for (std::size_t i = 0; i < got.size(); ++i) {
    const float w = want[i % want.size()];
    if (std::isnan(w)) {
      EXPECT_TRUE(std::isnan(got[i])) << "gelu(" << in[i] << ") = " << got[i];
    } else {
      EXPECT_EQ(got[i], w) << "gelu(" << in[i] << ")";
    }
  }
}

}  // namespace
}  // namespace symbolite::ops::vec
