// Elementwise kernels against PyTorch 1.13 (tests/fixtures/ops/op_cases.json), plus the
// in-place semantics the reference cases cannot show: writes through views, and
// copy-on-write for read-only (mapped) storages.
#include <cstring>
#include <memory>

#include <gtest/gtest.h>

#include "symbolite/ops/common/tensor_loops.h"
#include "symbolite/ops/registry/kernel_runner.h"
#include "tests/test_support/op_cases.h"

namespace symbolite::ops {
namespace {

using tensor::DType;
using tensor::Tensor;

using testing::arange;

TEST(ElementwiseOps, MatchPyTorch) { testing::run_op_cases("elementwise", 1e-5, 1e-6); }

// GELU on a dense grid of [-10, 10], both forms, contiguous and strided: within one ulp of
// PyTorch (2^-23 and 2^-52 relative), where a libm erf instead of PyTorch's float32 erf
// polynomial is off by thousands of ulps for negative x.
TEST(ElementwiseOps, GeluWithinAnUlpOfPyTorch) {
  testing::run_op_cases("gelu_f32", 0x1p-23, 0);
  testing::run_op_cases("gelu_f64", 0x1p-52, 0);
}

TEST(ElementwiseOps, InPlaceWritesIntoSelfAndItsBase) {
  Tensor base = run_op("aten::view", {arange(6), IValue::list({2, 3})}).to_tensor();
  IValue row = run_op("aten::select.int", {base, 0, 1});
  IValue out = run_op("aten::add_.Scalar", {row, 10});
  EXPECT_EQ(out.to_tensor().storage().data(), base.storage().data());
  const float* p = base.data<float>();
  EXPECT_EQ(p[0], 0.0f);
  EXPECT_EQ(p[3], 13.0f);
  EXPECT_EQ(p[5], 15.0f);
}

TEST(ElementwiseOps, InPlaceReturnsTheSameValue) {
  IValue self(arange(3));
  Stack s{self};
  default_registry().find("aten::relu_")->kernel(s);
  ASSERT_EQ(s.size(), 1u);
  EXPECT_EQ(&s[0].to_tensor(), &self.to_tensor());
}

TEST(ElementwiseOps, InPlaceOnReadOnlyStorageCopies) {
  std::vector<std::uint8_t> bytes(3 * sizeof(float));
  float init[3] = {-1.0f, 2.0f, -3.0f};
  std::memcpy(bytes.data(), init, sizeof init);
  auto owner = std::make_shared<std::vector<std::uint8_t>>(bytes);
  Bytes view(owner, owner->data(), owner->size());
  Tensor param = Tensor::from_storage(tensor::Storage::view(view), DType::kFloat32, {3}, {1}, 0);
  Tensor out = run_op("aten::relu_", {param}).to_tensor();
  EXPECT_NE(out.storage().data(), param.storage().data());
  EXPECT_EQ(out.data<float>()[0], 0.0f);
  EXPECT_EQ(out.data<float>()[1], 2.0f);
  EXPECT_EQ(param.data<float>()[0], -1.0f);  // the mapped bytes are untouched
}

TEST(ElementwiseOps, DefaultsApply) {
  Tensor out = run_op("aten::hardtanh", {arange(4)}).to_tensor();
  EXPECT_EQ(out.data<float>()[3], 1.0f);
  out = run_op("aten::add.Tensor", {arange(2), arange(2)}).to_tensor();
  EXPECT_EQ(out.data<float>()[1], 2.0f);
}

}  // namespace
}  // namespace symbolite::ops
