// Math kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json), plus what the
// reference cases cannot show: clamp_ writes into self and through a view into its base, and
// copies a read-only (mapped) tensor instead.
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/error_from.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

using testing::arange;

TEST(MathOps, MatchPyTorch) { testing::run_op_cases("math", 1e-5, 1e-6); }

// clamp's bounds become the dtype's values as PyTorch's Scalar::to does, with c10's check: an
// int outside int8, a float beyond float32 fail. (An int bound also went through an unchecked
// cast of its double, undefined for int64's max, rounded up to 2^63.)
TEST(MathOps, ClampBoundsOutsideTheDtypeFail) {
  const Tensor bytes = to_dtype(arange(3), DType::kInt8);
  auto error = [](const Tensor& x, IValue lo, IValue hi) {
    const Error e = testing::error_from([&] { run_op("aten::clamp", {x, lo, hi}); });
    EXPECT_EQ(e.kind(), ErrorKind::kModel);
    return e.message();
  };
  EXPECT_EQ(error(bytes, std::int64_t{1000}, IValue()),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error(bytes, IValue(), std::int64_t{-1000}),
            "value cannot be converted to type int8_t without overflow");
  EXPECT_EQ(error(arange(2), 1e300, IValue()),
            "value cannot be converted to type float without overflow");
  const std::int64_t top = std::numeric_limits<std::int64_t>::max();
  const Tensor longs =
      run_op("aten::clamp", {to_dtype(arange(2), DType::kInt64), top, IValue()}).to_tensor();
  EXPECT_EQ(longs.data<std::int64_t>()[0], top);
  EXPECT_EQ(longs.data<std::int64_t>()[1], top);
  const Tensor same =
      run_op("aten::clamp", {arange(2), IValue(), std::numeric_limits<double>::quiet_NaN()})
          .to_tensor();
  EXPECT_EQ(same.data<float>()[1], 1.0f);
}

TEST(MathOps, ClampInPlaceWritesThroughAView) {
  Tensor base = run_op("aten::view", {arange(6), IValue::list({2, 3})}).to_tensor();
  IValue row = run_op("aten::select.int", {base, 0, 1});
  Stack s{row, IValue(3.5), IValue(4.5)};
  default_registry().find("aten::clamp_")->kernel(s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(&s[0].to_tensor(), &row.to_tensor());  // the same value, written into
  const float* p = base.data<float>();
  EXPECT_EQ(p[2], 2.0f);
  EXPECT_EQ(p[3], 3.5f);
  EXPECT_EQ(p[5], 4.5f);
}

TEST(MathOps, ClampInPlaceOnReadOnlyStorageCopies) {
  float init[3] = {-1.0f, 2.0f, -3.0f};
  auto owner = std::make_shared<std::vector<std::uint8_t>>(sizeof init);
  std::memcpy(owner->data(), init, sizeof init);
  Bytes view(owner, owner->data(), owner->size());
  Tensor param = Tensor::from_storage(tensor::Storage::view(view), DType::kFloat32, {3}, {1}, 0);
  Tensor out = run_op("aten::clamp_", {param, IValue(0.0)}).to_tensor();
  EXPECT_NE(out.storage().data(), param.storage().data());
  EXPECT_EQ(out.data<float>()[0], 0.0f);
  EXPECT_EQ(param.data<float>()[0], -1.0f);
}

}  // namespace
}  // namespace symbolite::ops
