// The instruction-set builds of vector_math.h's softmax row (vector_math_isa.h), each on its
// own: the dispatcher picks only the widest one this CPU has, so the nn reference cases reach
// that one alone. Each is held to PyTorch 1.13's outputs for the softmax_rows_* cases of
// tests/fixtures/ops/nn_cases.json (make_nn_refs.py): long rows with a tail, rows shorter
// than a vector, and rows with NaN and infinities.
#include "symbolite/ops/cpu/vector_math.h"

#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace symbolite::ops::vec
